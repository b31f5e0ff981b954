"""Terminal projects: is a completion claim still true, and is its review still answerable?

Suppressing freshness checks on dormant projects is only safe alongside the
inverse question: a project declared completed that is still being worked is
a live record error.  ``terminal-project-active`` asks it.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import SEED_CHECKS, Context, SkipRule
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "terminal"

LIVE = SkipRule(
    "live", "the project is live (active, unset or unrecognised status)", lambda p: not p.is_dormant
)
PAUSED = SkipRule("paused", "the project is paused, not terminal", lambda p: p.status == "paused")
REVIEWED = SkipRule(
    "reviewed",
    "a post-close review (`post_close_reviewed_through`) covers the project's history as it is now",
    lambda p: p.post_close_review.holds,
)
NO_REVIEW = SkipRule(
    "no review recorded",
    "the index entry has no `post_close_reviewed_through`",
    lambda p: p.post_close_review.recorded is None,
    shape=True,
)
NO_ANCHOR = SkipRule(
    "no anchor date",
    "neither `completed_date` nor `last_session` is a readable date, so there is nothing to "
    "judge later work against (completed-date reports the missing date)",
    lambda p: (
        p.entry is None
        or (
            p.entry.date_field("completed_date") is None
            and p.entry.date_field("last_session") is None
        )
    ),
)
TERMINAL_CHECKS = SEED_CHECKS.within(skips=(LIVE, PAUSED))
"""Checks of a completed or archived project: a live or paused one is not terminal."""
EVIDENCE_SHOWN = 3


@TERMINAL_CHECKS.check(
    "terminal-project-active",
    severity=Severity.WARNING,
    skips=(NO_ANCHOR, REVIEWED),
    summary="a completed or archived project is still being worked",
    remedy="Reopen the project (status `active`), or, if the later work was closing work, record "
    "`post_close_reviewed_through:` with the sha of the project's newest commit in its index entry.",
    explanation="""
        Dormant projects are spared the freshness checks, which is only safe while the
        completion claim is true. This is the inverse question: a session-log entry, the
        header's Last session or the index's last_session dated after the anchor, or a session
        commit (not a bulk sweep or merge) whose work date is more than a day after it. The
        anchor is `completed_date`; only when that is missing or unreadable does it fall back
        to `last_session` (closing work legitimately lands after the last working session). A
        post-close review silences it (coverage reason `reviewed`) only while the reviewed
        commit resolves, every commit of the project is that commit or its ancestor (work
        merged in later re-arms it even when its date is older), the project has no
        uncommitted changes, and the index's completed_date and last_session at that commit
        equal today's: any new project commit re-arms the question. Skipped for live and
        paused projects, and (coverage reason `no anchor date`) when neither date is readable:
        completed-date reports that, once.""",
)
def terminal_project_active(project: Project, ctx: Context) -> Iterator[Issue]:
    entry = project.entry
    assert entry is not None
    anchor_field = "completed_date"
    anchor = entry.date_field("completed_date")
    if anchor is None:
        anchor_field, anchor = "last_session", entry.date_field("last_session")
    assert anchor is not None  # NO_ANCHOR skips the rest (completed-date reports it, once)
    index_path = project.source.index_rel_path
    evidence: list[str] = []
    for session in sorted(
        (s for s in project.session_entries if s.date is not None and s.date > anchor),
        key=lambda s: s.order_key(),
        reverse=True,
    ):
        evidence.append(f"session-log entry {session.date} ({session.path}:{session.line})")
    header = project.header_last_session if project.context.exists else None
    if header is not None and header[1] is not None and header[1] > anchor:
        evidence.append(f"CONTEXT.md Last session {header[1]} (line {header[0].line})")
    index_last = entry.date_field("last_session")
    if anchor_field == "completed_date" and index_last is not None and index_last > anchor:
        evidence.append(f"index.yaml last_session {index_last}")
    for pc in project.commits:
        commit = pc.commit
        if (commit.work_date - anchor).days > 1 and commit.is_session:
            evidence.append(f"commit {commit.short} of {commit.work_date}")
    if evidence:
        more = len(evidence) - EVIDENCE_SHOWN
        shown = "; ".join(evidence[:EVIDENCE_SHOWN]) + (f"; and {more} more" if more > 0 else "")
        newest = project.commits[0].commit.sha if project.commits else None
        review = (
            f", or, if the later work was closing work, record `post_close_reviewed_through: "
            f"{newest}` (the project's newest commit) in its index entry"
            if newest
            else ""
        )
        yield Issue(
            f"status `{project.status}` with {anchor_field} {anchor}, but work continued after "
            f"it: {shown}",
            index_path,
            entry.line_of("status"),
            remedy=f"Reopen `{project.id}` (`status: active` in {index_path}){review}.",
        )


@TERMINAL_CHECKS.check(
    "terminal-project-open-items",
    severity=Severity.WARNING,
    summary="a completed or archived project still lists open items",
    remedy="Close, move or drop the remaining items, or reopen the project.",
    explanation="""
        A project claiming to be finished while CONTEXT.md still lists unchecked items under
        open sections (What's Next, Open, Pending, Blocked...) owes obligations its status
        denies. It is the paired check for item-currency, which dormant projects skip.
        Skipped for live and paused projects.""",
)
def terminal_project_open_items(project: Project, ctx: Context) -> Iterator[Issue]:
    still_open = [item for item in project.open_items if item.item.checked is False]
    if still_open:
        first = still_open[0]
        plural = "items remain" if len(still_open) > 1 else "item remains"
        yield Issue(
            f"status `{project.status}` but {len(still_open)} unchecked {plural} under open "
            f"sections (first, under `{first.section.text}`: {first.item.text[:60]!r})",
            project.context.rel_path,
            first.item.line,
        )


@SEED_CHECKS.check(
    "post-close-review-unresolvable",
    severity=Severity.DEFECT,
    needs_context=False,
    skips=(NO_REVIEW,),
    summary="post_close_reviewed_through names no commit of the repository",
    remedy="Set `post_close_reviewed_through` to an existing commit (the project's newest), or "
    "remove it and answer terminal-project-active again.",
    explanation="""
        A post-close review names the commit through which a completed project's later history
        was reviewed. When that sha no longer resolves (history was rewritten, or it was
        mistyped) the acknowledgment's evidence has vanished: it fails loudly instead of
        continuing to silence terminal-project-active, which is then judged as if no review
        were recorded. Skipped where no review is recorded.""",
)
def post_close_review_unresolvable(project: Project, ctx: Context) -> Iterator[Issue]:
    review = project.post_close_review
    if review.resolved is None:
        assert project.entry is not None
        yield Issue(
            f"post_close_reviewed_through `{review.recorded}` does not resolve to a commit of this "
            "repository",
            project.source.index_rel_path,
            project.entry.line_of("post_close_reviewed_through"),
            remedy=_unresolvable_remedy(project),
        )


def _unresolvable_remedy(project: Project) -> str:
    if not project.history_available:
        return "Set `post_close_reviewed_through` to an existing commit, or remove it."
    newest = project.commits[0].commit if project.commits else None
    if newest is None:
        return "Remove `post_close_reviewed_through`: no commit touches the project."
    return (
        f"Set `post_close_reviewed_through: {newest.sha}` (the project's newest commit, "
        f"{newest.short} of {newest.work_date}) after reviewing the work since completion, or "
        "remove it and answer terminal-project-active again."
    )
