"""Detection (docs/layouts.md): which layout a repository keeps, when none is declared.

First match wins, in this order (the layouts table): ``projects/index.yaml`` (the seed's
layout); a root ``CONTEXT.md`` that is working memory (the seed's single project);
``STATUS.md``, ``PROGRESS.md``, ``HANDOFF.md`` (root, then ``docs/``);
``docs/handoff/state.md``; Cline's memory bank; ``CLAUDE.md``/``AGENTS.md`` with a status
section. Then the near misses (:mod:`.near`), each named ``detected (near the layouts
table)``. A root ``CONTEXT.md`` that is not working memory does not stop the search; when
nothing else matches, it is the project, counted as not working memory (no finding speaks
of it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from context_doctor.layouts import Layout, memory_bank, near, seed, seed_single, single_file
from context_doctor.layouts.tree import DirectoryTree, Tree

Probe = Callable[[Tree], Layout | None]

PROBES: tuple[Probe, ...] = (
    seed.probe,
    seed_single.probe,
    single_file.probe,
    memory_bank.probe,
    single_file.probe_section,
    near.probe,
)

SHAPES: tuple[str, ...] = (
    seed.SHAPE,
    seed_single.SHAPE,
    *single_file.SHAPES,
    memory_bank.SHAPE,
    single_file.SECTION_SHAPE,
)
"""The layouts table, in detection's order: the list an exit 2 names (the near misses
after it are named by ``context-doctor layout``, :mod:`.near`)."""


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


@dataclass(frozen=True)
class Survey:
    """What ``context-doctor layout`` says beyond the layout: the other working-memory
    records detection saw and does not audit (a second record), and the near-miss files
    it saw that are not working memory, each with the layout that would declare it."""

    layout: Layout | None
    others: tuple[Layout, ...]
    seen: tuple[near.Seen, ...]


def survey_in(tree: Tree) -> Survey:
    found = detect_in(tree)
    others: list[Layout] = []
    taken = {found.context} if found is not None else set()
    for probe in PROBES[1:]:  # the seed's layout has no second record to name
        other = probe(tree)
        if other is not None and other.context not in taken and other.working_memory:
            taken.add(other.context)
            others.append(other)
    _, seen = near.survey(tree)
    return Survey(found, tuple(others), tuple(s for s in seen if s.path not in taken))


def survey(top: Path) -> Survey:
    return survey_in(DirectoryTree(top))
