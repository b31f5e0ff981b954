"""Unresolved merge-conflict markers left in a text file.

git writes a conflict as a ``<<<<<<< ours`` line, the two sides separated by
``=======`` (and, with diff3, a ``||||||| base`` line), and a ``>>>>>>> theirs``
line, each marker exactly seven characters at the start of a line.  A lone
``=======`` is also a Markdown setext heading underline, so only the opening
and closing markers decide: a region starts at ``<<<<<<<`` and ends at the next
``>>>>>>>``; a closing marker with no opening one is a region of its own.
Lines inside fenced or indented code are never markers (a document may show a
conflict as an example).
"""

from __future__ import annotations

from dataclasses import dataclass

from context_doctor.guards.patterns import LazyPattern

_OPEN = LazyPattern(r"<{7}(?:[ \t]|$)")
_CLOSE = LazyPattern(r">{7}(?:[ \t]|$)")


@dataclass(frozen=True)
class ConflictRegion:
    start: int  # 1-based line of the first marker
    end: int | None  # 1-based line of the closing marker; None when it never closes
    opened: bool  # False: a closing marker with no opening one


def conflict_regions(lines: list[str], code_lines: frozenset[int]) -> list[ConflictRegion]:
    """Every conflict region in ``lines`` outside ``code_lines`` (one linear pass)."""
    regions: list[ConflictRegion] = []
    start: int | None = None
    for number, line in enumerate(lines, start=1):
        if number in code_lines:
            continue
        if _OPEN.match(line):
            if start is not None:
                regions.append(ConflictRegion(start, None, True))
            start = number
        elif _CLOSE.match(line):
            regions.append(ConflictRegion(start or number, number, start is not None))
            start = None
    if start is not None:
        regions.append(ConflictRegion(start, None, True))
    return regions


def may_hold_markers(text: str) -> bool:
    """Cheap first look, so documents without a marker are never tokenised for this."""
    return "<<<<<<<" in text or ">>>>>>>" in text
