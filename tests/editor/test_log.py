"""``log add`` (context_doctor.editor.log): one entry, in date order, header moved in the same write."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from context_doctor import edit
from context_doctor.editor.log import LogEntry, LogPlace, add_entry
from context_doctor.errors import DoctorError
from context_doctor.model.header import DEFAULT_LAST_SESSION_NAMES

NEWLINES = pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])
TODAY = date(2026, 6, 30)

CONTEXT = """# Atlas — Working Context

**Phase:** Build (round 3)
**Status:** Active
**Last session:** 2026-06-18 — rewrote the indexer

## Current State
- Query path next.
"""

LOG = """# Session Archive — June 2026

### 2026-06-02: kickoff

Started.

### 2026-06-18: indexer

Rewrote the indexer.
"""


def project(tmp_path: Path, nl: str = "\n") -> Path:
    root = tmp_path / "projects" / "atlas"
    (root / "sessions").mkdir(parents=True)
    (root / "CONTEXT.md").write_bytes(CONTEXT.replace("\n", nl).encode())
    (root / "sessions" / "2026-06.md").write_bytes(LOG.replace("\n", nl).encode())
    (tmp_path / "projects" / "index.yaml").write_bytes(
        "projects:\n  - id: atlas  # the search project\n    status: active\n    "
        "last_session: 2026-06-18\n".replace("\n", nl).encode()
    )
    return root


def files(tmp_path: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(tmp_path)): path.read_bytes()
        for path in sorted(tmp_path.rglob("*"))
        if path.is_file()
    }


@NEWLINES
def test_an_entry_lands_in_date_order_in_the_files_own_style(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    add_entry(LogEntry(root, date(2026, 6, 10), "design", "Settled the design.\n"), today=TODAY)
    expected = LOG.replace(
        "### 2026-06-18: indexer",
        "### 2026-06-10: design\n\nSettled the design.\n\n### 2026-06-18: indexer",
    )
    assert (root / "sessions" / "2026-06.md").read_bytes() == expected.replace("\n", nl).encode()
    add_entry(LogEntry(root, date(2026, 6, 20), "ship"), today=TODAY)
    assert (
        (root / "sessions" / "2026-06.md")
        .read_bytes()
        .endswith(f"Rewrote the indexer.{nl}{nl}### 2026-06-20: ship{nl}".encode())
    )


@NEWLINES
def test_a_new_month_file_gets_its_title_line(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    add_entry(LogEntry(root, date(2026, 5, 30), "planning"), today=TODAY)
    assert (root / "sessions" / "2026-05.md").read_bytes() == (
        f"# Session Archive — May 2026{nl}{nl}## 2026-05-30 — planning{nl}".encode()
    )


@NEWLINES
@pytest.mark.parametrize(
    ("day", "title", "rule"),
    [
        (date(2026, 7, 1), "tomorrow", "date-in-future"),
        (date(2026, 6, 18), "Indexer", "duplicate-entry"),
        (date(2026, 6, 18), "  indexer ", "duplicate-entry"),
    ],
    ids=["future", "duplicate", "duplicate-spacing"],
)
def test_refusals_leave_every_file_byte_identical(
    tmp_path: Path, nl: str, day: date, title: str, rule: str
) -> None:
    project(tmp_path, nl)
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(
            LogEntry(tmp_path / "projects" / "atlas", day, title), today=TODAY, set_header=True
        )
    assert refused.value.rule == rule
    assert files(tmp_path) == before


@NEWLINES
def test_set_header_moves_the_header_and_the_index_in_the_same_write(
    tmp_path: Path, nl: str
) -> None:
    root = project(tmp_path, nl)
    result = add_entry(
        LogEntry(root, date(2026, 6, 20), "query path", "Ported.\n"),
        today=TODAY,
        set_header=True,
    )
    assert sorted(item.path.name for item in result.files) == [
        "2026-06.md",
        "CONTEXT.md",
        "index.yaml",
    ]
    context = (root / "CONTEXT.md").read_bytes().decode()
    # The old summary described the old session: the header names the new one.
    assert f"**Last session:** 2026-06-20 — query path{nl}" in context
    index = (tmp_path / "projects" / "index.yaml").read_bytes().decode()
    assert f"last_session: 2026-06-20{nl}" in index and "# the search project" in index


def test_set_header_on_a_header_that_shares_its_line_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    context = root / "CONTEXT.md"
    context.write_text(CONTEXT.replace("indexer\n", "indexer **Owner:** Ana\n"))
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(LogEntry(root, date(2026, 6, 20), "x"), today=TODAY, set_header=True)
    assert refused.value.rule == "field-shares-line"
    assert files(tmp_path) == before


@NEWLINES
@pytest.mark.parametrize(
    ("index", "rule"),
    [
        ("projects: [\n", "index-unreadable"),
        ("projects: [{id: atlas, last_session: 2026-06-18}]\n", "index-unwritable"),
    ],
    ids=["not-yaml", "flow-style"],
)
def test_an_index_that_cannot_move_with_the_header_writes_nothing(
    tmp_path: Path, nl: str, index: str, rule: str
) -> None:
    root = project(tmp_path, nl)
    (tmp_path / "projects" / "index.yaml").write_bytes(index.replace("\n", nl).encode())
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(LogEntry(root, date(2026, 6, 20), "x"), today=TODAY, set_header=True)
    assert refused.value.rule == rule
    assert files(tmp_path) == before


# -- the layout's log (docs/layouts.md, #27 item 8) -------------------------------------------

STATUS = """# Status

- **Last updated:** 2026-07-20
- Status: active

## Session Log

### 2026-07-18 — parser

Ported.

### 2026-07-20 — tests

## Notes

Keep this last.
"""

TABLE_LOG = """# Sessions

| Date | Session | Notes |
|------|---------|-------|
| 2026-07-28 | cache | warm runs |
| 2026-07-29 | hooks | |
"""


def layout_repo(tmp_path: Path, files_at: dict[str, str], nl: str = "\n") -> Path:
    root = tmp_path / "repo"
    for relative, text in files_at.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", nl).encode())
    return root


def place(
    root: Path,
    context: str,
    sessions: str | None,
    names: tuple[str, ...] = DEFAULT_LAST_SESSION_NAMES,
) -> LogPlace:
    """A non-seed layout's place: fields read anywhere, its log where ``sessions`` says."""
    return LogPlace(
        root / context,
        None if sessions in (None, "context") else root / str(sessions),
        in_context=sessions == "context",
        last_session=names,
        anywhere=True,
    )


def add(
    root: Path, where: LogPlace, day: date, title: str, text: str = "", *, set_header: bool = False
) -> None:
    add_entry(
        LogEntry(root, day, title, text, where), today=date(2026, 8, 31), set_header=set_header
    )


@NEWLINES
def test_a_log_folder_gets_the_month_file_and_a_foreign_field_moves(
    tmp_path: Path, nl: str
) -> None:
    root = layout_repo(
        tmp_path,
        {
            "docs/PROGRESS.md": "# Fortschritt\n\n> Zuletzt aktualisiert: 2026-04-30\n",
            "docs/sessions/2026-05.md": "# Mai\n\n## 2026-05-14 — Export\n",
        },
        nl,
    )
    where = place(root, "docs/PROGRESS.md", "docs/sessions", names=("Zuletzt aktualisiert",))
    add(root, where, date(2026, 5, 20), "Import", set_header=True)
    assert (root / "docs/sessions/2026-05.md").read_bytes() == (
        f"# Mai{nl}{nl}## 2026-05-14 — Export{nl}{nl}## 2026-05-20 — Import{nl}".encode()
    )
    assert (
        (root / "docs/PROGRESS.md")
        .read_bytes()
        .endswith(f"> Zuletzt aktualisiert: 2026-05-20{nl}".encode())
    )
    add(root, where, date(2026, 6, 2), "Juni")
    assert (root / "docs/sessions/2026-06.md").read_bytes() == (
        f"# Session Archive — June 2026{nl}{nl}## 2026-06-02 — Juni{nl}".encode()
    )


@NEWLINES
def test_one_log_file_written_newest_first_gets_the_entry_on_top(tmp_path: Path, nl: str) -> None:
    log = "# Log\n\n### 2026-05-14: export\n\nDone.\n\n### 2026-05-01: start\n"
    root = layout_repo(tmp_path, {"HANDOFF.md": "# H\n\nUpdated: 2026-05-14\n", "LOG.md": log}, nl)
    add(root, place(root, "HANDOFF.md", "LOG.md"), date(2026, 5, 20), "import", "Moved.\n")
    expected = log.replace("### 2026-05-14", "### 2026-05-20: import\n\nMoved.\n\n### 2026-05-14")
    assert (root / "LOG.md").read_bytes() == expected.replace("\n", nl).encode()


def test_a_declared_newest_first_log_gets_its_second_entry_on_top(tmp_path: Path) -> None:
    """One entry says nothing of the order: `[layout] order = "newest-first"` does."""
    log = "# Log\n\n## 2026-05-01 — start\n"
    root = layout_repo(tmp_path, {"HANDOFF.md": "# H\n\nUpdated: 2026-05-01\n", "LOG.md": log})
    where = replace(place(root, "HANDOFF.md", "LOG.md"), order="newest-first")
    add(root, where, date(2026, 5, 20), "import")
    assert (root / "LOG.md").read_text() == (
        "# Log\n\n## 2026-05-20 — import\n\n## 2026-05-01 — start\n"
    )
    add(root, replace(where, order=None), date(2026, 5, 22), "later")  # now read from the log
    assert (root / "LOG.md").read_text().startswith("# Log\n\n## 2026-05-22 — later\n\n")


def test_a_log_of_dated_items_kept_newest_first_grows_at_its_top(tmp_path: Path) -> None:
    log = "# Log\n\n- 2026-05-14 — export\n- 2026-05-01 — start\n"
    root = layout_repo(tmp_path, {"HANDOFF.md": "# H\n", "LOG.md": log})
    add(root, place(root, "HANDOFF.md", "LOG.md"), date(2026, 5, 20), "import")
    assert (root / "LOG.md").read_text() == (
        "# Log\n\n- 2026-05-20 — import\n- 2026-05-14 — export\n- 2026-05-01 — start\n"
    )


@NEWLINES
def test_a_log_inside_the_context_file_grows_inside_its_section(tmp_path: Path, nl: str) -> None:
    root = layout_repo(tmp_path, {"docs/STATUS.md": STATUS}, nl)
    where = place(root, "docs/STATUS.md", "context")
    add(root, where, date(2026, 8, 3), "review", "Reviewed.\n", set_header=True)
    expected = STATUS.replace(
        "## Notes", "### 2026-08-03 — review\n\nReviewed.\n\n## Notes"
    ).replace("**Last updated:** 2026-07-20", "**Last updated:** 2026-08-03")
    assert (root / "docs/STATUS.md").read_bytes() == expected.replace("\n", nl).encode()


def test_a_context_file_without_a_log_gets_a_session_log_section(tmp_path: Path) -> None:
    root = layout_repo(tmp_path, {"STATUS.md": "# Status\n\nUpdated: 2026-07-01\n"})
    add(root, place(root, "STATUS.md", "context"), date(2026, 7, 2), "first")
    assert (root / "STATUS.md").read_text() == (
        "# Status\n\nUpdated: 2026-07-01\n\n## Session Log\n\n### 2026-07-02 — first\n"
    )


@NEWLINES
def test_a_table_log_gets_a_new_row(tmp_path: Path, nl: str) -> None:
    root = layout_repo(
        tmp_path,
        {"docs/handoff/state.md": "# State\n", "docs/handoff/sessions/log.md": TABLE_LOG},
        nl,
    )
    where = place(root, "docs/handoff/state.md", "docs/handoff/sessions")
    add(root, where, date(2026, 7, 30), "a | b", "fast")
    assert (root / "docs/handoff/sessions/log.md").read_bytes() == (
        TABLE_LOG + "| 2026-07-30 | a \\| b | fast |\n"
    ).replace("\n", nl).encode()
    add(root, where, date(2026, 7, 28), "early")
    text = (root / "docs/handoff/sessions/log.md").read_bytes().decode()
    # in date order: after the row of the same day, before the first later one
    assert (
        f"| 2026-07-28 | cache | warm runs |{nl}| 2026-07-28 | early |  |{nl}"
        f"| 2026-07-29 | hooks | |{nl}" in text
    )


@NEWLINES
@pytest.mark.parametrize(
    ("title", "text", "rule"),
    [("Hooks", "", "duplicate-entry"), ("later", "two\nlines", None)],
    ids=["duplicate-row", "multi-line-text"],
)
def test_table_log_refusals_leave_every_file_byte_identical(
    tmp_path: Path, nl: str, title: str, text: str, rule: str | None
) -> None:
    root = layout_repo(
        tmp_path,
        {"state.md": "# State\n\nUpdated: 2026-07-29\n", "sessions/log.md": TABLE_LOG},
        nl,
    )
    before = files(tmp_path)
    expected: type[Exception] = edit.EditRefused if rule else DoctorError
    with pytest.raises(expected) as refused:
        add(root, place(root, "state.md", "sessions"), date(2026, 7, 29), title, text,
            set_header=True)  # fmt: skip
    if rule:
        assert getattr(refused.value, "rule", None) == rule
    assert files(tmp_path) == before


@NEWLINES
def test_set_header_moves_a_last_session_heading(tmp_path: Path, nl: str) -> None:
    root = layout_repo(
        tmp_path,
        {"CONTEXT.md": "# Hand-off\n\n## Last Session: 2026-04-08\n\nNotes.\n",
         "sessions/2026-04.md": "# April\n\n## 2026-04-08 — parser\n"},
        nl,
    )  # fmt: skip
    add_entry(LogEntry(root, date(2026, 4, 20), "tests"), today=TODAY, set_header=True)
    assert (root / "CONTEXT.md").read_bytes() == (
        f"# Hand-off{nl}{nl}## Last Session: 2026-04-20{nl}{nl}Notes.{nl}".encode()
    )


def test_a_folder_of_other_log_files_is_refused_by_name(tmp_path: Path) -> None:
    root = layout_repo(
        tmp_path,
        {"STATUS.md": "# S\n", "sessions/alpha.md": "## 2026-05-01\n", "sessions/beta.md": "x\n"},
    )
    before = files(tmp_path)
    with pytest.raises(DoctorError, match="none is a month file"):
        add(root, place(root, "STATUS.md", "sessions"), date(2026, 5, 2), "x")
    assert files(tmp_path) == before


def test_a_layout_with_no_log_is_refused(tmp_path: Path) -> None:
    root = layout_repo(tmp_path, {"STATUS.md": "# S\n"})
    with pytest.raises(DoctorError, match="keeps no session log"):
        add(root, place(root, "STATUS.md", None), date(2026, 5, 2), "x")


# -- `--set-header` moves the date the doctor reads, in its own spelling (docs/layouts.md) -----


@pytest.mark.parametrize(
    ("line", "moved"),
    [
        ("> **Data:** 26 maja 2025  ", "> **Data:** 3 czerwca 2025  "),
        # 03/06/2025 would be no date (June 3 or March 6): the slashes give way to ISO
        ("**Ngày cập nhật**: 17/01/2025", "**Ngày cập nhật**: 2025-06-03"),
        ("Stand: 30.04.2025 · dokumentiert", "Stand: 03.06.2025 · dokumentiert"),
        (
            "A snapshot. Updated 2025-05-20 after the renames.",
            "A snapshot. Updated 2025-06-03 after the renames.",
        ),
        ("Last updated: May 20, 2025 (review)", "Last updated: June 3, 2025 (review)"),
    ],
)
def test_set_header_moves_a_date_line_in_place(tmp_path: Path, line: str, moved: str) -> None:
    text = f"# Stan projektu\n{line}\n\n## Zrobione\n\n- Eksport.\n\n## Session Log\n"
    root = layout_repo(tmp_path, {"PROJECT_STATUS.md": text})
    add(
        root,
        place(root, "PROJECT_STATUS.md", "context"),
        date(2025, 6, 3),
        "import",
        set_header=True,
    )
    written = (root / "PROJECT_STATUS.md").read_text(encoding="utf-8")
    assert written.splitlines()[1] == moved  # the same line, never a second one
    assert written.count("\n") == text.count("\n") + 2  # the entry's heading and a blank line
    assert "### 2025-06-03 — import" in written


def test_set_header_moves_the_date_of_a_status_heading(tmp_path: Path) -> None:
    guide = (
        "# CLAUDE.md\n\nRules.\n\n## Current State (Updated: 2025-12-12)\n\n- Porting.\n\n"
        "## Session Log\n\n### 2025-12-12 — parser\n\n## Commands\n\n- make test\n"
    )
    root = layout_repo(tmp_path, {"CLAUDE.md": guide})
    where = replace(
        place(root, "CLAUDE.md", "context"), section="Current State (Updated: 2025-12-12)"
    )
    add(root, where, date(2026, 1, 5), "lexer", set_header=True)
    written = (root / "CLAUDE.md").read_text(encoding="utf-8")
    assert "## Current State (Updated: 2026-01-05)\n" in written
    assert "Last updated" not in written and "Last session" not in written


def test_set_header_on_a_month_name_heading_keeps_the_form(tmp_path: Path) -> None:
    guide = "# CLAUDE.md\n\n## CURRENT STATE (March 11, 2026)\n\n- Ten projects.\n"
    root = layout_repo(
        tmp_path, {"CLAUDE.md": guide, "SESSION_LOG.md": "# Log\n\n## 2026-03-11 — a\n"}
    )
    where = replace(
        place(root, "CLAUDE.md", "SESSION_LOG.md"), section="CURRENT STATE (March 11, 2026)"
    )
    add(root, where, date(2026, 3, 14), "b", set_header=True)
    assert "## CURRENT STATE (March 14, 2026)\n" in (root / "CLAUDE.md").read_text(encoding="utf-8")


ROUNDS = """# Rounds

| Round | Date | Fixed | Note |
|---|---|---|---|
| Round 1 | 2026-08-10 | 2 | pages |
| Round 2 | 2026-08-17 | 1 | forms |
"""


@NEWLINES
def test_a_table_dated_in_its_second_cell_gets_the_next_label(tmp_path: Path, nl: str) -> None:
    root = layout_repo(tmp_path, {"HANDOFF.md": "# H\n", "docs/rounds.md": ROUNDS}, nl)
    add(root, place(root, "HANDOFF.md", "docs/rounds.md"), date(2026, 8, 21), "review", "3 fixes")
    assert (root / "docs/rounds.md").read_bytes() == (
        ROUNDS + "| Round 3 | 2026-08-21 | review | 3 fixes |\n"
    ).replace("\n", nl).encode()


@NEWLINES
def test_a_second_cell_table_whose_labels_do_not_count_writes_nothing(
    tmp_path: Path, nl: str
) -> None:
    labels = ROUNDS.replace("| Round 2 |", "| R2 |")  # two words of label: no count
    root = layout_repo(tmp_path, {"HANDOFF.md": "# H\n", "docs/rounds.md": labels}, nl)
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add(root, place(root, "HANDOFF.md", "docs/rounds.md"), date(2026, 8, 21), "review")
    assert refused.value.rule == "row-label"
    assert files(tmp_path) == before
