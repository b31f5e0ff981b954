"""The episodic log: dated entries across a project's log files (SPEC §1, §10).

An entry is a heading whose text starts with a date (``## 2026-06-01 — work``,
``## 2026-05-30 (cont.)``) and, in a layout's log (SPEC §10), a table body row whose
first cell starts with one (``| 2026-07-29 | … |``).  A session that spans days,
``### 2026-05-13/14``, is dated by its later day.  The seed's layout reads ``##`` and
``###`` headings only (SPEC §1); every other layout reads headings of any level and
table rows, and a log kept inside the context file is read under any heading.  Nothing
inside a code fence is an entry (the headings and rows come from markdown-it's blocks).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from context_doctor.model.documents import Document
from context_doctor.model.text import LEADING_DATE, ordinals, to_date

NOT_LOGS = frozenset({"readme.md", "index.md"})
# SPEC §1: the seed's entries are `##` and `###` headings.  SPEC §10: any heading.
SEED_HEADING_LEVELS = (2, 3)
EVERY_HEADING_LEVEL = (1, 2, 3, 4, 5, 6)
# The later day of a span written after a slash: `/14`, `/06-02`, `/2026-06-02`.
_SPAN = re.compile(r"/(?:(\d{4})-)?(?:(\d{2})-)?(\d{2})(?!\d)")
_LEADING_EMPHASIS = "*_ \t"


@dataclass(frozen=True)
class SessionEntry:
    path: str
    line: int
    heading: str  # the heading's text, or a table row's cells joined by ` | `
    spelled: str  # the date as written, kept for impossible dates
    date: dt.date | None  # None: an impossible date such as 2026-02-30
    file_order: int

    @cached_property
    def ordinals(self) -> dict[str, int]:
        """The heading's ordinals, read when first asked: most entries are never asked (#13)."""
        return ordinals(self.heading)

    def order_key(self) -> tuple[dt.date, int, int]:
        assert self.date is not None
        return (self.date, self.file_order, self.line)


def session_date(text: str) -> tuple[str, dt.date | None] | None:
    """The date ``text`` starts with, as spelled and as a day (None: impossible); else None.

    Leading emphasis is skipped (``**2026-07-20**``).  A span ``2026-05-13/14`` is the later
    day, 2026-05-14; a later part that is not after the first rolls over (``2026-05-31/01``
    is 2026-06-01, ``2026-12-31/01-02`` is 2027-01-02); a part that names no real day makes
    the whole date impossible, so it is reported rather than guessed.
    """
    body = text.lstrip(_LEADING_EMPHASIS)
    match = LEADING_DATE.match(body)
    if match is None:
        return None
    year, month, day = match.groups()
    first = to_date(year, month, day)
    span = _SPAN.match(body, match.end())
    if span is None:
        return match.group(0).strip(), first
    spelled = body[match.start() : span.end()].strip()
    if first is None:
        return spelled, None
    return spelled, _later_day(first, span.group(1), span.group(2), span.group(3))


def _later_day(first: dt.date, year: str | None, month: str | None, day: str) -> dt.date | None:
    later = to_date(year or str(first.year), month or f"{first.month:02}", day)
    if later is None or later > first:
        return later
    if year is not None:  # a whole date not after the first: the first is the later day
        return first
    # `/01` after the 31st is the next month; `/01-02` after December the next year.
    if month is None:
        next_year, next_month = divmod(first.month, 12)
        return to_date(str(first.year + next_year), f"{next_month + 1:02}", day)
    return to_date(str(first.year + 1), month, day)


def entries_of(
    document: Document,
    file_order: int,
    *,
    heading_levels: Sequence[int] = SEED_HEADING_LEVELS,
    table_rows: bool = False,
) -> list[SessionEntry]:
    """The dated entries of one log file, in line order (``file_order``: its place in the log)."""
    found: list[SessionEntry] = []
    for heading in document.headings:
        if heading.level not in heading_levels:
            continue
        dated = session_date(heading.text)
        if dated is not None:
            found.append(
                SessionEntry(document.rel_path, heading.line, heading.text, *dated, file_order)
            )
    if table_rows and document.dated_rows:
        for row in document.dated_rows:
            dated = session_date(row.first_cell)
            if dated is not None:
                found.append(
                    SessionEntry(document.rel_path, row.line, row.text, *dated, file_order)
                )
        found.sort(key=lambda entry: entry.line)
    return found


def layout_entries(
    logs: Sequence[Document], context: Document | None, *, log_in_context: bool
) -> list[SessionEntry]:
    """Every entry of a layout's log (SPEC §10): its log files in order, then, when the log
    lives inside the context file (``sessions = "context"``), that file's entries under any
    heading.  Headings of every level and dated table rows count."""
    documents = [*logs, *([context] if log_in_context and context is not None else [])]
    entries: list[SessionEntry] = []
    for order, document in enumerate(documents):
        entries.extend(
            entries_of(document, order, heading_levels=EVERY_HEADING_LEVEL, table_rows=True)
        )
    return entries


def newest(entries: list[SessionEntry]) -> SessionEntry | None:
    """Greatest date; ties go to the later file, then the later line."""
    dated = [entry for entry in entries if entry.date is not None]
    return max(dated, key=SessionEntry.order_key) if dated else None
