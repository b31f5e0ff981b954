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
from dataclasses import fields
from datetime import datetime, tzinfo
from operator import attrgetter, is_
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec

from context_doctor.git.commits import Commit, History, Scope, positions
from context_doctor.git.history import shared_zone
from context_doctor.git.removals import Removals

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


def encode_after(head_size: int, value: Any) -> bytearray:
    """``head_size`` zero bytes (room for a header), then ``value``'s MessagePack, encoded
    in place: a large cache file is not copied again to put its header in front."""
    buffer = bytearray(head_size)
    _ENCODER.encode_into(value, buffer, head_size)
    return buffer


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
