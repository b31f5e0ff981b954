"""Fields read anywhere in a layout's file, `## Name:` headings, comment fields (docs/layouts.md)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_doctor.model.document_facts import field_of_line
from context_doctor.model.documents import Document
from context_doctor.model.header import (
    DEFAULT_LAST_SESSION_NAMES,
    fields_named,
    last_session_field,
)

LAST = DEFAULT_LAST_SESSION_NAMES


def doc(text: str) -> Document:
    return Document.from_text(text, Path("STATUS.md"), "docs/STATUS.md")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Status: active", ("Status", "active")),
        ("**Status:** active", ("Status", "active")),
        ("**Status**: active", ("Status", "active")),
        ("- **Status:** active", ("Status", "active")),
        ("* Status: active", ("Status", "active")),
        ("1. Status: active", ("Status", "active")),
        ("- [ ] Status: active", ("Status", "active")),
        ("> **Last updated:** 2026-07-20", ("Last updated", "2026-07-20")),
        ("> > _Last updated: 2026-07-20_", ("Last updated", "2026-07-20")),
        ("*Updated: 2026-07-20*", ("Updated", "2026-07-20")),
        ("## Last Session: 2026-04-08", ("Last Session", "2026-04-08")),
        ("### **Status:** paused", ("Status", "paused")),
        ("Zuletzt aktualisiert: 2026-04-30", ("Zuletzt aktualisiert", "2026-04-30")),
        ("Última sesión: 2026-04-30", ("Última sesión", "2026-04-30")),
        ("**Phase:** wave 4 **Last session:** 2026-08-23", ("Phase", "wave 4")),
        ("Status:", ("Status", "")),
    ],
)
def test_a_field_line_in_each_form(line: str, expected: tuple[str, str]) -> None:
    assert field_of_line(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "see https://example.org for more",
        "https://example.org",
        "12:30 meeting",
        "- a plain item",
        "<!-- Updated: 2026-07-20 -->",
        "the status of this long project sentence is unclear: ask",  # over 41 characters
        "",
    ],
)
def test_lines_that_are_not_fields(line: str) -> None:
    assert field_of_line(line) is None


def test_fields_anywhere_first_occurrence_wins() -> None:
    document = doc(
        "# Status\n\nSome prose.\n\n## Notes\n\n- **Last updated:** 2026-07-20\n"
        "- Status: active\n\nLast updated: 2026-01-01\nStatus: done\n"
    )
    found = fields_named(document, ["last updated", "STATUS"], anywhere=True)
    assert [(f.name, f.value, f.line) for f in found] == [
        ("Last updated", "2026-07-20", 7),
        ("Status", "active", 8),
    ]


def test_the_first_of_several_names_by_line_wins() -> None:
    document = doc("# S\n\n## A\n\nUpdated: 2026-02-02\n\nLast session: 2026-03-03\n")
    field = last_session_field(document, LAST, anywhere=True)
    assert field is not None
    assert (field[0].name, field[1]) == ("Updated", date(2026, 2, 2))


def test_a_field_without_a_date_gives_way_to_the_next_with_one() -> None:
    document = doc("# S\n\nUpdated: see the log\n\nLast updated: 2026-07-20 (round 3)\n")
    field = last_session_field(document, LAST, anywhere=True)
    assert field is not None and field[1] == date(2026, 7, 20)


def test_fields_inside_code_fences_are_never_read() -> None:
    document = doc("# S\n\n```\nLast updated: 2026-09-09\n## Status: done\n```\n")
    assert fields_named(document, [*LAST, "Status"], anywhere=True) == []
    assert last_session_field(document, LAST, anywhere=True) is None


def test_a_field_in_another_language_is_read_by_its_declared_name() -> None:
    document = doc("# Fortschritt\n\n**Zuletzt aktualisiert:** 2026-04-30\n")
    assert last_session_field(document, LAST, anywhere=True) is None
    field = last_session_field(document, ["Zuletzt aktualisiert"], anywhere=True)
    assert field is not None and field[1] == date(2026, 4, 30)


def test_a_comment_is_the_last_resort() -> None:
    commented = doc("# S\n\n<!-- Updated: 2026-07-20 by the nightly job -->\n\nProse.\n")
    field = last_session_field(commented, LAST, anywhere=True)
    assert field is not None and field[1] == date(2026, 7, 20) and field[0].line == 3
    both = doc("# S\n\n<!-- Updated: 2026-07-20 -->\n\nLast updated: 2026-05-01\n")
    field = last_session_field(both, LAST, anywhere=True)
    assert field is not None and field[1] == date(2026, 5, 1)


def test_a_comment_in_code_is_not_a_field() -> None:
    document = doc("# S\n\n```html\n<!-- Updated: 2026-07-20 -->\n```\n")
    assert last_session_field(document, LAST, anywhere=True) is None


def test_the_seed_reads_its_header_block_and_a_last_session_heading() -> None:
    """A hand-off note headed `## Last Session: 2026-04-08` is read, never 'unreadable'."""
    note = doc("# Hand-off\n\n## Last Session: 2026-04-08\n\nDid things.\n")
    field = last_session_field(note, ["Last session"], anywhere=False)
    assert field is not None
    assert (field[0].line, field[1]) == (3, date(2026, 4, 8))
    header_first = doc(
        "# P\n**Last session:** 2026-05-01\n\n## Last Session: 2026-04-08\n\n"
        "## Notes\nLast session: 2026-09-09\n"
    )
    field = last_session_field(header_first, ["Last session"], anywhere=False)
    assert field is not None and field[1] == date(2026, 5, 1)


def test_the_seed_reads_no_body_lines_and_no_comments() -> None:
    """The seed keeps its header-block rule: a body line or a section marker is no header."""
    document = doc(
        "# P\n\n## Notes\n<!-- updated: 2026-07-01 by:me -->\nLast session: 2026-07-02\n"
    )
    assert last_session_field(document, ["Last session"], anywhere=False) is None
    assert fields_named(document, ["Last session"], anywhere=False) == []


def test_anywhere_keeps_the_header_rule_for_fields_sharing_a_line() -> None:
    document = doc("# P\n**Phase:** wave 4 **Last session:** 2026-08-23\n")
    names = [f.name for f in fields_named(document, ["Phase", "Last session"], anywhere=True)]
    assert names == ["Phase", "Last session"]


NAMES = st.sampled_from(["Status", "Last updated", "Zuletzt aktualisiert", "Phase"])
PREFIXES = st.sampled_from(["", "- ", "* ", "1. ", "> ", "## ", "- [ ] ", "> - "])
EMPHASIS = st.sampled_from([("", ""), ("**", ""), ("_", "_"), ("*", "*")])


@given(NAMES, PREFIXES, EMPHASIS, st.dates(date(2000, 1, 1), date(2099, 12, 31)))
def test_any_marked_field_line_reads_its_name_and_date(
    name: str, prefix: str, emphasis: tuple[str, str], day: date
) -> None:
    opening, closing = emphasis
    if opening == "**":
        line = f"{prefix}**{name}:** {day} notes"
    else:
        line = f"{prefix}{opening}{name}: {day} notes{closing}"
    document = doc(f"# T\n\nProse first.\n\n{line}\n")
    found = last_session_field(document, [name.upper()], anywhere=True)
    assert found is not None
    assert found[0].name == name and found[0].line == 5 and found[1] == day


@given(st.text(max_size=200))
def test_reading_fields_of_any_text_never_raises(text: str) -> None:
    document = doc(text)
    fields_named(document, [*LAST, "Status"], anywhere=True)
    fields_named(document, ["Last session"], anywhere=False)
    last_session_field(document, LAST, anywhere=True)


def test_within_reads_only_the_records_section() -> None:
    """A `## Current status` section of a CLAUDE.md: fields above or below it are not its."""
    document = doc(
        "# Project guide\n\nStatus: see the README\n\n## Current status\n\n"
        "- Status: active\n- Last updated: 2026-07-02\n\n## Conventions\n\nUpdated: 2026-01-01\n"
    )
    section = (5, 10)
    found = fields_named(document, ["Status"], anywhere=True, within=section)
    assert [(f.value, f.line) for f in found] == [("active", 7)]
    field = last_session_field(document, LAST, anywhere=True, within=section)
    assert field is not None and field[1] == date(2026, 7, 2)
    assert last_session_field(document, LAST, anywhere=True, within=(1, 5)) is None


def test_an_updated_comment_counts_whatever_the_layout_calls_its_field() -> None:
    document = doc("# Fortschritt\n\n<!-- Updated: 2026-04-30 -->\n")
    field = last_session_field(document, ["Zuletzt aktualisiert"], anywhere=True)
    assert field is not None and field[1] == date(2026, 4, 30)
