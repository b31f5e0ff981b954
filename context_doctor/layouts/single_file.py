"""Single-file layouts: one working-memory file an agent resumes from, and its log.

``STATUS.md``, ``PROGRESS.md``, ``HANDOFF.md`` (at the root or under ``docs/``),
``docs/handoff/state.md``, and ``CLAUDE.md`` or ``AGENTS.md`` holding a ``## Current status``
section. The log is a folder named ``sessions`` beside the file, else ``sessions/``, else
``docs/sessions/``, else the file's own dated entries (docs/layouts.md).
"""

from __future__ import annotations

from context_doctor.layouts import IN_CONTEXT, SINGLE_FILE, Layout
from context_doctor.layouts.tree import Tree
from context_doctor.layouts.words import section_heading

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
SECTION_SHAPE = "CLAUDE.md or AGENTS.md with a `## Current status` section"


def log_of(tree: Tree, context: str) -> tuple[str, str]:
    """The log of the working-memory file ``context`` and what it matched."""
    folder = context.rpartition("/")[0]
    beside = f"{folder}/sessions" if folder else "sessions"
    for candidate in dict.fromkeys((beside, "sessions", "docs/sessions")):
        if tree.is_dir(candidate):
            return candidate, f"{candidate}/ (a folder of dated logs)"
    return IN_CONTEXT, f"no sessions/ folder: the dated entries inside {context}"


def _layout(tree: Tree, context: str, section: str | None = None) -> Layout:
    sessions, log_note = log_of(tree, context)
    where = f"`## {section}` in {context}" if section else context
    return Layout(
        kind=SINGLE_FILE,
        context=context,
        sessions=sessions,
        section=section,
        origin=context,
        matched=(("context", f"{where} (working memory)"), ("sessions", log_note)),
    )


def probe(tree: Tree) -> Layout | None:
    for context in WORKING_FILES:
        if tree.is_file(context):
            return _layout(tree, context)
    return None


def probe_section(tree: Tree) -> Layout | None:
    for context in INSTRUCTION_FILES:
        if not tree.is_file(context):
            continue
        heading = section_heading(tree.lines(context) or [], STATUS_SECTION)
        if heading is not None:
            return _layout(tree, context, heading)
    return None
