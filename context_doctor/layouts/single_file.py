"""Single-file layouts: one working-memory file an agent resumes from, and its log.

``STATUS.md``, ``PROGRESS.md``, ``HANDOFF.md`` (at the root or under ``docs/``),
``docs/handoff/state.md``, and ``CLAUDE.md`` or ``AGENTS.md`` holding a status section
(``## Current status``, ``## Current State (Updated: 2025-12-12)``, ``## Project status``
…: :data:`context_doctor.layouts.words.STATUS_HEADINGS`). The log is a folder named
``sessions`` beside the file, else ``sessions/``, else ``docs/sessions/``, else a log file
beside it (``SESSION_LOG.md``, ``SESSIONS.md``) that holds dated entries, else the file's
own dated entries (docs/layouts.md).
"""

from __future__ import annotations

from context_doctor.layouts import IN_CONTEXT, SINGLE_FILE, Layout
from context_doctor.layouts.tree import Tree
from context_doctor.layouts.words import (
    dated_entry_line,
    first_date_line,
    numbered_prose_lines,
    status_section,
)

WORKING_FILES = (
    "STATUS.md",
    "docs/STATUS.md",
    "PROGRESS.md",
    "docs/PROGRESS.md",
    "HANDOFF.md",
    "docs/HANDOFF.md",
    "docs/handoff/state.md",
)
INSTRUCTION_FILES = ("CLAUDE.md", "AGENTS.md")
STATUS_SECTION = "Current status"
SHAPES = (
    "STATUS.md, PROGRESS.md or HANDOFF.md (at the root or under docs/)",
    "docs/handoff/state.md",
)
SECTION_SHAPE = "CLAUDE.md or AGENTS.md with a `## Current status` section (or `## Current state`…)"
LOG_FILES = ("SESSION_LOG.md", "SESSIONS.md", "SESSION-LOG.md")
"""A log file beside a record, by name in any case, read when it holds dated entries."""


def find_named(tree: Tree, path: str) -> str | None:
    """``path`` as the tree spells it, its file name matched in any case (the first in
    sorted order when several spellings exist); None when no such file exists."""
    if tree.is_file(path):
        return path
    folder, _, name = path.rpartition("/")
    wanted = name.casefold()
    for candidate in tree.names(folder):
        spelled = f"{folder}/{candidate}" if folder else candidate
        if candidate.casefold() == wanted and tree.is_file(spelled):
            return spelled
    return None


def has_dated_entries(tree: Tree, path: str) -> bool:
    return any(dated_entry_line(line) for _, line in numbered_prose_lines(tree.lines(path) or []))


def log_of(tree: Tree, context: str) -> tuple[str, str]:
    """The log of the working-memory file ``context`` and what it matched."""
    folder = context.rpartition("/")[0]
    beside = f"{folder}/sessions" if folder else "sessions"
    for candidate in dict.fromkeys((beside, "sessions", "docs/sessions")):
        if tree.is_dir(candidate):
            return candidate, f"{candidate}/ (a folder of dated logs)"
    for name in LOG_FILES:
        found = find_named(tree, f"{folder}/{name}" if folder else name)
        if found is not None and found != context and has_dated_entries(tree, found):
            return found, f"{found} beside it (its dated entries)"
    if has_dated_entries(tree, context):
        return IN_CONTEXT, f"no sessions/ folder: the dated entries inside {context}"
    # `layout` comments only what it read: an entry added inside the file is read later.
    return IN_CONTEXT, f"no sessions/ folder, and no dated entry inside {context}: no dated log"


def layout_of(
    tree: Tree,
    context: str,
    section: str | None = None,
    *,
    near: str | None = None,
    working: bool = True,
) -> Layout:
    """The single-file layout of ``context`` (``section``: the heading holding the record;
    ``near``: why a file off the layouts table was taken, docs/layouts.md "Near misses";
    ``working``: False for a near miss seen and not taken, as its declaration would read)."""
    sessions, log_note = log_of(tree, context)
    where = f"`## {section}` in {context}" if section else context
    role = "working memory" if working else "not yet working memory"
    if near:
        role = f"{role}, near the layouts table: {near}"
    return Layout(
        kind=SINGLE_FILE,
        context=context,
        sessions=sessions,
        section=section,
        origin=context,
        matched=(("context", f"{where} ({role})"), ("sessions", log_note)),
        near=near is not None,
    )


def probe(tree: Tree) -> Layout | None:
    for context in WORKING_FILES:
        if tree.is_file(context):
            return layout_of(tree, context)
    return None


def section_of(tree: Tree, context: str) -> tuple[str, str] | None:
    """The status section of the instructions file ``context`` that holds working memory:
    (its heading as written, why it is working memory), or None.

    ``## Current status`` and ``## Current state`` are working memory by their words; the
    other status headings (``## Status``, ``## Project status``, ``## State``) only with a
    date (in the heading, or a date line in the section) or a dated log, so a standing
    statement ("unmaintained; no support") is not (docs/layouts.md).
    """
    lines = tree.lines(context) or []
    found = status_section(lines)
    if found is None:
        return None
    number, heading, reading = found
    if reading.current:
        return heading, "its heading says it is current"
    if reading.date is not None:
        return heading, "its heading carries a date"
    end = next(
        (n for n, line in numbered_prose_lines(lines) if n > number and line.startswith("## ")),
        len(lines) + 1,
    )
    if first_date_line(lines[: end - 1], first=number + 1) is not None:
        return heading, "a date line under it"
    sessions, _ = log_of(tree, context)
    if sessions != IN_CONTEXT:
        return heading, "a dated log beside it"
    if any(dated_entry_line(line) for n, line in numbered_prose_lines(lines) if number < n < end):
        return heading, "dated entries under it"
    return None


def probe_section(tree: Tree) -> Layout | None:
    for context in INSTRUCTION_FILES:
        if not tree.is_file(context):
            continue
        found = section_of(tree, context)
        if found is not None:
            return layout_of(tree, context, found[0])
    return None
