"""The seed's single project: a repository whose root holds ``CONTEXT.md`` (and ``sessions/``).

A ``CONTEXT.md`` found by that name alone is working memory only when it says so: a
field (``Last session``, ``Status``, ``Phase``…), an ``<!-- Updated: … -->`` comment, or a
dated entry in it or in ``sessions/``. A 400-line domain glossary named ``CONTEXT.md`` is
none of these: it is still the project (so ``check`` never exits 2 on it), but
``working_memory`` is False and no check speaks about it (docs/layouts.md).
"""

from __future__ import annotations

from dataclasses import replace

from context_doctor.layouts import (
    DEFAULT_LAST_SESSION,
    DEFAULT_PHASE,
    DEFAULT_STATUS,
    SEED_SINGLE,
    Layout,
    single_file,
)
from context_doctor.layouts.tree import Tree
from context_doctor.layouts.words import holds_working_memory, prose_lines

CONTEXT = "CONTEXT.md"
SHAPE = "CONTEXT.md at the root (the seed's single project)"
_FIELDS = (*DEFAULT_LAST_SESSION, *DEFAULT_STATUS, *DEFAULT_PHASE)
_NOT_LOGS = frozenset({"readme.md", "index.md"})


def layout(tree: Tree) -> Layout:
    """The root ``CONTEXT.md`` as the seed's single project, working memory or not."""
    has_log = tree.is_dir("sessions")
    found = Layout(
        kind=SEED_SINGLE,
        context=CONTEXT,
        sessions="sessions" if has_log else None,
        reference="REFERENCE.md" if tree.is_file("REFERENCE.md") else None,
        origin=CONTEXT,
        matched=(
            ("context", "CONTEXT.md at the repository root"),
            ("sessions", "sessions/ beside it"),
        ),
    )
    logs = (
        [
            name
            for name in tree.names("sessions")
            if name.endswith(".md") and name.lower() not in _NOT_LOGS
        ]
        if has_log
        else []
    )
    lines = tree.lines(CONTEXT) or []
    # A status section alone is no seed field: `probe` reads that file as a single-file record.
    if logs or holds_working_memory(_seed_reading(lines), _FIELDS, status_heading_too=False):
        return found
    return replace(found, working_memory=False)


def probe(tree: Tree) -> Layout | None:
    """The root ``CONTEXT.md`` when it is working memory (else the search goes on).

    One that holds none of the seed's fields but a status section (``## Current State``
    with no date, the way many agent files open) is working memory too, read as a
    single-file record whose own last commit dates it: not the seed's template, which it
    never followed (docs/layouts.md).
    """
    if not tree.is_file(CONTEXT):
        return None
    found = layout(tree)
    if found.working_memory:
        return found
    section = single_file.section_of(tree, CONTEXT)
    if section is None:
        return None
    return single_file.layout_of(tree, CONTEXT, section[0])


def _seed_reading(lines: list[str]) -> list[str]:
    """The lines the seed's layout reads fields from (docs/layouts.md): the header block (before
    the first ``##`` heading), headings (``## Last Session: DATE``, dated entries), table
    rows and comments; a glossary's body line ``**Status**: an order's state`` is no field."""
    kept: list[str] = []
    in_header = True
    for line in prose_lines(lines):
        in_header = in_header and not line.startswith("##")
        if in_header or line.lstrip().startswith(("#", "|", "<!--")):
            kept.append(line)
    return kept
