"""Cline's memory bank: ``memory-bank/activeContext.md`` is the working memory and
``memory-bank/progress.md`` its log (dated entries or table rows)."""

from __future__ import annotations

from context_doctor.layouts import IN_CONTEXT, MEMORY_BANK, Layout
from context_doctor.layouts.single_file import has_dated_entries
from context_doctor.layouts.tree import Tree

CONTEXT = "memory-bank/activeContext.md"
LOG = "memory-bank/progress.md"
SHAPE = "memory-bank/activeContext.md with memory-bank/progress.md (Cline's memory bank)"


def probe(tree: Tree) -> Layout | None:
    if not tree.is_file(CONTEXT):
        return None
    has_log = tree.is_file(LOG)
    if not has_log:
        log_note = "no progress.md"
    elif has_dated_entries(tree, LOG):
        log_note = "progress.md (the bank's log)"
    else:  # `layout` comments only what it read
        log_note = "progress.md (the bank's log), which holds no dated entry: no dated log"
    return Layout(
        kind=MEMORY_BANK,
        context=CONTEXT,
        sessions=LOG if has_log else IN_CONTEXT,
        origin=CONTEXT,
        matched=(
            ("context", "Cline's memory bank: activeContext.md (working memory)"),
            ("sessions", log_note),
        ),
    )
