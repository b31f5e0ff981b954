"""Line budgets of the working and semantic tiers."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import (
    ACTIVE_SEED_CHECKS,
    SHARDED,
    STANDING,
    Context,
    SkipRule,
    check,
)
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "structure"

NO_BUDGET = SkipRule(
    "no budget",
    "a layout other than the seed's declares no `budget` for its context file",
    lambda p: not p.layout.is_seed and not p.layout.budget,
    shape=True,
)


@check(
    "context-budget",
    severity=Severity.DEFECT,
    skips=(NO_BUDGET,),
    summary="CONTEXT.md is over its line budget",
    remedy="Archive cold content to sessions/ and stable facts to REFERENCE.md, then trim.",
    explanation="""
        Working memory is loaded at every session start, so its size is a hard budget:
        150 lines (`budgets.context_lines`), or 80 (`budgets.completed_context_lines`) once the
        project is terminal in the index or its header reads completed, when CONTEXT.md
        should have been rewritten as a completion summary. In another layout (docs/layouts.md) the
        budget is the layout's `budget`, and the check applies only where one is set.""",
)
def context_budget(project: Project, ctx: Context) -> Iterator[Issue]:
    completed = project.reads_completed
    budget = ctx.settings.budget("completed_context_lines" if completed else "context_lines")
    if not project.layout.is_seed:
        budget, completed = project.layout.budget, False
    lines = project.context.line_count
    if lines > budget:
        kind = "completed-project budget" if completed else "budget"
        yield Issue(
            f"{project.context_name} is {lines} lines, over the {budget}-line {kind}",
            project.context.rel_path,
        )


@ACTIVE_SEED_CHECKS.check(
    "reference-budget",
    severity=Severity.WARNING,
    skips=(SHARDED, STANDING),
    summary="a bounded project's REFERENCE.md is over 300 lines",
    remedy="Narrow the project's scope: split it, or move narrative out of REFERENCE.md into sessions/.",
    explanation="""
        For a bounded project (no `bounded: false` in the index) a REFERENCE.md over 300 lines
        (`budgets.reference_lines`) is real information about scope: the project is probably
        doing too much. Standing projects are judged by `reference-shard` instead, and sharded
        ones by the `reference-index-*` and `reference-topic-budget` checks. Skipped for dormant
        projects.""",
)
def reference_budget(project: Project, ctx: Context) -> Iterator[Issue]:
    budget = ctx.settings.budget("reference_lines")
    if project.reference.exists and project.reference.line_count > budget:
        yield Issue(
            f"REFERENCE.md is {project.reference.line_count} lines, over the {budget}-line budget",
            project.reference.rel_path,
        )
