"""The few words detection reads (docs/layouts.md): is a file working memory, which section holds it.

Deliberately small and line-based (detection adds at most 20 ms): the model reads the
same shapes fully once the layout is known (``model/header.py``, ``model/sessions.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from context_doctor.guards.patterns import LazyPattern

# A field line once list markers, `>` and emphasis are stripped: `Name: value`.
_STRIP = LazyPattern(r"^[\s>*_\-+]*(?:\d+[.)]\s+)?[\s>*_]*")
_HEADING_FIELD = LazyPattern(r"^#{1,6}\s+([^:#]{1,60}?)\s*:\s*\S")
_DATED_HEADING = LazyPattern(r"^#{2,3}\s+\d{4}-\d{2}-\d{2}(?!\d)")
_DATED_ROW = LazyPattern(r"^\s*\|\s*\**\d{4}-\d{2}-\d{2}(?!\d)")
_UPDATED_COMMENT = LazyPattern(r"<!--\s*(?:last\s+)?updated\s*:", re.IGNORECASE)
_FENCE = LazyPattern(r"^\s{0,3}(`{3,}|~{3,})")
_SECTION = LazyPattern(r"^#{2,3}\s+(.+?)\s*#*\s*$")


def prose_lines(lines: Iterable[str]) -> Iterator[str]:
    """The lines outside fenced code blocks."""
    fence: str | None = None
    for line in lines:
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
            yield line


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


def holds_working_memory(lines: list[str], names: Iterable[str]) -> bool:
    """A field named ``names``, an ``<!-- Updated: … -->`` comment, or a dated entry."""
    wanted = {name.casefold() for name in names}
    for line in prose_lines(lines):
        if _DATED_HEADING.match(line) or _DATED_ROW.match(line) or _UPDATED_COMMENT.search(line):
            return True
        if ":" in line and field_name(line) in wanted:
            return True
    return False


def section_heading(lines: list[str], title: str) -> str | None:
    """The ``##``/``###`` heading whose text is ``title`` (any case), as written."""
    wanted = title.casefold()
    for line in prose_lines(lines):
        found = _SECTION.match(line)
        if found is not None and found.group(1).strip().casefold() == wanted:
            return found.group(1).strip()
    return None
