"""User text is printed inert in every format (issue 14 items 4 and 5).

A header value carrying ESC sequences, a project directory whose name holds a
newline and a workflow command, and one whose name is not UTF-8: no output may
carry a raw control character, start a line the audited tree chose, or be
invalid UTF-8.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import Doctor, commit_tree

from context_doctor.git.run import git_environment
from context_doctor.guards.escape import (
    InertStream,
    clean_json,
    escape_text,
    escape_undecodable,
    inert_text,
)

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


# -- no line the doctor prints starts a workflow command the tree wrote --------

FORGED = "::notice title=ALL-CLEAR::context-doctor passed"
OWN_COMMAND = re.compile(
    r"::(error|warning) file=[^:]*,title=context-doctor [a-z-]+::"
    r"|::notice title=context-doctor::"
    r"|::error::context-doctor: "
)


def assert_inert(text: str, *, github: bool = False) -> None:
    """No line (split as a CI runner splits them, at CR and LF) starts a command the tree
    wrote: a line whose first non-blank characters are ``::`` is one of the doctor's own
    annotations, in the GitHub format only, and no line holds ``##[`` or ``##vso[``."""
    for line in re.split(r"[\r\n]", text):
        if line.lstrip().startswith("::"):
            assert github and OWN_COMMAND.match(line), line
        assert "##[" not in line and "##vso[" not in line.lower(), line


def declared_attack(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    config = f'[layout]\ncontext = "STATUS.md"\nname = {json.dumps(name)}\n'
    (root / "context-doctor.toml").write_text(config, encoding="utf-8")
    (root / "STATUS.md").write_text(
        "# S\n\n**Status:** active\n**Last session:** 2026-01-01\n", encoding="utf-8"
    )
    commit_tree(root)
    return root


@pytest.mark.parametrize(
    "name",
    [
        FORGED,
        f"fine\n \t{FORGED}",
        f"fine\n{FORGED}",
        f"fine\r{FORGED}",
        "ok ##[stop-commands]halt ##vso[task.complete result=Succeeded]",
    ],
    ids=["first", "indented", "after-newline", "after-return", "brackets"],
)
def test_a_layout_name_cannot_forge_a_workflow_command_in_any_output(
    tmp_path: Path, doctor: Doctor, name: str
) -> None:
    """``[layout] name`` printed first on a line (the human output's source line) was a
    GitHub annotation the repository chose; every format and every command is inert."""
    root = declared_attack(tmp_path, name)
    cache = tmp_path / "last-report.json"
    for output in ("human", "concise", "github", "json", "sarif", "gitlab"):
        for extra in ([], ["--statistics"], ["--quiet"], ["--show-coverage"]):
            if extra and output not in ("human", "concise"):
                continue
            run = doctor(
                "check", str(root), "--today", TODAY, "--output-format", output,
                "--report-cache", str(cache), *extra,
            )  # fmt: skip
            assert run.exit_code in (0, 1), run.stderr
            assert_inert(run.stdout, github=output == "github")
            assert_inert(run.stderr)
    written = tmp_path / "out.txt"
    for output in ("human", "github", "json"):
        run = doctor(
            "check", str(root), "--today", TODAY, "--output-format", output, "-o", str(written)
        )  # fmt: skip
        assert_inert(run.stdout + run.stderr)
        assert_inert(written.read_text(encoding="utf-8"), github=output == "github")
    run = doctor("check", str(root), "--show-settings")
    assert_inert(run.stdout + run.stderr)
    assert_inert(written.read_text(encoding="utf-8"))
    document = doctor("check", str(root), "--today", TODAY, "--json")
    assert json.loads(document.stdout)["source_details"][0]["name"] == name  # reads back whole
    for command in (
        ["layout", str(root)],
        ["status", "--cache", str(cache)],
        ["status", "--cache", str(cache), "--json"],
        ["report", "--cache", str(cache)],
        ["report", "--cache", str(cache), "--json"],
    ):
        run = doctor(*command)
        assert run.exit_code in (0, 1), (command, run.stderr)
        assert_inert(run.stdout + run.stderr)


def test_an_error_line_cannot_forge_a_workflow_command(tmp_path: Path, doctor: Doctor) -> None:
    root = declared_attack(tmp_path, f"a/b\n{FORGED}")  # refused: a name holds no `/`
    for output in ("human", "github", "json"):
        run = doctor("check", str(root), "--today", TODAY, "--output-format", output)
        assert run.exit_code == 2
        assert_inert(run.stdout, github=output == "github")
        assert_inert(run.stderr)


def test_a_project_folder_named_as_a_command_is_inert(tmp_path: Path, doctor: Doctor) -> None:
    """Seed layout: a folder ``projects/::notice…::ok/`` and a header value of commands."""
    root = tmp_path / "kb"
    evil = root / "projects" / "::notice title=ALL-CLEAR::ok"
    evil.mkdir(parents=True)
    (evil / "CONTEXT.md").write_text(
        "# P\n\n**Status:** active\n**Last session:** 2026-01-01\n", encoding="utf-8"
    )
    commit_tree(root)
    for output in ("human", "concise", "github"):
        for columns in ("40", "80", "200"):
            run = doctor(
                "check", str(root), "--today", TODAY, "--output-format", output,
                env={"COLUMNS": columns},
            )  # fmt: skip
            assert run.exit_code == 1, run.stderr
            assert_inert(run.stdout, github=output == "github")


def test_the_inert_stream_sees_lines_across_writes() -> None:
    """However the text is cut into writes, a line start is a line start."""
    text = (
        f"{FORGED}\n  \t::warning::x\r::error::y\nfine ::a:: stays\n"
        "mid ##[add-mask]s and ##VSO[task]x\n:single colon\n : spaced\n"
    )
    expected = (
        "\\x3a:notice title=ALL-CLEAR::context-doctor passed\n  \t\\x3a:warning::x\r"
        "\\x3a:error::y\nfine ::a:: stays\nmid ##\\u005badd-mask]s and ##VSO\\u005btask]x\n"
        ":single colon\n : spaced\n"
    )
    assert inert_text(text) == expected
    for size in (1, 2, 3, 5, 7):
        target = io.StringIO()
        stream = InertStream(target)
        for start in range(0, len(text), size):
            stream.write(text[start : start + size])
            stream.flush()
        stream.release()
        assert target.getvalue() == expected, size
    target = io.StringIO()
    stream = InertStream(target)
    stream.write("x\n")
    stream.write_command("::error::context-doctor: y\n")  # the doctor's own, as it is
    stream.write("::z\n")
    assert target.getvalue() == "x\n::error::context-doctor: y\n\\x3a:z\n"
