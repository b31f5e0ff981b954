"""Cross-tier agreement: the index, the directories and the CONTEXT.md header."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks._session_evidence import completed_date_remedy
from context_doctor.checks.registry import (
    INDEX_ENTRY_CHECKS,
    NOT_TERMINAL,
    PROJECT_FILE_CHECKS,
    SEED_CHECKS,
    Context,
    SkipRule,
)
from context_doctor.guards.text import is_valid_unicode
from context_doctor.model.header import deciding_field
from context_doctor.model.project import Project
from context_doctor.model.source import Source
from context_doctor.report.findings import Issue, Severity

GROUP = "lifecycle"


def _verdict_words(completed: bool) -> str:
    return "completed" if completed else "not completed"


@INDEX_ENTRY_CHECKS.check(
    "status-agreement",
    severity=Severity.DEFECT,
    summary="index.yaml and the project disagree, or the index entry is invalid",
    remedy="Make index.yaml and the CONTEXT.md header tell the same story: register the project, "
    "fix the entry, or update the header's Status.",
    explanation="""
        The index is how agents resolve a project by name, and the CONTEXT.md header is what
        they read first; when the two disagree one of them is lying. Fires for a project
        directory with no index entry, project directories with no index.yaml at all, an index
        status and a header whose completion readings disagree (terminal statuses read as
        completed; everything else as not completed), a header reading `Paused`/`On hold`/
        `Parked` against index status `active`, an entry that violates
        schemas/index.schema.json (naming the entry and field), and a duplicate id (naming
        both entries). Problems of the index file as a whole, or of entries without an id, are
        reported once per source. The index-side problems are reported even when the project
        has no CONTEXT.md. Skipped for single-project repositories, which have no index.""",
)
def status_agreement(project: Project, ctx: Context) -> Iterator[Issue]:
    index = project.source.index
    if index is None:
        yield Issue(
            f"{project.rel_dir}/ is a project directory but there is no index.yaml registering it",
            project.source.index_rel_path,
            remedy="Create projects/index.yaml with an entry (`id`, `status`) for every project.",
        )
        return
    entry = project.entry
    if entry is None and not is_valid_unicode(project.id):
        yield Issue(
            f"project directory {project.rel_dir}/ has a name that is not valid UTF-8: "
            "index.yaml cannot register it",
            index.rel_path,
            remedy="Rename the directory to a UTF-8 name (`git mv`), then add it to index.yaml.",
        )
        return
    if entry is None:
        yield Issue(
            f"project directory {project.rel_dir}/ has no entry in index.yaml",
            index.rel_path,
            remedy=f"Add `- id: {project.id}` with its `status` to index.yaml.",
        )
        return
    for problem in entry.problems:
        field = entry.problem_fields.get(problem, "")
        what = f"its `{field}` field" if field else "the entry"
        yield Issue(
            f"index.yaml {entry.label()}: {problem}",
            index.rel_path,
            entry.line_of(field),
            # A schema violation is fixed in the entry, not by comparing with the header.
            remedy=f"Correct {what} for `{project.id}` in {index.rel_path} so it matches "
            "schemas/index.schema.json (a real `true`/`false`, a real year-month-day date, one of "
            "the four statuses).",
        )
    for duplicate in project.duplicate_entries:
        yield Issue(
            f"id `{project.id}` is registered twice in index.yaml: {entry.label()} and "
            f"{duplicate.label()}",
            index.rel_path,
            duplicate.line,
            remedy="Remove or rename one of the duplicate entries.",
        )
    context = project.context
    if not project.directory_exists or not context.exists or context.problem or context.is_blank:
        return  # the index-side problems above need no CONTEXT.md; the comparison does
    reading = project.header_reads_completed
    if reading is None or project.status is None:
        return
    index_completed = project.is_terminal
    if reading != index_completed:
        # Quote the field that gave the reading (a Phase decides when Status says nothing).
        status_field = deciding_field(project.header("Status"), project.header("Phase"))
        assert status_field is not None  # the reading came from it
        yield Issue(
            f"index.yaml says status `{project.status}` ({_verdict_words(index_completed)}) but the "
            f"CONTEXT.md header reads {_verdict_words(reading)} (`{status_field.name}: "
            f"{status_field.value[:60]}`)",
            project.context.rel_path,
            status_field.line,
        )
        return
    paused = project.header_reads_paused
    if paused is not None and project.status == "active":
        yield Issue(
            f"index.yaml says status `active` but the CONTEXT.md header reads paused "
            f"(`{paused.name}: {paused.value[:60]}`)",
            project.context.rel_path,
            paused.line,
            remedy=f"If the project is paused, set `status: paused` for `{project.id}` in "
            f"{project.source.index_rel_path}; if it is being worked again, update the header's "
            f"`{paused.name}` in {project.context.rel_path}.",
        )


@status_agreement.for_source
def index_file_problems(source: Source, ctx: Context) -> Iterator[Issue]:
    yield from source.index_issues()


@PROJECT_FILE_CHECKS.check(
    "record-unreadable",
    severity=Severity.DEFECT,
    summary="a tier file cannot be read, or the header gives no completion verdict",
    remedy="Re-save the file as UTF-8 text (defect); give CONTEXT.md a `**Status:**` header such as "
    "`Active` or `Completed` (warning).",
    explanation="""
        A defect when a tier file (CONTEXT.md, REFERENCE.md, a reference/ topic, a session log,
        CURRENT_STATE.json) cannot be read or is not UTF-8, or a tier path is of the wrong kind (a directory named
        CONTEXT.md, a file named sessions, a looping symlink): every check that needs the file is skipped for that
        project (coverage reason `unreadable`) while the rest of the corpus is still audited.
        A warning when the CONTEXT.md header's Status and Phase give no completion verdict, so
        the cross-check with the project's index.yaml entry cannot run — for dormant projects too
        (never for a project with no index entry: a single project's CONTEXT.md, a hand-off
        note, has no cross-check to stop), so a header
        the doctor cannot read is never counted as examined in silence. Header fields are
        `**Status:**`, `**Status**:` or a bare `Status:` at the start of a line, among the
        lines before the first `##` heading (a field right above `---` included). Skipped for
        a registered project with no directory (context-present reports it).""",
    severities=(
        (
            Severity.DEFECT,
            "a tier file (CONTEXT.md, REFERENCE.md, a topic, a session log, CURRENT_STATE.json) cannot be read, is not UTF-8, or a tier path is of the wrong kind",
        ),
        (Severity.WARNING, "the CONTEXT.md header's Status and Phase give no completion verdict"),
    ),
)
def record_unreadable(project: Project, ctx: Context) -> Iterator[Issue]:
    for document in project.tier_documents():
        # A file that leaves the repository is untracked-context's finding, not read here.
        if document.problem is not None and not document.outside:
            yield Issue(
                f"{document.rel_path} {document.problem}",
                document.rel_path,
                remedy=f"Re-save {document.rel_path} as UTF-8 text (git history holds the last "
                "readable version).",
            )
    if not project.layout.is_seed:
        return  # another layout: no structured state, no index to cross-check a Status with
    for path, problem in project.shape_problems:
        yield Issue(
            f"{path} {problem}",
            path,
            remedy=f"Make {path} what its name says (a regular file, or the sessions/ and "
            "reference/ directories), with no symlink loop.",
        )
    state = project.structured_state
    if state.reading.unreadable is not None:
        yield Issue(
            f"{state.rel_path} {state.reading.unreadable}",
            state.rel_path,
            remedy=f"Re-save {state.rel_path} as a regular UTF-8 JSON file (git history holds "
            "the last readable version).",
        )
    context = project.context
    if not context.exists or context.problem or context.is_blank:
        return
    if project.entry is None:
        # No index entry (the seed's single project, an unregistered folder): there is no
        # cross-check a missing verdict could stop, so nothing to warn about.
        return
    # Dormant projects too (docs/checks.md): a header that cannot be read is reported, never
    # counted as examined in silence.
    if project.header_reads_completed is None:
        fields = project.header("Status") or project.header("Phase")
        shown = f" (`{fields[0].name}: {fields[0].value[:60]}`)" if fields else ""
        yield Issue(
            f"the CONTEXT.md header gives no completion verdict{shown}: the cross-check with "
            "index.yaml cannot run",
            context.rel_path,
            fields[0].line if fields else None,
            severity=Severity.WARNING,
            remedy="Add `**Status:** Active` (or Paused / Completed) to the CONTEXT.md header.",
        )


STATUS_DISPUTED = SkipRule(
    "status disputed",
    "the CONTEXT.md header reads not completed: status-agreement reports the disagreement, "
    "and which record is right decides whether there is a completion date to add at all",
    lambda p: p.header_reads_completed is False,
)


@SEED_CHECKS.check(
    "completed-date",
    severity=Severity.WARNING,
    needs_context=False,
    skips=(NOT_TERMINAL, STATUS_DISPUTED),
    summary="a terminal project has no readable completed_date",
    remedy="Add `completed_date:` (the day it was completed) to the project's index.yaml entry.",
    explanation="""
        `completed_date` anchors the question of whether a finished project is still being
        worked; without it the doctor must fall back to `last_session`, which closing work
        legitimately runs past. Fires when the field is missing or not a real YYYY-MM-DD date.
        Skipped for projects that are not completed or archived, and (one root cause, one
        finding) while the CONTEXT.md header says the project is not completed: asking for a
        completion date would take the index's side of a dispute status-agreement reports.""",
)
def completed_date(project: Project, ctx: Context) -> Iterator[Issue]:
    entry = project.entry
    assert entry is not None  # terminal implies an index entry
    raw = entry.fields.get("completed_date")
    # Without either date, terminal-project-active has no anchor and skips: say so here, once.
    unanchored = (
        ", nor a readable `last_session`: whether it is still being worked cannot be checked"
        if entry.date_field("last_session") is None
        else ""
    )
    if raw is None:
        yield Issue(
            f"status `{project.status}` but no `completed_date`{unanchored}",
            project.source.index_rel_path,
            entry.line_of("status"),
            remedy=completed_date_remedy(project),
        )
    elif entry.date_field("completed_date") is None:
        yield Issue(
            f"`completed_date: {raw}` is not a real YYYY-MM-DD date{unanchored}",
            project.source.index_rel_path,
            entry.line_of("completed_date"),
            remedy=completed_date_remedy(project),
        )
