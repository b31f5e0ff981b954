"""The history pass on the wire: the shape the history cache stores it in (``history.msgpack``).

Kept apart from :mod:`context_doctor.cache.codec` so that the replay of an unchanged run,
which reads no history, loads neither it nor the history model.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime, tzinfo
from operator import attrgetter, is_
from typing import Annotated, Any

import msgspec

from context_doctor.git.commits import Commit, History, Scope, positions
from context_doctor.git.history import shared_zone
from context_doctor.git.removals import Removals

# -- the history on the wire ---------------------------------------------------------
#
# Commits are rows (a tuple per commit, its fields in order, the times as ISO text:
# msgspec would store an aware datetime in UTC and lose the author's offset, which
# gives the work date), each distinct set of file names once, and each project two
# lists of positions into them (its commits, and the files each touched): the
# History's own compact form.  HISTORY_WIRE names this shape in the cache key;
# the earlier shape (entries of files per commit per project) does not decode as this one
# either, so an old file is a miss.

HISTORY_WIRE = 3  # 3: the removals (git/removals.py) travel with the pass
CommitRow = tuple[str, int, str, str, int, int, bool, bool]
Position = Annotated[int, msgspec.Meta(ge=0, lt=1 << 32)]
ProjectRow = tuple[int, str, list[Position], list[Position]]


RemovalRow = tuple[str, Position, str]  # path, its commit's position, the path renamed to


class HistoryWire(msgspec.Struct, array_like=True):
    head: str
    count: int
    commits: list[CommitRow]
    file_sets: list[list[str]]
    projects: list[ProjectRow]
    removal_commits: list[tuple[str, str]] = msgspec.field(default_factory=list)
    removals: list[RemovalRow] = msgspec.field(default_factory=list)
    removals_complete: bool = False


_STAMPS = tuple(i for i, item in enumerate(fields(Commit)) if str(item.type) == "datetime")
_COMMIT_FIELDS = attrgetter(*(item.name for item in fields(Commit)))


def _commit_to_wire(commit: Commit) -> CommitRow:
    row: list[Any] = list(_COMMIT_FIELDS(commit))
    for position in _STAMPS:
        row[position] = row[position].isoformat()
    return tuple(row)  # checked when it is encoded


def _commit_from_wire(row: CommitRow, zones: dict[tzinfo, tzinfo]) -> Commit:
    cells: list[Any] = list(row)
    text, time = None, None
    for position in _STAMPS:
        if cells[position] != text:  # authored when committed: one time for both
            text = cells[position]
            time = shared_zone(datetime.fromisoformat(text), zones)
        cells[position] = time
    return Commit(*cells)


def history_to_wire(
    head: str,
    history: History,
    scopes: tuple[Scope, ...],
    commits: list[CommitRow] | None = None,
    file_sets: list[list[str]] | None = None,
) -> HistoryWire:
    """``history`` on the wire; ``commits`` and ``file_sets``: its rows, when known."""
    return HistoryWire(
        head,
        history.commits,
        [_commit_to_wire(commit) for commit in history.log] if commits is None else commits,
        [sorted(names) for names in history.file_sets] if file_sets is None else file_sets,
        [
            (scopes.index(scope), project_id, list(commit_at), list(set_at))
            for (scope, project_id), (commit_at, set_at) in history.projects.items()
        ],
        list(history.removals.commits),
        [(path, at, renamed) for path, (at, renamed) in history.removals.paths.items()],
        history.removals.complete,
    )


def history_extended(
    wire: HistoryWire,
    older: History,
    head: str,
    history: History,
    scopes: tuple[Scope, ...],
) -> HistoryWire | None:
    """The wire form of ``history`` built on ``wire`` (the stored form of ``older``), or None.

    A resumed pass is the new commits followed by the stored history
    (``History.followed_by``): its log and file sets end with the very ones ``older``
    holds, whose rows ``wire`` already has.  Then only the new commits and sets are
    converted; anything else is None (the caller converts the whole history).
    """
    fresh = len(history.log) - len(older.log)
    fresh_sets = len(history.file_sets) - len(older.file_sets)
    if (
        fresh < 0
        or fresh_sets < 0
        or len(wire.commits) != len(older.log)
        or len(wire.file_sets) != len(older.file_sets)
        or not all(map(is_, history.log[fresh:], older.log))
        or not all(map(is_, history.file_sets[fresh_sets:], older.file_sets))
    ):
        return None
    commits = [_commit_to_wire(commit) for commit in history.log[:fresh]] + wire.commits
    file_sets = [sorted(names) for names in history.file_sets[:fresh_sets]] + wire.file_sets
    return history_to_wire(head, history, scopes, commits, file_sets)


def history_from_wire(wire: HistoryWire, scopes: tuple[Scope, ...]) -> tuple[str, History]:
    """The pass a decoded :class:`HistoryWire` holds; ValueError/IndexError when its
    positions point nowhere (the cells' types were checked by the decode)."""
    zones: dict[tzinfo, tzinfo] = {}
    history = History(
        wire.count,
        [_commit_from_wire(row, zones) for row in wire.commits],
        [frozenset(names) for names in wire.file_sets],
        {},
    )
    for position, project_id, commit_at, set_at in wire.projects:
        if position < 0:
            raise ValueError("a scope of the wrong position")
        if len(commit_at) != len(set_at):
            raise ValueError("a project's positions do not pair")
        if commit_at and max(commit_at) >= len(history.log):
            raise ValueError("a commit of the wrong position")
        if set_at and max(set_at) >= len(history.file_sets):
            raise ValueError("a file set of the wrong position")
        history.projects[(scopes[position], project_id)] = (
            positions(commit_at),
            positions(set_at),
        )
    removals = Removals(complete=wire.removals_complete)
    removals.commits = [(sha, authored) for sha, authored in wire.removal_commits]
    for path, at, renamed in wire.removals:
        if at >= len(removals.commits):
            raise ValueError("a removal of the wrong commit")
        removals.paths[path] = (at, renamed)
    history.removals = removals
    return wire.head, history
