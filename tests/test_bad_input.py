"""Odd and hostile input: a finding or one clear exit-2 line, never an internal error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from support import Doctor, MakeRepo, git, head, is_whole_source

TODAY = "2026-01-11"
CONTEXT = "# A\n\n**Status:** Active\n**Last session:** 2026-01-10\n"


def healthy(make_repo: MakeRepo, extra: dict[str, str] | None = None) -> Path:
    files = {
        "projects/index.yaml": "- id: alpha\n  status: active\n",
        "projects/alpha/CONTEXT.md": CONTEXT,
        "projects/alpha/sessions/2026-01.md": "## 2026-01-10 — work\n",
    }
    files.update(extra or {})
    return make_repo(
        {"remote": True, "commits": [{"date": "2026-01-10T10:00:00+00:00", "files": files}]}
    )


def assert_clear_exit_2(run_stderr: str) -> None:
    assert run_stderr.startswith("context-doctor: error: ")
    assert "internal error" not in run_stderr
    assert run_stderr.count("\n") == 1


def test_an_author_offset_python_refuses_keeps_its_local_date(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = healthy(make_repo)
    (root / "projects/alpha/CONTEXT.md").write_text(CONTEXT + "more\n")
    git(root, "add", "-A")
    tree = git(root, "write-tree").strip()
    raw = (
        f"tree {tree}\nparent {head(root)}\n"
        "author x <y> 1768300000 +2500\ncommitter x <y> 1768300000 +0000\n\nodd offset\n"
    )
    sha = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"],
        cwd=root, input=raw, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    git(root, "update-ref", "HEAD", sha)
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr
    assert "internal error" not in run.stderr


def test_a_looping_context_symlink_is_a_finding(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = healthy(make_repo)
    context = root / "projects/alpha/CONTEXT.md"
    context.unlink()
    context.symlink_to("CONTEXT.md")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    messages = [f["message"] for f in run.findings("record-unreadable", "alpha")]
    assert any("looping symlink" in message for message in messages)


def test_a_directory_where_a_tier_file_belongs_is_a_finding(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = healthy(make_repo)
    (root / "projects/alpha/REFERENCE.md").mkdir()
    (root / "projects/alpha/REFERENCE.md/x").write_text("x")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    found = run.findings("record-unreadable", "alpha")
    assert [f["path"] for f in found] == ["projects/alpha/REFERENCE.md"]
    assert "is not a file" in found[0]["message"]


def test_a_recursive_yaml_alias_is_exit_2(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = healthy(make_repo, {"projects/index.yaml": "- &a {id: alpha, x: *a}\n"})
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert "refers to a node that contains it" in run.stderr


@pytest.mark.parametrize("bad_id", ["..", "/tmp", "a/b"])
def test_an_id_that_is_not_one_directory_is_never_audited(
    make_repo: MakeRepo, doctor: Doctor, bad_id: str
) -> None:
    index = f'- id: alpha\n  status: active\n- id: "{bad_id}"\n  status: active\n'
    root = healthy(make_repo, {"projects/index.yaml": index})
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.json["projects_audited"] == 1
    problems = [f for f in run.findings("status-agreement") if is_whole_source(f)]
    assert problems and "field `id`" in problems[0]["message"]


def test_index_yaml_that_is_a_directory_is_exit_2(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = healthy(make_repo)
    (root / "projects/index.yaml").unlink()
    (root / "projects/index.yaml").mkdir()
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert "is not a regular file" in run.stderr


def test_project_pointed_at_a_knowledge_repository_is_exit_2(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = healthy(make_repo)
    run = doctor("check", "--project", str(root), "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert "use --source" in run.stderr


@pytest.mark.parametrize("projects_dir", ["../..", ".git"])
def test_console_projects_dir_must_stay_inside_the_source(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, projects_dir: str
) -> None:
    root = healthy(make_repo)
    (isolated_home / "console.yaml").write_text(
        f"sources:\n  - name: kb\n    root: {root}\n    projects_dir: {projects_dir}\n"
    )
    run = doctor("check", "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert "leaves the source root" in run.stderr


@pytest.mark.parametrize("today", ["20260111", "2026-W02-1", "2026-1-11"])
def test_today_must_be_spelled_yyyy_mm_dd(make_repo: MakeRepo, doctor: Doctor, today: str) -> None:
    run = doctor("check", "--source", str(healthy(make_repo)), "--today", today)
    assert run.exit_code == 2
    assert "is not a YYYY-MM-DD date" in run.stderr


def test_absurdly_long_ordinals_and_horizons_are_not_numbers(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    huge = "9" * 5000
    root = healthy(
        make_repo,
        {
            "projects/alpha/CONTEXT.md": CONTEXT.replace("2026-01-10", f"2026-01-10 (round {huge})")
            + f"\n## What's Next\n- [ ] a (as of 2026-01-01, review {huge}d)\n- [ ] {'(as of ' * 2000}\n",
            "projects/alpha/sessions/2026-01.md": f"## 2026-01-10 round {huge}\n",
        },
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr


def test_hook_install_audits_a_knowledge_base_below_the_repository_top(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-01-10T10:00:00+00:00",
                    "files": {
                        "kb/projects/index.yaml": "- id: alpha\n  status: active\n",
                        "kb/projects/alpha/CONTEXT.md": CONTEXT,
                    },
                }
            ]
        }
    )
    run = doctor("hook", "install", "--repo", str(root / "kb"))
    assert run.exit_code == 0, run.stderr
    assert " check kb --pre-push" in (root / ".git/hooks/pre-push").read_text()
    refused = doctor("hook", "install", "--repo", str(root), "--force")
    assert refused.exit_code == 2
    assert "matches no layout" in refused.stderr


def test_a_usage_error_under_json_is_json_too(tmp_path: Path) -> None:
    import json
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "context_doctor", "check", "--json", "--today", "2026-13-01"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2
    payload = json.loads(result.stdout)
    assert payload["ok"] is False
    assert "is not a YYYY-MM-DD date" in payload["error"]


def test_an_id_longer_than_a_file_name_is_a_finding(make_repo: MakeRepo, doctor: Doctor) -> None:
    """#23 item 4: asking the file system for a 300-byte name fails; it is the index's defect."""
    long_id = "x" * 300
    root = healthy(
        make_repo,
        {
            "projects/index.yaml": f"- id: alpha\n  status: active\n- id: {long_id}\n  status: active\n"
        },
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    found = [f for f in run.findings() if "300 bytes long" in f["message"]]
    assert [(f["path"], f["line"], f["severity"]) for f in found] == [
        ("projects/index.yaml", 3, "defect")
    ]


def test_fifos_where_tier_files_belong_are_findings(make_repo: MakeRepo, doctor: Doctor) -> None:
    """#23 item 4: a FIFO blocks whoever opens it; it is reported, never read."""
    root = healthy(make_repo)
    project = root / "projects/alpha"
    (project / "reference").mkdir()
    for name in ("REFERENCE.md", "sessions/2025-12.md", "reference/auth.md"):
        os.mkfifo(project / name)
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    found = {
        f["path"]: f["message"]
        for f in run.findings("record-unreadable")
        if "is a FIFO, not a regular file" in f["message"]
    }
    assert set(found) == {
        "projects/alpha/REFERENCE.md",
        "projects/alpha/sessions/2025-12.md",
        "projects/alpha/reference/auth.md",
    }
    # one cause, one finding: the FIFO index is not also "missing"
    assert run.findings("reference-index-missing") == []


@pytest.mark.parametrize("name", ["projects/index.yaml", "context-doctor.toml"])
def test_a_fifo_that_defines_the_corpus_is_exit_2(
    make_repo: MakeRepo, doctor: Doctor, name: str
) -> None:
    root = healthy(make_repo)
    (root / name).unlink(missing_ok=True)
    os.mkfifo(root / name)
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert name in run.stderr


def test_deeply_nested_frontmatter_is_refused_unread(make_repo: MakeRepo, doctor: Doctor) -> None:
    """#23 item 4: six files of 3,000 nested `[` took 35-40 s to parse; now none is parsed."""
    deep = "[" * 3000 + "]" * 3000
    head = "---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-01-01T09:00:00+00:00\n"
    files = {f"DOC{number}.md": f"{head}x: {deep}\n---\n# Doc\n" for number in range(6)}
    root = healthy(make_repo, files)
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    refused = [f for f in run.findings("freshness-malformed") if "nests more than" in f["message"]]
    assert sorted(f["path"] for f in refused) == [f"DOC{number}.md" for number in range(6)]


def test_a_deeply_nested_index_is_exit_2_unread(make_repo: MakeRepo, doctor: Doctor) -> None:
    deep = "[" * 3000 + "]" * 3000
    root = healthy(
        make_repo, {"projects/index.yaml": f"- id: alpha\n  status: active\n  x: {deep}\n"}
    )
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert run.exit_code == 2
    assert_clear_exit_2(run.stderr)
    assert "nests more than 64 levels deep" in run.stderr
