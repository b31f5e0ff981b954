"""Session freshness: do the recorded last-session dates match the evidence?

Evidence is the newest dated session-log entry; git history (session commits:
neither bulk sweeps, merges nor maintenance commits) speaks when there is no log,
when a record is ahead of the log (does git hold work on that day?) and for work
after the newest entry that nobody logged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date

from context_doctor.checks._session_evidence import (
    MAX_NAMED,
    add_header_remedy,
    commits_phrase,
    header_move_remedy,
    log_session_remedy,
    markers_behind_with_header,
    session_commits_since,
    work_after_record,
)
from context_doctor.checks.registry import (
    ACTIVE_CHECKS,
    ACTIVE_SEED_CHECKS,
    NO_INDEX,
    NOT_REGISTERED,
    Context,
    SkipRule,
)
from context_doctor.git.commits import ProjectCommit
from context_doctor.layouts import SEED
from context_doctor.model.project import Project
from context_doctor.report.findings import Applicability, Fix, Issue, SetEntryField, Severity

GROUP = "session-freshness"

RECENT_COMMITS = 12

NO_LAST_SESSION = SkipRule(
    "no last_session",
    "the index entry records no readable `last_session` (nothing to compare)",
    lambda p: p.index_last_session is None,
    shape=True,
)


def _keeps_undated_log(project: Project) -> bool:
    """A log is there (a file, a folder's files, the record itself) but holds no dated entry;
    the seed's projects/ layout keeps its one `no log` reason."""
    return project.layout.kind != SEED and bool(project.session_logs)


NO_LOG = SkipRule(
    "no log",
    "the project keeps no session log (in the seed's projects/ layout: no dated entry in one)",
    lambda p: p.newest_session is None and not _keeps_undated_log(p),
)
NO_DATED_LOG = SkipRule(
    "no dated log",
    "the project's log holds no dated entry, so nothing dates its sessions: freshness is "
    "judged from git alone (docs/layouts.md)",
    lambda p: p.newest_session is None and _keeps_undated_log(p),
)


def _judge(
    project: Project,
    label: str,
    recorded: date,
    other: tuple[str, date | None],
    path: str,
    line: int | None,
    set_to: Callable[[date, str, bool], tuple[str, Fix | None]],
    behind_too: Callable[[], str] = lambda: "",
    defers: bool = False,
) -> Iterator[Issue]:
    """``set_to(day, why, from_log)`` is the remedy (and fix, if derivable) recording ``day``;
    ``behind_too()`` names what else lags the log with the record (folded into its finding).

    ``defers`` (index.yaml's last_session): where the `Last session` header makes the very
    same claim (the same missing session, or the same disagreement with no log to settle
    it), context-header-freshness reports it once, naming both records, and this stands down.
    """
    other_label, other_date = other
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        if recorded != newest.date:
            where = f"{newest.path}:{newest.line}"
            supported = session_commits_since(project, recorded) if recorded > newest.date else []
            if supported:
                if other_date == recorded and defers:
                    return  # the header's finding names this missing session, and this record
                echo = f" (and {other_label})" if other_date == recorded else ""
                # Git holds work on the recorded day: the log is what lags, never the record.
                yield Issue(
                    f"{label} {recorded}{echo} is ahead of the newest session-log entry "
                    f"{newest.date} ({where}), and {commits_phrase(supported)} touched the "
                    f"project on or after {recorded}: the log lacks that session",
                    path,
                    line,
                    remedy=log_session_remedy(project, recorded, supported),
                )
                return
            direction = "behind" if recorded < newest.date else "ahead of"
            remedy, fix = set_to(newest.date, f"the newest session-log entry, {where}", True)
            also = behind_too() if recorded < newest.date else ""
            if recorded > newest.date:
                remedy = (
                    f"No commit touches the project on or after {recorded}: if that session "
                    f"happened, log it in {project.log_place(recorded)}; "
                    f"otherwise {remedy[0].lower()}{remedy[1:]}"
                )
            yield Issue(
                f"{label} {recorded} is {direction} the newest session-log entry "
                f"{newest.date} ({where}){also}",
                path,
                line,
                remedy=remedy,
                fix=fix,
            )
        return
    if other_date is not None and other_date != recorded and not defers:
        yield Issue(
            f"{label} {recorded} differs from {other_label} {other_date}, and there is no "
            "session log to settle which is right",
            path,
            line,
            remedy=f"Decide which date is the last session's ({recorded} or {other_date}), record "
            "it in both places, and start a session log "
            f"({project.log_place(max(recorded, other_date))}).",
        )
    latest = project.newest_session_commit
    if latest is not None and (latest.commit.work_date - recorded).days > 1:
        if defers and other_date == recorded:
            return  # the header lags the same commit: its finding names both records
        work_date = latest.commit.work_date
        remedy, _ = set_to(work_date, f"the work date of commit {latest.commit.short}", False)
        echo = f" (and {other_label})" if other_date == recorded else ""
        # Only the header echoes the index (the index defers to the header, above).
        also = (
            f" and `last_session: {work_date}` in {project.source.index_rel_path}" if echo else ""
        )
        yield Issue(
            f"{label} {recorded}{echo} lags the newest session commit {latest.commit.short} "
            f"(work date {work_date}) by {(work_date - recorded).days} days",
            path,
            line,
            remedy=f"{remedy[:-1]}{also}, and log that session in {project.log_place(work_date)}.",
        )


@ACTIVE_SEED_CHECKS.check(
    "last-session-freshness",
    severity=Severity.DEFECT,
    skips=(NO_INDEX, NOT_REGISTERED, NO_LAST_SESSION),
    summary="index.yaml's last_session disagrees with the session evidence",
    remedy="Set `last_session` in index.yaml to the date of the newest session-log entry.",
    explanation="""
        A present `last_session` in index.yaml is duplicate metadata, and duplicates drift. It
        must equal the newest session-log entry's date exactly: behind or ahead, even by one
        day, it is stale (ahead of the log, with session commits on or after its date, it is
        the log that lags: log that session; no fix moves the date back). With no log it must agree with the CONTEXT.md `Last session` header (a disagreement, an unlogged session or a lag both records share is reported once, by context-header-freshness)
        and must not lag the newest session commit's work date (author date in the author's
        own offset) by more than a day; bulk sweeps (more than 3 projects or more than 10
        files elsewhere) and merges are never sessions. Skipped for dormant projects, projects
        without an index entry, and entries without a `last_session`.""",
)
def last_session_freshness(project: Project, ctx: Context) -> Iterator[Issue]:
    recorded = project.index_last_session
    assert recorded is not None and project.entry is not None
    header = project.header_last_session
    entry = project.entry
    index_path = project.source.index_rel_path

    def set_to(day: date, why: str, from_log: bool) -> tuple[str, Fix | None]:
        remedy = f"Set `last_session: {day}` in {index_path} ({why})."
        if entry.project_id is None or not from_log:
            return remedy, None
        # Duplicate metadata of the log: writing the log's own date is a fact, not a claim.
        edit = SetEntryField(entry.position, entry.project_id, "last_session", day.isoformat())
        return remedy, Fix(
            index_path,
            Applicability.SAFE,
            f"set `last_session: {day}` for `{entry.project_id}`",
            (edit,),
        )

    yield from _judge(
        project,
        "index.yaml last_session",
        recorded,
        ("the CONTEXT.md Last session header", header[1] if header else None),
        index_path,
        entry.line_of("last_session"),
        set_to,
        defers=header is not None and header[1] is not None,
    )


def _no_evidence_of_work(project: Project) -> bool:
    """No dated log entry, and git cannot say when the project was last worked (a shallow
    clone, no commit, or only bulk sweeps, merges and maintenance among the recent ones):
    freshness-unverifiable's finding, which then also names a missing header."""
    if project.newest_session is not None:
        return False
    if not project.history_available:
        return True
    return not any(entry.commit.is_session for entry in project.commits[:RECENT_COMMITS])


@ACTIVE_CHECKS.check(
    "context-header-freshness",
    severity=Severity.DEFECT,
    summary="the CONTEXT.md Last session header disagrees with the session evidence",
    remedy="Update `**Last session:**` in CONTEXT.md to the newest session's date (and round).",
    explanation="""
        The `**Last session:**` header is what an agent reads first to learn how current the
        record is. It must equal the newest session-log entry's date; with no log it must agree
        with index.yaml's `last_session` and not lag the newest session commit by more than a
        day. A header *ahead* of the log is judged by git: when session commits (not bulk
        sweeps, merges or maintenance commits) touch the project on or after the header's
        date, the log is what lags, and the remedy is to log that session (its date, its
        commits, its monthly file), never to move the header back; only a header no commit
        supports is told to come back. A header behind the log names the as-of markers it left
        behind (body-currency does not report them again); where index.yaml's last_session
        records the same day and makes the same claim (the same unlogged session, or no log to
        settle a disagreement), this one finding names it too. A header with no readable date
        cannot be verified and is reported as such; a missing header on a project with no
        log and no session commit is freshness-unverifiable's one finding, which names it
        (one root cause, one finding). In a layout other than the seed's, a record with no
        date field is dated by its own last commit, which claims nothing: it is never ahead
        of anything; with no dated log it lags every session commit authored after its own,
        later the same day included (the warning counts them and names the newest), and with
        a dated log it is behind an entry more than a day after its commit. A bot's
        commit that changes no code (data, rendered pages, prose, dependency manifests, lock
        files, CI configuration) is never a session here: it neither supports nor dates a
        record. Skipped for dormant projects.""",
    severities=(
        (Severity.DEFECT, "the `**Last session:**` header disagrees with the session evidence"),
        (Severity.WARNING, "the header has no readable date, so its freshness cannot be verified"),
    ),
)
def context_header_freshness(project: Project, ctx: Context) -> Iterator[Issue]:
    header = project.header_last_session
    if (header is None or header[1] is None) and not project.layout.is_seed:
        names = ", ".join(f"`{name}:`" for name in project.layout.fields.last_session)
        yield Issue(
            f"{project.context_name} has no date field ({names}) and no commit of its own "
            "dates it: its freshness cannot be verified",
            project.context.rel_path,
            severity=Severity.WARNING,
            remedy=f"Add a `{project.layout.fields.last_session[0]}: YYYY-MM-DD` line giving "
            f"the day of the last working session to {project.context.rel_path}.",
        )
        return
    if header is None and _no_evidence_of_work(project):
        return  # one root cause, one finding: freshness-unverifiable names the missing header
    if header is None or header[1] is None:
        yield Issue(
            "CONTEXT.md has no readable `**Last session:** YYYY-MM-DD` header: its freshness "
            "cannot be verified",
            project.context.rel_path,
            header[0].line if header else None,
            severity=Severity.WARNING,
            remedy=add_header_remedy(project),
        )
        return
    field, recorded = header
    assert recorded is not None
    context_path = project.context.rel_path
    if project.last_session_from_git:
        yield from _record_behind(project, recorded)
        return
    label = (
        "CONTEXT.md Last session"
        if project.layout.is_seed
        else f"{project.context_name} {field.name}"
    )

    def set_to(day: date, why: str, from_log: bool) -> tuple[str, Fix | None]:
        # Never a fix: advancing the header claims the record was brought up to that session.
        if not project.layout.is_seed:
            # A date read by the layouts' vocabulary may be a heading's or a colon-less line's
            # (docs/layouts.md "Date lines"): name the line, never a `Name:` it does not hold.
            written = project.context.lines[field.line - 1] if field.line else ""
            where = (
                f"its `{field.name}:` line (line {field.line})"
                if f"{field.name}:" in written.replace("*", "").replace("_", "")
                else f"the date on its line {field.line} (`{field.name}`)"
            )
            return (
                f"Re-read the record, then bring {context_path} up to that session ({day}, "
                f"{why}) and set {where} to {day}.",
                None,
            )
        if not from_log:
            return (
                f"Re-read the record, then set `**Last session:**` in {context_path} to that "
                f"session ({day}, {why}).",
                None,
            )
        return header_move_remedy(project, recorded, day, why), None

    def markers_too() -> str:
        markers = markers_behind_with_header(project)
        if not markers:
            return ""
        lines = ", ".join(str(m.line) for m in markers)
        if len(markers) == 1:
            return f"; so is its as-of marker (line {lines})"
        return f"; so are its {len(markers)} as-of markers (lines {lines})"

    yield from _judge(
        project,
        label,
        recorded,
        ("index.yaml last_session", project.index_last_session),
        context_path,
        field.line,
        set_to,
        markers_too,
    )


def _since_record(later: list[ProjectCommit], recorded: date) -> str:
    """``25 commits (…) changed the project after it (23 of them later on 2026-05-19)``."""
    same_day = sum(1 for entry in later if entry.commit.work_date == recorded)
    also = f" ({same_day} of them later on {recorded})" if same_day and len(later) > 1 else ""
    return f"{commits_phrase(later)} changed the project after it{also}"


def _record_behind(project: Project, recorded: date) -> Iterator[Issue]:
    """A record with no date field, dated by its own last commit (docs/layouts.md): it claims
    nothing, so it is never "ahead" of anything, and every later session commit is work it
    does not reflect.

    With no dated log it lags every session commit authored after its own last commit,
    compared by time, so later the same day counts too (decision, docs/layouts.md: a dated
    record claims its whole day and gets a day's grace; a commit claims only its minute; a
    `Last updated:` line is how a record claims its day). With a dated log it is behind a
    newest entry more than a day after its commit's day (entries are days), the finding
    counting the commits after it too; the work after the log's newest entry is
    unlogged-session's, not this finding's.
    """
    path = project.context.rel_path
    committed = project.record_commit
    assert committed is not None
    own = (
        f"{path} (no readable date field; last changed by commit {committed.commit.short} "
        f"of {recorded})"
    )
    later = work_after_record(project)
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        if (newest.date - recorded).days > 1:
            since = f"; {_since_record(later, recorded)}" if later else ""
            yield Issue(
                f"{own} is behind the newest session-log entry {newest.date} "
                f"({newest.path}:{newest.line}){since}",
                path,
                severity=Severity.WARNING,  # inferred from git: the record claims no date
                remedy=f"Re-read {path} and bring it up to the session of {newest.date}, then "
                f"commit it (a `Last updated: {newest.date}` line dates it from then on).",
            )
        return
    if not later:
        return
    latest = max(later, key=lambda entry: entry.commit.authored).commit
    yield Issue(
        f"{own} lags the newest work: {_since_record(later, recorded)}, the newest "
        f"{latest.short} of {latest.work_date}",
        path,
        severity=Severity.WARNING,
        remedy=f"Re-read {path} and bring it up to the work of {latest.work_date} (commit "
        f"{latest.short}), then commit it; log those sessions in "
        f"{project.log_place(latest.work_date)}.",
    )


@ACTIVE_CHECKS.check(
    "freshness-unverifiable",
    severity=Severity.WARNING,
    summary="the evidence needed to judge freshness is missing or unreadable",
    remedy="Keep a dated session log: monthly files in sessions/, one entry per session headed "
    "by its date.",
    explanation="""
        Freshness is judged from the session log, and from git history when there is no log.
        When neither can answer, the doctor says so instead of passing: a log entry whose date
        is impossible (2026-02-30), no log and no commit touching the project, no log and only
        bulk sweeps, merges or maintenance commits (trailer `Context-Doctor: maintenance`)
        among its last 12 commits, or history that is incomplete in a
        shallow clone audited with --allow-shallow (each check that needed the history is then
        reported here by name). A project that also has no `**Last session:**` header gets
        this one finding, naming the header too. Skipped for dormant projects.""",
)
def freshness_unverifiable(project: Project, ctx: Context) -> Iterator[Issue]:
    for entry in project.session_entries:
        if entry.date is None:
            yield Issue(
                f"session-log entry `{entry.spelled}` is not a real date, so it is no evidence",
                entry.path,
                entry.line,
                remedy="Correct the entry's date heading.",
            )
    if project.newest_session is not None:
        return
    # With no header either, this is the one finding about it (context-header-freshness
    # stays quiet: one root cause).
    no_header = project.header_last_session is None
    none = ", no `**Last session:**` header" if no_header else ""
    header_too = (
        f" Then add `**Last session:**` with that session's date to the header of "
        f"{project.context.rel_path}."
        if no_header
        else ""
    )
    if not project.history_available:
        yield Issue(
            f"there is no session log{none} and the repository is a shallow clone: freshness "
            "cannot be verified",
            project.context.rel_path,
            remedy="Fetch full history (`git fetch --unshallow`, or `fetch-depth: 0` in CI)."
            + header_too,
        )
        return
    recent = project.commits[:RECENT_COMMITS]
    start_log = (
        f"Start the session log: {project.log_place(ctx.today)} with one "
        f"entry per session, headed by its date (`{project.new_entry(ctx.today)}` for a "
        "session today)." + header_too
    )
    if not recent:
        # Set-aside commits (a bot's, work_ignore's) touched it, but they are no one's session.
        aside = (
            f" but the {project.set_aside} set aside (bot authors, work_ignore)"
            if project.set_aside
            else ""
        )
        yield Issue(
            f"there is no session log{none} and no commit{aside} touches the project: "
            "freshness cannot be verified",
            project.context.rel_path,
            remedy=start_log,
        )
    elif not any(entry.commit.is_session for entry in recent):
        which = (
            "the only commit touching the project is a bulk sweep, merge or maintenance commit"
            if len(recent) == 1
            else f"the last {len(recent)} commits touching the project are all bulk sweeps, "
            "merges or maintenance commits"
        )
        yield Issue(
            f"there is no session log{none} and {which} (newest: "
            f"{recent[0].commit.describe()}): freshness cannot be verified",
            project.context.rel_path,
            remedy=start_log,
        )


@ACTIVE_CHECKS.check(
    "unlogged-session",
    severity=Severity.WARNING,
    skips=(NO_LOG, NO_DATED_LOG),
    summary="the project was worked after the newest session-log entry without logging it",
    remedy="Add an entry headed by that session's date to its month's file in sessions/.",
    explanation="""
        A commit that changes any file of the project (CONTEXT.md, REFERENCE.md, an artifact,
        anything under the project directory) without touching sessions/, with a work date more
        than a day after the newest log entry, is a session that left no episodic record: the
        log now understates how current the work is. Bulk sweeps, merges and maintenance commits
        (trailer `Context-Doctor: maintenance`) are ignored, and so are the commits a record
        ahead of the log already names as the session the log lacks (a `Last session` header
        or an index last_session on or before their day: context-header-freshness or
        last-session-freshness reports them, once). The count starts at the newest log entry
        or a record's stated date, never at a commit date: a record with no date field claims
        no day. A bot's commit that changes no code (a dependency bump, a scheduled job's
        data or pages) is set aside, not counted. Skipped for dormant projects, projects
        without a session log (`no log`), and logs that hold no dated entry (`no dated
        log`).""",
)
def unlogged_session(project: Project, ctx: Context) -> Iterator[Issue]:
    newest = project.newest_session
    assert newest is not None and newest.date is not None
    claimed = _claimed_by_a_record(project, newest.date)
    # The cheap, selective questions first (each is a pure test of the commit).
    late = [
        entry
        for entry in project.commits
        if (entry.commit.work_date - newest.date).days > 1
        and entry.commit.is_session
        and not project.touches_log(entry)
        and (claimed is None or entry.commit.work_date < claimed)
    ]
    if not late:
        return
    latest = max(late, key=lambda entry: entry.commit.authored)
    first = latest.commit
    count = f"{len(late)} commits" if len(late) > 1 else "a commit"
    files = sorted(latest.files)
    touched = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    days = sorted({entry.commit.work_date for entry in late})
    yield Issue(
        f"{count} changed the project after the newest session-log entry ({newest.date}) "
        f"without logging a session; newest: {first.short} of {first.work_date} ({touched})",
        project.context.rel_path,
        remedy=_log_days_remedy(project, days, first.short),
    )


def _claimed_by_a_record(project: Project, newest: date) -> date | None:
    """The day from which a record ahead of the log (the `Last session` header, else the
    index's last_session) already names the commits as the session the log lacks: those
    commits are that record's finding, reported once (docs/checks.md context-header-freshness)."""
    # A record dated only by its own commit claims nothing (docs/layouts.md): its commit's
    # day never takes work out of the log's count.
    header = None if project.last_session_from_git else project.header_last_session
    days = [
        day
        for day in (header[1] if header else None, project.index_last_session)
        if day is not None and day > newest and session_commits_since(project, day)
    ]
    return min(days) if days else None


def _log_days_remedy(project: Project, days: list[date], newest_sha: str) -> str:
    """Log each unlogged work day in its month's file."""
    logs = " and ".join(sorted({project.log_place(day) for day in days}))
    if len(days) == 1:
        return (
            f"Add a `{project.new_entry(days[0])}` entry for that session (commit {newest_sha}) "
            f"to {logs}, saying what it did."
        )
    shown = ", ".join(str(day) for day in days[:MAX_NAMED])
    more = f" and {len(days) - MAX_NAMED} more" if len(days) > MAX_NAMED else ""
    return (
        f"Add an entry dated as its session (`{project.new_entry(days[-1])}`) for each session "
        f"({shown}{more}; newest commit {newest_sha}) to {logs}, saying what each did."
    )


IDLE = "active-project-idle"


def _newest_session_day(project: Project) -> tuple[date, str] | None:
    """The newest session's day and where it is recorded: the log, else a session commit."""
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        return newest.date, f"the newest session-log entry, {newest.path}:{newest.line}"
    if newest is not None or not project.history_available:
        return None  # an impossible log date, or no history: freshness-unverifiable says so
    latest = project.newest_session_commit
    if latest is None:
        return None
    return latest.commit.work_date, f"commit {latest.commit.short}; there is no session log"


HEADER_DORMANT = SkipRule(
    "dormant",
    "the project has no index status and its header reads paused or completed",
    lambda p: p.status is None and p.reads_dormant,
)
NO_ACTIVE_STATUS = SkipRule(
    "no active status",
    "neither the index nor the record's Status says the project is active (a record silent "
    "about its status is never called active)",
    lambda p: not p.states_active,
    shape=True,
)
NO_EVIDENCE = SkipRule(
    "no evidence",
    "no dated session-log entry and no session commit says when the project was last worked",
    lambda p: _newest_session_day(p) is None,
)


@ACTIVE_CHECKS.check(
    IDLE,
    severity=Severity.WARNING,
    skips=(HEADER_DORMANT, NO_ACTIVE_STATUS, NO_EVIDENCE),
    summary="a live project has had no session for longer than idle_days",
    remedy="Pause it (`status: paused` in index.yaml and a Paused State line in CONTEXT.md) "
    "or close it.",
    explanation="""
        A project the index (or, without an index status, its header) calls active claims
        attention every time the corpus is read. When its newest session — the newest dated
        session-log entry, else the newest session commit (not a bulk sweep, merge or
        maintenance commit) — is more than `idle_days` (default 60, `[checks.active-project-idle]
        idle_days`) before `--today`, nobody is working it: pause it (`status: paused` and a
        Paused State line saying why and when to wake it) or close it. Skipped for dormant
        projects, for projects whose record never says they are active (`no active status`), and for projects with no evidence of any session (freshness-unverifiable
        reports those).""",
)
def active_project_idle(project: Project, ctx: Context) -> Iterator[Issue]:
    found = _newest_session_day(project)
    assert found is not None
    day, where = found
    idle_days = ctx.settings.option(IDLE, "idle_days")
    idle = (ctx.today - day).days
    if idle <= idle_days:
        return
    context = project.context.rel_path
    if project.entry is not None:
        path, line = project.source.index_rel_path, project.entry.line_of("status")
        pause = (
            f"set `status: paused` for `{project.id}` in {path} and, in {context}, "
            "`**Status:** Paused` with a Paused State header giving the reason"
        )
        close = "close it (`status: completed` with its `completed_date`)"
    else:
        path, line = context, None
        pause = (
            f"set `**Status:** Paused` in {context} with a Paused State header giving the reason"
        )
        close = "rewrite it as a completion summary (`**Status:** Completed`)"
    yield Issue(
        f"no session for {idle} days (newest {day}, {where}), over the {idle_days}-day idle "
        "limit, yet the project is active",
        path,
        line,
        remedy=f"If it is paused, {pause}; if it is finished, {close}.",
    )
