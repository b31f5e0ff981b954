"""User text is printed inert in every format (issue 14 items 4 and 5).

A header value carrying ESC sequences, a project directory whose name holds a
newline and a workflow command, and one whose name is not UTF-8: no output may
carry a raw control character, start a line the audited tree chose, or be
invalid UTF-8.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import Doctor, commit_tree

from context_doctor.git.run import git_environment
from context_doctor.guards.escape import clean_json, escape_text, escape_undecodable

TODAY = "2026-06-15"
FAKE_VERDICT = "\x1b[2J\x1b[HHEALTHY"
INJECTED = "evil\n::error file=README.md,line=1::pwned"
NOT_UTF8 = "caf\udcff"  # the byte 0xFF, as surrogateescape hands it to Python


def test_escape_text_makes_every_control_visible() -> None:
    assert escape_text("plain é text ✓") == "plain é text ✓"
    assert escape_text("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert escape_text(FAKE_VERDICT) == "\\x1b[2J\\x1b[HHEALTHY"
    assert escape_text("\x00\x7f\x9b") == "\\x00\\x7f\\x9b"
    assert escape_text("x\u202ey\u2028z\u2066") == "x\\u202ey\\u2028z\\u2066"
    assert escape_text(NOT_UTF8) == "caf\\xff"
    assert escape_text("\ud83d\ude80") == "\\ud83d\\ude80"
    escape_text(NOT_UTF8).encode("utf-8")


def test_escape_undecodable_keeps_controls_for_json() -> None:
    assert escape_undecodable("a\nb") == "a\nb"
    assert escape_undecodable(NOT_UTF8) == "caf\\xff"
    assert clean_json({NOT_UTF8: [NOT_UTF8, 1, None]}) == {"caf\\xff": ["caf\\xff", 1, None]}


def build(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    for project, status in (("alpha", FAKE_VERDICT), (INJECTED, "Active"), (NOT_UTF8, "Active")):
        directory = root / "projects" / project
        directory.mkdir(parents=True)
        (directory / "CONTEXT.md").write_text(
            f"# P\n\n**Status:** {status}\n**Last session:** 2026-06-01\n", encoding="utf-8"
        )
    (root / "projects/index.yaml").write_text(
        "projects:\n  - id: alpha\n    status: active\n    last_session: 2026-06-01\n",
        encoding="utf-8",
    )
    commit_tree(root)
    return root


@pytest.fixture(name="root")
def root_fixture(tmp_path: Path) -> Path:
    return build(tmp_path)


@pytest.mark.parametrize("output", ["human", "concise", "github"])
def test_text_formats_print_no_control_characters(root: Path, doctor: Doctor, output: str) -> None:
    run = doctor("check", str(root), "--today", TODAY, "--output-format", output)
    assert run.exit_code == 1, run.stderr
    assert "\\x1b[2J" in run.stdout  # the value is shown, inert
    assert "\x1b" not in run.stdout
    assert "caf\\xff" in run.stdout
    for line in run.stdout.splitlines():
        assert not line.startswith("::error file=README.md"), line
        if output != "github":
            assert not line.startswith("::"), line


def test_machine_formats_are_valid_utf8(root: Path, tmp_path: Path) -> None:
    """Run as a user would (a real process and pipe): stdout must decode as strict UTF-8."""
    cache = tmp_path / "cache" / "last-report.json"
    summary = tmp_path / "step-summary.md"
    env = {**git_environment(), "GITHUB_STEP_SUMMARY": str(summary), "PYTHONIOENCODING": "utf-8"}
    for output in ("json", "sarif", "github", "human"):
        done = subprocess.run(
            [sys.executable, "-m", "context_doctor", "check", str(root), "--today", TODAY,
             "--output-format", output, "--report-cache", str(cache)],
            capture_output=True, env=env, check=False,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr
        text = done.stdout.decode("utf-8")  # strict: raises on invalid UTF-8
        if output in ("json", "sarif"):
            json.loads(text)
    report = json.loads(cache.read_bytes().decode("utf-8"))
    projects = {finding["project"] for finding in report["findings"]}
    assert "caf\\xff" in projects
    assert INJECTED in projects  # JSON escapes the newline itself
    step = summary.read_bytes().decode("utf-8")
    assert "\x1b" not in step and "caf\\\\xff" in step  # Markdown: `\\` shows one backslash


def test_error_lines_are_escaped(tmp_path: Path, doctor: Doctor) -> None:
    missing = tmp_path / "gone\x1b[31m\nfake"
    run = doctor("check", "--source", str(missing), "--json")
    assert run.exit_code == 2
    assert "\x1b" not in run.stderr and run.stderr.count("\n") == 1
    json.loads(run.stdout)
    assert os.fsencode(str(missing))  # the path itself is a legal name


def test_non_utf8_directory_name_is_its_own_finding(root: Path, doctor: Doctor) -> None:
    run = doctor("check", str(root), "--today", TODAY, "--json")
    named = [f for f in run.findings("status-agreement") if f["project"] == "caf\\xff"]
    assert len(named) == 1
    assert "not valid UTF-8" in named[0]["message"]
    assert "Rename the directory" in named[0]["remedy"]


def test_index_with_surrogate_escapes_never_crashes(tmp_path: Path) -> None:
    """``json.dump`` escapes an emoji as a surrogate pair; YAML reads each half alone."""
    root = tmp_path / "kb"
    for project in ("alpha", "beta"):
        (root / "projects" / project).mkdir(parents=True)
        (root / "projects" / project / "CONTEXT.md").write_text(
            "# P\n\n**Status:** active\n**Last session:** 2026-06-01\n", encoding="utf-8"
        )
    entries = [
        {
            "id": "alpha",
            "status": "active",
            "note": "launch \U0001f680",
            "last_session": "2026-06-01",
        },
        {"id": "beta", "status": "active", "note": "half \ud83d", "last_session": "2026-06-01"},
    ]
    (root / "projects/index.yaml").write_text(json.dumps({"projects": entries}), encoding="ascii")
    assert "\\ud83d\\ude80" in (root / "projects/index.yaml").read_text(encoding="ascii")
    commit_tree(root)
    env = {**git_environment(), "PYTHONIOENCODING": "utf-8"}
    for output in ("human", "concise", "json", "sarif", "github"):
        done = subprocess.run(
            [sys.executable, "-m", "context_doctor", "check", str(root), "--today", TODAY,
             "--output-format", output],
            capture_output=True, env=env, check=False,
        )  # fmt: skip
        assert done.returncode == 1, (output, done.stderr)
        text = done.stdout.decode("utf-8")
        if output == "json":
            findings = json.loads(text)["findings"]
            (problem,) = [f for f in findings if f["check"] == "status-agreement"]
            assert problem["project"] == "beta"
            assert "field `note` holds text that is not valid Unicode" in problem["message"]
            assert problem["line"] == 1


def test_command_status_lines_are_escaped(tmp_path: Path, doctor: Doctor) -> None:
    """--show-settings and the freshness writers name paths from the tree: shown inert."""
    root = tmp_path / "kb\x1b[31mred"
    (root / "projects" / "alpha").mkdir(parents=True)
    (root / "projects" / "alpha" / "CONTEXT.md").write_text(
        "# A\n\n**Status:** active\n**Last session:** 2026-06-01\n", encoding="utf-8"
    )
    graded = root / "notes\x1b[2J.md"
    graded.write_text(
        "---\nconvention: pai-freshness-v1\nlast_updated: 2026-06-01\n---\n# N\n", encoding="utf-8"
    )
    commit_tree(root)
    settings = doctor("check", str(root), "--show-settings")
    assert "kb\\x1b[31mred" in settings.stdout and "\x1b" not in settings.stdout
    reviewed = doctor("freshness", "review", str(graded), "--by", "tester")
    assert reviewed.exit_code == 0, reviewed.stderr
    assert "notes\\x1b[2J.md" in reviewed.stdout and "\x1b" not in reviewed.stdout


def test_step_summary_renders_user_text_as_plain_text(tmp_path: Path, doctor: Doctor) -> None:
    """A header value cannot become an image, a link or HTML in the job summary."""
    root = tmp_path / "kb"
    (root / "projects" / "alpha").mkdir(parents=True)
    (root / "projects" / "alpha" / "CONTEXT.md").write_text(
        "# A\n\n**Status:** ![x](https://example.invalid/t.png) <img src=y> `code` | cell\n"
        "**Last session:** 2026-06-01\n",
        encoding="utf-8",
    )
    (root / "projects" / "index.yaml").write_text(
        "projects:\n  - id: alpha\n    status: active\n    last_session: 2026-06-01\n",
        encoding="utf-8",
    )
    commit_tree(root)
    summary = tmp_path / "summary.md"
    run = doctor(
        "check", str(root), "--today", TODAY, "--output-format", "github",
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )  # fmt: skip
    assert run.exit_code in (0, 1), run.stderr
    text = summary.read_text(encoding="utf-8")
    assert "\\!\\[x\\]\\(https://example.invalid/t.png\\)" in text
    assert "![x]" not in text and " <img" not in text and " `code` " not in text
    row = next(line for line in text.splitlines() if "record-unreadable" in line)
    assert row.count(" | ") == 3  # the message's own `|` cannot add a column


def test_fix_diff_prints_no_control_characters(tmp_path: Path, doctor: Doctor) -> None:
    """`check --diff` quotes the file around a fix: its ESC sequences are shown inert."""
    root = tmp_path / "kb"
    project = root / "projects" / "alpha"
    (project / "reference").mkdir(parents=True)
    (project / "CONTEXT.md").write_text(
        "# A\n\n**Status:** Active\n**Last session:** 2026-06-01\n", encoding="utf-8"
    )
    # A bell and an OSC title sequence: click strips only ANSI styles from piped output.
    (project / "REFERENCE.md").write_text(
        "# A reference\n\nbell\x07 \x1b]0;owned\x07\n", encoding="utf-8"
    )
    (project / "reference" / "vendors.md").write_text("# Vendors\n", encoding="utf-8")
    (root / "projects" / "index.yaml").write_text(
        "projects:\n  - id: alpha\n    status: active\n", encoding="utf-8"
    )
    commit_tree(root)
    run = doctor("check", str(root), "--today", TODAY, "--diff", "--unsafe-fixes")
    assert run.exit_code == 1, run.stderr
    assert "reference/vendors.md" in run.stdout
    assert "bell\\x07 \\x1b]0;owned\\x07" in run.stdout
    assert "\x07" not in run.stdout and "\x1b" not in run.stdout
