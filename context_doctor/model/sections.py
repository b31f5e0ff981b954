"""Sections of a Markdown document: where a heading's section ends, and how long it is."""

from __future__ import annotations

import re

from context_doctor.model.document_facts import Heading
from context_doctor.model.documents import Document

_MILESTONES = re.compile(r"^\s*(?:completed\s+)?milestones\s*$", re.IGNORECASE)
# The seed's archival decision tree: "completed milestones (<=10 lines) stay in CONTEXT.md".
MILESTONES_MAX_LINES = 10


def section_end(document: Document, heading: Heading) -> int:
    """The last line of ``heading``'s section: before the next heading of its level or higher."""
    for other in document.headings:
        if other.line > heading.line and other.level <= heading.level:
            return other.line - 1
    return document.line_count


# A thematic break (`---`, `***`, `___`): in the seed's template it sets the budget footer off
# from the last section, so it ends that section's content.
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


def content_end(document: Document, heading: Heading) -> int:
    """The last line of ``heading``'s content: its section, up to a thematic break in it."""
    end = section_end(document, heading)
    code = document.code_lines
    for number in range(heading.line + 1, end + 1):
        if number not in code and _RULE.match(document.lines[number - 1]):
            return number - 1
    return end


def body_line_count(document: Document, heading: Heading) -> int:
    """Lines of a section under its heading, up to a thematic break (the budget footer's
    separator at the end of the file), trailing blank lines not counted."""
    end = content_end(document, heading)
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
            exempt.update(range(heading.line, content_end(document, heading) + 1))
    return frozenset(exempt)
