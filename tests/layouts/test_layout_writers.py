"""The writers follow the layout: ``edit set-field`` and ``log add --set-header``
edit the field the doctor reads, inside the section an instructions file keeps its record
in, and never a line of the same name elsewhere in the file.

Every repository is real, built with commits at chosen dates; the text is our own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import Doctor, MakeRepo, git

GUIDE = (
    "# CLAUDE.md\n\nGuidance for agents in this repository.\n\n## Conventions\n\n"
    "- Status: never put one in a commit message.\n"
    "- Last updated: 2025-11-02 (the style rules)\n\n"
    "## Current status\n\nStatus: active\nPhase: queue rewrite\nLast updated: {last}\n\n"
    "- The consumer drains the old queue.\n\n## Commands\n\n- `make test`\n"
)


def claude_repo(make_repo: MakeRepo, *, section: bool = True) -> Path:
    guide = GUIDE.format(last="2026-03-02")
    if not section:
        guide = guide.replace("## Current status", "## Where we are")
    commits: list[dict[str, Any]] = [
        {
            "date": "2026-03-02T10:00:00+00:00",
            "message": "queue consumer",
            "files": {
                "CLAUDE.md": guide,
                "src/queue.py": "consume\n",
                "docs/sessions/2026-03.md": "# March 2026\n\n## 2026-03-02 — consumer\n",
            },
        },
        {
            "date": "2026-03-09T10:00:00+00:00",
            "message": "queue drain",
            "files": {"src/queue.py": "drain\n"},
        },
    ]
    return make_repo({"remote": True, "commits": commits})


def conventions(root: Path) -> str:
    text = (root / "CLAUDE.md").read_text(encoding="utf-8")
    return text.split("## Current status")[0]


def test_set_field_edits_the_field_in_the_current_status_section(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = claude_repo(make_repo)
    before = conventions(root)
    run = doctor(
        "edit", "set-field", str(root / "CLAUDE.md"), "--field", "Status", "--value", "paused"
    )
    assert run.exit_code == 0, run.stdout + run.stderr
    text = (root / "CLAUDE.md").read_text(encoding="utf-8")
    assert conventions(root) == before  # the same name above the section is left alone
    assert "\nStatus: paused\nPhase: queue rewrite\n" in text


def test_set_field_refuses_a_field_the_section_does_not_hold(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """`Owner:` appears nowhere in the section: refused, never the first `Owner:` line."""
    root = claude_repo(make_repo)
    path = root / "CLAUDE.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "## Conventions\n\n", "## Conventions\n\n- Owner: the platform team\n"
        ),
        encoding="utf-8",
    )
    before = path.read_bytes()
    run = doctor("edit", "set-field", str(path), "--field", "Owner", "--value", "Ana")
    assert run.exit_code == 1, run.stdout + run.stderr
    assert "Current status" in run.stdout + run.stderr
    assert path.read_bytes() == before


def test_edit_apply_keeps_set_field_in_the_section(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = claude_repo(make_repo)
    before = conventions(root)
    edits = root.parent / f"{root.name}-edits.json"
    edits.write_text(
        '[{"op": "set-field", "file": "CLAUDE.md", "field": "Last updated", '
        '"value": "2026-03-09", "whole_value": true}]',
        encoding="utf-8",
    )
    run = doctor("edit", "apply", "--edits", str(edits), cwd=root)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert conventions(root) == before
    assert "Last updated: 2026-03-09\n" in (root / "CLAUDE.md").read_text(encoding="utf-8")


def test_log_add_set_header_moves_the_sections_field(make_repo: MakeRepo, doctor: Doctor) -> None:
    """The remedy of the stale record: one `log add --set-header`, then the record is current."""
    root = claude_repo(make_repo)
    before = conventions(root)
    stale = doctor("check", str(root), "--today", "2026-03-20", "--json")
    assert [f["path"] for f in stale.json["findings"]] == ["CLAUDE.md"], stale.json["findings"]
    run = doctor(
        "log", "add", str(root), "--date", "2026-03-09", "--title", "drain",
        "--set-header", "--today", "2026-03-20",
    )  # fmt: skip
    assert run.exit_code == 0, run.stdout + run.stderr
    assert conventions(root) == before
    text = (root / "CLAUDE.md").read_text(encoding="utf-8")
    assert "Last updated: 2026-03-09\n" in text
    git(root, "add", "-A")
    git(root, "commit", "-qm", "log the drain", when="2026-03-20T08:00:00+00:00")
    current = doctor("check", str(root), "--today", "2026-03-20", "--json")
    unpushed = {"unpushed-context"}  # the new commit is not pushed: another finding's business
    assert [f for f in current.json["findings"] if f["check"] not in unpushed] == []
