"""``context-doctor layout [PATH]``: the [layout] table it would use, or exit 2 naming the shapes."""

from __future__ import annotations

import tomllib
from typing import Any

from support import Doctor, MakeRepo


def repo(files: dict[str, str]) -> dict[str, Any]:
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "message": "m", "files": files}]}


def test_a_detected_layout_is_a_table_to_paste(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        repo({"docs/handoff/state.md": "x\n", "docs/handoff/sessions/2026-06-01-a.md": "x\n"})
    )
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("# layout docs/handoff/state.md, detected")
    table = tomllib.loads(run.stdout)["layout"]
    assert table == {
        "context": "docs/handoff/state.md",
        "sessions": "docs/handoff/sessions",
        "name": root.name,
    }
    assert "# docs/handoff/sessions/ (a folder of dated logs)" in run.stdout
    assert "folder name (no origin remote)" in run.stdout


def test_a_declared_layout_is_shown_as_declared(make_repo: MakeRepo, doctor: Doctor) -> None:
    config = '[layout]\ncontext = "notes/now.md"\nname = "comics"\n'
    root = make_repo(repo({"context-doctor.toml": config, "notes/now.md": "x\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert "declared in" in run.stdout.splitlines()[0]
    assert tomllib.loads(run.stdout)["layout"] == {"context": "notes/now.md", "name": "comics"}


def test_a_glossary_is_said_to_be_no_working_memory(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(repo({"CONTEXT.md": "# Terms\n\n- **Order**: a purchase.\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert "not working memory" in run.stdout


def test_nothing_matches_is_exit_2_listing_the_shapes(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(repo({"README.md": "# Tool\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 2
    assert "matches no layout" in run.stderr
    for shape in ("projects/index.yaml", "docs/handoff/state.md", "memory-bank/activeContext.md"):
        assert shape in run.stderr


# -- near misses and second records (docs/layouts.md "Near misses") ---------------------


def test_no_match_prints_the_near_misses_seen_with_the_table_that_declares_each(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    design = "# Design: a hand-off feature\n\nHow the hand-off should work one day.\n"
    root = make_repo(repo({"docs/session-handoff.md": design, "README.md": "# Tool\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 2
    assert "matches no layout" in run.stderr
    assert "# seen, not working memory: docs/session-handoff.md (no date field" in run.stdout
    declared = run.stdout.split("declare:\n", 1)[1]
    assert tomllib.loads(declared)["layout"] == {
        "context": "docs/session-handoff.md",
        "sessions": "context",
    }


def test_an_undated_session_log_seen_is_offered_without_claiming_dated_entries(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The declaration's comments say only what was read: a root log with no dated entry
    is offered as its own log, never as "the dated entries inside" it."""
    log = "# Session log\n\n## Goal\n\nFind the box on the network.\n\n## Results\n\n- none\n"
    root = make_repo(repo({"SESSION_LOG.md": log, "scan.py": "x\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 2
    assert "# seen, not working memory: SESSION_LOG.md (no date field" in run.stdout
    declared = run.stdout.split("declare:\n", 1)[1]
    assert "the dated entries inside" not in declared
    assert "SESSION_LOG.md is its own log (it holds no dated entry yet)" in declared
    assert tomllib.loads(declared)["layout"] == {"context": "SESSION_LOG.md", "sessions": "context"}


def test_a_near_miss_is_detected_and_named_in_the_verdict(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    log = "# Session log\n\n## Session: 2026-06-01 18:02\n\n### Completed\n\n- Export.\n"
    root = make_repo(repo({"SESSION_LOG.md": log, "src/app.py": "x\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("# layout SESSION_LOG.md, detected")
    assert "near the layouts table: dated entries" in run.stdout
    check = doctor("check", str(root), "--today", "2026-06-02")
    assert "layout SESSION_LOG.md, detected (near the layouts table)" in check.stdout


def test_a_second_record_and_a_newest_first_log_are_named(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    progress = "# Progress\n\n## [2026-06-01] review\n\n## [2026-05-20] review\n"
    root = make_repo(repo({"docs/PROGRESS.md": progress, ".claude/STATUS.md": "# Status\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert tomllib.loads(run.stdout)["layout"]["context"] == "docs/PROGRESS.md"
    assert "# also working memory here, not audited: .claude/STATUS.md" in run.stdout
    assert "# the log runs newest first (read from docs/PROGRESS.md)" in run.stdout


def test_instruction_files_only_still_name_the_near_misses_seen(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    design = "# Design: a hand-off feature\n\nHow the hand-off should work one day.\n"
    root = make_repo(repo({"docs/session-handoff.md": design, "AGENTS.md": "# Rules\n\n- Test.\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert "# no working memory here" in run.stdout
    assert "# seen, not working memory: docs/session-handoff.md" in run.stdout
