"""The caches' wire format: MessagePack through msgspec, every value decoded against a type.

The caches live in a repository someone else may have prepared, so they hold data only
(never pickle), and nothing read back reaches the model before msgspec has checked it,
in C, against the type its code expects: a ``bool`` is no ``int``, a record has exactly
its fields, a tuple its length.  A value that does not decode (msgspec's
``ValidationError`` or ``DecodeError``, both ``ValueError``) is a miss.

Each cache file's body is one :class:`Envelope`: the key it was written for and its data,
kept as :class:`msgspec.Raw` until the key matched.  Files of many entries keep each
entry as ``Raw`` too, so each is decoded (and, if it does not decode, ignored) on its
own, and an entry carried over unchanged is written back as the bytes it was read as.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import fields
from datetime import datetime
from operator import attrgetter, is_
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from context_doctor.git.history import Commit, History, ProjectCommit, Scope

T = TypeVar("T")

# Errors a decode (or the model's constructors after it) raise on bytes that are not what
# their type says: each means "a miss".
BAD_DATA = (ValueError, TypeError, KeyError, IndexError)


class Envelope(msgspec.Struct):
    """A cache file's body: the key it was written for, and its data (decoded later)."""

    key: str
    data: msgspec.Raw


def _enc_hook(value: Any) -> Any:
    # A path is stored as its bytes, so any name round-trips (surrogate escapes included).
    if isinstance(value, Path):
        return os.fsencode(value)
    raise TypeError(f"a {type(value).__name__} is not cached")


def _dec_hook(kind: type, value: Any) -> Any:
    if kind is Path and type(value) is bytes:
        return Path(os.fsdecode(value))
    raise TypeError(f"not a {kind.__name__}")


def _ext_hook(code: int, data: memoryview) -> Any:
    raise TypeError("the caches hold no extension types")  # only a forged file has one


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_enc_hook)


def encode(value: Any) -> bytes:
    """``value``'s MessagePack; TypeError for a type the caches do not hold (a subclass of
    ``str``, ``int`` or ``float`` among them: a value comes back as exactly what it was)."""
    return _ENCODER.encode(value)


_DECODERS: dict[Any, msgspec.msgpack.Decoder[Any]] = {}


def decode(data: Any, kind: type[T]) -> T:
    """The value of type ``kind`` ``data`` holds; a ``ValueError`` (or TypeError) else."""
    found = _DECODERS.get(kind)
    if found is None:  # built once per type
        found = _DECODERS[kind] = msgspec.msgpack.Decoder(
            kind, dec_hook=_dec_hook, ext_hook=_ext_hook
        )
    value: T = found.decode(data)
    return value


# -- the history on the wire ---------------------------------------------------------
#
# Commits are rows (a tuple per commit, its fields in order, the times as ISO text:
# msgspec would store an aware datetime in UTC and lose the author's offset, which
# gives the work date), each project's commits rows of (commit position, file names).

CommitRow = tuple[str, int, str, str, int, int, bool, bool]
EntryRow = tuple[int, list[str]]
ProjectRow = tuple[int, str, list[EntryRow]]


class HistoryWire(msgspec.Struct, array_like=True):
    head: str
    count: int
    commits: list[CommitRow]
    projects: list[ProjectRow]


_STAMPS = tuple(i for i, item in enumerate(fields(Commit)) if str(item.type) == "datetime")
_COMMIT_FIELDS = attrgetter(*(item.name for item in fields(Commit)))


def _commit_to_wire(commit: Commit) -> CommitRow:
    row: list[Any] = list(_COMMIT_FIELDS(commit))
    for position in _STAMPS:
        row[position] = row[position].isoformat()
    return tuple(row)  # checked when it is encoded


def _commit_from_wire(row: CommitRow) -> Commit:
    cells: list[Any] = list(row)
    for position in _STAMPS:
        cells[position] = datetime.fromisoformat(cells[position])
    return Commit(*cells)


class _EntryRows:
    """Project commits as wire rows ``(commit position, sorted files)``, appending each
    commit's own row to ``commits`` the first time an entry names it."""

    def __init__(self, commits: list[CommitRow]) -> None:
        self.commits = commits
        self.positions: dict[int, int] = {}
        self.names: dict[frozenset[str], list[str]] = {}  # few distinct sets, each sorted once

    def rows(self, entries: Iterable[ProjectCommit]) -> list[EntryRow]:
        found: list[EntryRow] = []
        for entry in entries:
            position = self.positions.get(id(entry.commit))
            if position is None:
                position = self.positions[id(entry.commit)] = len(self.commits)
                self.commits.append(_commit_to_wire(entry.commit))
            files = self.names.get(entry.files)
            if files is None:
                files = self.names[entry.files] = sorted(entry.files)
            found.append((position, files))
        return found


def history_to_wire(head: str, history: History, scopes: tuple[Scope, ...]) -> HistoryWire:
    commits: list[CommitRow] = []
    encoder = _EntryRows(commits)
    projects = [
        (scopes.index(scope), project_id, encoder.rows(entries))
        for (scope, project_id), entries in history.by_project.items()
    ]
    return HistoryWire(head, history.commits, commits, projects)


def history_extended(
    wire: HistoryWire,
    older: History,
    head: str,
    history: History,
    scopes: tuple[Scope, ...],
) -> HistoryWire | None:
    """The wire form of ``history`` built on ``wire`` (the stored form of ``older``), or None.

    A resumed pass is the new commits followed by the stored history
    (``History.followed_by``): each project's list ends with the very entries
    ``older`` holds.  Then only the new entries need converting: their commits go at the
    end of the stored commit rows (entries refer to commits by position) and their rows
    before each project's stored rows, which are reused as they are.  Anything else
    (a project the stored pass had and this one lacks, entries that are not the stored
    ones) is None: the caller converts the whole history.
    """
    commits = list(wire.commits)
    stored_rows = {(item[0], item[1]): item[2] for item in wire.projects}
    encoder = _EntryRows(commits)
    projects: list[ProjectRow] = []
    for (scope, project_id), entries in history.by_project.items():
        scope_at = scopes.index(scope)
        kept = older.by_project.get((scope, project_id), [])
        fresh = len(entries) - len(kept)
        rows = stored_rows.pop((scope_at, project_id), [])
        if fresh < 0 or len(rows) != len(kept) or not all(map(is_, entries[fresh:], kept)):
            return None
        if fresh:
            rows = encoder.rows(entries[:fresh]) + rows
        projects.append((scope_at, project_id, rows))
    if stored_rows:
        return None
    return HistoryWire(head, history.commits, commits, projects)


def history_from_wire(wire: HistoryWire, scopes: tuple[Scope, ...]) -> tuple[str, History]:
    """The pass a decoded :class:`HistoryWire` holds; ValueError/IndexError when its
    positions point nowhere (the cells' types were checked by the decode)."""
    commits = [_commit_from_wire(row) for row in wire.commits]
    history = History(wire.count, {})
    # The same few file sets recur across thousands of entries: each distinct one is made
    # a frozenset once, and shared.
    sets: dict[tuple[str, ...], frozenset[str]] = {}
    for position, project_id, entries in wire.projects:
        if position < 0:
            raise ValueError("a scope of the wrong position")
        listed: list[ProjectCommit] = []
        for commit_at, files in entries:
            if commit_at < 0:
                raise ValueError("a commit of the wrong position")
            key = tuple(files)
            names = sets.get(key)
            if names is None:
                names = sets[key] = frozenset(files)
            listed.append(ProjectCommit(commits[commit_at], names))
        history.by_project[(scopes[position], project_id)] = listed
    return wire.head, history
