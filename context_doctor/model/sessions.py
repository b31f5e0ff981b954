"""The episodic log: dated ``##``/``###`` entries across ``sessions/*.md``."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property

from context_doctor.model.documents import Document
from context_doctor.model.text import LEADING_DATE, ordinals, to_date

NOT_LOGS = frozenset({"readme.md", "index.md"})


@dataclass(frozen=True)
class SessionEntry:
    path: str
    line: int
    heading: str
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


def entries_of(document: Document, file_order: int) -> list[SessionEntry]:
    found: list[SessionEntry] = []
    for heading in document.headings:
        if heading.level not in (2, 3):
            continue
        match = LEADING_DATE.match(heading.text)
        if match is None:
            continue
        found.append(
            SessionEntry(
                path=document.rel_path,
                line=heading.line,
                heading=heading.text,
                spelled=match.group(0).strip(),
                date=to_date(*match.groups()),
                file_order=file_order,
            )
        )
    return found


def newest(entries: list[SessionEntry]) -> SessionEntry | None:
    """Greatest date; ties go to the later file, then the later line."""
    dated = [entry for entry in entries if entry.date is not None]
    return max(dated, key=SessionEntry.order_key) if dated else None
