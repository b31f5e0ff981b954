"""conflict-markers: unresolved merge conflicts in tier files.

The conflicts are made by git itself: two branches edit the same line and the
merge stops, leaving its markers in the committed file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import Doctor, MakeRepo, line_of, run_git

TODAY = "2026-06-15"
CONTEXT = "# Alpha\n\n**Status:** active\n**Last session:** 2026-06-01\n\n## Notes\n\nline\n"
INDEX = "projects:\n  - id: alpha\n    status: active\n    last_session: 2026-06-01\n"
LOG = "# Log\n\n## 2026-06-01 — start\n\nwork\n"


def base(extra: dict[str, str] | None = None) -> dict[str, object]:
    files = {
        "projects/index.yaml": INDEX,
        "projects/alpha/CONTEXT.md": CONTEXT,
        "projects/alpha/sessions/2026-06.md": LOG,
        **(extra or {}),
    }
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]}


def conflicted(root: Path, relative: str, ours: str, theirs: str) -> None:
    """Edit ``relative`` differently on two branches, merge, and commit the conflict as is."""
    when = "2026-06-02T09:00:00+00:00"
    original = (root / relative).read_text(encoding="utf-8")
    run_git(root, "checkout", "-q", "-b", "side")
    (root / relative).write_text(original.replace("line", theirs), encoding="utf-8")
    run_git(root, "commit", "-q", "-am", "theirs", when=when, identity=True)
    run_git(root, "checkout", "-q", "-")
    (root / relative).write_text(original.replace("line", ours), encoding="utf-8")
    run_git(root, "commit", "-q", "-am", "ours", when=when, identity=True)
    merged = run_git(root, "merge", "-q", "side", when=when, identity=True, check=False)
    assert merged.returncode != 0  # git stopped on the conflict
    run_git(
        root, "commit", "-q", "-am", "merge with the conflict left in", when=when, identity=True
    )


def test_conflict_in_context_is_a_defect(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(base())
    conflicted(root, "projects/alpha/CONTEXT.md", "ours", "theirs")
    run = doctor("check", str(root), "--today", TODAY, "--json")
    (finding,) = run.findings("conflict-markers", "alpha")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/alpha/CONTEXT.md"
    start = line_of(root, "projects/alpha/CONTEXT.md", "<<<<<<<")
    end = line_of(root, "projects/alpha/CONTEXT.md", ">>>>>>>")
    assert finding["line"] == start
    assert f"lines {start}-{end}" in finding["message"]


def test_conflict_in_a_session_log_and_stray_markers(make_repo: MakeRepo, doctor: Doctor) -> None:
    log = (
        LOG
        + "\n<<<<<<< HEAD\nmine\n=======\nyours\n>>>>>>> side\n\n>>>>>>>\n\n<<<<<<< HEAD\nopen\n"
    )
    root = make_repo(base({"projects/alpha/sessions/2026-06.md": log}))
    run = doctor("check", str(root), "--today", TODAY, "--json")
    messages = [f["message"] for f in run.findings("conflict-markers", "alpha")]
    assert len(messages) == 3, messages
    assert "unresolved merge conflict (lines 7-11)" in messages[0]
    assert "stray conflict marker" in messages[1]
    assert "never closes" in messages[2]


@pytest.mark.parametrize(
    "text",
    [
        "Title\n=======\n\ntext\n",  # a setext heading underline
        "```\n<<<<<<< HEAD\nexample\n=======\nother\n>>>>>>> side\n```\n",  # fenced code
        "    <<<<<<< HEAD\n    indented code\n    >>>>>>> side\n",  # indented code
        "<<<<<<<< eight is not a marker\n> quoted >>>>>>> mid-line\n",
    ],
)
def test_quiet_on_look_alikes(make_repo: MakeRepo, doctor: Doctor, text: str) -> None:
    root = make_repo(base({"projects/alpha/REFERENCE.md": "# Ref\n\n" + text}))
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.findings("conflict-markers") == []
    assert run.json["coverage"]["conflict-markers"]["examined"] == 1


def test_conflict_in_index_is_named_at_exit_2(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(base())
    index = "projects/index.yaml"
    (root / index).write_text(
        "projects:\n<<<<<<< HEAD\n  - id: alpha\n    status: active\n=======\n"
        "  - id: alpha\n    status: paused\n>>>>>>> side\n",
        encoding="utf-8",
    )
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 2
    assert "unresolved merge conflict (line 2)" in run.json["error"]


def test_explained_and_in_the_hygiene_group(make_repo: MakeRepo, doctor: Doctor) -> None:
    run = doctor("explain", "conflict-markers")
    assert run.exit_code == 0
    assert "<<<<<<<" in run.stdout
    root = make_repo(base())
    run = doctor("check", str(root), "--today", TODAY, "--json", "--select", "hygiene")
    assert "conflict-markers" in run.json["coverage"]
