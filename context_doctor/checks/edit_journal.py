"""interrupted-edit: a batch of ``edit apply`` that was killed mid-write and not finished."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import Context, check
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "hygiene"


@check(
    "interrupted-edit",
    severity=Severity.WARNING,
    needs_context=False,
    group=GROUP,
    summary="an interrupted `edit apply` left its journal in the project directory",
    remedy="Finish or discard the batch: `context-doctor edit recover PROJECT_DIR`.",
    explanation="""
        `edit apply` writes several files all or none through a journal
        (`.context-doctor-apply-*.journal`) in the project's directory. A writer killed
        mid-batch leaves it behind: after its commit point some files may already hold the
        batch's new text and others the old, so the record can say two things at once until
        the batch is finished; before it, staged copies lie beside the files. The next
        `edit` in the project finishes (or discards) it first; `context-doctor edit recover`
        does only that. Reported once per journal; the doctor never finishes it during a
        check, since `check` writes nothing in the audited tree.""",
)
def interrupted_edit(project: Project, ctx: Context) -> Iterator[Issue]:
    for name in project.edit_journals:
        yield Issue(
            f"{project.path_to(name)} is the journal of an interrupted `edit apply`: the batch's "
            "files may be part old, part new until it is finished",
            project.path_to(name),
            remedy=f"Finish or discard the batch: `context-doctor edit recover {project.cli_dir}` "
            "(a file changed by hand since is named, not overwritten).",
        )
