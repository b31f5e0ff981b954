"""Hygiene: the seed's CONTEXT.md template, its archive trigger and the session-log layout.

These are warnings: a record that departs from the template still resumes, but
it resumes less well (no pointer to REFERENCE.md, no budget footer), and a log
whose files or entries are out of place is harder to search.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from context_doctor.checks.registry import ACTIVE_SEED_CHECKS, SEED_CHECKS, Context, SkipRule
from context_doctor.checks.structure import log_for
from context_doctor.model.currency import CURRENT_STATE_TITLE, WHATS_NEXT_TITLE
from context_doctor.model.documents import Document
from context_doctor.model.project import Project
from context_doctor.model.sessions import (
    MIXED,
    NEWEST_FIRST,
    SessionEntry,
    against_order,
    kept_order,
    log_order,
)
from context_doctor.report.findings import Issue, Severity

GROUP = "hygiene"

# The seed's archival protocol: "Archive when ... CONTEXT.md exceeds 120 lines".
ARCHIVE_TRIGGER_LINES = 120
FOOTER_WINDOW = 5  # the budget footer is one of the last lines
_FOOTER = re.compile(r"\bbudget\s*:", re.IGNORECASE)
_LOG_NAME = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])\.md$")

# The log files are what session-log-layout and attribution-format read: with none there is
# nothing to examine (a shape, docs/checks.md; sessions-present reports a missing log). A check
# that needs a log to judge something else (header-currency, unlogged-session) keeps `no
# log` as a gate.
NO_LOG_FILES = SkipRule(
    "no log",
    "the project has no session-log file in sessions/",
    lambda p: not p.session_logs,
    shape=True,
)


@ACTIVE_SEED_CHECKS.check(
    "context-archive-due",
    severity=Severity.WARNING,
    summary="CONTEXT.md is over 120 lines: archiving is due before it reaches its budget",
    remedy="Run the archival protocol: move session summaries and finished items to "
    "the month's log file in sessions/ and stable facts to REFERENCE.md (archive first, verify, then trim).",
    explanation="""
        The seed's archive trigger: once CONTEXT.md is over 120 lines it is approaching its
        150-line budget, and cold content (old session summaries, completed items, stable
        facts) should move to sessions/ and REFERENCE.md now, while it is still a choice.
        Reported only while the file is within its budget: over it, `context-budget` reports
        a defect instead, never both. Skipped for dormant projects.""",
)
def context_archive_due(project: Project, ctx: Context) -> Iterator[Issue]:
    completed = project.reads_completed
    budget = ctx.settings.budget("completed_context_lines" if completed else "context_lines")
    lines = project.context.line_count
    if ARCHIVE_TRIGGER_LINES < lines <= budget:
        yield Issue(
            f"CONTEXT.md is {lines} lines, over the {ARCHIVE_TRIGGER_LINES}-line archive trigger "
            f"(budget {budget})",
            project.context.rel_path,
            remedy="Run the archival protocol: move session summaries and finished items to "
            f"{log_for(project, ctx.today)} and stable facts to {project.reference.rel_path} "
            "(archive first, verify, then trim).",
        )


def _link_targets(document: Document) -> list[str]:
    """Each link's path, without `./`, anchor or query: `./REFERENCE.md#team` -> `REFERENCE.md`."""
    targets: list[str] = []
    for link in document.links:
        path = re.split(r"[#?]", link.href, maxsplit=1)[0]
        while path.startswith("./"):
            path = path[2:]
        targets.append(path)
    return targets


@ACTIVE_SEED_CHECKS.check(
    "context-template",
    severity=Severity.WARNING,
    summary="CONTEXT.md departs from the working-context template",
    remedy="Follow the template: `## Current State`, `## What's Next`, links to REFERENCE.md and "
    "sessions/, and a budget footer (`*... Budget: <=150 lines.*`).",
    explanation="""
        The seed's template gives every working context the same landmarks, so any agent
        knows where to look: a `## Current State` and a `## What's Next` section (any title
        starting so, e.g. `What's Next — Prioritized`), a Markdown link to REFERENCE.md when
        the project has one and to sessions/ when it has a log, and a budget footer (a line
        containing `Budget:` among the last five). One finding per file, listing every
        missing part, with one remedy that adds them all (one file, one cause).
        A project with a valid CURRENT_STATE.json, or whose header reads completed, is not
        asked for the two sections (its generated block, or its completion summary,
        replaces them). Skipped for dormant projects.""",
)
def context_template(project: Project, ctx: Context) -> Iterator[Issue]:
    context = project.context
    missing: list[str] = []  # what the file lacks, in the order it would appear
    additions: list[str] = []  # what adds each, in the same order
    targets = _link_targets(context)
    if project.reference.exists and not any(t.casefold() == "reference.md" for t in targets):
        missing.append("no link to REFERENCE.md")
        additions.append(
            "add `For stable reference facts: see [REFERENCE.md](REFERENCE.md)` under the header"
        )
    if project.session_logs and not any(
        t == "sessions" or t.startswith("sessions/") for t in targets
    ):
        missing.append("no link to sessions/")
        additions.append("add `For session history: see [sessions/](sessions/)` under the header")
    # Either record saying completed spares the sections: a closing summary replaces them.
    if not project.has_structured_state and not project.claims_completed:
        titles = [heading.text for heading in context.headings if heading.level == 2]
        for label, pattern in (
            ("## Current State", CURRENT_STATE_TITLE),
            ("## What's Next", WHATS_NEXT_TITLE),
        ):
            if not any(pattern.match(title) for title in titles):
                missing.append(f"no `{label}`")
                additions.append(f"add a `{label}` section")
    tail = context.last_lines(FOOTER_WINDOW)
    if not any(_FOOTER.search(line) for line in tail):
        budget = ctx.settings.budget(
            "completed_context_lines" if project.reads_completed else "context_lines"
        )
        missing.append(f"no budget footer (no `Budget:` line among the last {FOOTER_WINDOW})")
        additions.append(
            "end the file with `*This file follows the Tiered Context Architecture. "
            f"Budget: ≤{budget} lines.*`"
        )
    if not missing:
        return
    yield Issue(
        f"CONTEXT.md departs from the working-context template: {', '.join(missing)}",
        context.rel_path,
        remedy=f"In {context.rel_path}: {'; '.join(additions)} (the seed's working-context "
        "template).",
    )


def _month_of(name: str) -> tuple[int, int] | None:
    match = _LOG_NAME.match(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _dated(entries: list[SessionEntry], path: str) -> list[tuple[SessionEntry, date]]:
    return [(e, e.date) for e in entries if e.path == path and e.date is not None]


def _monthly_files_remedy(project: Project, log: Document) -> str:
    """Where a misnamed log's entries belong, by name: never a placeholder, never a rename
    onto a file that already exists (that is a merge, and the person decides the order)."""
    sessions = project.path_to("sessions")
    days = [day for _, day in _dated(project.session_entries, log.rel_path)]
    months = sorted({f"{day:%Y-%m}" for day in days})
    if not months:
        return (
            f"Its sessions carry no dated heading, so their month cannot be derived: give each "
            f"session a `##` heading starting with the day it happened, then move it into that "
            f"month's file under {sessions}/ (or, if {log.path.name} is not a log, move it out "
            "of sessions/)."
        )
    existing = {other.path.name for other in project.session_logs if other is not log}
    if len(months) == 1:
        target = f"{sessions}/{months[0]}.md"
        count = f"its {len(days)} entries" if len(days) > 1 else "its entry"
        if f"{months[0]}.md" in existing:
            return (
                f"{target} already exists, so do not rename: merge {count} into {target} in "
                f"date order, then delete {log.rel_path}."
            )
        return f"Rename it to {target}, the month of {count}."
    files = ", ".join(
        f"{sessions}/{month}.md"
        + (" (exists: merge in date order)" if f"{month}.md" in existing else "")
        for month in months
    )
    return (
        f"Move its entries into the monthly files they belong to: {files}; then delete "
        f"{log.rel_path}."
    )


_DAY_IN_NAME = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")


def _dated_note(name: str, entries: list[tuple[SessionEntry, date]] | None) -> bool:
    """A file named by one day that holds no dated entry: a note of that day (minutes, a
    call, a review) kept in the log folder, not a log (docs/layouts.md)."""
    return not entries and _DAY_IN_NAME.search(name) is not None


@SEED_CHECKS.check(
    "session-log-layout",
    severity=Severity.WARNING,
    skips=(NO_LOG_FILES,),
    summary="a session-log file is misnamed, or its entries are outside its month or out of order",
    remedy="Name each log file after its month (`2026-06.md` for June 2026), keep each entry in its month's file, and "
    "keep each file in one date order.",
    explanation="""
        The episodic tier is monthly files named `YYYY-MM.md`, each kept in one date order
        (`README.md` and `INDEX.md` are not logs). A file with another name is hard to find
        by date; an entry dated outside its file's month is in the wrong file. A file whose
        entries run consistently newest first, or oldest first, keeps its own convention
        (`log add` writes a new entry at its top, or its end); a file that mixes both
        is reported, naming the first entry against the order most of it keeps (the order
        `log add` then writes in; oldest first on a tie).
        A file named by one day (`meeting-2026-04-09-client.md`) that holds no dated entry
        is a dated note kept beside the logs, not a misnamed log: it gets no finding.
        One finding per file and problem, naming the first offending entry and how many
        there are. An entry dated after `--today` cannot be true and is reported too.
        Impossible dates are `freshness-unverifiable`'s, not this check's. Skipped
        for projects with no session-log file.""",
)
def session_log_layout(project: Project, ctx: Context) -> Iterator[Issue]:
    # Each log's dated entries, in order (what _dated gives per log), grouped in one pass.
    dated: dict[str, list[tuple[SessionEntry, date]]] = {}
    for found in project.session_entries:
        if found.date is not None:
            dated.setdefault(found.path, []).append((found, found.date))
    for log in project.session_logs:
        month = _month_of(log.path.name)
        if month is None and not _dated_note(log.path.name, dated.get(log.rel_path)):
            yield Issue(
                f"session log `{log.path.name}` is not named YYYY-MM.md",
                log.rel_path,
                remedy=_monthly_files_remedy(project, log),
            )
        entries = dated.get(log.rel_path, [])
        if month is not None:
            outside = [(e, d) for e, d in entries if (d.year, d.month) != month]
            if outside:
                first, day = outside[0]
                more = f" ({len(outside)} entries in all)" if len(outside) > 1 else ""
                yield Issue(
                    f"entry dated {day} is outside {log.path.name}'s month{more}",
                    log.rel_path,
                    first.line,
                    remedy=f"Move it to {project.path_to('sessions')}/{day:%Y-%m}.md.",
                )
        future = [(e, d) for e, d in entries if d > ctx.today]
        if future:
            first_future, day = future[0]
            more = f" ({len(future)} entries in all)" if len(future) > 1 else ""
            yield Issue(
                f"entry dated {day} is after today ({ctx.today}): a session cannot have "
                f"happened yet{more}",
                log.rel_path,
                first_future.line,
                remedy=f"Correct the entry's date in {log.rel_path} to the day the session "
                "happened.",
            )
        listed = [entry for entry, _ in entries]
        if log_order(listed) != MIXED:
            continue  # one order, newest or oldest first: the log's own convention
        order = kept_order(listed)
        against = against_order(listed, order)
        if against:
            first_entry, before = against[0]
            assert first_entry.date is not None
            more = f" ({len(against)} entries out of order)" if len(against) > 1 else ""
            runs = "newest first" if order == NEWEST_FIRST else "oldest first"
            yield Issue(
                f"entry dated {first_entry.date} comes after one dated {before}: the log "
                f"mixes both orders, most of it {runs}{more}",
                log.rel_path,
                first_entry.line,
                remedy=f"Keep the log in one order: move the entries out of order so that all "
                f"of it runs {runs}.",
            )
