"""Currency: does the record describe the state its own log has reached?

Dates cannot see same-day staleness (round 10 and round 11 on one day), so
these checks compare ordinals (round, wave, phase, step, part) within a
family; families are never compared with each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from context_doctor.checks._session_evidence import markers_behind_with_header, newest_day_ordinals
from context_doctor.checks.registry import ACTIVE_SEED_CHECKS, SEED_CHECKS, Context, SkipRule
from context_doctor.checks.session_freshness import NO_DATED_LOG, NO_LOG
from context_doctor.guards.text import first_date, ordinals
from context_doctor.model.currency import AsOfMarker, is_operational_title, stamp_of
from context_doctor.model.currency import header_lag as header_lag_of
from context_doctor.model.document_facts import HeaderField, Heading
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "currency"

STRUCTURED = SkipRule(
    "structured state",
    "the project keeps a valid CURRENT_STATE.json, whose content hashes replace as-of markers "
    "(an invalid one switches nothing off)",
    lambda p: p.has_structured_state,
)


NO_ORDINALS = SkipRule(
    "no ordinals",
    "the newest session day's entries name no round, wave, phase, step or part: there is no "
    "same-day order to compare (a lagging date is context-header-freshness's)",
    lambda p: not newest_day_ordinals(p),
    shape=True,
)


def _first_field(project: Project, name: str) -> HeaderField | None:
    fields = project.header(name)
    return fields[0] if fields else None


@SEED_CHECKS.check(
    "header-currency",
    severity=Severity.DEFECT,
    skips=(NO_LOG, NO_DATED_LOG, NO_ORDINALS),
    summary="a header field names an older round than the session log has reached",
    remedy="Advance the header field to the newest session's ordinal (e.g. `round 11`).",
    explanation="""
        Same-day staleness is invisible to a date comparison: a header saying `2026-08-23
        (round 10)` matches a log whose newest entry is `2026-08-23 (round 11)` by date. Each
        field is judged alone, so a fresh Phase never masks a stale Last session: `Phase` and
        `Last session` must not name a lower ordinal than the newest day's entries in the same
        family. A header whose Last session date already lags is reported once, as
        context-header-freshness, and not again here. Skipped for projects without a session
        log, and when the newest day's entries name no ordinal (nothing to compare).""",
)
def header_currency(project: Project, ctx: Context) -> Iterator[Issue]:
    newest = project.newest_session
    assert newest is not None
    reached = newest_day_ordinals(project)
    last = _first_field(project, "Last session")
    named = first_date(last.value) if last is not None else None
    if named is not None and named[1] != newest.date:
        return  # the whole header lags by date: context-header-freshness reports it, once
    lag = header_lag_of(project.context)
    for name in ("Phase", "Last session"):
        field = _first_field(project, name)
        if field is None:
            continue
        for family, number in ordinals(field.value).items():
            if family in reached and number < reached[family]:
                target = f"{family} {reached[family]}"
                also = ""
                if name == "Last session" and lag is not None:
                    # The same line lags Phase too: one stale line, one finding (header-lag
                    # stands down for it).
                    also = (
                        f"; Phase already names {lag.family} {lag.phase_number} "
                        f"(line {lag.phase.line})"
                    )
                    target += f" and {lag.family} {lag.phase_number}"
                yield Issue(
                    f"`{field.name}: {field.value[:60]}` names {family} {number} but the newest "
                    f"session entries ({newest.date}, {newest.path}:{newest.line}) reach "
                    f"{family} {reached[family]}{also}",
                    project.context.rel_path,
                    field.line,
                    remedy=f"Re-read the record, then advance `**{field.name}:**` in "
                    f"{project.context.rel_path} to {target} (the newest session "
                    f"entry, {newest.path}:{newest.line}).",
                )
                break


def _last_session_behind_log(project: Project) -> bool:
    """Does header-currency report the `Last session` line (same day, a lower ordinal)?"""
    newest = project.newest_session
    last = _first_field(project, "Last session")
    if newest is None or newest.date is None or last is None:
        return False
    reached = newest_day_ordinals(project)
    named = first_date(last.value)
    if named is not None and named[1] != newest.date:
        return False  # a lagging date is context-header-freshness's
    return any(
        family in reached and number < reached[family]
        for family, number in ordinals(last.value).items()
    )


@SEED_CHECKS.check(
    "header-lag",
    severity=Severity.DEFECT,
    summary="Phase names a later round than Last session",
    remedy="Update `**Last session:**` first (or in the same change) so it is not behind Phase.",
    explanation="""
        When `Phase` names a higher ordinal than `Last session` in a shared family (wave 4
        against wave 3), the header was advanced halfway: the Last session line describes an
        older state than the phase it sits under. Families are never compared with each
        other (`phase 2` says nothing about `round 3`). When the same Last session line also
        names an older round than the log's newest day, header-currency reports the line once,
        naming the Phase too. Applies to every project.""",
)
def header_lag(project: Project, ctx: Context) -> Iterator[Issue]:
    lag = header_lag_of(project.context)
    # A Last session line behind the log as well is header-currency's one finding.
    if lag is not None and not _last_session_behind_log(project):
        yield Issue(
            f"Phase names {lag.family} {lag.phase_number} but Last session names {lag.family} "
            f"{lag.last_number} (line {lag.last_session.line})",
            project.context.rel_path,
            lag.phase.line,
        )


def current_marker(project: Project, today: date) -> str:
    """The as-of marker a current section would carry: the newest session's date and ordinals
    (with no recorded session at all, the day it is re-read: ``today``)."""
    newest = project.newest_session
    day: object = today
    named: dict[str, int] = {}
    if newest is not None and newest.date is not None:
        day, named = newest.date, newest_day_ordinals(project)
    elif project.header_last_session is not None and project.header_last_session[1] is not None:
        field, day = project.header_last_session
        named = ordinals(field.value)
    suffix = " (" + ", ".join(f"{family} {n}" for family, n in named.items()) + ")" if named else ""
    return f"*State as of: {day}{suffix}*"


def _section_label(section: Heading | None) -> str:
    return f"`## {section.text}`" if section is not None else "the top of the file"


@SEED_CHECKS.check(
    "body-currency",
    severity=Severity.DEFECT,
    skips=(STRUCTURED,),
    summary="an as-of marker lags the session log, or the body has no markers to check",
    remedy="Re-read the section, update it, and advance its `*State as of: ...*` marker to the "
    "newest session's date (and round).",
    explanation="""
        A current header above stale operational sections is a stronger false receipt than an
        obviously stale file. `## Current State` and `## What's Next` end with an as-of marker
        (`*State as of: 2026-08-24 (round 14)*`); a marker older than the newest session-log
        entry, or naming a lower same-family ordinal on the same day, is a defect (when the
        `Last session` header lags the log too, the header and the markers it left behind are
        one missing update, reported once by context-header-freshness). An
        operational section without a marker, in a project that keeps a session log or a
        `Last session` header, leaves body currency unverifiable: a warning, never clean (the
        seed: markerless records are reported as unverifiable). A CONTEXT.md with no
        operational section and no marker is asked for markers only while its header or log
        carries ordinals. The warning is not asked of dormant projects. Skipped for
        projects with a *valid* CURRENT_STATE.json, whose generated block and content hashes
        replace markers (semantic-current-state checks them); an invalid state file switches
        nothing off.""",
    severities=(
        (Severity.DEFECT, "an as-of marker lags the newest session"),
        (Severity.WARNING, "a section has no as-of marker, so body currency cannot be verified"),
    ),
)
def body_currency(project: Project, ctx: Context) -> Iterator[Issue]:
    markers = project.as_of_markers
    newest = project.newest_session
    reached = newest_day_ordinals(project)
    target = current_marker(project, ctx.today)
    # Markers left behind with a lagging header are reported once, by context-header-freshness.
    folded = {marker.line for marker in markers_behind_with_header(project)}
    for marker in markers:
        if marker.line in folded:
            continue
        where = _section_label(marker.section)
        advance = (
            f"Re-read {where} and update it, then advance its marker to `{target}` "
            "(`--state-reviewed` on the edit if the prose still holds)."
        )
        if marker.date is None:
            yield Issue(
                f"as-of marker under {where} has an impossible date {marker.spelled}",
                project.context.rel_path,
                marker.line,
                remedy=f"Re-read {where}; once it is current, write its marker as `{target}`.",
            )
        elif newest is not None and newest.date is not None and marker.date < newest.date:
            yield Issue(
                f"as-of marker under {where} says {marker.spelled} but the newest session-log "
                f"entry is {newest.date} ({newest.path}:{newest.line})",
                project.context.rel_path,
                marker.line,
                remedy=advance,
            )
        elif newest is not None and marker.date == newest.date:
            for family, number in marker.ordinals.items():
                if family in reached and number < reached[family]:
                    yield Issue(
                        f"as-of marker under {where} names {family} {number} but the newest "
                        f"session entries ({newest.date}) reach {family} {reached[family]}",
                        project.context.rel_path,
                        marker.line,
                        remedy=advance,
                    )
                    break
    if project.is_dormant:
        return
    yield from _unverifiable_sections(project, markers, target)


def _unverifiable_sections(
    project: Project, markers: list[AsOfMarker], target: str
) -> Iterator[Issue]:
    """Markerless operational sections: body currency unverifiable, never clean.

    Asked of a project that keeps a session log or a `Last session` header, since
    then there is a recorded state the body could lag behind.  A CONTEXT.md with no
    operational section at all is asked for markers only while the header or log
    carries ordinals (`context-template` reports the missing sections themselves).
    """
    has_history = bool(project.session_logs) or bool(project.header("Last session"))
    header_ordinals = any(
        ordinals(field.value)
        for name in ("Phase", "Last session")
        for field in project.header(name)
    )
    carries_ordinals = header_ordinals or any(entry.ordinals for entry in project.session_entries)
    if not has_history and not carries_ordinals:
        return
    marked = {marker.section.line for marker in markers if marker.section is not None}
    operational = [
        heading
        for heading in project.context.headings
        if heading.level == 2 and is_operational_title(heading.text)
    ]
    why = "the header or log carries ordinals" if carries_ordinals else "the project keeps a "
    if not carries_ordinals:
        why += "session log" if project.session_logs else "`Last session` header"
    unverifiable = f"body currency unverifiable while {why}"
    for heading in operational:
        if heading.line not in marked:
            yield Issue(
                f"`## {heading.text}` has no `*State as of: ...*` marker: {unverifiable}",
                project.context.rel_path,
                heading.line,
                severity=Severity.WARNING,
                remedy=f"Re-read the section; once it is current, end it with `{target}`.",
            )
    if not operational and not markers and carries_ordinals:
        yield Issue(
            f"CONTEXT.md has no as-of markers: {unverifiable}",
            project.context.rel_path,
            severity=Severity.WARNING,
            remedy=f"Give `## Current State` and `## What's Next` sections, each ending with `{target}` "
            "once it is current.",
        )


@ACTIVE_SEED_CHECKS.check(
    "item-currency",
    severity=Severity.WARNING,
    summary="an open item is past its review horizon, unstamped, or badly stamped",
    remedy="Re-check the item and refresh its `(as of ...)` stamp to today, or close it.",
    explanation="""
        Unchecked task-list items (`[ ]`) under open sections carry a trailing `(as of
        YYYY-MM-DD)` or `(as of YYYY-MM-DD, review Nd)` stamp; plain bullets and numbered
        lines without a box are prose and never count. A section is open when a part of its
        title starts with open, pending, next, action, todo, to do, blocked, waiting or in
        progress (`What's Next — Later` is open, `What Pierce Needs to Do` is not); a heading
        that starts with a date or `Recent Session` is a session summary, never open. An unchecked item older than its horizon (14 days,
        `budgets.item_review_days`, or its own `review Nd`; `review 0d` means due the next
        day) is reported; so is a malformed or impossible stamp, and an open section with
        unstamped unchecked items (one finding per section). Checked `[x]` items never are.
        Skipped for dormant projects.""",
)
def item_currency(project: Project, ctx: Context) -> Iterator[Issue]:
    default_horizon = ctx.settings.budget("item_review_days")
    unstamped: dict[int, tuple[Heading, int]] = {}
    for open_item in project.open_items:
        item = open_item.item
        if item.checked is not False:  # only an unchecked `[ ]` is an open task
            continue
        stamp = stamp_of(item)
        if stamp is None:
            heading, count = unstamped.get(open_item.section.line, (open_item.section, 0))
            unstamped[open_item.section.line] = (heading, count + 1)
            continue
        if stamp.date is None:
            yield Issue(
                f"item stamp `{stamp.spelled}` has {stamp.problem} (expected `(as of YYYY-MM-DD)` "
                "or `(as of YYYY-MM-DD, review Nd)`)",
                project.context.rel_path,
                item.line,
                remedy=f"Write the stamp as `(as of {ctx.today})`, or `(as of {ctx.today}, "
                f"review {default_horizon}d)` with the horizon in days, once the item is "
                "re-checked.",
            )
            continue
        horizon = default_horizon if stamp.review_days is None else stamp.review_days
        age = (ctx.today - stamp.date).days
        if age > horizon:
            yield Issue(
                f"open item is overdue for review: as of {stamp.date}, "
                f"{age} day{'s' if age != 1 else ''} ago (horizon {horizon} days)",
                project.context.rel_path,
                item.line,
                remedy=f"Re-check the item; if it still holds, refresh its stamp to "
                f"`(as of {ctx.today})`, else close or drop it.",
            )
    for heading, count in unstamped.values():
        plural = "items carry" if count > 1 else "item carries"
        yield Issue(
            f"{count} unchecked {plural} no `(as of YYYY-MM-DD)` stamp under `{heading.text}`",
            project.context.rel_path,
            heading.line,
            remedy=f"Re-check each open item and stamp it `(as of {ctx.today})` once you "
            f"confirm it is still current (`(as of {ctx.today}, review 30d)` gives one a "
            "30-day horizon).",
        )
