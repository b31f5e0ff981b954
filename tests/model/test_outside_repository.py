"""Tier files that resolve outside the repository are never read.

A ``sessions/*.md``, ``reference/*.md`` or ``CONTEXT.md`` symlinked to a file
outside the repository is ``untracked-context``; its content drives no verdict
and is quoted nowhere (not in findings, so not in SARIF or annotations).
"""

from __future__ import annotations

from pathlib import Path

from support import Doctor, commit_tree

TODAY = "2026-06-15"
SECRET = "OUTSIDE-CONTENT-7f3a"


def build(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "log.md").write_text(f"# Log\n\n## 2026-06-12 — {SECRET}\n", encoding="utf-8")
    (outside / "topic.md").write_text(f"# Topic\n\n**Status:** {SECRET}\n", encoding="utf-8")
    (outside / "context.md").write_text(
        f"# Beta\n\n**Status:** {SECRET}\n**Last session:** 2026-06-13\n", encoding="utf-8"
    )
    (outside / "graded.md").write_text(
        f"---\nconvention: pai-freshness-v1\nlast_reviewed: {SECRET}\n---\n", encoding="utf-8"
    )
    root = tmp_path / "kb"
    alpha = root / "projects" / "alpha"
    (alpha / "sessions").mkdir(parents=True)
    (alpha / "reference").mkdir()
    (root / "projects" / "beta").mkdir()
    (alpha / "CONTEXT.md").write_text(
        "# Alpha\n\n**Status:** active\n**Last session:** 2026-06-01\n\nSee REFERENCE.md.\n",
        encoding="utf-8",
    )
    (alpha / "REFERENCE.md").write_text("# Ref\n\n- [topic](reference/topic.md)\n", "utf-8")
    (alpha / "sessions" / "2026-06.md").symlink_to(outside / "log.md")
    (alpha / "reference" / "topic.md").symlink_to(outside / "topic.md")
    (root / "projects" / "beta" / "CONTEXT.md").symlink_to(outside / "context.md")
    (root / "notes.md").symlink_to(outside / "graded.md")
    (root / "projects" / "index.yaml").write_text(
        "projects:\n"
        "  - id: alpha\n    status: active\n    last_session: 2026-06-01\n"
        "  - id: beta\n    status: active\n    last_session: 2026-06-01\n",
        encoding="utf-8",
    )
    commit_tree(root)
    return root


def test_outside_tier_files_are_untracked_and_never_read(tmp_path: Path, doctor: Doctor) -> None:
    root = build(tmp_path)
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    untracked = sorted(f["path"] for f in run.findings("untracked-context"))
    assert untracked == [
        "projects/alpha/reference/topic.md",
        "projects/alpha/sessions/2026-06.md",
        "projects/beta/CONTEXT.md",
    ]
    # The outside log's 2026-06-12 entry drives no freshness verdict...
    assert all("2026-06-12" not in f["message"] for f in run.json["findings"])
    # ...and nothing outside is read or reported twice as unreadable.
    assert run.findings("record-unreadable") == []
    for output in ("json", "human", "concise", "sarif", "github"):
        shown = doctor("check", str(root), "--today", TODAY, "--output-format", output)
        assert SECRET not in shown.stdout, output
        assert "2026-06-13" not in shown.stdout, output
