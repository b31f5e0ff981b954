"""The session evidence the freshness checks share, and the remedies they propose.

No check lives here (the name's leading underscore keeps the registry from loading it as
a check module): the newest session day's ordinals, the as-of markers a header's
finding reports with it, the session commits since a day, and the commands that move a
header or log a session, each one the editor accepts.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Callable
from datetime import date

from context_doctor.git.commits import ProjectCommit
from context_doctor.model.currency import AsOfMarker, lags
from context_doctor.model.header import fields_named
from context_doctor.model.project import Project
from context_doctor.model.sessions import SessionEntry

MAX_NAMED = 5  # commits named in one message


def newest_day_ordinals(project: Project) -> dict[str, int]:
    """The highest ordinal per family among the entries of the newest session day."""
    newest = project.newest_session
    reached: dict[str, int] = {}
    if newest is None:
        return reached
    for entry in project.session_entries:
        if entry.date == newest.date:
            for family, number in entry.ordinals.items():
                reached[family] = max(number, reached.get(family, number))
    return reached


def markers_behind_with_header(project: Project) -> list[AsOfMarker]:
    """The as-of markers `context-header-freshness` reports together with its header.

    When the `Last session` header lags the newest log entry by date, the record was not
    brought up to that session: the header and the markers it left behind are one missing
    update, moved in one edit, so they are reported once, by the header's finding
    (`body-currency` stands down for them). Empty for a dormant project (the header check
    skips it, so body-currency keeps its markers).
    """
    newest = project.newest_session
    header = project.header_last_session
    if project.is_dormant or newest is None or newest.date is None:
        return []
    if header is None or header[1] is None or header[1] >= newest.date:
        return []
    reached = newest_day_ordinals(project)
    return [m for m in project.as_of_markers if lags(m.date, m.ordinals, newest.date, reached)]


def _quoted(text: str) -> str:
    return shlex.quote(text)


def header_move_remedy(project: Project, recorded: date, day: date, why: str) -> str:
    """A command the editor accepts that moves the header to ``day`` (docs/editor.md: a header
    advance goes together with the as-of markers it would leave behind, as one apply)."""
    context = project.context
    path = context.rel_path
    lead = f"Re-read the record, then move the header to that session ({day}, {why})"
    # The header block's field when there is one (what set-field edits first), else the
    # `## Last Session:` heading the seed's layout reads too (docs/layouts.md).
    fields = project.header("Last session") or fields_named(
        context, ("Last session",), anywhere=False
    )
    if len(fields) != 1 or any(
        other.line == fields[0].line and other.name != fields[0].name
        for other in context.header_fields
    ):
        return (
            f"{lead}: edit the `**Last session:**` line of {path} by hand (it appears twice or "
            "shares its line with another field, which `edit set-field` refuses)."
        )
    name = _quoted(fields[0].name)
    reached = newest_day_ordinals(project) if day > recorded else {}
    suffix = " (" + ", ".join(f"{f} {n}" for f, n in reached.items()) + ")" if reached else ""
    value = f"{day}{suffix}"
    whole = " --whole-value" if reached else ""
    stale = (
        [m for m in project.as_of_markers if lags(m.date, m.ordinals, day, reached)]
        if day > recorded
        else []
    )
    if not stale:
        return (
            f"{lead}: `context-doctor edit set-field {_quoted(path)} --field {name} "
            f"--value {_quoted(value)}{whole}`."
        )
    counts = Counter(context.lines[m.line - 1].strip() for m in stale)
    if any(
        sum(line.count(text) for line in context.lines) != count for text, count in counts.items()
    ):
        return (
            f"{lead}, and advance its {len(stale)} stale as-of markers to "
            f"`*State as of: {value}*` in the same `context-doctor edit apply` batch."
        )
    set_field: dict[str, object] = {
        "op": "set-field",
        "file": path,
        "field": fields[0].name,
        "value": value,
    }
    if reached:
        set_field["whole_value"] = True
    edits = [set_field] + [
        {
            "op": "replace",
            "file": path,
            "anchor": text,
            "replacement": f"*State as of: {value}*",
            "count": count,
        }
        for text, count in counts.items()
    ]
    return (
        f"{lead}; once its sections still hold (else update them in the same batch), move the "
        f"header and its {len(stale)} as-of marker{'s' if len(stale) > 1 else ''} in one write: "
        f"`printf '%s' {printf_words(edits)} | context-doctor edit apply --edits - "
        "--state-reviewed`."
    )


def printf_words(edits: list[dict[str, object]]) -> str:
    """The JSON of ``edits`` as ``printf '%s'`` arguments, one member each: printf joins
    them back into exactly that JSON, and a terminal can wrap the command between them
    (docs/output.md: a command is cut only where the shell cuts it; one quoted word of
    300 characters could not be)."""
    words: list[str] = []
    for position, edit in enumerate(edits):
        members = list(edit.items())
        for index, (key, value) in enumerate(members):
            text = json.dumps({key: value}, ensure_ascii=False)[1:-1]
            lead = ("[" if position == index == 0 else "") + ("{" if index == 0 else "")
            last_edit = position == len(edits) - 1
            tail = ", " if index < len(members) - 1 else ("}]" if last_edit else "}, ")
            words.append(_quoted(lead + text + tail))
    return " ".join(words)


def work_after_record(project: Project) -> list[ProjectCommit]:
    """The session commits authored after the record's own last commit, oldest first.

    A record with no date field claims nothing (docs/layouts.md): its last commit shows how
    far it was brought, to the minute, so every later session commit is work it does not
    reflect, later the same day included.
    """
    committed = project.record_commit
    if committed is None or not project.history_available:
        return []
    since = committed.commit.authored
    found = [
        entry
        for entry in project.commits
        if entry.commit.is_session and entry.commit.authored > since
    ]
    return sorted(found, key=lambda entry: entry.commit.authored)


def session_commits_since(project: Project, day: date) -> list[ProjectCommit]:
    """Session commits (not bulk, merge or maintenance) touching the project on or after ``day``,
    oldest first."""
    found = [
        entry
        for entry in project.commits
        if entry.commit.work_date >= day and entry.commit.is_session
    ]
    return sorted(found, key=lambda entry: entry.commit.authored)


def commits_phrase(commits: list[ProjectCommit]) -> str:
    shown = ", ".join(
        f"{entry.commit.short} of {entry.commit.work_date}" for entry in commits[:MAX_NAMED]
    )
    more = f" and {len(commits) - MAX_NAMED} more" if len(commits) > MAX_NAMED else ""
    return f"commit {shown}" if len(commits) == 1 else f"{len(commits)} commits ({shown}{more})"


def log_session_remedy(project: Project, day: date, commits: list[ProjectCommit]) -> str:
    """Log the session the records and git agree on: its date, its commits, its monthly file."""
    shas = ", ".join(entry.commit.short for entry in commits[:MAX_NAMED])
    if len(commits) > MAX_NAMED:
        shas += f" and {len(commits) - MAX_NAMED} more"
    return (
        f"Add a `{project.new_entry(day)}` entry to {project.log_place(day)} for the "
        f"session of {day} (commit{'s' if len(commits) > 1 else ''} {shas}), saying what it did; "
        "the recorded date stands."
    )


def by_newest_work(
    project: Project,
    entry: Callable[[SessionEntry], str],
    commit: Callable[[ProjectCommit], str],
    otherwise: str,
) -> str:
    """A remedy naming what dates the project's last working session: its newest dated
    session-log entry, else (with history) its newest session commit, else ``otherwise``."""
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        return entry(newest)
    latest = project.newest_session_commit if project.history_available else None
    return commit(latest) if latest is not None else otherwise


def add_header_remedy(project: Project) -> str:
    record = project.context.rel_path
    return by_newest_work(
        project,
        lambda newest: (
            f"Add `**Last session:** {newest.date}` to the header of {record} "
            f"(the newest session-log entry, {newest.path}:{newest.line})."
        ),
        lambda latest: (
            f"Add `**Last session:** {latest.commit.work_date}` to the header of "
            f"{record} (the work date of commit {latest.commit.short}, the newest session commit), "
            "or the day of the last working session if it was another."
        ),
        "Add a `**Last session:**` line giving the day of the last working session (a "
        f"year-month-day date) to the header of {record}.",
    )


def completed_date_remedy(project: Project) -> str:
    """Name the evidence a person dates the completion from; the date itself is their claim."""
    where = f"to the `{project.id}` entry in {project.source.index_rel_path}"
    return by_newest_work(
        project,
        lambda newest: (
            f"Add `completed_date:` (the day it was completed) {where}; its newest "
            f"session-log entry is {newest.date} ({newest.path}:{newest.line})."
        ),
        lambda latest: (
            "Add `completed_date:` (the day it was completed, as a year-month-day "
            f"date) {where}; its newest session commit is {latest.commit.short} of "
            f"{latest.commit.work_date}."
        ),
        f"Add `completed_date:` (the day it was completed, as a year-month-day date) {where}.",
    )
