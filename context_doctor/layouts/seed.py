"""The seed's layout: ``projects/<id>/`` holding CONTEXT.md, REFERENCE.md and ``sessions/``,
registered in ``projects/index.yaml``."""

from __future__ import annotations

from context_doctor.layouts import SEED, Layout
from context_doctor.layouts.tree import Tree

PROJECTS_DIR = "projects"
SHAPE = "projects/index.yaml (the seed's projects/<id>/ layout)"


def layout(projects_dir: str = PROJECTS_DIR, *, origin: str = "projects/index.yaml") -> Layout:
    return Layout(
        kind=SEED,
        context=f"{projects_dir}/*/CONTEXT.md",
        sessions=f"{projects_dir}/*/sessions",
        reference=f"{projects_dir}/*/REFERENCE.md",
        origin=origin,
        matched=(("context", f"one project per folder of {projects_dir}/"),),
    )


def probe(tree: Tree) -> Layout | None:
    if tree.is_file(f"{PROJECTS_DIR}/index.yaml"):
        return layout()
    return None
