"""The status vocabulary: four values, enforced rather than assumed."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import INDEX_ENTRY_CHECKS, NOT_REGISTERED, Context
from context_doctor.model import lifecycle
from context_doctor.model.project import Project
from context_doctor.report.findings import Applicability, Fix, Issue, SetEntryField, Severity

GROUP = "lifecycle"


@INDEX_ENTRY_CHECKS.check(
    "status-vocabulary",
    severity=Severity.DEFECT,
    skips=(NOT_REGISTERED,),
    summary="an index status outside active, paused, completed, archived",
    remedy="Use one of `active`, `paused`, `completed`, `archived`; express the rest with qualifier "
    "fields (`bounded`, `superseded_by`, `wake_when`, `blocked_by`, `completed_date`).",
    explanation="""
        `status` answers one question, does this project claim attention, with four values. A
        status the doctor does not recognise silently disables every check keyed off it, so an
        unknown value is a defect (and the project is treated as live). A retired value is a
        warning naming its replacement: `complete` -> `completed`, `superseded` -> `archived` +
        `superseded_by`, `new` -> `active`, `ongoing` -> `active` + `bounded: false`. Never
        skipped for dormant projects; skipped only where there is no index entry to read.""",
    severities=(
        (Severity.DEFECT, "a status is not in the lifecycle vocabulary"),
        (Severity.WARNING, "a status is a retired spelling with a known replacement"),
    ),
)
def status_vocabulary(project: Project, ctx: Context) -> Iterator[Issue]:
    entry = project.entry
    assert entry is not None
    status = project.status
    if status is None or status in lifecycle.CANONICAL:
        return
    index_path = project.source.index_rel_path
    if status in lifecycle.RETIRED:
        yield Issue(
            f"status `{status}` is retired: use {lifecycle.RETIRED[status]}",
            index_path,
            entry.line_of("status"),
            severity=Severity.WARNING,
            remedy=f"In {index_path}, {_ACTIONS[status]} for `{project.id}`.",
            fix=_replacement_fix(project, status, index_path),
        )
    else:
        yield Issue(
            f"status `{status}` is not in the vocabulary (active, paused, completed, archived); "
            "the project is treated as live",
            index_path,
            entry.line_of("status"),
        )


# One-to-one renames are facts (`complete` is a typo of `completed`): safe. `ongoing` also
# declares the project standing, a claim about its future: unsafe. `superseded` needs the
# id of the project that replaced it, which only a person knows: no fix.
_SAFE_RENAMES = {"complete": "completed", "new": "active"}
_ACTIONS = {
    "complete": "set `status: completed`",
    "new": "set `status: active`",
    "ongoing": "set `status: active` and add `bounded: false`",
    "superseded": "set `status: archived` and add `superseded_by:` naming the project that "
    "replaced it",
}


def _replacement_fix(project: Project, status: str, index_path: str) -> Fix | None:
    entry = project.entry
    if entry is None or entry.project_id is None:
        return None
    if status in _SAFE_RENAMES:
        new = _SAFE_RENAMES[status]
        return Fix(
            index_path,
            Applicability.SAFE,
            f"set `status: {new}` for `{entry.project_id}`",
            (SetEntryField(entry.position, entry.project_id, "status", new),),
        )
    if status == "ongoing":
        return Fix(
            index_path,
            Applicability.UNSAFE,
            f"set `status: active` and `bounded: false` for `{entry.project_id}`",
            (
                SetEntryField(entry.position, entry.project_id, "status", "active"),
                SetEntryField(entry.position, entry.project_id, "bounded", False),
            ),
        )
    return None
