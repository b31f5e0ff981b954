"""Detection (docs/layouts.md): which layout a repository keeps, when none is declared.

First match wins, in this order: ``projects/index.yaml`` (the seed's layout); a root
``CONTEXT.md`` that is working memory (the seed's single project); ``STATUS.md``,
``PROGRESS.md``, ``HANDOFF.md`` (root, then ``docs/``); ``docs/handoff/state.md``; Cline's
memory bank; ``CLAUDE.md``/``AGENTS.md`` with a ``## Current status`` section. A root
``CONTEXT.md`` that is not working memory does not stop the search; when nothing else
matches, it is the project, counted as not working memory (no finding speaks of it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from context_doctor.layouts import Layout, memory_bank, seed, seed_single, single_file
from context_doctor.layouts.tree import DirectoryTree, Tree

Probe = Callable[[Tree], Layout | None]

PROBES: tuple[Probe, ...] = (
    seed.probe,
    seed_single.probe,
    single_file.probe,
    memory_bank.probe,
    single_file.probe_section,
)

SHAPES: tuple[str, ...] = (
    seed.SHAPE,
    seed_single.SHAPE,
    *single_file.SHAPES,
    memory_bank.SHAPE,
    single_file.SECTION_SHAPE,
)
"""What detection looks for, in order: the list an exit 2 names."""


def detect_in(tree: Tree) -> Layout | None:
    """The first probe's layout; else a root ``CONTEXT.md`` that is not working memory."""
    for probe in PROBES:
        found = probe(tree)
        if found is not None:
            return found
    if tree.is_file(seed_single.CONTEXT):
        return seed_single.layout(tree)
    return None


def detect(top: Path) -> Layout | None:
    return detect_in(DirectoryTree(top))


def shapes_sentence() -> str:
    return "; ".join(SHAPES)
