"""The persistent cache (SPEC §8): parsed document facts and the history pass, kept between runs.

Where: ``<git-common-dir>/context-doctor/cache/``, one directory per repository
(shared by its worktrees), never inside the work tree.  Two files:

* ``documents.msgpack``: document facts keyed by a BLAKE2b digest of the file's
  bytes (plus whether links were collected).  Decision: the key is always a hash
  of the bytes, never git's blob id from ``git ls-files -s``.  git knows a file
  is unchanged only through its index stat cache, which a same-size edit with
  its mtime restored fools (racy git is only detected inside the index's own
  timestamp granularity); hashing the bytes costs a fraction of parsing them,
  and the doctor reads every tier file anyway.
* ``history.msgpack``: the history pass and the HEAD it was read at.  When HEAD
  has not moved it is used as is; when the stored HEAD is an ancestor of
  today's and only plain commits were added since, it is resumed with ``git log
  <stored>..HEAD`` (``gitfacts.resumable``); otherwise (an amend, a rebase, a
  reset, a new merge) it is read afresh.

Each file holds ``{"key": ..., "data": ...}``.  The key names the doctor's
version, :data:`CACHE_FORMAT` and a digest of the source of the modules that
compute what is stored (so a changed parser never trusts an old cache), plus
the scopes for the history.  A file whose key differs is foreign and ignored.

Safety: the cache lives in a repository someone else may have prepared, so it
is msgpack (data only, never pickle), read without following a symlink, only
from a regular file of bounded size, and every value is type-checked on the
way in.  Anything wrong (missing, corrupt, truncated, foreign, future version,
symlinked, unreadable, unwritable) means the cache is ignored and, where it
can be, rewritten: never an error, at most a ``--debug`` line on stderr.
Writes go through :mod:`context_doctor.write` like every byte the doctor writes.
"""

from __future__ import annotations

import gc
import hashlib
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import date, datetime
from functools import cache
from itertools import product
from multiprocessing import get_context
from operator import attrgetter, is_
from pathlib import Path
from typing import Any

import msgpack

from context_doctor import __version__, gitfacts
from context_doctor.errors import DoctorError
from context_doctor.gitfacts import (
    Commit,
    History,
    ProjectCommit,
    Repository,
    RepositoryFacts,
    Scope,
    run_git,
)
from context_doctor.model import documents
from context_doctor.model.documents import Document, DocumentFacts, facts_from_wire, facts_to_wire
from context_doctor.model.index import Index, IndexEntry
from context_doctor.model.suppressions import SuppressionComment
from context_doctor.write import WriteRefused, ensure_directory, write_file

CACHE_FORMAT = 1
MAX_CACHE_BYTES = 256 << 20  # a larger file is not one of ours: ignored, then rewritten
MAX_KEPT_DOCUMENTS = 200_000  # entries kept across runs before only this run's are kept
DOCUMENTS_FILE = "documents.msgpack"
HISTORY_FILE = "history.msgpack"
MEMO_FILE = "memo.msgpack"
MAX_KEPT_MEMOS = 1_000
# A pool pays for its start-up (about 50 ms a worker) only over enough work.
POOL_MIN_FILES = 200
POOL_MIN_BYTES = 1 << 20
Debug = Callable[[str], None]


_PACKAGE = Path(__file__).resolve().parent


@cache
def _code_digest() -> str:
    """A digest of the doctor's own source and schemas: changed code never trusts an old cache.

    The version alone would do for releases; this also keeps a checkout under
    development (or a patched install) from reading what older code stored.
    """
    digest = hashlib.blake2b(digest_size=12)
    sources = sorted(_PACKAGE.rglob("*.py")) + sorted(_PACKAGE.parent.glob("schemas/*.json"))
    for source in sources:
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(os.urandom(8))  # unreadable source: never match an old cache
    return digest.hexdigest()


def cache_key(*parts: str) -> str:
    return "/".join((f"context-doctor {__version__}", f"format {CACHE_FORMAT}", *parts))


def _quiet(_: str) -> None:
    pass


def stderr_debug(message: str) -> None:
    print(f"context-doctor: cache: {message}", file=sys.stderr)


class Store:
    """The cache files of one repository; every failure is a miss or a skipped write."""

    def __init__(self, directory: Path | None, debug: Debug = _quiet) -> None:
        self.directory = directory
        self.debug = debug
        self.code = _code_digest()
        self._memos: dict[str, dict[bytes, bytes]] | None = None
        self._memos_used: set[tuple[str, bytes]] = set()
        self._memos_changed = False
        self._recalled: dict[tuple[str, bytes], Any] = {}  # decoded once per run
        # The stored history as read (scopes, pass, wire form), while a resumed one is due.
        self._resumable: tuple[tuple[Scope, ...], History, Any] | None = None

    @classmethod
    def for_repository(cls, repository: Repository, debug: Debug | None = None) -> Store:
        debug = debug or _quiet
        result = run_git(["rev-parse", "--git-common-dir"], repository.toplevel)
        common = result.stdout.decode("utf-8", "surrogateescape").strip()
        if result.returncode != 0 or not common:
            debug(f"no git directory found for {repository.toplevel}: not cached")
            return cls(None, debug)
        return cls(repository.toplevel / common / "context-doctor" / "cache", debug)

    def read(self, name: str, key: str) -> Any | None:
        """The data stored under ``key`` in ``name``, or None (and why, under --debug)."""
        if self.directory is None:
            return None
        path = self.directory / name
        try:
            raw = read_regular_file(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self.debug(f"{path} ignored: {error}")
            return None
        try:
            stored = msgpack.unpackb(raw, raw=False, strict_map_key=False, use_list=True)
        except Exception as error:  # msgpack raises several unrelated types on bad bytes
            self.debug(f"{path} ignored: not a cache file ({error.__class__.__name__})")
            return None
        if not isinstance(stored, dict) or stored.get("key") != key:
            self.debug(f"{path} ignored: written by another version or for other settings")
            return None
        return stored.get("data")

    def write(self, name: str, key: str, data: Any) -> None:
        if self.directory is None:
            return
        path = self.directory / name
        try:
            packed = msgpack.packb({"key": key, "data": data}, use_bin_type=True)
            ensure_directory(self.directory)
            write_file(path, packed)
        except (WriteRefused, DoctorError, OSError, ValueError, TypeError) as error:
            self.debug(f"{path} not written: {error}")
        except Exception as error:  # the cache is optional: it never fails a run
            self.debug(f"{path} not written: {error.__class__.__name__}: {error}")

    # -- memos: small parsed values keyed by the bytes they came from ----------

    def _memo_table(self) -> dict[str, dict[bytes, bytes]]:
        if self._memos is None:
            data = self.read(MEMO_FILE, cache_key(self.code, "memo"))
            self._memos = {}
            if isinstance(data, dict):
                for kind, entries in data.items():
                    if isinstance(kind, str) and isinstance(entries, dict):
                        self._memos[kind] = {
                            key: value
                            for key, value in entries.items()
                            if isinstance(key, bytes) and isinstance(value, bytes)
                        }
        return self._memos

    @staticmethod
    def _memo_key(content: bytes, context: tuple[str, ...]) -> bytes:
        digest = hashlib.blake2b(content, digest_size=20)
        for part in context:
            digest.update(b"\x00" + part.encode("utf-8", "surrogateescape"))
        return digest.digest()

    def recall(self, kind: str, content: bytes, *context: str) -> Any | None:
        """The value kept for ``content``, decoded once per run (callers only read it)."""
        key = self._memo_key(content, context)
        if (kind, key) in self._recalled:
            return self._recalled[kind, key]
        packed = self._memo_table().get(kind, {}).get(key)
        if packed is None:
            return None
        try:
            value = decode_value(packed)
        except (ValueError, TypeError) as error:
            self.debug(f"a cached {kind} ignored: {error}")
            return None
        self._memos_used.add((kind, key))
        self._recalled[kind, key] = value
        return value

    def keep(self, kind: str, content: bytes, value: Any, *context: str) -> None:
        try:
            packed = encode_value(value)
        except (ValueError, TypeError, UnicodeError) as error:
            self.debug(f"{kind} not cached: {error}")
            return
        key = self._memo_key(content, context)
        self._memo_table().setdefault(kind, {})[key] = packed
        self._recalled.pop((kind, key), None)
        self._memos_used.add((kind, key))
        self._memos_changed = True

    def save_memos(self) -> None:
        if not self._memos_changed or self._memos is None:
            return
        total = sum(len(entries) for entries in self._memos.values())
        if total > MAX_KEPT_MEMOS:  # keep only what this run used
            self._memos = {
                kind: {k: v for k, v in entries.items() if (kind, k) in self._memos_used}
                for kind, entries in self._memos.items()
            }
        self.write(MEMO_FILE, cache_key(self.code, "memo"), self._memos)
        self._memos_changed = False

    # -- the history ---------------------------------------------------------

    def _history_key(self, scopes: tuple[Scope, ...]) -> str:
        described = ",".join(f"{scope.path}:{int(scope.single)}" for scope in scopes)
        commit_fields = ",".join(f"{f.name}:{f.type}" for f in fields(Commit))
        log_fields = ",".join(name for name, _ in gitfacts.LOG_FIELDS)
        return cache_key(self.code, f"history {commit_fields} {log_fields}", described)

    def has_history(self) -> bool:
        return self.directory is not None and (self.directory / HISTORY_FILE).is_file()

    def load_history(
        self, scopes: tuple[Scope, ...], head: str | None = None
    ) -> tuple[str, History] | None:
        """The stored pass and its HEAD; ``head``: the caller's HEAD.

        When the stored HEAD is not ``head``, a resumed pass will be saved next: the
        stored wire form is kept until then so that only the new commits are encoded
        (:func:`_history_extended`).  Otherwise it is let go at once.
        """
        self._resumable = None
        data = self.read(HISTORY_FILE, self._history_key(scopes))
        if data is None:
            return None
        try:
            loaded = _history_from_wire(data, scopes)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            self.debug(f"{HISTORY_FILE} ignored: {error}")
            return None
        if head is not None and loaded[0] != head:
            self._resumable = (scopes, loaded[1], data)
        return loaded

    def save_history(self, scopes: tuple[Scope, ...], head: str, history: History) -> None:
        resumable, self._resumable = self._resumable, None
        try:
            data = None
            if resumable is not None and resumable[0] == scopes:
                data = _history_extended(resumable[2], resumable[1], head, history, scopes)
            if data is None:
                data = _history_to_wire(head, history, scopes)
        except (ValueError, TypeError) as error:
            self.debug(f"history not cached: {error}")
            return
        self.write(HISTORY_FILE, self._history_key(scopes), data)

    # -- document facts ------------------------------------------------------

    def _documents_key(self) -> str:
        return cache_key(self.code, "documents " + ",".join(DocumentFacts._fields))

    def load_documents(self) -> dict[bytes, Any]:
        data = self.read(DOCUMENTS_FILE, self._documents_key())
        if not isinstance(data, dict):
            return {}
        return {key: value for key, value in data.items() if isinstance(key, bytes)}

    def save_documents(self, entries: dict[bytes, Any]) -> None:
        self.write(DOCUMENTS_FILE, self._documents_key(), entries)


def read_regular_file(path: Path) -> bytes:
    """A regular file's bytes, never through a symlink, never more than MAX_CACHE_BYTES."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        handle = os.open(path, flags)
    except OSError as error:
        if error.errno == getattr(os, "ELOOP", -1) or path.is_symlink():
            raise ValueError("it is a symlink") from error
        raise
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError("not a regular file")
        if status.st_size > MAX_CACHE_BYTES:
            raise ValueError(f"larger than {MAX_CACHE_BYTES} bytes")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(handle, 1 << 20):
            total += len(chunk)
            if total > MAX_CACHE_BYTES:
                raise ValueError(f"larger than {MAX_CACHE_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(handle)


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


# -- document facts: the cache, then parsing (in parallel when it pays) --------------


def _parse(job: tuple[bytes, bool]) -> DocumentFacts:
    """Runs in a worker process: pure, so nothing but the bytes crosses over."""
    raw, links = job
    return documents.facts_of_bytes(raw, links)


def _document_key(raw: bytes, links: bool) -> bytes:
    return hashlib.blake2b(raw, digest_size=20).digest() + (b"L" if links else b"-")


class _Collector:
    """How :func:`paused_collection` leaves the collector (process-wide, like ``gc`` itself)."""

    freeze_after = False  # set by the console script: the process ends after its command
    frozen = False  # a pause froze what it built (so a later pause lets it go first)


def freeze_after_pauses() -> None:
    """The console script's promise: the process ends soon after its audit.

    Then what a pause built is frozen (``gc.freeze``) rather than handed back to the
    collector: it stays alive until the report is out anyway, and the full passes the
    collector would make over it (one as soon as it is enabled again, one each time
    the objects move up a generation, one at interpreter exit) cost about 1.2 s of
    CPU after a warm run at 2,000 projects, for nothing (#13).
    """
    _Collector.freeze_after = True


@contextmanager
def paused_collection() -> Iterator[None]:
    """The cyclic garbage collector off while the facts and findings are built.

    A run allocates millions of small tuples (facts, tokens in the workers, YAML
    nodes) and almost no reference cycles, so each of CPython's generation-2
    passes walks everything for nothing: with the collector paused a warm run at
    2,000 projects takes about a quarter less CPU (benchmarks/README.md).  It runs
    again when the audit is done; under the console script
    (:func:`freeze_after_pauses`) the audit's objects are frozen first, so it never
    walks them.  A second pause in one process (``check --fix`` audits again)
    unfreezes and collects the first one's objects before it starts.
    """
    was_enabled = gc.isenabled()
    if _Collector.frozen:
        _Collector.frozen = False
        gc.unfreeze()
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if _Collector.freeze_after:
            gc.freeze()
            _Collector.frozen = True
        if was_enabled:
            gc.enable()


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _start_parsing(
    todo: list[tuple[bytes, bool]], jobs: int
) -> tuple[Iterator[DocumentFacts], ProcessPoolExecutor | None]:
    """The facts of ``todo`` in order: lazily in this process, or already under way in a pool.

    The pool is used only when it pays (enough files and bytes, more than one job).
    Its workers are forked here, at once (``map`` submits every chunk), so they start
    with markdown-it imported and configured, and before the caller starts any thread.
    """
    size = sum(len(raw) for raw, _ in todo)
    if jobs <= 1 or len(todo) < POOL_MIN_FILES or size < POOL_MIN_BYTES:
        return map(_parse, todo), None
    documents.load_parsers()  # once, here: every forked worker starts with them
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork"))
    chunk = max(8, len(todo) // (jobs * 8))
    return pool.map(_parse, todo, chunksize=chunk), pool


@dataclass
class Preparation:
    """What :func:`prepare` set up; :meth:`finish` writes the caches back."""

    stores: dict[Path, Store] = field(default_factory=dict)
    documents: dict[Path, dict[bytes, Any]] = field(default_factory=dict)
    dirty: set[Path] = field(default_factory=set)

    def finish(self) -> None:
        """Write back what changed: document facts, memos (the history writes itself)."""
        for toplevel, store in sorted(self.stores.items()):
            if toplevel in self.dirty:
                store.save_documents(self.documents[toplevel])
            store.save_memos()


def prepare(
    repositories: Iterable[RepositoryFacts],
    documents_by_repository: Iterable[tuple[RepositoryFacts, list[Document]]],
    *,
    jobs: int | None = None,
    debug: Debug = _quiet,
    look: Callable[[Document, bytes], None] | None = None,
) -> Preparation:
    """Fill in every document's facts before the checks ask, and start the history passes.

    Where a repository has a store (``discover(cache=True)``), facts come from it
    when the bytes are unchanged and the history from the stored pass (see the
    module docstring).  What is left is parsed, in ``jobs`` worker processes when
    there is enough of it; meanwhile each repository's ``git log`` runs on a thread.
    ``look`` is shown each document's bytes as they are read (nothing reads them twice).
    """
    preparation = Preparation()
    repositories = list(repositories)
    for facts in repositories:
        if isinstance(facts.store, Store):
            preparation.stores[facts.repository.toplevel] = facts.store
    todo: list[tuple[bytes, bool]] = []
    waiting: list[tuple[Document, bytes | None, Path]] = []
    used: dict[Path, dict[bytes, Any]] = {}
    for facts, listed in documents_by_repository:
        toplevel = facts.repository.toplevel
        store = preparation.stores.get(toplevel)
        stored = store.load_documents() if store is not None else {}
        kept = used.setdefault(toplevel, {})
        for document in listed:
            raw = document.read_bytes()
            if isinstance(raw, str):
                continue  # unreadable: the document reports it itself when asked
            if look is not None:
                look(document, raw)
            key = _document_key(raw, document.wants_links) if store is not None else None
            if key is not None and key in stored:
                try:
                    document.__dict__["facts"] = facts_from_wire(stored[key])
                    kept[key] = stored[key]
                    continue
                except (ValueError, TypeError) as error:
                    debug(f"a cached entry ignored: {error}")
            waiting.append((document, key, toplevel))
            todo.append((raw, document.wants_links))
        if store is not None:
            preparation.documents[toplevel] = stored
    results, pool = _start_parsing(todo, jobs or default_jobs())
    try:
        for facts in repositories:
            facts.start_history()  # after the pool has forked: no thread exists in a fork
        for (document, digest, toplevel), parsed in zip(waiting, results, strict=True):
            document.__dict__["facts"] = parsed
            if digest is not None:
                used[toplevel][digest] = facts_to_wire(parsed)
                preparation.dirty.add(toplevel)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    # Entries of other runs (other --project selections, older contents) are kept until
    # the file would pass MAX_KEPT_DOCUMENTS; then only this run's are.
    for toplevel in preparation.dirty:
        stored, kept = preparation.documents[toplevel], used[toplevel]
        too_many = len(stored) + len(kept) > MAX_KEPT_DOCUMENTS
        preparation.documents[toplevel] = kept if too_many else {**stored, **kept}
    # Nothing new for a repository: its file still serves, so what was read is let go
    # now rather than held (tens of MB at 2,000 projects) until the audit ends.
    for toplevel in set(preparation.documents) - preparation.dirty:
        del preparation.documents[toplevel]
    return preparation
