"""conflict-markers: a merge left unresolved in a tier file."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import Context, check
from context_doctor.guards.conflicts import conflict_regions
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "hygiene"


@check(
    "conflict-markers",
    severity=Severity.DEFECT,
    needs_context=False,
    group="hygiene",
    summary="a tier file holds unresolved merge-conflict markers",
    remedy="Resolve the conflict: keep the right side (or both), delete the `<<<<<<<`, "
    "`=======` and `>>>>>>>` lines, and commit.",
    explanation="""
        A merge or rebase that stopped on a conflict leaves both sides in the file between
        `<<<<<<<` and `>>>>>>>` lines (seven characters at the start of a line). An agent
        resuming from such a file reads two contradictory records as one, and every header,
        date and ordinal in it is doubtful. Reported once per region, at its opening line, for
        CONTEXT.md, REFERENCE.md, reference/*.md and the session logs; markers inside fenced or
        indented code are examples, not conflicts. A lone `=======` is a Markdown heading
        underline and never counts by itself. A defect: the file does not say one thing.""",
)
def conflict_markers(project: Project, ctx: Context) -> Iterator[Issue]:
    for document in project.tier_documents():
        if document.problem is not None or not document.may_hold_markers:
            continue
        for region in conflict_regions(document.lines, document.code_lines):
            if not region.opened:
                what = f"a stray conflict marker `>>>>>>>` (line {region.end})"
            elif region.end is None:
                what = f"an unresolved merge conflict that opens at line {region.start} and never closes"
            else:
                what = f"an unresolved merge conflict (lines {region.start}-{region.end})"
            yield Issue(f"{document.rel_path} holds {what}", document.rel_path, region.start)
