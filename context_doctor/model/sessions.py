"""The episodic log: dated entries across a project's log files (docs/layouts.md).

An entry is a heading whose text starts with a date (``## 2026-06-01 — work``,
``## 2026-05-30 (cont.)``) and, in a layout's log (docs/layouts.md), a table body row whose
first cell starts with one (``| 2026-07-29 | … |``).  A session that spans days,
``### 2026-05-13/14``, is dated by its later day.  The seed's layout reads ``##`` and
``###`` headings only (docs/layouts.md); every other layout reads headings of any level and
table rows, and a log kept inside the context file is read under any heading.  Nothing
inside a code fence is an entry (the headings and rows come from markdown-it's blocks).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from context_doctor.guards.dates import entry_date, entry_month
from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.text import ordinals
from context_doctor.layouts import NEWEST_FIRST as NEWEST_FIRST  # a check names the orders
from context_doctor.layouts import OLDEST_FIRST as OLDEST_FIRST
from context_doctor.layouts.words import NOT_ENTRY_LEADS
from context_doctor.model.document_facts import Heading
from context_doctor.model.documents import Document

NOT_LOGS = frozenset({"readme.md", "index.md"})
# docs/layouts.md: the seed's entries are `##` and `###` headings.  docs/layouts.md: any heading.
SEED_HEADING_LEVELS = (2, 3)
EVERY_HEADING_LEVEL = (1, 2, 3, 4, 5, 6)


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
        """The heading's ordinals, read when first asked: most entries are never asked."""
        return ordinals(self.heading)

    def order_key(self) -> tuple[dt.date, int, int]:
        assert self.date is not None
        return (self.date, self.file_order, self.line)


def session_date(text: str) -> tuple[str, dt.date | None] | None:
    """The date ``text`` (a heading, a list item, a table cell) is dated by as a session
    entry, as spelled and as a day (None: impossible); else None.

    One reader for every layout (:func:`context_doctor.guards.dates.entry_date`): the date
    stands in its first words, bare or decorated (``**2026-07-20**``, ``[2026-08-21]``,
    ``Session 12 — 2026-08-21``, ``Session: 2026-02-15 18:02``, ``🧭 Resume — …``); a
    field's label or a status heading before it (``Last updated: …``) makes it no entry. A
    span ``2026-05-13/14`` is the later day, 2026-05-14; a later part that is not after the
    first rolls over (``2026-05-31/01`` is 2026-06-01, ``2026-12-31/01-02`` is 2027-01-02);
    a part that names no real day makes the whole date impossible, so it is reported rather
    than guessed.
    """
    return entry_date(text, not_leads=NOT_ENTRY_LEADS)


def entries_of(
    document: Document,
    file_order: int,
    *,
    heading_levels: Sequence[int] = SEED_HEADING_LEVELS,
    table_rows: bool = False,
    list_items: bool = False,
) -> list[SessionEntry]:
    """The dated entries of one log file, in line order (``file_order``: its place in the log).

    ``list_items`` (a layout's own log file, never its context file): a file with no dated
    heading and no dated row keeps its sessions as list items led by a date
    (``- 2026-07-19 — released``), and those are its entries (seen in real hand-off
    logs).  A file with dated headings or rows keeps its dated bullets as prose.  A file
    whose newest heading entry is dated by its month alone (``## Done (July 2026)``, later
    than every entry dated to the day) has no entry the doctor can read: none.
    """
    found: list[SessionEntry] = []
    months: list[tuple[int, int]] = []
    for heading in document.headings:
        if heading.level not in heading_levels:
            continue
        dated = session_date(heading.text)
        if dated is not None:
            found.append(
                SessionEntry(document.rel_path, heading.line, heading.text, *dated, file_order)
            )
        elif (month := entry_month(heading.text, not_leads=NOT_ENTRY_LEADS)) is not None:
            months.append(month)
    if months and found and max(months) > max(_months_of(found), default=(0, 0)):
        # `## Recently completed (July 2026)` above `## … (March 22, 2026)`: the newest
        # session is dated by its month alone, so no entry of this file can say which day
        # the log reaches; reading March's as the newest would be wrong (docs/layouts.md).
        return []
    if table_rows and document.dated_rows:
        for row in document.dated_rows:
            dated = session_date(row.first_cell)
            if dated is not None:
                found.append(
                    SessionEntry(document.rel_path, row.line, row.text, *dated, file_order)
                )
        found.sort(key=lambda entry: entry.line)
    if list_items and not found:
        for item in document.list_items:
            dated = session_date(item.text)
            if dated is not None:
                found.append(
                    SessionEntry(document.rel_path, item.line, item.text, *dated, file_order)
                )
    return found


def _months_of(entries: Sequence[SessionEntry]) -> list[tuple[int, int]]:
    return [(entry.date.year, entry.date.month) for entry in entries if entry.date is not None]


def layout_entries(
    logs: Sequence[Document], context: Document | None, *, log_in_context: bool
) -> list[SessionEntry]:
    """Every entry of a layout's log (docs/layouts.md): its log files in order, then, when the log
    lives inside the context file (``sessions = "context"``), that file's entries under any
    heading.  Headings of every level and dated table rows count."""
    documents = [*logs, *([context] if log_in_context and context is not None else [])]
    entries: list[SessionEntry] = []
    for order, document in enumerate(documents):
        entries.extend(
            entries_of(
                document,
                order,
                heading_levels=EVERY_HEADING_LEVEL,
                table_rows=True,
                list_items=document is not context,
            )
        )
    return entries


def newest(entries: list[SessionEntry]) -> SessionEntry | None:
    """Greatest date; ties go to the later file, then the later line."""
    dated = [entry for entry in entries if entry.date is not None]
    return max(dated, key=SessionEntry.order_key) if dated else None


MIXED = "mixed"
"""A log whose dates both rise and fall (:func:`log_order`)."""


def log_order(entries: Sequence[SessionEntry]) -> str | None:
    """How one log file orders its dated entries (docs/layouts.md "Order"), read from the
    entries themselves: ``newest-first`` when their dates never rise and fall at least
    once, ``oldest-first`` when they never fall and rise at least once, :data:`MIXED` when
    they do both; None with fewer than two different dates (any order holds). Same-day
    entries in either order (`2026-04-15b` above `2026-04-15`) keep it."""
    rises = falls = 0
    previous: dt.date | None = None
    for entry in entries:
        if entry.date is None:
            continue
        if previous is not None:
            rises += entry.date > previous
            falls += entry.date < previous
        previous = entry.date
    if rises and falls:
        return MIXED
    if falls:
        return NEWEST_FIRST
    if rises:
        return OLDEST_FIRST
    return None


def against_order(
    entries: Sequence[SessionEntry], order: str
) -> list[tuple[SessionEntry, dt.date]]:
    """The entries against ``order``, each with the date of the entry it should not follow:
    the newest before it (newest first: the oldest before it)."""
    newest_first = order == NEWEST_FIRST
    against: list[tuple[SessionEntry, dt.date]] = []
    bound: dt.date | None = None
    for entry in entries:
        if entry.date is None:
            continue
        if bound is not None and (entry.date > bound if newest_first else entry.date < bound):
            against.append((entry, bound))
        if bound is None:
            bound = entry.date
        else:
            bound = min(bound, entry.date) if newest_first else max(bound, entry.date)
    return against


def kept_order(entries: Sequence[SessionEntry], declared: str | None = None) -> str:
    """The order a log is kept in (docs/layouts.md "Order"): ``declared`` (``[layout]
    order``), else the one :func:`log_order` reads, else, in a log that mixes both, the one
    fewer of its entries go against (oldest first on a tie, and for a log of one date).
    ``log add`` writes in this order and ``session-log-layout`` names the entries against it."""
    if declared is not None:
        return declared
    read = log_order(entries)
    if read in (NEWEST_FIRST, OLDEST_FIRST):
        return read
    if read is None:
        return OLDEST_FIRST
    newest = len(against_order(entries, NEWEST_FIRST))
    return NEWEST_FIRST if newest < len(against_order(entries, OLDEST_FIRST)) else OLDEST_FIRST


# -- how a new entry is spelled (``log add`` writes it, a remedy shows it) -----------------

_SEPARATOR = LazyPattern(r"\d{4}-\d{2}-\d{2}(\s*[—\u2013:-]+\s*)")
_LOG_SECTION = LazyPattern(r"(?:session\s*log|sessions|log)\s*", re.IGNORECASE)
_MONTH_FILE = LazyPattern(r"\d{4}-\d{2}\.md", re.IGNORECASE)
NEW_ENTRY = (2, " — ")
"""A new log file's entry: ``## YYYY-MM-DD — Title``."""
ROW = 0
"""The level of :func:`new_entry_form` that means a new table row (``| DATE | … |``)."""
ITEM = -1
"""The level of :func:`new_entry_form` that means a new list item (``- DATE — …``)."""
ROW_AFTER_LABEL = -2
"""The level of :func:`new_entry_form` that means a new table row dated in its second cell,
after a numbered label (``| Round 8 | DATE | … |``)."""


def is_month_file(name: str) -> bool:
    """``2026-05.md``: a log folder's file for one month."""
    return _MONTH_FILE.fullmatch(name) is not None


def log_section(document: Document) -> Heading | None:
    """The heading a log inside a context file lives under (``Session Log``, ``Sessions``,
    ``Log``, any case), when it has no dated entry yet."""
    return next((h for h in document.headings if _LOG_SECTION.fullmatch(h.text)), None)


def new_entry_form(
    document: Document | None, entries: Sequence[SessionEntry], *, in_context: bool
) -> tuple[int, str]:
    """How ``log add`` spells a new entry of ``document`` (None: a new file), whose dated
    entries are ``entries``: (heading level, separator after the date); level :data:`ROW`
    is a new table row (:data:`ROW_AFTER_LABEL`: one dated in its second cell).  The writer and every remedy that proposes an entry ask this, so a
    remedy shows what ``log add`` writes.

    A log of table rows only gets a row; otherwise the level and separator of the file's
    first dated heading; a context file with no entry yet one level below its log section
    (``### …`` under a new ``## Session Log``); any other file ``## YYYY-MM-DD — ``.
    """
    if document is None:
        return NEW_ENTRY
    entries = live_entries(document, entries)
    rows = {row.line: row for row in document.dated_rows}
    if entries and all(entry.line in rows for entry in entries):
        second = rows[entries[-1].line].column == 1
        return (ROW_AFTER_LABEL if second else ROW), " | "
    heading_lines = {heading.line for heading in document.headings}
    if entries and not any(entry.line in heading_lines for entry in entries):
        found = _SEPARATOR.match(entries[0].heading.strip())
        return ITEM, found.group(1) if found else NEW_ENTRY[1]
    headings = [entry for entry in entries if entry.line not in rows]
    if headings:
        first = headings[0]
        level = next(h.level for h in document.headings if h.line == first.line)
        found = _SEPARATOR.match(first.heading.strip())
        return level, found.group(1) if found else NEW_ENTRY[1]
    if in_context:
        section = log_section(document)
        return (section.level + 1 if section is not None else 3), NEW_ENTRY[1]
    return NEW_ENTRY


def live_entries(document: Document, entries: Sequence[SessionEntry]) -> list[SessionEntry]:
    """The entries of the live log among ``entries`` (docs/layouts.md): those of the same kind
    (table rows, headings or list items) as the newest dated one. A file that left a table log
    for dated headings (or the other way round) is written where it is kept now, never into
    the log it abandoned."""
    dated = [entry for entry in entries if entry.date is not None]
    if not dated:
        return list(entries)
    rows = {row.line for row in document.dated_rows}
    headings = {heading.line for heading in document.headings}

    def kind(entry: SessionEntry) -> int:
        return 0 if entry.line in rows else 1 if entry.line in headings else 2

    live = kind(max(dated, key=SessionEntry.order_key))
    return [entry for entry in entries if kind(entry) == live]


def spell_entry(day: dt.date, form: tuple[int, str]) -> str:
    """``### 2026-08-12 — …`` or ``| 2026-08-12 | … |``: a new entry as a remedy shows it."""
    level, separator = form
    if level == ROW:
        return f"| {day.isoformat()} | … |"
    if level == ROW_AFTER_LABEL:
        return f"| … | {day.isoformat()} | … |"
    if level == ITEM:
        return f"- {day.isoformat()}{separator}…"
    return f"{'#' * level} {day.isoformat()}{separator}…"


def new_file_form(sibling: Document | None, entries: Sequence[SessionEntry]) -> tuple[int, str]:
    """How ``log add`` spells the first entry of a new month file beside ``sibling``, the
    newest month file of the same log (None: there is none): as that file spells its
    entries, so a log kept in ``###`` entries stays so; ``## YYYY-MM-DD — `` otherwise."""
    form = new_entry_form(sibling, entries, in_context=False) if sibling is not None else NEW_ENTRY
    return NEW_ENTRY if form[0] in (ROW, ROW_AFTER_LABEL, ITEM) else form
