"""Reading a record's fields (docs/layouts.md header fields, docs/layouts.md fields anywhere), and the
completion reading of its Status and Phase (docs/layouts.md "Completion reading").

Which fields a record has depends on its layout, which passes its own values in:
the field names of ``[layout.fields]`` (case-insensitive) and whether fields are read
anywhere in the file (every layout but the seed's) or in the header block (the seed's,
whose `## Last Session: DATE` headings are read as well, docs/layouts.md).

Only a value's leading clause decides: a completion word later in the prose never
does (a real active project's Status "Roster email sent — asking for a complete
suite description" is not completed, #18).

Every status word the vocabulary knows gives a verdict: `active`, `ongoing`, `new`
and `in progress` read as not completed, `superseded` (like the completion words)
as completed.  They behave like `active` does: beside a completion word, whichever
comes first wins ("Shipped v1, ongoing maintenance" reads completed by its leading
clause; "New — nothing shipped yet" reads not completed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from context_doctor.model.document_facts import HeaderField, field_of_line, first_of_each_name
from context_doctor.model.text import first_date

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
    """The lines (first, end excluded) under the heading whose text is ``section``: the
    ``## Current status`` section an instructions file keeps its record in, up to the next
    heading of its level or above.  None: the file has no such heading.  The reader
    (``Project.fields``) and the writers (``edit set-field``, ``log add --set-header``)
    ask this one function, so a writer edits the field the doctor reads (#27)."""
    headings = document.headings
    for position, heading in enumerate(headings):
        if heading.text.strip() == section:
            end = next(
                (h.line for h in headings[position + 1 :] if h.level <= heading.level),
                len(document.lines) + 1,
            )
            return heading.line + 1, end
    return None


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
    """The last-session field and the first ``YYYY-MM-DD`` in its value (None: impossible).

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
    for field in (*fields, *comments):
        found = first_date(field.value)
        if found is not None:
            return field, found[1]
    return None
