"""The persistent cache (docs/caches.md): parsed document facts and the history pass, kept between runs.

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
  <stored>..HEAD`` (``git.history.resumable``); otherwise (an amend, a rebase, a
  reset, a new merge) it is read afresh.

Each file is a header line, a tag, then the MessagePack of ``{"key": ..., "data": ...}``
(:mod:`context_doctor.cache.codec`, through msgspec).  The tag is a keyed BLAKE2b of
the header, the body and the file's name under the user's secret
(:mod:`context_doctor.cache.secret`, outside every repository): a file that does not
verify (planted in a prepared ``.git``, edited, written by someone else) is ignored
and rebuilt, and without a usable secret nothing is cached.  The key names the doctor's
version, :data:`CACHE_FORMAT` and a digest of the source of the modules that
compute what is stored (so a changed parser never trusts an old cache), plus
the scopes for the history.  A file whose key differs is foreign and ignored.

Safety: the cache lives in a repository someone else may have prepared, so it
is MessagePack (data only, never pickle), read without following a symlink, only
from a regular file of bounded size, and every value is decoded against its type
on the way in (msgspec).  The documents, memos, vault memories and stored reports are
decoded entry by entry: an entry that does not decode is a miss for it alone (its file
is parsed again), the others are used.  Anything else wrong (missing, corrupt,
truncated, foreign, another format version, symlinked, unreadable, unwritable) means
the whole file is ignored and, where it can be, rewritten: never an error, at most a
``--debug`` line on stderr.
Writes go through :mod:`context_doctor.write` like every byte the doctor writes.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
import struct
import time
from collections.abc import Collection, Sequence
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from context_doctor.cache.codec import BAD_DATA, Envelope, decode, encode, encode_after
from context_doctor.cache.debug import DebugLog
from context_doctor.cache.secret import machine_secret, secret_directory
from context_doctor.errors import DoctorError
from context_doctor.git.repository import Repository, doctor_directory
from context_doctor.version import __version__
from context_doctor.write import (
    USER_NAMED,
    WriteRefused,
    ensure_directory,
    remove_file,
    write_file,
)

if TYPE_CHECKING:
    from context_doctor.cache.history_wire import HistoryWire
    from context_doctor.git.commits import History, Scope
    from context_doctor.model.document_facts import DocumentFacts

# 3: the bodies are msgspec's MessagePack, decoded against their types entry by entry
# (2: every file carries a tag).  The header is part of the tag, so an older file is
# never read as this format.
CACHE_FORMAT = 3
_MAGIC = b"context-doctor cache 3\n"
TAG_BYTES = 32
MAX_CACHE_BYTES = 256 << 20  # a larger file is not one of ours: ignored, then rewritten
MAX_KEPT_DOCUMENTS = 200_000  # entries kept across runs before only this run's are kept
DOCUMENTS_FILE = "documents.msgpack"
HISTORY_FILE = "history.msgpack"
MEMO_FILE = "memo.msgpack"
MAX_KEPT_MEMOS = 1_000

# Debug lines (`--debug`) go to this logger; commands/common.py shows them on stderr.
LOG = DebugLog("context_doctor.cache")

T = TypeVar("T")
# Entries kept by their bytes: each is decoded on its own when it is asked for.
Entries = dict[bytes, msgspec.Raw]


_PACKAGE = Path(__file__).resolve().parent.parent


RACY_SECONDS = 3  # coarser than any file system's timestamp tick (FAT's is 2 s)
CODE_MEMO_NAME = "code-digest-" + hashlib.blake2b(os.fsencode(_PACKAGE), digest_size=6).hexdigest()
"""Beside the secret: the last code digest, with the stat of the files it was taken over.
One per installed copy (named by its place), so two installs used in turn (a hook's and a
shell's) do not take each other's digest again on every run."""


def _code_files() -> list[Path]:
    return sorted(_PACKAGE.rglob("*.py")) + sorted(_PACKAGE.parent.glob("schemas/*.json"))


def _content_digest(sources: list[Path]) -> str:
    digest = hashlib.blake2b(digest_size=12)
    for source in sources:
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(os.urandom(8))  # unreadable source: never match an old cache
    return digest.hexdigest()


def _stat_listing(sources: list[Path]) -> bytes | None:
    """The files' paths and stats (size, mtime, ctime, inode); None while one of them was
    written within the last few seconds (its bytes could still change without its stat)."""
    listing = hashlib.blake2b(digest_size=16)
    recent = (time.time() - RACY_SECONDS) * 1e9
    for source in sources:
        try:
            status = os.stat(source)
        except OSError:
            return None
        if max(status.st_mtime_ns, status.st_ctime_ns) >= recent:
            return None
        listing.update(os.fsencode(source) + b"\0")
        listing.update(
            struct.pack(
                "<qqqQ", status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino
            )
        )
    return listing.digest()


@cache
def _code_digest(remembered: bool = False) -> str:
    """A digest of the doctor's own source and schemas: changed code never trusts an old cache.

    The version alone would do for releases; this also keeps a checkout under
    development (or a patched install) from reading what older code stored.

    ``remembered`` (a store that caches): the digest is read back from
    :data:`CODE_MEMO_NAME` beside the secret while every file keeps the stat it had when
    the digest was taken, its record tagged with the secret; reading the ~200 files again
    cost a cached run more than the rest of its start-up check did. The digest is the
    files' bytes either way, so a copy of the same code (a CI job's fresh install) still
    reads the caches it wrote.
    """
    sources = _code_files()
    secret = machine_secret() if remembered else None
    listing = _stat_listing(sources) if secret is not None else None
    if secret is None or listing is None:
        return _content_digest(sources)
    memo = secret_directory() / CODE_MEMO_NAME
    try:
        raw = read_regular_file(memo)
    except (OSError, ValueError):
        raw = b""
    tag, stored, digest = raw[:TAG_BYTES], raw[TAG_BYTES : TAG_BYTES + 16], raw[TAG_BYTES + 16 :]
    if stored == listing and hmac.compare_digest(
        tag, _tag(secret, CODE_MEMO_NAME, raw[TAG_BYTES:])
    ):
        try:
            return digest.decode("ascii")
        except UnicodeDecodeError:
            pass
    found = _content_digest(sources)
    if _stat_listing(sources) == listing:  # nothing was written while it was read
        body = listing + found.encode("ascii")
        try:
            write_file(
                memo, _tag(secret, CODE_MEMO_NAME, body) + body, mode=0o600, within=USER_NAMED
            )
        except (WriteRefused, DoctorError, OSError) as error:
            LOG.debug(f"{memo} not written: {error}")
    return found


def cache_key(*parts: str) -> str:
    return "/".join((f"context-doctor {__version__}", f"format {CACHE_FORMAT}", *parts))


_OPENED: list[Store] = []
"""The stores of this process's repositories, for :func:`forget_files_holding`."""


def forget_files_holding(secrets: Collection[str]) -> None:
    """Remove every cache file of this run's repositories that holds one of ``secrets``.

    The caches keep file names in clear (the history pass lists the files each commit
    changed), so a token pasted into a file name would sit in ``.git/context-doctor/`` for
    anyone the directory is shared with (a CI cache, a tarball). Called once a run's secrets
    are known, after its caches are written: a file holding one is deleted, never kept (the
    next run reads that part afresh). Costs nothing when the corpus holds no secret.
    """
    needles = [secret.encode("utf-8", "surrogateescape") for secret in secrets if secret]
    if not needles:
        return
    directories = {(store.directory, store.within) for store in _OPENED}
    for directory, within in sorted(directories, key=str):
        if directory is None:
            continue
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            path = directory / name
            try:
                raw = read_regular_file(path)
            except (OSError, ValueError):
                continue
            if not any(needle in raw for needle in needles):
                continue
            try:
                remove_file(path, within=within)
            except (WriteRefused, DoctorError, OSError) as error:
                LOG.debug(f"{path} holds a detected secret and could not be removed: {error}")


class Store:
    """The cache files of one repository; every failure is a miss or a skipped write."""

    def __init__(
        self,
        directory: Path | None,
        secret: bytes | None = None,
        *,
        within: Path | None = None,
    ) -> None:
        """``secret``: the key of the entries' tags; by default the user's (cache_secret.py).
        Without one nothing is read or written. ``within``: the directory every cache
        write stays in (docs/caches.md "Containment"; by default the cache directory's parent)."""
        if directory is not None and secret is None:
            secret = machine_secret()
        self.directory = directory if secret is not None else None
        self.secret = secret
        self.within = within or (directory.parent if directory is not None else None)
        self.code = _code_digest(remembered=self.directory is not None)
        self._memos: dict[str, Entries] | None = None
        self._memos_used: set[tuple[str, bytes]] = set()
        self._memos_changed = False
        self._recalled: dict[tuple[str, bytes], Any] = {}  # decoded once per run
        # The stored history as read (scopes, pass, wire form), while a resumed one is due.
        self._resumable: tuple[tuple[Scope, ...], History, HistoryWire] | None = None
        if self.directory is not None:
            _OPENED.append(self)

    @classmethod
    def for_repository(cls, repository: Repository) -> Store:
        try:
            home = doctor_directory(repository.toplevel)
        except DoctorError as error:  # no git directory, or a symlinked one: not cached
            LOG.debug(f"not cached: {error.problem}")
            return cls(None)
        return cls(home / "cache", within=home)

    def read(self, name: str, key: str, kind: type[T]) -> T | None:
        """The data of type ``kind`` stored under ``key`` in ``name``, or None (and why,
        under --debug).

        Nothing is believed that does not carry this user's tag (:func:`_tag`): a cache
        planted in a prepared ``.git`` is ignored and rebuilt, whatever it holds.  A file
        that is not a cache of this format and key, or whose data is not a ``kind``, is
        ignored as a whole.
        """
        if self.directory is None or self.secret is None:
            return None
        path = self.directory / name
        try:
            raw = read_regular_file(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            LOG.debug(f"{path} ignored: {error}")
            return None
        body = unseal(self.secret, name, raw)
        if body is None:
            LOG.debug(f"{path} ignored: its tag does not verify (not written by you)")
            return None
        try:
            stored = decode(body, Envelope)
        except BAD_DATA as error:
            LOG.debug(f"{path} ignored: not a cache file ({error})")
            return None
        if stored.key != key:
            LOG.debug(f"{path} ignored: written by another version or for other settings")
            return None
        try:
            return decode(stored.data, kind)
        except BAD_DATA as error:
            LOG.debug(f"{path} ignored: {error}")
            return None

    def read_entries(self, name: str, key: str) -> Entries:
        """The entries of ``name``, each still as its bytes (see :func:`decode_entry`)."""
        return self.read(name, key, Entries) or {}

    def write(self, name: str, key: str, data: Any) -> None:
        if self.directory is None or self.secret is None:
            return
        path = self.directory / name
        try:
            sealed = seal_in_place(self.secret, name, {"key": key, "data": data})
            ensure_directory(self.directory, within=self.within)
            write_file(path, sealed, within=self.within)
        except (WriteRefused, DoctorError, OSError, ValueError, TypeError) as error:
            LOG.debug(f"{path} not written: {error}")
        except Exception as error:  # the cache is optional: it never fails a run
            LOG.debug(f"{path} not written: {error.__class__.__name__}: {error}")

    # -- memos: small parsed values keyed by the bytes they came from ----------

    def _memo_table(self) -> dict[str, Entries]:
        if self._memos is None:
            self._memos = self.read(MEMO_FILE, cache_key(self.code, "memo"), dict[str, Entries])
            self._memos = self._memos or {}
        return self._memos

    @staticmethod
    def _memo_key(content: bytes, context: tuple[str, ...]) -> bytes:
        digest = hashlib.blake2b(content, digest_size=20)
        for part in context:
            digest.update(b"\x00" + part.encode("utf-8", "surrogateescape"))
        return digest.digest()

    def recall(self, kind: str, of_type: type[T], content: bytes, *context: str) -> T | None:
        """The ``of_type`` kept for ``content``, decoded once per run (callers only read it)."""
        key = self._memo_key(content, context)
        if (kind, key) in self._recalled:
            value: T = self._recalled[kind, key]
            return value
        packed = self._memo_table().get(kind, {}).get(key)
        if packed is None:
            return None
        try:
            value = decode(packed, of_type)
        except BAD_DATA as error:
            LOG.debug(f"a cached {kind} ignored: {error}")
            return None
        self._memos_used.add((kind, key))
        self._recalled[kind, key] = value
        return value

    def keep(self, kind: str, content: bytes, value: Any, *context: str) -> None:
        try:
            packed = msgspec.Raw(encode(value))
        except (ValueError, TypeError, OverflowError) as error:  # UnicodeError is a ValueError
            LOG.debug(f"{kind} not cached: {error}")
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

    # The history's wire form and model are imported by these methods alone: a replayed
    # run opens the store and reads no history.

    def _history_key(self, scopes: tuple[Scope, ...]) -> str:
        from context_doctor.cache.history_wire import HISTORY_WIRE
        from context_doctor.git import history as git_history
        from context_doctor.git.commits import Commit

        described = ",".join(f"{scope.path}:{int(scope.single)}" for scope in scopes)
        commit_fields = ",".join(f"{f.name}:{f.type}" for f in fields(Commit))
        log_fields = ",".join(name for name, _ in git_history.LOG_FIELDS)
        shape = f"history {HISTORY_WIRE} {commit_fields} {log_fields}"
        return cache_key(self.code, shape, described)

    def has_history(self) -> bool:
        return self.directory is not None and (self.directory / HISTORY_FILE).is_file()

    def load_history(
        self, scopes: tuple[Scope, ...], head: str | None = None
    ) -> tuple[str, History] | None:
        """The stored pass and its HEAD; ``head``: the caller's HEAD.

        When the stored HEAD is not ``head``, a resumed pass will be saved next: the
        stored wire form is kept until then so that only the new commits are converted
        (:func:`~context_doctor.cache.history_wire.history_extended`).  Otherwise it is let go
        at once.
        """
        from context_doctor.cache.history_wire import HistoryWire, history_from_wire

        self._resumable = None
        wire = self.read(HISTORY_FILE, self._history_key(scopes), HistoryWire)
        if wire is None:
            return None
        try:
            loaded = history_from_wire(wire, scopes)
        except BAD_DATA as error:
            LOG.debug(f"{HISTORY_FILE} ignored: {error}")
            return None
        if head is not None and loaded[0] != head:
            self._resumable = (scopes, loaded[1], wire)
        return loaded

    def save_history(self, scopes: tuple[Scope, ...], head: str, history: History) -> None:
        from context_doctor.cache import history_wire

        resumable, self._resumable = self._resumable, None
        try:
            wire = None
            if resumable is not None and resumable[0] == scopes:
                wire = history_wire.history_extended(
                    resumable[2], resumable[1], head, history, scopes
                )
            if wire is None:
                wire = history_wire.history_to_wire(head, history, scopes)
        except (ValueError, TypeError) as error:
            LOG.debug(f"history not cached: {error}")
            return
        self.write(HISTORY_FILE, self._history_key(scopes), wire)

    # -- document facts ------------------------------------------------------

    def _documents_key(self, fields: Sequence[str]) -> str:
        """The documents file's key names the facts' fields: a field added is a new format."""
        return cache_key(self.code, "documents " + ",".join(fields))

    def load_documents(self, fields: Sequence[str]) -> Entries:
        """Each document's stored facts by its key, still as bytes (:func:`decode_entry`);
        ``fields``: the facts' field names (``DocumentFacts._fields``)."""
        return self.read_entries(DOCUMENTS_FILE, self._documents_key(fields))

    def save_documents(
        self, entries: dict[bytes, msgspec.Raw | DocumentFacts], fields: Sequence[str]
    ) -> None:
        self.write(DOCUMENTS_FILE, self._documents_key(fields), entries)


def decode_entry(entry: msgspec.Raw, kind: type[T], what: str) -> T | None:
    """One stored entry as a ``kind``, or None (a miss for it alone; why, under --debug)."""
    try:
        return decode(entry, kind)
    except BAD_DATA as error:
        LOG.debug(f"a cached {what} ignored: {error}")
        return None


def _tag(secret: bytes, name: str, body: bytes | memoryview) -> bytes:
    """The keyed BLAKE2b tag of a cache file's body, bound to the file's name (the body of
    one cache file cannot be passed off as another's) and to the format's header (nor
    the body of an older format's file read as this one's)."""
    mac = hashlib.blake2b(key=secret, digest_size=TAG_BYTES, person=b"cd-cache")
    mac.update(_MAGIC)
    encoded = name.encode("utf-8")
    mac.update(len(encoded).to_bytes(8, "little") + encoded)
    mac.update(body)
    return mac.digest()


def seal(secret: bytes, name: str, body: bytes) -> bytes:
    """A cache file's bytes: a header naming the format, the body's tag, the body."""
    return b"".join((_MAGIC, _tag(secret, name, body), body))


def seal_in_place(secret: bytes, name: str, value: Any) -> bytearray:
    """``seal(secret, name, encode(value))``, the body encoded where it is written: one
    buffer rather than the body and then a copy of it behind its header."""
    head = len(_MAGIC) + TAG_BYTES
    sealed = encode_after(head, value)
    with memoryview(sealed) as whole, whole[head:] as body:
        tag = _tag(secret, name, body)
    sealed[:head] = _MAGIC + tag
    return sealed


def unseal(secret: bytes, name: str, raw: bytes) -> memoryview | None:
    """The body of a cache file :func:`seal` made with ``secret`` for ``name``, else None."""
    head = len(_MAGIC) + TAG_BYTES
    if len(raw) < head or not raw.startswith(_MAGIC):
        return None
    body = memoryview(raw)[head:]
    if not hmac.compare_digest(raw[len(_MAGIC) : head], _tag(secret, name, body)):
        return None
    return body


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
