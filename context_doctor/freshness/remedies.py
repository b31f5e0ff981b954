"""What a freshness finding proposes: the command that records a review, or the change by hand.

A remedy never proposes a command that would fail: `freshness review` refuses a file
without the convention (migrate it first), one declaring another convention, and a
derived file, so for those the remedy says what to do by hand.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from context_doctor.freshness.files import FileRead
from context_doctor.freshness.frontmatter import (
    CONVENTION,
)


def section_remedy(rel_path: str, slug: str) -> str:
    if not slug:
        return (
            "Give the heading words outside its parentheses (its slug is empty, so "
            "`freshness review-section` cannot name it), then review the section."
        )
    return (
        "Review the section, then run `context-doctor freshness review-section "
        f"{shlex.quote(rel_path)} {shlex.quote(slug)}`."
    )


def review_command(
    rel_path: str, data: Mapping[str, Any] | None, readable: bool = True
) -> str | None:
    """The command that records a review of ``rel_path``, or None when the writers refuse it.

    ``data`` is the file's frontmatter (None: it has none). `freshness review` refuses a file
    without the convention (migrate it first), one declaring another convention, and a
    derived file: a remedy never proposes a command that would fail.
    """
    if not readable:
        return None
    quoted = shlex.quote(rel_path)
    review = f"context-doctor freshness review {quoted}"
    if data is None or data.get("convention") is None:
        return f"context-doctor freshness migrate {quoted} && {review}"
    if data.get("convention") != CONVENTION or data.get("derived_from"):
        return None
    return review


def review_remedy(
    rel_path: str, data: Mapping[str, Any] | None, lead: str, readable: bool = True
) -> str:
    command = review_command(rel_path, data, readable)
    if not readable:
        return f"{malformed_remedy(rel_path)[:-1]}; then review it with its owner."
    if command is None:
        return (
            f"{lead} with its owner and record `last_reviewed` in {rel_path}'s frontmatter by "
            f"hand (the doctor's writers refuse it: it is derived, or not {CONVENTION})."
        )
    return f"{lead} with its owner, then run `{command}`."


def derived_reviewed_remedy(
    rel_path: str, source: tuple[str, Path] | None, read: Callable[[Path], FileRead]
) -> str:
    drop = f"Remove `last_reviewed` from {rel_path}"
    if source is None:
        return f"{drop}; its source cannot be found, so point `derived_from` at it, then review it."
    source_rel, source_path = source
    source_read = read(source_path)
    data = source_read.frontmatter.data if source_read.frontmatter else None
    command = review_command(source_rel, data, source_read.problem is None)
    if command is None:
        return f"{drop} and review its source, {source_rel}, by hand."
    return f"{drop} and review its source instead (`{command}`)."


def malformed_remedy(rel_path: str) -> str:
    return (
        f"Fix the frontmatter of {rel_path} by hand: a leading `---` YAML block whose dates are "
        "ISO-8601 (a day, or a datetime with its offset)."
    )
