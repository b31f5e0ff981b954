"""Claims read from a parsed document: current-looking labels and recorded releases, outside code
and history sections (the grammar is :mod:`context_doctor.model.claims`, which the document
reader uses while parsing)."""

from __future__ import annotations

from context_doctor.model.claims import HISTORY_TITLE, Label, Release, Version
from context_doctor.model.document_facts import Heading
from context_doctor.model.documents import Document


def heading_chain(headings: list[Heading], line: int) -> list[Heading]:
    """The headings ``line`` sits under: the nearest one, then each shallower one above it."""
    chain: list[Heading] = []
    for heading in reversed([h for h in headings if h.line <= line]):
        if not chain or heading.level < chain[-1].level:
            chain.append(heading)
    return chain


def is_history(document: Document, line: int) -> bool:
    return any(HISTORY_TITLE.search(h.text) for h in heading_chain(document.headings, line))


def labels(document: Document, skip: range = range(0)) -> list[Label]:
    """Current-looking labels of a document, outside code, ``skip`` and history sections."""
    found = [Label(*row) for row in document.claim_labels if row[0] not in skip]
    if not found:
        return found  # the usual case: no need to parse the document for its code blocks
    code = document.code_lines
    return [
        label for label in found if label.line not in code and not is_history(document, label.line)
    ]


def releases(document: Document) -> list[Release]:
    """Releases the document records affirmatively (claim lines excluded)."""
    found = [
        Release(Version(spelled, (a, b, c, d), False), document.rel_path, number)
        for number, spelled, a, b, c, d in document.release_lines
    ]
    if not found:
        return found  # parse for code blocks only when a line qualifies
    code = document.code_lines
    return [release for release in found if release.line not in code]
