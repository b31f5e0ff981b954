"""Tier structure: the files a project needs, and content in the wrong tier."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

from context_doctor.checks.registry import ACTIVE_SEED_CHECKS, SEED_CHECKS, Context
from context_doctor.guards.text import first_date
from context_doctor.model.project import Project
from context_doctor.model.sections import milestone_lines
from context_doctor.report.findings import Issue, Severity

GROUP = "structure"


@SEED_CHECKS.check(
    "context-present",
    severity=Severity.DEFECT,
    needs_context=False,
    summary="CONTEXT.md is missing, empty or has no heading",
    remedy="Create CONTEXT.md from the working-context template (header, Current State, What's Next).",
    explanation="""
        CONTEXT.md is the working memory an agent loads at every session start; without it a
        cold resume starts from nothing. A missing or empty file is a defect and no other
        per-project check runs on that project (their coverage says `no CONTEXT.md`). A project
        registered in index.yaml with no directory at all is the same defect, unless it is
        `archived` (or the retired `superseded`, which means archived). A CONTEXT.md with no Markdown heading is a warning: it cannot carry the
        sections the other checks read.""",
    severities=(
        (Severity.DEFECT, "CONTEXT.md (or the project directory) is missing or empty"),
        (Severity.WARNING, "CONTEXT.md has no Markdown heading"),
    ),
)
def context_present(project: Project, ctx: Context) -> Iterator[Issue]:
    if not project.directory_exists:
        if project.status not in ("archived", "superseded"):
            yield Issue(
                f"project `{project.id}` is registered in index.yaml but {project.rel_dir}/ does not exist",
                project.source.index_rel_path,
                project.entry.line if project.entry else None,
                remedy="Restore the project directory, or set its status to `archived` in index.yaml.",
            )
        return
    context = project.context
    if not context.exists:
        yield Issue("CONTEXT.md is missing", context.rel_path)
    elif context.problem is None and context.is_blank:
        yield Issue("CONTEXT.md is empty", context.rel_path)
    elif context.problem is None and not context.headings:
        yield Issue(
            "CONTEXT.md has no Markdown heading",
            context.rel_path,
            severity=Severity.WARNING,
            remedy=f"Start {context.rel_path} with `# {project.id} — Working Context` and `##` "
            "sections (Current State, What's Next).",
        )


def log_for(project: Project, today: date) -> str:
    """The session-log file archived content goes to: the newest log's month, else today's."""
    newest = project.newest_session
    month = newest.date if newest is not None and newest.date is not None else today
    return f"{project.path_to('sessions')}/{month:%Y-%m}.md"


@ACTIVE_SEED_CHECKS.check(
    "sessions-present",
    severity=Severity.WARNING,
    summary="CONTEXT.md is long and there is no sessions/ archive",
    remedy="Create this month's log file in sessions/ and move session summaries older than a "
    "week into it.",
    explanation="""
        Once CONTEXT.md passes 80 lines (configurable as `budgets.sessions_after_lines`) it has
        history to archive; without a sessions/ directory that history has nowhere to go and
        working memory keeps growing. Skipped for dormant projects, which no longer grow.""",
)
def sessions_present(project: Project, ctx: Context) -> Iterator[Issue]:
    limit = ctx.settings.budget("sessions_after_lines")
    if not project.has_sessions_dir and project.context.line_count > limit:
        yield Issue(
            f"CONTEXT.md is {project.context.line_count} lines and there is no sessions/ directory "
            f"to archive into (expected once it passes {limit})",
            project.context.rel_path,
            remedy=f"Create {project.path_to('sessions')}/{ctx.today:%Y-%m}.md and move session "
            "summaries older than a week into it.",
        )


@ACTIVE_SEED_CHECKS.check(
    "reference-present",
    severity=Severity.DEFECT,
    summary="no REFERENCE.md after two or more recorded sessions",
    remedy="Create REFERENCE.md and move stable facts (people, URLs, architecture) into it.",
    explanation="""
        After two sessions on different days a project has stable facts (where things live,
        who owns what) that belong in REFERENCE.md, not in working memory. Counted from the
        distinct dates of the session log's entries. Skipped for dormant projects.""",
)
def reference_present(project: Project, ctx: Context) -> Iterator[Issue]:
    sessions = len(project.session_dates)
    if sessions >= 2 and not project.reference.exists:
        yield Issue(
            f"{sessions} sessions are recorded but there is no REFERENCE.md",
            project.reference.rel_path,
        )


@ACTIVE_SEED_CHECKS.check(
    "completed-items-in-context",
    severity=Severity.WARNING,
    summary="CONTEXT.md still holds checked [x] items",
    remedy="Archive finished items to this month's log file in sessions/, verify they are there, "
    "then remove them.",
    explanation="""
        Completed task checklists are cold content: they belong in the session archive and
        only cost working-memory budget in CONTEXT.md. Reported once per file, at the first
        checked item. The seed's one exception is not counted: a `## Milestones` or `##
        Completed milestones` section of at most 10 lines may keep its finished milestones.
        Skipped for dormant projects.""",
)
def completed_items_in_context(project: Project, ctx: Context) -> Iterator[Issue]:
    exempt = milestone_lines(project.context)
    done = [item for item in project.context.list_items if item.checked and item.line not in exempt]
    if done:
        plural = "s" if len(done) > 1 else ""
        yield Issue(
            f"CONTEXT.md holds {len(done)} checked item{plural} (first: {done[0].text[:60]!r})",
            project.context.rel_path,
            done[0].line,
            remedy=f"Archive the finished items to {log_for(project, ctx.today)}, verify they are "
            "there, then remove them from CONTEXT.md.",
        )


@ACTIVE_SEED_CHECKS.check(
    "stale-session-in-context",
    severity=Severity.WARNING,
    summary="a dated session summary in CONTEXT.md is more than a week older than the newest session",
    remedy="Move that summary to its month's log file in sessions/; keep only the last one or two "
    "in CONTEXT.md.",
    explanation="""
        CONTEXT.md may carry the last one or two session summaries. A heading that carries a
        date more than 7 days (`budgets.stale_session_days`) older than the project's newest
        session (its newest session-log entry, or the newest dated heading in CONTEXT.md
        itself) is history that should have been archived. Measured against the newest
        session rather than today, so an idle project's one recent summary never fires.
        Skipped for dormant projects.""",
)
def stale_session_in_context(project: Project, ctx: Context) -> Iterator[Issue]:
    dated = []
    for heading in project.context.headings:
        if heading.level < 2:
            continue
        found = first_date(heading.text)
        if found is not None and found[1] is not None:
            dated.append((heading, found[1]))
    if not dated:
        return
    candidates = [day for _, day in dated]
    if project.newest_session is not None and project.newest_session.date is not None:
        candidates.append(project.newest_session.date)
    newest = max(candidates)
    limit = timedelta(days=ctx.settings.budget("stale_session_days"))
    for heading, day in dated:
        if newest - day > limit:
            yield Issue(
                f"session summary `{heading.text[:60]}` ({day.isoformat()}) is "
                f"{(newest - day).days} days older than the newest session ({newest.isoformat()})",
                project.context.rel_path,
                heading.line,
                remedy=f"Move that summary to {project.path_to('sessions')}/{day:%Y-%m}.md; keep only "
                "the last one or two in CONTEXT.md.",
            )
