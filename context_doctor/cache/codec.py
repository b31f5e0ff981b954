"""The cache's wire format: msgpack values, a few model records and the history, type-checked on the way in.

The cache lives in a repository someone else may have prepared, so it is msgpack (data
only, never pickle) and every value read back is checked against the type its code
expects before the model sees it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass
from datetime import date, datetime
from functools import cache
from itertools import product
from operator import attrgetter, is_
from pathlib import Path
from typing import Any

import msgpack

from context_doctor.git.history import Commit, History, ProjectCommit, Scope
from context_doctor.model.index import Index, IndexEntry
from context_doctor.model.suppression_comments import SuppressionComment

# -- values on the wire: YAML-like data and a few of the model's records -----------

_TUPLE, _DATE, _DATETIME, _PATH, _RECORD = 1, 2, 3, 4, 5
# Records the memos may hold.  Each field's annotation is checked on the way back in,
# so a prepared cache cannot hand the model a value of a type its code does not expect;
# a record with a field of an annotation ``_conforms`` does not know is never cached.
RECORDS: dict[str, type] = {cls.__name__: cls for cls in (Index, IndexEntry, SuppressionComment)}


def _default(value: Any) -> Any:
    if isinstance(value, tuple):
        return msgpack.ExtType(_TUPLE, _pack(list(value)))
    if isinstance(value, datetime):
        return msgpack.ExtType(_DATETIME, value.isoformat().encode("ascii"))
    if isinstance(value, date):
        return msgpack.ExtType(_DATE, value.isoformat().encode("ascii"))
    if isinstance(value, Path):
        return msgpack.ExtType(_PATH, os.fsencode(value))
    name = type(value).__name__
    if is_dataclass(value) and RECORDS.get(name) is type(value):
        values = {item.name: getattr(value, item.name) for item in fields(value)}
        for item in fields(value):
            if not _conforms(values[item.name], str(item.type)):
                raise TypeError(f"{name}.{item.name} does not match `{item.type}`")
        return msgpack.ExtType(_RECORD, _pack([name, values]))
    raise TypeError(f"a {name} is not cached")


def _pack(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, default=_default, strict_types=True, use_bin_type=True)
    return packed


def _ext(code: int, data: bytes) -> Any:
    if code == _TUPLE:
        items = _unpack(data)
        if not isinstance(items, list):
            raise ValueError("a tuple that is not a list")
        return tuple(items)
    if code == _DATE:
        return date.fromisoformat(data.decode("ascii"))
    if code == _DATETIME:
        return datetime.fromisoformat(data.decode("ascii"))
    if code == _PATH:
        return Path(os.fsdecode(data))
    if code == _RECORD:
        name, values = _unpack(data)
        cls = RECORDS.get(name) if isinstance(name, str) else None
        if cls is None or not isinstance(values, dict):
            raise ValueError("not a known record")
        expected = _record_fields(cls)
        if values.keys() != expected.keys():
            raise ValueError(f"{name} with other fields")
        for key, (annotation, test) in expected.items():
            if not test(values[key]):
                raise ValueError(f"{name}.{key} does not match `{annotation}`")
        return cls(**values)
    raise ValueError(f"unknown extension {code}")


@cache
def _record_fields(cls: type) -> dict[str, tuple[str, Callable[[Any], bool]]]:
    """Each field of a record: its annotation and the test a value must pass."""
    return {item.name: (str(item.type), _checker(str(item.type))) for item in fields(cls)}


def _unpack(data: bytes) -> Any:
    # Text only as str: msgpack's bin type never comes out as a value (YAML has no bytes).
    value = msgpack.unpackb(data, ext_hook=_ext, raw=False, strict_map_key=False)
    return value


def encode_value(value: Any) -> bytes:
    return _pack(value)


def decode_value(data: bytes) -> Any:
    """The value :func:`encode_value` packed; ValueError/TypeError for anything else.

    Plain values may be anything YAML gives (``!!binary`` gives bytes, so bytes are
    allowed); records are checked field by field against their annotations.
    """
    return _unpack(data)


def _split_top(text: str, separator: str) -> list[str]:
    parts: list[str] = []
    depth, start = 0, 0
    for position, character in enumerate(text):
        depth += character == "["
        depth -= character == "]"
        if depth == 0 and text.startswith(separator, position):
            parts.append(text[start:position].strip())
            start = position + len(separator)
    parts.append(text[start:].strip())
    return parts


_SCALARS: dict[str, Callable[[Any], bool]] = {
    "Any": lambda value: True,
    "object": lambda value: True,
    "None": lambda value: value is None,
    "str": lambda value: isinstance(value, str),
    "bool": lambda value: isinstance(value, bool),
    "int": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "float": lambda value: isinstance(value, float),
    "date": lambda value: isinstance(value, date),
    "Path": lambda value: isinstance(value, Path),
}


def _conforms(value: Any, annotation: str) -> bool:
    """Does ``value`` match a (string) annotation of the simple kinds the records use?"""
    return _checker(annotation)(value)


@cache
def _checker(annotation: str) -> Callable[[Any], bool]:
    """The test for one annotation, built once: an index of 2,000 entries checks the
    same dozen annotations tens of thousands of times on every warm run (#13)."""
    options = _split_top(annotation, "|")
    if len(options) > 1:
        tests = tuple(_checker(option) for option in options)
        return lambda value: any(test(value) for test in tests)
    annotation = options[0]
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if annotation in RECORDS:
        record = RECORDS[annotation]
        return lambda value: isinstance(value, record)
    outer, _, inner = annotation.partition("[")
    arguments = _split_top(inner.removesuffix("]"), ",") if inner else []
    if outer == "list" and len(arguments) == 1:
        item = _checker(arguments[0])
        return lambda value: isinstance(value, list) and all(map(item, value))
    if outer == "tuple" and len(arguments) == 2 and arguments[1] == "...":
        item = _checker(arguments[0])
        return lambda value: isinstance(value, tuple) and all(map(item, value))
    if outer == "dict" and len(arguments) == 2:
        key_test, item_test = _checker(arguments[0]), _checker(arguments[1])
        return lambda value: (
            isinstance(value, dict)
            and all(key_test(key) and item_test(item) for key, item in value.items())
        )
    return lambda value: False


# -- history on the wire ---------------------------------------------------------


_WIRE_CELLS: dict[str, type] = {"datetime": str, "str": str, "bool": bool, "int": int}


@cache
def _commit_codec() -> tuple[frozenset[tuple[type, ...]], tuple[int, ...], attrgetter[Any]]:
    """How a :class:`Commit` is stored: a row of cells, one per field in order.

    Returns the shapes a row may have (each cell's exact type: a ``datetime`` is its
    ISO text, ``bool`` is not an ``int``; ``X | None`` allows ``None``), the positions
    of the datetime cells, and a getter of the fields.  Checking a row is then one
    ``tuple(map(type, row))`` lookup, in C: 20,000 commits are read on every warm run.
    """
    options: list[tuple[type, ...]] = []
    stamps: list[int] = []
    for position, item in enumerate(fields(Commit)):
        annotation = str(item.type)
        optional = annotation.endswith(" | None")
        base = annotation.removesuffix(" | None")
        if base not in _WIRE_CELLS:
            raise TypeError(f"Commit.{item.name}: a `{annotation}` is not cached")
        if base == "datetime":
            stamps.append(position)
        options.append((_WIRE_CELLS[base], type(None)) if optional else (_WIRE_CELLS[base],))
    getter = attrgetter(*(item.name for item in fields(Commit)))
    return frozenset(product(*options)), tuple(stamps), getter


def _commit_to_wire(commit: Commit) -> list[Any]:
    shapes, stamps, getter = _commit_codec()
    row: list[Any] = list(getter(commit))
    for position in stamps:
        if row[position] is not None:
            row[position] = row[position].isoformat()
    if tuple(map(type, row)) not in shapes:
        raise TypeError("a commit whose fields do not match their annotations")
    return row


def _commit_from_wire(row: Any) -> Commit:
    shapes, stamps, _ = _commit_codec()
    if type(row) is not list or tuple(map(type, row)) not in shapes:
        raise ValueError("a commit row of the wrong shape")
    if stamps:
        row = row.copy()  # the caller's decoded data stays as it was read
        for position in stamps:
            if row[position] is not None:
                row[position] = datetime.fromisoformat(row[position])
    return Commit(*row)


class _EntryRows:
    """Project commits as wire rows ``[commit position, sorted files]``, appending each
    commit's own row to ``commits`` the first time an entry names it."""

    def __init__(self, commits: list[Any]) -> None:
        self.commits = commits
        self.positions: dict[int, int] = {}
        self.names: dict[frozenset[str], list[str]] = {}  # few distinct sets, each sorted once

    def rows(self, entries: Iterable[ProjectCommit]) -> list[list[Any]]:
        found: list[list[Any]] = []
        for entry in entries:
            position = self.positions.get(id(entry.commit))
            if position is None:
                position = self.positions[id(entry.commit)] = len(self.commits)
                self.commits.append(_commit_to_wire(entry.commit))
            files = self.names.get(entry.files)
            if files is None:
                files = self.names[entry.files] = sorted(entry.files)
            found.append([position, files])
        return found


def _history_to_wire(head: str, history: History, scopes: tuple[Scope, ...]) -> dict[str, Any]:
    commits: list[list[Any]] = []
    encoder = _EntryRows(commits)
    projects = [
        [scopes.index(scope), project_id, encoder.rows(entries)]
        for (scope, project_id), entries in history.by_project.items()
    ]
    return {"head": head, "count": history.commits, "commits": commits, "projects": projects}


def _history_extended(
    wire: dict[str, Any],
    older: History,
    head: str,
    history: History,
    scopes: tuple[Scope, ...],
) -> dict[str, Any] | None:
    """The wire form of ``history`` built on ``wire`` (the stored form of ``older``), or None.

    A resumed pass is the new commits followed by the stored history
    (``History.followed_by``): each project's list ends with the very entries
    ``older`` holds.  Then only the new entries need encoding: their commits go at the
    end of the stored commit rows (entries refer to commits by position) and their rows
    before each project's stored rows, which are reused as they are.  Anything else
    (a project the stored pass had and this one lacks, entries that are not the stored
    ones) is None: the caller encodes the whole history.
    """
    commits: list[Any] = list(wire["commits"])
    stored_rows = {(item[0], item[1]): item[2] for item in wire["projects"]}
    encoder = _EntryRows(commits)
    projects: list[list[Any]] = []
    for (scope, project_id), entries in history.by_project.items():
        scope_at = scopes.index(scope)
        kept = older.by_project.get((scope, project_id), [])
        fresh = len(entries) - len(kept)
        rows = stored_rows.pop((scope_at, project_id), [])
        if fresh < 0 or len(rows) != len(kept) or not all(map(is_, entries[fresh:], kept)):
            return None
        if fresh:
            rows = encoder.rows(entries[:fresh]) + rows
        projects.append([scope_at, project_id, rows])
    if stored_rows:
        return None
    return {"head": head, "count": history.commits, "commits": commits, "projects": projects}


def _history_from_wire(data: Any, scopes: tuple[Scope, ...]) -> tuple[str, History]:
    if not isinstance(data, dict):
        raise ValueError("not a history")
    head, count, rows, projects = data["head"], data["count"], data["commits"], data["projects"]
    if type(head) is not str or type(count) is not int:
        raise ValueError("head or count of the wrong type")
    if type(rows) is not list or type(projects) is not list:
        raise ValueError("commits or projects of the wrong type")
    commits = [_commit_from_wire(row) for row in rows]
    history = History(count, {})
    # The same few file sets recur across thousands of entries: each distinct one is
    # checked and made a frozenset once, and shared.
    sets: dict[tuple[Any, ...], frozenset[str]] = {}
    for item in projects:
        if type(item) is not list or len(item) != 3:
            raise ValueError("a project of the wrong shape")
        position, project_id, entries = item
        if type(position) is not int or position < 0:
            raise ValueError("a scope of the wrong type")
        if type(project_id) is not str or type(entries) is not list:
            raise ValueError("a project of the wrong type")
        listed: list[ProjectCommit] = []
        for entry in entries:
            if type(entry) is not list or len(entry) != 2:
                raise ValueError("a project commit of the wrong shape")
            commit_at, files = entry
            if type(commit_at) is not int or commit_at < 0:
                raise ValueError("a commit index of the wrong type")
            if type(files) is not list:
                raise ValueError("file names of the wrong type")
            key = tuple(files)  # TypeError for an unhashable cell: a foreign cache
            names = sets.get(key)
            if names is None:
                if not all(type(name) is str for name in files):
                    raise ValueError("file names of the wrong type")
                names = sets[key] = frozenset(files)
            listed.append(ProjectCommit(commits[commit_at], names))
        history.by_project[(scopes[position], project_id)] = listed
    return head, history
