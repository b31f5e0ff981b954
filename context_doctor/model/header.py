"""Reading a record's fields (docs/layouts.md header fields, docs/layouts.md fields anywhere), and the
completion reading of its Status and Phase (docs/layouts.md "Completion reading").

Which fields a record has depends on its layout, which passes its own values in:
the field names of ``[layout.fields]`` (case-insensitive) and whether fields are read
anywhere in the file (every layout but the seed's) or in the header block (the seed's,
whose `## Last Session: DATE` headings are read as well, docs/layouts.md).

Only a value's leading clause decides: a completion word later in the prose never
does (a real active project's Status "Roster email sent — asking for a complete
suite description" is not completed).

Every status word the vocabulary knows gives a verdict: `active`, `ongoing`, `new`
and `in progress` read as not completed, `superseded` (like the completion words)
as completed.  They behave like `active` does: beside a completion word, whichever
comes first wins ("Shipped v1, ongoing maintenance" reads completed by its leading
clause; "New — nothing shipped yet" reads not completed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from context_doctor.guards.dates import FoundDate, find_date, first_day
from context_doctor.guards.text import first_date
from context_doctor.layouts.words import first_date_line, pick_status_section, status_heading
from context_doctor.model.document_facts import HeaderField, field_of_line, first_of_each_name

if TYPE_CHECKING:
    from context_doctor.model.documents import Document

# docs/layouts.md `[layout.fields]` defaults, in the order a layout lists them.
DEFAULT_LAST_SESSION_NAMES = ("Last session", "Last updated", "Updated")
DEFAULT_STATUS_NAMES = ("Status",)
DEFAULT_PHASE_NAMES = ("Phase",)

# A full stop ends the clause only before a space or the end (`v2.0 shipped` is one clause).
_CLAUSE_END = re.compile(r"—|\||,|;|\(|\.(?!\S)|--")
_NOT_COMPLETE = re.compile(r"\bnot\s+(?:yet\s+)?complete(?:d)?\b")
_ON_HOLD = re.compile(r"\b(?:paused|on\s+hold|parked)\b")
# Live status words: `active`, and the retired live statuses the index vocabulary still
# recognises (docs/layouts.md: a status the doctor knows in the index must give a header verdict too).
_LIVE = re.compile(r"\b(?:active|ongoing|new|in\s+progress)\b")
_COMPLETION = re.compile(r"\b(?:complete|completed|shipped|closed|done|archived|superseded)\b")


def _verdict_of(text: str) -> bool | None:
    lowered = text.casefold()
    if _NOT_COMPLETE.search(lowered) or _ON_HOLD.search(lowered):
        return False
    active = _LIVE.search(lowered)
    completion = _COMPLETION.search(lowered)
    if active and completion:
        return completion.start() < active.start()
    if completion:
        return True
    if active:
        return False
    return None


def value_verdict(value: str) -> bool | None:
    """True: reads completed; False: reads not completed; None: says nothing."""
    return _verdict_of(_leading_clause(value))


def completion_reading(status: list[HeaderField], phase: list[HeaderField]) -> bool | None:
    """Status values in order, first verdict wins; only then the Phase values."""
    field = deciding_field(status, phase)
    return value_verdict(field.value) if field is not None else None


def deciding_field(status: list[HeaderField], phase: list[HeaderField]) -> HeaderField | None:
    """The field whose value gives the completion reading: the one a finding quotes."""
    for fields in (status, phase):
        for field in fields:
            if value_verdict(field.value) is not None:
                return field
    return None


def _leading_clause(value: str) -> str:
    return _CLAUSE_END.split(value, maxsplit=1)[0]


def pause_reading(status: list[HeaderField], phase: list[HeaderField]) -> HeaderField | None:
    """The field whose leading clause says paused (`Paused`, `On hold`, `Parked`), if the
    value that decides the completion reading says so; None otherwise."""
    for fields in (status, phase):
        for field in fields:
            if value_verdict(field.value) is None:
                continue
            return field if _ON_HOLD.search(_leading_clause(field.value).casefold()) else None
    return None


def heading_fields(document: Document) -> list[HeaderField]:
    """``## Name: value`` headings read as fields (emphasis stripped), in file order."""
    found: list[HeaderField] = []
    for heading in document.headings:
        field = field_of_line(heading.text)
        if field is not None:
            found.append(HeaderField(field[0], field[1], heading.line))
    return found


def fields_named(
    document: Document,
    names: Sequence[str],
    *,
    anywhere: bool,
    within: tuple[int, int] | None = None,
) -> list[HeaderField]:
    """The fields called any of ``names`` (case-insensitive), in the order the file holds them.

    ``anywhere`` (docs/layouts.md, a layout other than the seed's): the first occurrence of each
    name anywhere in the file wins: a header-block field (several may share a line, as the
    seed writes them) or a line that starts with ``Name:`` once list markers, ``>``, heading
    marks and emphasis are stripped (``## Name: value`` included).  ``within``
    (``(first, end)``, 1-based lines, end excluded) reads only those lines: the section a
    record lives in (``## Current status`` of a ``CLAUDE.md``).  Otherwise (the seed's
    layout, docs/layouts.md) every header-block field of those names, then the first ``## Name:``
    heading of each name: a hand-off note headed ``## Last Session: 2026-04-08`` is read.
    Fields inside code are never read.
    """
    wanted = {name.casefold() for name in names}
    if anywhere:
        candidates = [*document.header_fields, *document.line_fields]
        candidates.sort(key=lambda field: field.line)  # stable: a line keeps its own order
        return list(
            first_of_each_name(
                field
                for field in candidates
                if field.name.casefold() in wanted and _inside(field, within)
            )
        )
    block = [field for field in document.header_fields if field.name.casefold() in wanted]
    headings = first_of_each_name(
        field for field in heading_fields(document) if field.name.casefold() in wanted
    )
    return [*block, *headings]


def section_range(document: Document, section: str) -> tuple[int, int] | None:
    """The lines (first, end excluded) under the heading whose text is ``section`` (else,
    when none is spelled so, the level-2 status heading the layouts' vocabulary reads,
    :func:`context_doctor.layouts.words.status_heading`: a heading whose date a writer
    moved is still the section): the ``## Current status`` section an instructions file
    keeps its record in, up to the next heading of its level or above.  None: the file has
    no such heading.  The reader (``Project.fields``) and the writers (``edit set-field``,
    ``log add --set-header``) ask this one function, so a writer edits the field the
    doctor reads."""
    headings = document.headings
    position = next(
        (n for n, heading in enumerate(headings) if heading.text.strip() == section), None
    )
    if position is None:
        found = pick_status_section(
            [
                (n, heading.text, reading)
                for n, heading in enumerate(headings)
                if heading.level == 2 and (reading := status_heading(heading.text)) is not None
            ]
        )
        if found is None:
            return None
        position = found[0]
    heading = headings[position]
    end = next(
        (h.line for h in headings[position + 1 :] if h.level <= heading.level),
        len(document.lines) + 1,
    )
    return heading.line + 1, end


@dataclass(frozen=True)
class RecordDate:
    """A record's date read by the layouts' vocabulary (docs/layouts.md "Date lines"): the
    field it stands for (its label as written, the rest of its line, its line), its day
    (None: no real day), and the date as found on that line (columns of the line), so a
    writer moves that date in its own spelling (``in_heading``: the date of the section's
    heading)."""

    field: HeaderField
    day: date | None
    found: FoundDate
    in_heading: bool


def record_date(document: Document, within: tuple[int, int] | None) -> RecordDate | None:
    """The date a record carries when its layout's field names give none: the date in the
    heading of its section (``## Current State (Updated: 2025-12-12)``), else the first
    date line among the record's first lines (``Stand: 30.04.2026``, ``**Ngày cập nhật**:
    17/01/2025``): :func:`context_doctor.layouts.words.date_line`. ``within``: the record's
    section (None: the whole file). A section's record may also be dated at the top of its
    file (``## Last Updated: March 13, 2026`` on line 2 of a ``CLAUDE.md``): the later of
    the two dates counts, since the whole file, the section too, was brought up to it."""
    lines = document.lines
    if within is None:
        return _date_line_in(lines, 1, len(lines) + 1)
    heading_line = within[0] - 1
    in_section = _heading_date(lines, heading_line) or _date_line_in(lines, within[0], within[1])
    at_top = _date_line_in(lines, 1, heading_line) if heading_line > 1 else None
    if at_top is None or at_top.day is None:
        return in_section
    if in_section is None or in_section.day is None or at_top.day > in_section.day:
        return at_top
    return in_section


def _heading_date(lines: list[str], number: int) -> RecordDate | None:
    if number < 1:
        return None
    raw = lines[number - 1]
    text = raw.lstrip(" ").lstrip("#").strip()
    reading = status_heading(text)
    if reading is None or reading.date is None:
        return None
    found = find_date(raw)
    if found is None:
        return None
    return RecordDate(HeaderField(reading.label, text, number), found.day, found, in_heading=True)


def _date_line_in(lines: list[str], first: int, end: int) -> RecordDate | None:
    """The first date line among the first lines from ``first``, before line ``end``."""
    dated = first_date_line(lines[: end - 1], first=first)
    if dated is None:
        return None
    number, line = dated
    field = HeaderField(line.label, line.value, number)
    return RecordDate(field, line.date.day, line.date, in_heading=False)


def _inside(field: HeaderField, within: tuple[int, int] | None) -> bool:
    return within is None or within[0] <= field.line < within[1]


# docs/layouts.md names the comment `<!-- Updated: DATE … -->`: read whatever the layout calls
# its field, beside the layout's own names.
_COMMENT_NAMES = ("Updated", "Last updated")


def last_session_field(
    document: Document,
    names: Sequence[str],
    *,
    anywhere: bool,
    within: tuple[int, int] | None = None,
) -> tuple[HeaderField, date | None] | None:
    """The last-session field and the first date in its value (None: impossible): in the
    seed's layout a ``YYYY-MM-DD``, in every other any form docs/layouts.md "Dates" reads.

    The first field of ``names`` (:func:`fields_named`) whose value holds a date; when none
    does and fields are read ``anywhere``, the first HTML comment ``<!-- Updated: DATE … -->``
    (or one named as the layout names its field) that holds one (docs/layouts.md: a comment is the
    last resort).  The seed's layout keeps its header rule: its section markers
    (``<!-- updated: DATE by:NAME -->``, docs/layouts.md) date sections, not the record.  None when
    nothing gives a date.
    """
    wanted = {name.casefold() for name in (*names, *_COMMENT_NAMES)}
    comments = [
        field
        for field in (document.comment_fields if anywhere else ())
        if field.name.casefold() in wanted and _inside(field, within)
    ]
    fields = fields_named(document, names, anywhere=anywhere, within=within)
    read = first_day if anywhere else first_date  # the seed's grammar: `YYYY-MM-DD` only
    for field in (*fields, *comments):
        found = read(field.value)
        if found is not None:
            return field, found[1]
    return None
