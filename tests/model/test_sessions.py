"""Session entries: dated headings, spans, (cont.), dated table rows, in-file logs (docs/layouts.md)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_doctor.model.documents import Document
from context_doctor.model.sessions import (
    EVERY_HEADING_LEVEL,
    entries_of,
    layout_entries,
    newest,
    session_date,
)


def doc(text: str, rel: str = "docs/sessions/2026-05.md") -> Document:
    return Document.from_text(text, Path(rel), rel)


@pytest.mark.parametrize(
    ("text", "spelled", "day"),
    [
        ("2026-07-20", "2026-07-20", date(2026, 7, 20)),
        ("2026-05-30 (cont.)", "2026-05-30", date(2026, 5, 30)),
        ("2026-06-01 — work", "2026-06-01", date(2026, 6, 1)),
        ("2026-05-13/14", "2026-05-13/14", date(2026, 5, 14)),
        ("2026-05-13/14 — two days", "2026-05-13/14", date(2026, 5, 14)),
        ("2026-05-31/01", "2026-05-31/01", date(2026, 6, 1)),
        ("2026-12-31/01-02", "2026-12-31/01-02", date(2027, 1, 2)),
        ("2026-05-13/2026-05-20", "2026-05-13/2026-05-20", date(2026, 5, 20)),
        ("2026-05-13/35", "2026-05-13/35", None),
        ("2026-02-30", "2026-02-30", None),
        ("**2026-07-29**", "2026-07-29", date(2026, 7, 29)),
        ("Session 2026-07-20", "2026-07-20", date(2026, 7, 20)),
        ("[2026-08-21] Auto review 16:00 — 1 fix", "2026-08-21", date(2026, 8, 21)),
        ("Session 12 — 2026-08-21 (Morning)", "2026-08-21", date(2026, 8, 21)),
        ("Session: 2026-02-15 18:02", "2026-02-15", date(2026, 2, 15)),
        ("Session 20 (Continuation) | 2025-10-14 | Planning", "2025-10-14", date(2025, 10, 14)),
        ("🧭 Remote resume — 2026-04-26 (Sprint 10)", "2026-04-26", date(2026, 4, 26)),
        ("Recent changes (2026-07-06 — fixes)", "2026-07-06", date(2026, 7, 6)),
        ("2026-08-21T14:00 deploy", "2026-08-21", date(2026, 8, 21)),
        ("March 13, 2026 — standup", "March 13, 2026", date(2026, 3, 13)),
    ],
)
def test_the_date_an_entry_is_dated_by(text: str, spelled: str, day: date | None) -> None:
    assert session_date(text) == (spelled, day)


@pytest.mark.parametrize(
    "text",
    [
        "round 3",
        "2026-07",
        "20260720",
        "Session 1 — Pre-2026-02-14 (earlier sessions)",  # a date inside a word
        "Next session — 2026-07-20",  # a plan
        "Due 2026-07-20",
        "Last updated: 2026-07-20",  # a field
        "Current state (2026-07-20)",  # a status heading: its date is the record's field
        "What we learned while moving the importer 2026-07-20",  # beyond the first words
        "Plan for 04/05/2026",  # April 5 or May 4: no date at all
    ],
)
def test_text_dated_by_no_entry(text: str) -> None:
    assert session_date(text) is None


def test_seed_grammar_reads_level_two_and_three_headings_only() -> None:
    document = doc("# 2026-05-01\n\n## 2026-05-02\n\n### 2026-05-03\n\n#### 2026-05-04\n")
    assert [e.line for e in entries_of(document, 0)] == [3, 5]
    every = entries_of(document, 0, heading_levels=EVERY_HEADING_LEVEL)
    assert [e.line for e in every] == [1, 3, 5, 7]


def test_dated_table_rows_are_entries_with_their_line() -> None:
    document = doc(
        "# Sessions\n\n| Date | What |\n|---|---|\n| 2026-07-28 | a |\n| note | b |\n"
        "| **2026-07-29** | c (round 4) |\n"
    )
    assert entries_of(document, 0) == []  # the seed's grammar reads headings only
    rows = entries_of(document, 0, table_rows=True)
    assert [(e.line, e.date) for e in rows] == [(5, date(2026, 7, 28)), (7, date(2026, 7, 29))]
    assert rows[1].ordinals == {"round": 4}
    assert rows[0].path == "docs/sessions/2026-05.md"


def test_a_table_header_row_is_never_an_entry() -> None:
    document = doc("| 2026-07-28 | a |\n|---|---|\n| x | y |\n")
    assert entries_of(document, 0, table_rows=True) == []


def test_nothing_inside_a_code_fence_is_an_entry() -> None:
    document = doc(
        "# Log\n\n```\n## 2026-09-09\n| 2026-09-10 | x |\n|---|---|\n| 2026-09-11 | y |\n```\n"
        "\n## 2026-05-01\n"
    )
    entries = entries_of(document, 0, heading_levels=EVERY_HEADING_LEVEL, table_rows=True)
    assert [e.date for e in entries] == [date(2026, 5, 1)]


def test_a_log_inside_the_context_file_is_read_under_any_heading() -> None:
    status = doc(
        "# Status\n\nLast updated: 2026-07-20\n\n## Current work\n\n### 2026-07-18\n\n"
        "## Session Log\n\n### 2026-07-20\n\n#### 2026-07-21 (cont.)\n",
        "docs/STATUS.md",
    )
    assert layout_entries([], status, log_in_context=False) == []
    entries = layout_entries([], status, log_in_context=True)
    assert [(e.path, e.line, e.date) for e in entries] == [
        ("docs/STATUS.md", 7, date(2026, 7, 18)),
        ("docs/STATUS.md", 11, date(2026, 7, 20)),
        ("docs/STATUS.md", 13, date(2026, 7, 21)),
    ]


def test_layout_entries_order_the_files_and_the_newest_wins_ties_by_file() -> None:
    may = doc("## 2026-05-13/14\n", "docs/sessions/2026-05.md")
    table = doc("| Date | W |\n|---|---|\n| 2026-05-14 | x |\n", "docs/sessions/log.md")
    entries = layout_entries([may, table], None, log_in_context=True)
    found = newest(entries)
    assert found is not None and (found.path, found.date) == (
        "docs/sessions/log.md",
        date(2026, 5, 14),
    )


@given(
    st.dates(date(2000, 1, 1), date(2099, 12, 31)),
    st.integers(1, 40),
    st.sampled_from(["## {d}", "### {d} (cont.)", "#### {d} — x", "| {d} | work |"]),
)
def test_a_span_is_dated_by_its_later_day(first: date, length: int, form: str) -> None:
    later = first + timedelta(days=length)
    same_month = (later.year, later.month) == (first.year, first.month)
    spelled = f"{first}/{later:%d}" if same_month else f"{first}/{later}"
    text = form.format(d=spelled)
    if text.startswith("|"):
        text = "| Date | What |\n|---|---|\n" + text
    entries = entries_of(doc(text + "\n"), 0, heading_levels=EVERY_HEADING_LEVEL, table_rows=True)
    assert [e.date for e in entries] == [later]


@given(st.text(max_size=300))
def test_reading_entries_of_any_text_never_raises(text: str) -> None:
    document = doc(text)
    for entry in layout_entries([document], document, log_in_context=True):
        assert entry.line >= 1


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Data pipeline — 2026-05-01", date(2026, 5, 1)),
        ("Status update — 2026-05-02", date(2026, 5, 2)),
    ],
)
def test_a_lead_that_only_starts_with_a_label_word_is_an_entry(text: str, day: date) -> None:
    found = session_date(text)
    assert found is not None and found[1] == day
