"""A record's date read by the layouts' vocabulary (docs/layouts.md "Date lines"), and the
section of an instructions file found by its words, whatever its date says."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from context_doctor.model.documents import Document
from context_doctor.model.header import last_session_field, record_date, section_range


def doc(text: str, rel: str = "STATUS.md") -> Document:
    return Document.from_text(text, Path(rel), rel)


@pytest.mark.parametrize(
    ("line", "label", "day"),
    [
        ("**Ngày cập nhật**: 17/01/2025  ", "Ngày cập nhật", date(2025, 1, 17)),
        ("> **Data:** 26 maja 2025  ", "Data", date(2025, 5, 26)),
        ("**Stand:** 30.04.2026 · dokumentiert 02.05.2026", "Stand", date(2026, 4, 30)),
        ("Stand: 19. Februar 2026", "Stand", date(2026, 2, 19)),
        (
            "_Ostatnia aktualizacja: 2026-04-30 — przegląd_",
            "Ostatnia aktualizacja",
            date(2026, 4, 30),
        ),
        ("- **Last Updated**: 2026-03-02 06:48:57", "Last Updated", date(2026, 3, 2)),
        ("Last activity: 2026-02-26 — milestone shipped", "Last activity", date(2026, 2, 26)),
        (
            "A snapshot for the next agent. Updated 2026-07-23 after the renames.",
            "Updated",
            date(2026, 7, 23),
        ),
        ("## Last Updated: March 13, 2026", "Last Updated", date(2026, 3, 13)),
        ("**Date**: 2025-11-28", "Date", date(2025, 11, 28)),
        ("最終更新: 2026年4月30日", "最終更新", date(2026, 4, 30)),
        ("> 최종 갱신: 2026-06-16 · 배포 중", "최종 갱신", date(2026, 6, 16)),
        ("最近更新\uff1a2026-06-16", "最近更新", date(2026, 6, 16)),  # a full-width colon
    ],
)
def test_a_date_line_in_any_language(line: str, label: str, day: date) -> None:
    found = record_date(doc(f"# Project state\n\n{line}\n\n## Done\n\n- Export.\n"), None)
    assert found is not None
    assert (found.field.name, found.day, found.field.line) == (label, day, 3)
    assert not found.in_heading


@pytest.mark.parametrize(
    "line",
    [
        "**Created:** 2025-01-01",  # a creation date says nothing of how current it is
        "Due: 2026-09-01",
        "Stand: 04/05/2026",  # April 5 or May 4: never guessed
        "Updated: see the changelog of 2026-04-30",  # the date does not follow the label
        "Last updated: January 2026",  # a month is no date
    ],
)
def test_no_date_line(line: str) -> None:
    assert record_date(doc(f"# Project state\n\n{line}\n"), None) is None


def test_a_date_line_is_read_among_the_first_lines_only() -> None:
    far = "# Notes\n\n" + "".join(f"- point {n}\n" for n in range(30)) + "Stand: 30.04.2026\n"
    assert record_date(doc(far), None) is None


def test_a_section_is_dated_by_its_heading_and_found_by_its_words() -> None:
    text = (
        "# CLAUDE.md\n\n## Commands\n\n- make test\n\n"
        "## Current State (Updated: 2025-12-12)\n\n- Porting the parser.\n\n## Style\n\n- Short.\n"
    )
    document = doc(text, "CLAUDE.md")
    within = section_range(document, "Current State (Updated: 2025-12-12)")
    assert within == (8, 11)
    # The heading a writer re-dated is still the section: found by its words.
    assert section_range(document, "Current State (Updated: 2026-01-05)") == within
    found = record_date(document, within)
    assert found is not None and found.in_heading
    assert (found.field.name, found.day, found.field.line) == ("Updated", date(2025, 12, 12), 7)


def test_the_later_of_a_section_date_and_the_files_top_date_counts() -> None:
    text = (
        "# Command center\n## Last Updated: March 13, 2026\n\n## Handoff\n\n- Notes.\n\n"
        "## CURRENT STATE (March 11, 2026)\n\n- Ten projects.\n"
    )
    document = doc(text, "CLAUDE.md")
    within = section_range(document, "CURRENT STATE (March 11, 2026)")
    found = record_date(document, within)
    assert found is not None and (found.day, found.field.line) == (date(2026, 3, 13), 2)
    older_top = text.replace("March 13", "March 1")
    found = record_date(doc(older_top, "CLAUDE.md"), within)
    assert found is not None and (found.day, found.field.line) == (date(2026, 3, 11), 8)


def test_a_layout_field_is_read_in_any_form_outside_the_seed() -> None:
    document = doc("# Status\n\nLast updated: 30.04.2026 (review)\n")
    found = last_session_field(document, ("Last updated",), anywhere=True)
    assert found is not None and found[1] == date(2026, 4, 30)
    # the seed's grammar keeps `YYYY-MM-DD`
    seed = doc("# Atlas\n\n**Last session:** 30.04.2026\n", "CONTEXT.md")
    assert last_session_field(seed, ("Last session",), anywhere=False) is None
