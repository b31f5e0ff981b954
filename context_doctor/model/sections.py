"""Sections of a Markdown document: where a heading's section ends, and how long it is."""

from __future__ import annotations

import re

from context_doctor.model.documents import Document, Heading

_MILESTONES = re.compile(r"^\s*(?:completed\s+)?milestones\s*$", re.IGNORECASE)
# The seed's archival decision tree: "completed milestones (<=10 lines) stay in CONTEXT.md".
MILESTONES_MAX_LINES = 10


def section_end(document: Document, heading: Heading) -> int:
    """The last line of ``heading``'s section: before the next heading of its level or higher."""
    for other in document.headings:
        if other.line > heading.line and other.level <= heading.level:
            return other.line - 1
    return document.line_count


def body_line_count(document: Document, heading: Heading) -> int:
    """Lines of a section under its heading, trailing blank lines not counted."""
    end = section_end(document, heading)
    while end > heading.line and not document.lines[end - 1].strip():
        end -= 1
    return end - heading.line


def milestone_lines(document: Document) -> frozenset[int]:
    """Lines of the short `Milestones` / `Completed milestones` sections (<= 10 lines each).

    Such a section is the seed's allowed exception to "completed items belong in
    sessions/": a handful of finished milestones may stay in working memory.  A
    longer one has become an archive and gets no exception.
    """
    exempt: set[int] = set()
    for heading in document.headings:
        if (
            heading.level in (2, 3)
            and _MILESTONES.match(heading.text)
            and body_line_count(document, heading) <= MILESTONES_MAX_LINES
        ):
            exempt.update(range(heading.line, section_end(document, heading) + 1))
    return frozenset(exempt)
