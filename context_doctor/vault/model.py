"""The memory-vault model (docs/vaults.md): the notes, the audit log, the trash and the floors.

Read once and asked many times, like a project: :func:`prepare_vault` reads
every note once and takes its facts from the cache (keyed by a digest of the
bytes) or parses them, in worker processes when there are many; everything
else is read lazily the first time a check asks.  The checks are pure
functions of this model.  Nothing here ever writes inside a vault: a direct
write would skip Bastra's own audit trail and locks.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import msgspec

from context_doctor.cache.store import Entries, Store, cache_key, decode_entry
from context_doctor.git.history import head_commit, is_shallow
from context_doctor.git.repository import Repository
from context_doctor.guards.limits import TooLarge, read_limited, resolves_within
from context_doctor.guards.walk import walk_files
from context_doctor.vault import AUDIT_LOG, BASTRA_DIR, EMPTY, MEMORY, PLAIN
from context_doctor.vault.audit_log import AuditEntry, AuditLog, LogRecord, read_audit_log
from context_doctor.vault.floors import Floors, read_floors
from context_doctor.vault.history import (
    HistoryRecord,
    VaultHistory,
    history_of_record,
    history_record,
    read_vault_history,
)
from context_doctor.vault.memory import (
    MemoryFacts,
    memory_facts_of_bytes,
    secret_values_of_bytes,
    unreadable_facts,
)

TRASH_DIR = f"{BASTRA_DIR}/trash"
MEMORIES_FILE = "memories.msgpack"
# `<id>.<stamp>.md`: a second delete of one id (Bastra's `TRASH_VERSION_STAMP`).
_TRASH_VERSION = re.compile(r"^(.+)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z(?:-\d+)?)\.md$")
POOL_MIN_NOTES = 200


@dataclass
class Note:
    """One Markdown file of the vault walk (or of the trash)."""

    path: Path
    rel_path: str  # the form findings carry (repository-relative, else vault-relative)
    name: str
    facts: MemoryFacts | None = None

    @property
    def is_memory(self) -> bool:
        return self.facts is not None and self.facts.status == MEMORY


@dataclass(frozen=True)
class TrashFile:
    note: Note
    memory_id: str
    version: str | None  # the timestamp suffix of a second (third, ...) delete


@dataclass
class Trash:
    files: list[TrashFile] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # entries of a shape Bastra never writes

    def ids(self) -> set[str]:
        return {item.memory_id for item in self.files}


def bastra_order(path: Path) -> bytes:
    """Bastra sorts paths as JavaScript sorts strings: by UTF-16 code unit."""
    return str(path).encode("utf-16-be", "surrogatepass")


def _bastra_sees(name: str) -> bool:
    """Bastra's walk passes over dot-entries and node_modules, files and folders alike."""
    return not (name.startswith(".") and len(name) > 1) and name != "node_modules"


def trash_name(name: str) -> tuple[str, str | None] | None:
    """(memory id, version stamp) of a trash file name; None for a name Bastra never writes."""
    if not name.endswith(".md") or name.startswith("."):
        return None
    versioned = _TRASH_VERSION.match(name)
    if versioned:
        return versioned.group(1), versioned.group(2)
    return name[:-3], None


class Vault:
    """A Bastra Recall vault: a directory holding ``.bastra/`` (docs/vaults.md)."""

    def __init__(
        self,
        name: str,
        root: Path,
        repository: Repository | None,
        floors_paths: tuple[Path, Path],
        store: Store | None = None,
    ) -> None:
        self.name = name
        self.root = root
        self.repository = repository
        self.floors_paths = floors_paths
        self.store = store
        self.base = repository.toplevel if repository is not None else root
        # Set by the corpus: which floors this vault answers for (see ``Corpus``).
        self.floor_ids: set[str] | None = None

    def __repr__(self) -> str:
        return f"Vault({self.name!r}, {self.root})"

    def rel(self, path: Path) -> str:
        if self.repository is not None:
            return self.repository.relative(path)
        return path.relative_to(self.root).as_posix()

    # -- the notes ------------------------------------------------------------

    @cached_property
    def _listing(self) -> tuple[list[Note], list[str]]:
        """Bastra's walk: dot-entries and node_modules skipped, symlinks never followed.
        The doctor's one walk (:mod:`context_doctor.guards.walk`, never recursion): a directory
        nested 1,000 levels deep is walked as far as the system lets a path reach, and what
        it cannot open is a blind spot, never a RecursionError."""
        walk = walk_files(
            self.root,
            wanted=lambda name: _bastra_sees(name) and name.lower().endswith(".md"),
            enter=_bastra_sees,
            order=lambda path: bastra_order(Path(path)),
        )
        notes = [Note(path, self.rel(path), path.name) for path in map(Path, walk.files)]
        return notes, [self.rel(Path(path)) for path in walk.blind]

    @property
    def notes(self) -> list[Note]:
        """Every Markdown file Bastra's walk sees, in Bastra's load order."""
        return self._listing[0]

    @property
    def blind_spots(self) -> list[str]:
        """Directories or files the walk could not read (their notes are unknown)."""
        return self._listing[1]

    @cached_property
    def memories(self) -> list[Note]:
        """The notes Bastra loads as memories, in its load order."""
        return [note for note in self.notes if note.is_memory]

    @cached_property
    def index(self) -> dict[str, Note]:
        """Memory id -> the file Bastra indexes for it (the first in its load order)."""
        winners: dict[str, Note] = {}
        for note in self.memories:
            assert note.facts is not None and note.facts.memory_id is not None
            winners.setdefault(note.facts.memory_id, note)
        return winners

    @cached_property
    def duplicates(self) -> dict[str, list[Note]]:
        """Memory id -> every file carrying it, when more than one does (load order)."""
        grouped: dict[str, list[Note]] = {}
        for note in self.memories:
            assert note.facts is not None and note.facts.memory_id is not None
            grouped.setdefault(note.facts.memory_id, []).append(note)
        return {key: notes for key, notes in grouped.items() if len(notes) > 1}

    @cached_property
    def plain_names(self) -> dict[str, str]:
        """A note's name (lowercase stem) -> what it is, for the notes that are no memory:
        Obsidian opens such a link, Bastra does not resolve it (it resolves by id only)."""
        found: dict[str, str] = {}
        for note in self.notes:
            if note.is_memory or note.facts is None:
                continue
            what = {EMPTY: "an empty file", PLAIN: "a plain note"}.get(
                note.facts.status, "a note Bastra does not load"
            )
            found.setdefault(note.name[:-3].lower(), f"{what} ({note.rel_path})")
        return found

    # -- the audit log and the trash -------------------------------------------

    @cached_property
    def audit_log(self) -> AuditLog | None:
        """The audit log, or None when the vault has none."""
        path = self.root / AUDIT_LOG
        if not path.exists() and not path.is_symlink():
            return None
        rel = self.rel(path)
        store = self.store
        name = "audit-log-" + hashlib.blake2b(rel.encode(), digest_size=8).hexdigest() + ".msgpack"
        key = cache_key(store.code, "audit-log " + rel) if store is not None else ""
        known = store.read(name, key, LogRecord) if store is not None else None
        log, record = read_audit_log(path, rel, known)
        if store is not None and record is not None:
            store.write(name, key, record)
        return log

    @cached_property
    def entries_by_memory(self) -> dict[str, list[AuditEntry]]:
        return self.audit_log.by_memory() if self.audit_log is not None else {}

    @cached_property
    def trash(self) -> Trash:
        trash = Trash()
        directory = self.root / TRASH_DIR
        if directory.is_symlink() or not directory.is_dir():
            if directory.is_symlink():
                trash.unknown.append(f"{self.rel(directory)} (a symlink, not followed)")
            return trash
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            trash.unknown.append(f"{self.rel(directory)} (cannot be listed)")
            return trash
        for entry in entries:
            parsed = trash_name(entry.name)
            if parsed is None or not entry.is_file(follow_symlinks=False):
                trash.unknown.append(self.rel(Path(entry.path)))
                continue
            path = Path(entry.path)
            note = Note(path, self.rel(path), entry.name)
            note.facts = _read_facts(path, entry.name)
            trash.files.append(TrashFile(note, parsed[0], parsed[1]))
        return trash

    @cached_property
    def trash_ids(self) -> set[str]:
        """The ids with a version in the trash (asked once per link, so kept)."""
        return self.trash.ids()

    @cached_property
    def deleted_ids(self) -> set[str]:
        """Ids whose last logged operation is a delete."""
        return {
            memory_id
            for memory_id, entries in self.entries_by_memory.items()
            if entries and entries[-1].operation == "delete"
        }

    # -- git ------------------------------------------------------------------

    @cached_property
    def history(self) -> VaultHistory:
        """The vault's trail through git (one history pass; ``reason`` when there is none)."""
        repository, store = self.repository, self.store
        if repository is None:
            return read_vault_history(None, "")
        prefix = self.rel(self.root)
        head = head_commit(repository) if store is not None else None
        if store is None or head is None:
            return read_vault_history(repository, prefix)
        # Commits never change: the trail read at this HEAD is the trail at this HEAD.
        shallow = "shallow" if is_shallow(repository) else "complete"
        name = "vault-history-" + hashlib.blake2b(prefix.encode(), digest_size=8).hexdigest()
        key = cache_key(store.code, "vault-history", prefix, head, shallow)
        known = store.read(name + ".msgpack", key, HistoryRecord)
        if known is not None:
            return history_of_record(known)
        history = read_vault_history(repository, prefix)
        store.write(name + ".msgpack", key, history_record(history))
        return history

    # -- floors ---------------------------------------------------------------

    @cached_property
    def secret_values(self) -> set[str]:
        """The secrets in the vault's notes, trash and audit log (in memory only), for redaction.

        Read again only for the notes whose facts (perhaps from the cache, which holds
        no secret's text) say they hold one.
        """
        found: set[str] = set()
        for note in [*self.notes, *(item.note for item in self.trash.files)]:
            if note.facts is not None and note.facts.secrets:
                try:
                    found.update(secret_values_of_bytes(read_limited(note.path)))
                except (TooLarge, OSError):
                    continue
        if self.audit_log is not None:
            found |= self.audit_log.secret_values
        return found

    @cached_property
    def floors(self) -> Floors | None:
        """This machine's floors (None: no floors file)."""
        return read_floors(*self.floors_paths)

    def my_floors(self) -> list[Any]:
        """The floors this vault answers for (every floor when it is the only vault)."""
        if self.floors is None:
            return []
        return [
            floor
            for floor in self.floors.floors
            if self.floor_ids is None or floor.memory_id in self.floor_ids
        ]


def _read_facts(path: Path, name: str) -> MemoryFacts:
    try:
        raw = read_limited(path)
    except TooLarge as error:
        return unreadable_facts(f"the file {error}")
    except OSError as error:
        return unreadable_facts(f"the file cannot be read ({error.strerror or error})")
    return memory_facts_of_bytes(raw, name)


# -- reading every note once: from the cache, or parsed (in parallel when it pays) ------


def _parse(job: tuple[bytes, str]) -> MemoryFacts:
    """Runs in a worker process: pure, so only the bytes and the name cross over."""
    return memory_facts_of_bytes(*job)


def _key(raw: bytes, name: str) -> bytes:
    digest = hashlib.blake2b(raw, digest_size=20)
    digest.update(b"\x00" + name.encode("utf-8", "surrogateescape"))
    return digest.digest()


def _memories_key(store: Store) -> str:
    return cache_key(store.code, "memories " + ",".join(MemoryFacts._fields))


def _results(todo: list[tuple[bytes, str]], jobs: int) -> Iterator[MemoryFacts]:
    size = sum(len(raw) for raw, _ in todo)
    if jobs <= 1 or len(todo) < POOL_MIN_NOTES or size < (1 << 20):
        yield from map(_parse, todo)
        return
    from concurrent.futures import ProcessPoolExecutor  # only for a vault this large
    from multiprocessing import get_context

    from context_doctor.model.secrets import load_detectors

    load_detectors()  # once, here: every forked worker starts with them
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        yield from pool.map(_parse, todo, chunksize=max(8, len(todo) // (jobs * 8)))


def prepare_vault(vault: Vault, *, jobs: int = 1) -> None:
    """Every note's facts, read once: from the cache when its bytes are unchanged."""
    store = vault.store
    stored: Entries = {}
    if store is not None:
        stored = store.read_entries(MEMORIES_FILE, _memories_key(store))
    kept: dict[bytes, msgspec.Raw | MemoryFacts] = {}
    waiting: list[tuple[Note, bytes]] = []
    todo: list[tuple[bytes, str]] = []
    for note in vault.notes:
        if note.facts is not None:
            continue
        if not resolves_within(note.path, vault.root):
            note.facts = unreadable_facts("the file resolves outside the vault")
            continue
        try:
            raw = read_limited(note.path)
        except TooLarge as error:
            note.facts = unreadable_facts(f"the file {error}")
            continue
        except OSError as error:
            note.facts = unreadable_facts(f"the file cannot be read ({error.strerror or error})")
            continue
        key = _key(raw, note.name)
        found = decode_entry(stored[key], MemoryFacts, "memory") if key in stored else None
        if found is not None:  # an entry that does not decode is parsed again
            note.facts = found
            kept[key] = stored[key]
            continue
        waiting.append((note, key))
        todo.append((raw, note.name))
    changed = False
    for (note, key), parsed in zip(waiting, _results(todo, jobs), strict=True):
        note.facts = parsed
        kept[key] = parsed
        changed = True
    if store is not None and (changed or len(kept) != len(stored)):
        store.write(MEMORIES_FILE, _memories_key(store), kept)


def assign_floors(vaults: list[Vault]) -> None:
    """Floors are per machine, vaults per directory: with several vaults, each answers for
    the floors on its own ids (live, trashed or logged), the first for the rest."""
    if len(vaults) < 2:
        return
    claimed: set[str] = set()
    for vault in vaults:
        known = set(vault.index) | vault.trash_ids | set(vault.entries_by_memory)
        vault.floor_ids = known - claimed
        claimed |= known
    first = vaults[0]
    floors = first.floors
    if floors is not None and first.floor_ids is not None:
        first.floor_ids |= {floor.memory_id for floor in floors.floors} - claimed
