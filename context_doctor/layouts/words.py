"""The words a layout is read by (docs/layouts.md), one list each, for detection, the model
and the writers alike: which headings hold a record, which labels date it, which lines
are dated entries.

- :data:`STATUS_HEADINGS`: a level-2 heading whose words are one of these (any case, an
  emoji or emphasis before it, a parenthesis, a date or ``— …`` after it) is the section
  of an instructions file (``CLAUDE.md``, ``AGENTS.md``) that holds its record
  (:func:`status_heading`); a date in the heading is its date field.
- :data:`DATE_LABELS`: a line among a record's first :data:`FIRST_LINES` lines that is one
  of these labels followed by a date (``Stand: 30.04.2026``, ``**Ngày cập nhật**:
  17/01/2025``, ``_Last updated 2026-04-30_``) is its date field when the layout declares
  no other (:func:`date_line`).
- Entries are read by :func:`context_doctor.guards.dates.entry_date`, told these words
  (:data:`NOT_ENTRY_LEADS`): ``## Last updated: 2026-04-30`` is a field, not a session.

Detection is deliberately line-based and small (it adds at most 20 ms); the model reads
the same shapes from parsed Markdown once the layout is known, with the same functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from context_doctor.guards.dates import FoundDate, entry_date, find_date
from context_doctor.guards.patterns import LazyPattern

STATUS_HEADINGS: Final = ("current status", "current state", "project status", "status", "state")
"""The words of a section that holds an instructions file's record (docs/layouts.md)."""
CURRENT_HEADINGS: Final = frozenset({"current status", "current state"})
"""Headings that say by their words that they are kept current: working memory even with no
date and no log. The others (``## Status``, ``## Project status``, ``## State``) are working
memory only with a date (in the heading or the section) or a dated log: a standing statement
(``## Project status`` / "unmaintained, no support") is not."""

# A label's words, casefolded, each language's usual ways to say when a record was last
# brought up to date. Never a creation or a plan date (`Created:`, `Due:`): those say
# nothing about how current the record is.
DATE_LABELS: Final = frozenset(
    {
        # English
        "last updated", "updated", "last update", "updated on", "last updated on",
        "last session", "last modified", "modified", "date", "as of", "state as of",
        "status as of", "current as of", "last activity", "last edited", "edited",
        "last revised", "revised", "last changed", "session date", "last worked",
        # German
        "stand", "stand vom", "zuletzt aktualisiert", "aktualisiert", "letzte aktualisierung",
        "datum", "letzte änderung", "zuletzt geändert",
        # French
        "mis à jour", "mise à jour", "dernière mise à jour", "mis à jour le",
        # Spanish, Portuguese, Italian
        "actualizado", "última actualización", "actualización", "fecha",
        "atualizado", "última atualização", "atualização", "data",
        "aggiornato", "ultimo aggiornamento", "aggiornamento",
        # Dutch, Polish
        "bijgewerkt", "laatst bijgewerkt", "ostatnia aktualizacja", "aktualizacja",
        "zaktualizowano",
        # Vietnamese, Russian, Turkish
        "ngày cập nhật", "cập nhật", "cập nhật lần cuối", "ngày",
        "обновлено", "дата", "последнее обновление", "son güncelleme", "güncellendi", "tarih",
        # Japanese, Chinese, Korean
        "最終更新", "最終更新日", "更新日", "更新", "日付", "最后更新", "更新时间", "更新日期",
        "日期", "最後更新", "最近更新", "更新于", "최종 업데이트", "업데이트", "날짜",
        "마지막 업데이트", "최종 수정", "수정일", "최종 갱신", "갱신", "갱신일", "마지막 갱신",
    }
)  # fmt: skip
BARE_DATE_LABELS: Final = frozenset(
    {"updated", "last updated", "updated on", "last updated on", "as of", "stand", "aktualisiert"}
)
"""Labels that date a line without a colon (``Updated 2026-04-30 after …``, ``Stand
30.04.2026``), at its start or after a sentence."""
FIRST_LINES: Final = 20
"""How many of a record's first lines (of the file, or of its section) a date line may be on."""

NOT_ENTRY_LEADS: Final = frozenset({*DATE_LABELS, *STATUS_HEADINGS})
"""The leads that make a dated heading a field, not a session entry (``## Last updated: …``)."""

# A field line once list markers, `>` and emphasis are stripped: `Name: value`.
_STRIP = LazyPattern(r"^[\s>*_\-+]*(?:\d+[.)]\s+)?[\s>*_]*")
_HEADING_FIELD = LazyPattern(r"^#{1,6}\s+([^:#]{1,60}?)\s*:\s*\S")
_HEADING = LazyPattern(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = LazyPattern(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_UPDATED_COMMENT = LazyPattern(r"<!--\s*(?:last\s+)?updated\s*:", re.IGNORECASE)
_FENCE = LazyPattern(r"^\s{0,3}(`{3,}|~{3,})")
# The marks before a line's label: list markers, a task box, `>`, heading marks, emphasis.
_LINE_MARKS = LazyPattern(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?|>\s*|#{1,6}\s+)*[*_]*")
_LABEL = LazyPattern(r"([^\W\d_][\w'\u2019 .\-]{0,40}?)[*_]*\s*[:\uff1a][*_]*\s*")
_BARE_LABEL = LazyPattern(
    r"(?:^|(?<=[.;!?]\s))((?:last\s+)?updated(?:\s+on)?|as\s+of|stand|aktualisiert)\s+",
    re.IGNORECASE,
)
_DECORATION = LazyPattern(r"^[\W_]*?(?=[^\W_])")
_TRAILER = LazyPattern(r"^\s*(?:\((?P<paren>[^()]*)\)|[—\u2013\-:|·,]\s*(?P<rest>.*?))?[\W_]*$")
_LABELLED = LazyPattern(r"^\s*(?P<label>[^\W\d_][\w'\u2019 ]{0,30}?)\s*[:\uff1a]\s*")


def prose_lines(lines: Iterable[str]) -> Iterator[str]:
    """The lines outside fenced code blocks."""
    for _, line in numbered_prose_lines(lines):
        yield line


def numbered_prose_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(1-based number, line) for the lines outside fenced code blocks."""
    fence: str | None = None
    for number, line in enumerate(lines, start=1):
        opened = _FENCE.match(line)
        if opened is not None:
            marker = opened.group(1)
            if fence is None:
                fence = marker[0] * 3
                continue
            if marker.startswith(fence):
                fence = None
                continue
        if fence is None:
            yield number, line


def field_name(line: str) -> str | None:
    """The ``Name`` of a ``Name: value`` line or ``## Name: value`` heading, casefolded."""
    heading = _HEADING_FIELD.match(line)
    if heading is not None:
        return heading.group(1).strip().casefold()
    stripped = _STRIP.sub("", line, count=1)
    name, colon, _ = stripped.partition(":")
    if not colon or not name or len(name) > 60:
        return None
    return name.strip().strip("*_").strip().casefold() or None


# -- the section of an instructions file that holds its record ----------------------


@dataclass(frozen=True)
class StatusHeading:
    """A heading read as a record's section: its words (one of :data:`STATUS_HEADINGS`),
    the label its date goes by (``Updated`` in ``(Updated: DATE)``, else the heading's
    words as written), and the date (None: the heading carries none)."""

    words: str
    label: str
    date: FoundDate | None  # its columns are the heading text's
    offset: int  # where the words start in the heading text (after an emoji or emphasis)

    @property
    def current(self) -> bool:
        return self.words in CURRENT_HEADINGS


def status_heading(text: str) -> StatusHeading | None:
    """``text`` (a heading's text) read as a record's section, or None.

    ``Current status``, ``CURRENT STATE (March 13, 2026)``, ``📍 Current State (Updated:
    2025-12-12)``, ``Project status — 2026-11-28``, ``Status (updated as of this
    session)``: the words, then nothing, a parenthesis, or a separator and a date. Not
    ``Current status of the parser``, ``State machine`` or ``Status: shipped`` (a field).
    """
    lead = _DECORATION.match(text)
    start = lead.end() if lead is not None else 0
    body = text[start:].replace("*", "").replace("_", " ")
    folded = body.casefold()
    for words in STATUS_HEADINGS:
        if not folded.startswith(words):
            continue
        rest = body[len(words) :]
        if rest[:1].isalnum():
            continue  # `Statuses`, `Stateful`
        trailer = _TRAILER.match(rest)
        if trailer is None:
            continue
        inside = trailer.group("paren")
        after = trailer.group("rest")
        if after is not None and after and find_date(after) is None:
            continue  # `Status: shipped`, `State — see below`: words after it, no date
        found = find_date(inside or after or "")
        label = body[: len(words)].strip()
        labelled = _LABELLED.match(inside) if inside and found is not None else None
        if labelled is not None and found is not None and labelled.end() <= found.start:
            label = labelled.group("label").strip()
        # The date as found in the heading's own text: its columns are what a writer splices.
        date = find_date(text, start) if found is not None else None
        return StatusHeading(words, label, date, start)
    return None


def status_section(lines: list[str]) -> tuple[int, str, StatusHeading] | None:
    """The level-2 heading of ``lines`` that holds the record (1-based line, its text as
    written, how it reads): the first ``Current status``/``Current state``, else the
    first other status heading."""
    found: list[tuple[int, str, StatusHeading]] = []
    for number, line in numbered_prose_lines(lines):
        heading = _HEADING.match(line)
        if heading is None or len(heading.group(1)) != 2:
            continue
        reading = status_heading(heading.group(2))
        if reading is not None:
            found.append((number, heading.group(2), reading))
    return pick_status_section(found)


def pick_status_section(
    found: list[tuple[int, str, StatusHeading]],
) -> tuple[int, str, StatusHeading] | None:
    """Of the status headings ``found`` in file order, the one that holds the record: the
    first that says it is current by its words, else the first."""
    current = [item for item in found if item[2].current]
    return current[0] if current else found[0] if found else None


# -- a date line among a record's first lines -------------------------------------


@dataclass(frozen=True)
class DateLine:
    """A record's date line: its label as written, where the date is on the line, the date."""

    label: str
    date: FoundDate  # ``start``/``end`` are columns of the line
    value: str  # the text after the label


def date_line(line: str) -> DateLine | None:
    """``line`` read as a date line: a label of :data:`DATE_LABELS` and a colon, or a
    :data:`BARE_DATE_LABELS` label at its start or after a sentence, then a date.

    Marks around it are skipped: list markers, ``>``, heading marks, emphasis
    (``- **Last Updated**: 2026-03-02 06:48:57``, ``> **Data:** 26 maja 2025``,
    ``*Last updated: 2026-07-07 (note)*``, ``## Last Updated: March 13, 2026``).
    """
    if not any(ch.isdigit() for ch in line):
        return None
    marks = _LINE_MARKS.match(line)
    start = marks.end() if marks is not None else 0
    labelled = _LABEL.match(line, start)
    if labelled is not None:
        label = labelled.group(1).strip().strip("*_ ").rstrip(".").strip()
        if label.casefold() in DATE_LABELS:
            date = find_date(line, labelled.end())
            if date is not None and not line[labelled.end() : date.start].strip(" *_("):
                return DateLine(label, date, line[labelled.end() :].strip(" *_"))
    rest = line[start:]
    for bare in _BARE_LABEL.finditer(rest):
        date = find_date(line, start + bare.end())
        if date is not None and date.start == start + bare.end():
            return DateLine(bare.group(1), date, line[date.start :].strip(" *_"))
    return None


def first_date_line(lines: list[str], *, first: int = 1) -> tuple[int, DateLine] | None:
    """The first date line among the :data:`FIRST_LINES` lines from line ``first`` (1-based)
    outside code: (its line number, how it reads)."""
    end = first + FIRST_LINES
    for number, line in numbered_prose_lines(lines):
        if number < first:
            continue
        if number >= end:
            break
        found = date_line(line)
        if found is not None:
            return number, found
    return None


# -- is a file working memory: the words detection looks for ----------------------


def dated_entry_line(line: str) -> bool:
    """A heading, list item or table row dated as a session entry (docs/layouts.md)."""
    heading = _HEADING.match(line)
    if heading is not None:
        return entry_date(heading.group(2), not_leads=NOT_ENTRY_LEADS) is not None
    stripped = line.strip()
    if stripped.startswith("|"):
        cells = [cell.strip() for cell in stripped.strip("|").split("|")]
        return row_date_cell(cells) is not None
    item = _ITEM.match(line)
    return item is not None and entry_date(item.group(1), not_leads=NOT_ENTRY_LEADS) is not None


_NUMBERED_LABEL = LazyPattern(r"^(?:#?\d{1,6}[a-z]?|[^\W\d_]{1,12}\.?\s*#?\d{1,6}[a-z]?)$")


def row_date_cell(cells: list[str]) -> int | None:
    """The cell a table row is dated by (docs/layouts.md): the first, or the second when the
    first is a number or a numbered label (``Round 3``, ``#12``); the date fills it (emphasis,
    a time or a short note after it aside). None: the row is no entry."""
    for column, cell in enumerate(cells[:2]):
        text = cell.strip().strip("*_` ")
        found = find_date(text)
        if found is not None and not text[: found.start].strip("[( "):
            return column
        if column == 0 and _NUMBERED_LABEL.match(text) is None:
            return None
    return None


def holds_working_memory(
    lines: list[str], names: Iterable[str], *, status_heading_too: bool = True
) -> bool:
    """A field named ``names``, a date line, an ``<!-- Updated: … -->`` comment, a dated entry,
    or (``status_heading_too``) a ``Current status``/``Current state`` heading."""
    wanted = {name.casefold() for name in names}
    for number, line in numbered_prose_lines(lines):
        if _UPDATED_COMMENT.search(line) or dated_entry_line(line):
            return True
        if ":" in line and field_name(line) in wanted:
            return True
        if number <= FIRST_LINES and date_line(line) is not None:
            return True
        heading = _HEADING.match(line) if status_heading_too else None
        if heading is not None and len(heading.group(1)) == 2:
            reading = status_heading(heading.group(2))
            if reading is not None and (reading.current or reading.date is not None):
                return True
    return False
