"""What CONTEXT.md says about its own currency: as-of markers, open items, stamps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from context_doctor.guards.text import ordinals, to_date
from context_doctor.model.document_facts import HeaderField, Heading, ListItem
from context_doctor.model.documents import Document

# docs/layouts.md: an open-section word counts only at the start of a title part (`What's Next —
# Later` yes, `What Pierce Needs to Do` no). Parts are split at dashes between spaces, colons,
# slashes, pipes, brackets, commas and semicolons; a part may open with `What's`.
_OPEN_TITLE = re.compile(
    r"^(?:what['\u2019]?s\s+|what\s+is\s+)?"
    r"(?:open|pending|next|actions?|todos?|to[\s-]+dos?|blocked|waiting|in\s+progress)\b",
    re.IGNORECASE,
)
_TITLE_PARTS = re.compile(r"\s+[-\u2013\u2014]+\s+|\s*(?:--|[:/|()\[\],;\u00b7])\s*")
_PART_LEAD = re.compile(r"^[\W\d_]+")  # numbering, emoji, emphasis before the first word
# A session summary (`## Recent Session: …`, `### 2026-06-01 — …`) is never an open section.
_SESSION_SUMMARY = re.compile(r"^[\W_]*(?:\d{4}-\d{2}-\d{2}|recent\s+sessions?\b)", re.IGNORECASE)
# The two operational sections of a working context (any title starting so).
CURRENT_STATE_TITLE = re.compile(r"^\s*current\s+state\b", re.IGNORECASE)
WHATS_NEXT_TITLE = re.compile(r"^\s*what['\u2019]?s\s+next\b", re.IGNORECASE)
_STAMP = re.compile(r"\(\s*as of\b([^)]*)\)\s*$", re.IGNORECASE)
_STAMP_BODY = re.compile(
    r"^\s*(\d{4})-(\d{2})-(\d{2})\s*(?:,\s*review\s+(\d{1,9})\s*d\s*)?$", re.IGNORECASE
)


@dataclass(frozen=True)
class AsOfMarker:
    line: int
    spelled: str
    date: date | None  # None: an impossible date
    ordinals: dict[str, int]
    section: Heading | None  # the nearest ``##`` heading above


def as_of_markers(document: Document) -> list[AsOfMarker]:
    return [
        AsOfMarker(
            line=found.line,
            spelled=f"{found.year}-{found.month}-{found.day}",
            date=to_date(found.year, found.month, found.day),
            ordinals=ordinals(found.rest),
            section=document.heading_above(found.line, max_level=2),
        )
        for found in document.as_of_lines
    ]


def is_session_summary(title: str) -> bool:
    return _SESSION_SUMMARY.match(title) is not None


def is_open_title(title: str) -> bool:
    if is_session_summary(title):
        return False
    return any(_OPEN_TITLE.match(_PART_LEAD.sub("", part)) for part in _TITLE_PARTS.split(title))


def is_operational_title(title: str) -> bool:
    return bool(CURRENT_STATE_TITLE.match(title) or WHATS_NEXT_TITLE.match(title))


@dataclass(frozen=True)
class OpenItem:
    item: ListItem
    section: Heading  # the open ``##``/``###`` section it is listed under


def open_items(document: Document) -> list[OpenItem]:
    """Task-list items (``[ ]`` or ``[x]``) under an open ``##``/``###`` section (or a ``###``
    inside an open ``##``); plain bullets and numbered lines without a box are prose."""
    found: list[OpenItem] = []
    is_open: dict[int, bool] = {}  # by the section heading's line: asked once per section
    for item in document.list_items:
        if item.checked is None:
            continue
        section = document.heading_above(item.line, max_level=3)
        if section is None or section.level < 2:
            continue
        verdict = is_open.get(section.line)
        if verdict is None:
            chain = [section]
            if section.level == 3:
                parent = document.heading_above(section.line, max_level=2)
                if parent is not None and parent.level == 2:
                    chain.append(parent)
            # A session summary anywhere in the chain closes it (its "Next steps" are history).
            verdict = is_open[section.line] = not any(
                is_session_summary(h.text) for h in chain
            ) and any(is_open_title(h.text) for h in chain)
        if verdict:
            found.append(OpenItem(item, section))
    return found


@dataclass(frozen=True)
class Stamp:
    spelled: str
    date: date | None  # None: malformed or impossible; see ``problem``
    review_days: int | None
    problem: str | None


def stamp_of(item: ListItem) -> Stamp | None:
    """The trailing ``(as of YYYY-MM-DD[, review Nd])`` of an item, if it has one."""
    # Only the tail can hold a trailing stamp; searching the whole line is quadratic.
    start = item.text.rfind("(")
    match = _STAMP.search(item.text, start) if start >= 0 else None
    if match is None:
        return None
    body = match.group(1).strip()
    spelled = match.group(0)
    parsed = _STAMP_BODY.match(body)
    if parsed is None:
        return Stamp(spelled, None, None, "a malformed form")
    year, month, day, review = parsed.groups()
    day_value = to_date(year, month, day)
    if day_value is None:
        return Stamp(spelled, None, None, "an impossible date")
    return Stamp(spelled, day_value, int(review) if review is not None else None, None)


def without_stamp(item: ListItem) -> str:
    """The item's text without its trailing ``(as of ...)`` stamp."""
    stamp = stamp_of(item)
    return item.text[: len(item.text) - len(stamp.spelled)] if stamp else item.text


def lags(
    when: date | None,
    named: dict[str, int],
    reference: date | None,
    reference_ordinals: dict[str, int],
) -> bool:
    """Does a record dated ``when`` naming ``named`` describe an older state than the reference?

    Older by date, or on the same day with a lower ordinal in a shared family
    (families are never compared with each other).
    """
    if when is None or reference is None:
        return False
    if when != reference:
        return when < reference
    return any(
        family in reference_ordinals and number < reference_ordinals[family]
        for family, number in named.items()
    )


@dataclass(frozen=True)
class HeaderLag:
    """``**Phase:**`` names a higher ordinal than ``**Last session:**`` in a shared family."""

    family: str
    phase_number: int
    last_number: int
    phase: HeaderField
    last_session: HeaderField


def header_lag(document: Document) -> HeaderLag | None:
    """The first family in which the header's first Phase is ahead of its first Last session."""
    phases = document.field_values("Phase")
    lasts = document.field_values("Last session")
    if not phases or not lasts:
        return None
    last_ordinals = ordinals(lasts[0].value)
    for family, number in ordinals(phases[0].value).items():
        if family in last_ordinals and number > last_ordinals[family]:
            return HeaderLag(family, number, last_ordinals[family], phases[0], lasts[0])
    return None
