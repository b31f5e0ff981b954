"""Dates as people write them (docs/layouts.md "Dates"), and the date a session entry is dated by.

By property: any day, written in any form the reader knows and decorated as real logs
decorate their entries, is read back as that day; and a writer's respelling of it reads
back as the new day, in the same form.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_doctor.guards.dates import MONTH_NAMES, entry_date, find_date, find_dates, respell
from context_doctor.layouts.words import NOT_ENTRY_LEADS

DAYS = st.dates(min_value=date(1990, 1, 1), max_value=date(2099, 12, 31))
PROPERTY = settings(max_examples=300, deadline=None)


def _name(language: str, month: int) -> str:
    return MONTH_NAMES[language][month - 1].split("|")[0]


def spell(day: date, form: str) -> str:
    """``day`` in one of the forms the reader knows."""
    spelled = {
        "iso": day.isoformat(),
        "dots": f"{day.day:02}.{day.month:02}.{day.year}",
        "dots-bare": f"{day.day}.{day.month}.{day.year}",
        "english": f"{_name('en', day.month)} {day.day}, {day.year}",
        "english-short": f"{_name('en-short', day.month)} {day.day} {day.year}",
        "british": f"{day.day} {_name('en', day.month)} {day.year}",
        "german": f"{day.day}. {_name('de', day.month)} {day.year}",
        "polish": f"{day.day} {_name('pl-of', day.month)} {day.year}",
        "spanish": f"{day.day} de {_name('es', day.month)} de {day.year}",
        "cjk": f"{day.year}年{day.month}月{day.day}日",
        "korean": f"{day.year}년 {day.month}월 {day.day}일",
    }
    if form == "slashes":  # only an order that is certain: a day over 12, else the same number
        if day.day > 12:
            return f"{day.day:02}/{day.month:02}/{day.year}"
        return f"{day.month:02}/{day.day:02}/{day.year}" if day.day == day.month else ""
    return spelled[form]


FORMS = st.sampled_from(
    [
        "iso",
        "dots",
        "dots-bare",
        "english",
        "english-short",
        "british",
        "german",
        "polish",
        "spanish",
        "cjk",
        "korean",
        "slashes",
    ]
)
# How real logs decorate an entry's date: (before, after).
DECORATIONS = st.sampled_from(
    [
        ("", ""),
        ("[", "]"),
        ("**", "**"),
        ("`", "`"),
        ("_", "_"),
        ("🧭 ", ""),
        ("Session 12 — ", ""),
        ("Session: ", ""),
        ("Session 3 | ", " | title"),
        ("Session 20 (Continuation) | ", " | title"),
        ("Remote resume — ", " (Sprint 4)"),
        ("Recent changes (", " — fixes)"),
        ("Day 3 - ", ""),
    ]
)
AFTER = st.sampled_from(["", " 14:00", "T14:00", " 14:00 UTC", " (cont.)", " — the parser", ": a"])


@PROPERTY
@given(DAYS, FORMS, DECORATIONS, AFTER)
def test_any_decorated_date_is_read_as_its_entry(
    day: date, form: str, decoration: tuple[str, str], after: str
) -> None:
    written = spell(day, form)
    if not written:
        return
    before, closing = decoration
    text = f"{before}{written}{closing}{after}"
    found = entry_date(text, not_leads=NOT_ENTRY_LEADS)
    assert found is not None, text
    assert found[1] == day, text


@PROPERTY
@given(DAYS, FORMS, DAYS)
def test_a_respelled_date_reads_back_in_its_own_form(day: date, form: str, new: date) -> None:
    written = spell(day, form)
    if not written:
        return
    found = find_date(f"Stand: {written} (note)")
    assert found is not None and found.day == day
    again = respell(found, new)
    back = find_date(again)
    assert back is not None and back.day == new, (written, again)
    assert back.form == found.form or (form == "slashes" and back.form == "iso"), (written, again)


@pytest.mark.parametrize(
    ("old", "new", "written"),
    [
        ("30.04.2026", date(2026, 5, 2), "02.05.2026"),
        ("1.4.2026", date(2026, 5, 2), "2.5.2026"),
        ("17/01/2025", date(2026, 5, 20), "20/05/2026"),
        ("17/01/2025", date(2026, 5, 2), "2026-05-02"),  # 02/05/2026 would be no date
        ("April 30, 2026", date(2026, 5, 2), "May 2, 2026"),
        ("Apr 1st 2026", date(2026, 5, 22), "May 22nd 2026"),
        ("30. April 2026", date(2026, 5, 2), "2. Mai 2026"),
        ("26 maja 2025", date(2026, 6, 3), "3 czerwca 2026"),
        ("CURRENT STATE", None, None),
        ("2026年4月30日", date(2026, 5, 2), "2026年5月2日"),
    ],
)
def test_respell_keeps_the_form(old: str, new: date | None, written: str | None) -> None:
    found = find_date(old)
    if new is None:
        assert found is None
        return
    assert found is not None and respell(found, new) == written


@pytest.mark.parametrize(
    "text",
    [
        "January 2026",  # a month without its day
        "Feb 3",  # a day without its year
        "04/05/2026",  # April 5 or May 4: never guessed
        "v2024.1.2",
        "20260720",
        "build 1234",
    ],
)
def test_no_date(text: str) -> None:
    assert find_date(text) is None


def test_an_impossible_day_is_found_as_impossible() -> None:
    found = find_date("Stand: 31.04.2026")
    assert found is not None and found.spelled == "31.04.2026" and found.day is None


def test_an_ambiguous_date_does_not_hide_a_later_one() -> None:
    assert [found.day for found in find_dates("04/05/2026, then 2026-05-07")] == [date(2026, 5, 7)]
