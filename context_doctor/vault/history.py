"""A memory vault's trail through git (docs/vaults.md): rewrites of the audit log, unaudited changes.

Read from one history pass (``git/vault_log.py``): every commit that touched the
vault, the audit log's version before and after each, and the memory files each
commit added or changed.  The audit log is append-only by contract, so each
committed version must extend the one before it byte for byte; a merge may take
the union of its parents' lines.  A commit that adds or changes a memory must add
an audit line for that memory's id, unless all it changed are fields Bastra's
daemon writes itself.  Bounded: the log's versions are streamed once each, and
past :data:`MAX_HISTORY_BYTES` the older versions are counted as unverifiable.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import NamedTuple

from context_doctor.git.history import is_shallow
from context_doctor.git.repository import Repository
from context_doctor.git.vault_log import VaultCommit, object_sizes, stream_blobs, vault_commits
from context_doctor.guards.limits import MAX_FILE_BYTES
from context_doctor.vault import MEMORY
from context_doctor.vault.memory import MemoryFacts, memory_facts_of_bytes

MAX_HISTORY_BYTES = 512 << 20  # audit-log versions read per run; older ones are unverifiable
_MAX_LINE = 8 << 20
_MEMORY_ID = re.compile(rb'"memory_id"\s*:\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Rewrite:
    sha: str
    date: str
    subject: str
    problem: str
    # The memory ids whose audit entries the commit removed or changed (in the order the
    # version before it logged them): the memories whose history now misses its start.
    lost: tuple[str, ...] = ()
    reordered: bool = False  # every line is still there, in another order


@dataclass(frozen=True)
class Unaudited:
    sha: str
    date: str
    subject: str
    path: str  # as findings carry it
    memory_id: str
    added: bool


@dataclass
class VaultHistory:
    reason: str | None = None  # why the history cannot be judged at all
    log_commits: int = 0  # commits that changed the audit log
    memory_changes: int = 0  # (commit, memory file) changes judged
    rewrites: list[Rewrite] = field(default_factory=list)
    unaudited: list[Unaudited] = field(default_factory=list)
    unverified_log: Counter[str] = field(default_factory=Counter)
    unverified_changes: Counter[str] = field(default_factory=Counter)


class HistoryRecord(NamedTuple):
    """A :class:`VaultHistory` as the cache keeps it (keyed by HEAD: commits never change)."""

    reason: str | None
    log_commits: int
    memory_changes: int
    rewrites: list[Rewrite]
    unaudited: list[Unaudited]
    unverified_log: dict[str, int]
    unverified_changes: dict[str, int]


def history_record(history: VaultHistory) -> HistoryRecord:
    return HistoryRecord(
        history.reason,
        history.log_commits,
        history.memory_changes,
        history.rewrites,
        history.unaudited,
        dict(history.unverified_log),
        dict(history.unverified_changes),
    )


def history_of_record(record: HistoryRecord) -> VaultHistory:
    return VaultHistory(
        record.reason,
        record.log_commits,
        record.memory_changes,
        list(record.rewrites),
        list(record.unaudited),
        Counter(record.unverified_log),
        Counter(record.unverified_changes),
    )


@dataclass
class _Blob:
    """What one streamed audit-log version yields: digests at the cut points asked for,
    memory ids of the lines after the first cut, and (for merges) its line digests."""

    cuts: set[int] = field(default_factory=set)
    ids_after: int | None = None
    want_lines: bool = False
    want_line_ids: bool = False  # each line's digest and the memory id it records
    line_ids: dict[bytes, str | None] = field(default_factory=dict)
    prefix: dict[int, bytes] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)
    lines: set[bytes] = field(default_factory=set)
    size: int = 0


def _in_vault_memory_path(relative: str) -> bool:
    parts = PurePosixPath(relative).parts
    return (
        bool(parts)
        and parts[-1].lower().endswith(".md")
        and not any((p.startswith(".") and len(p) > 1) or p == "node_modules" for p in parts)
    )


def _digest_stream(blob: _Blob, chunks: Iterator[bytes]) -> None:
    """One pass over a version of the log: its digest at each cut, and its lines when asked."""
    digest = hashlib.blake2b(digest_size=20)
    cuts = sorted(blob.cuts)
    collect = blob.want_lines or blob.ids_after is not None or blob.want_line_ids
    position = 0
    pending = bytearray()
    line_start = 0
    overlong = False
    for chunk in chunks:
        base = position
        start = 0
        while cuts and position + (len(chunk) - start) >= cuts[0]:
            take = cuts[0] - position
            digest.update(chunk[start : start + take])
            position += take
            start += take
            blob.prefix[cuts.pop(0)] = digest.digest()
        digest.update(chunk[start:])
        position += len(chunk) - start
        scan = 0
        while collect:
            end = chunk.find(b"\n", scan)
            if end < 0:
                if not overlong:
                    pending += chunk[scan:]
                    if len(pending) > _MAX_LINE:  # no audit entry: never held whole
                        overlong = True
                        pending.clear()
                break
            if not overlong:
                pending += chunk[scan:end]
                _finish_line(blob, bytes(pending), line_start)
            pending.clear()
            overlong = False
            line_start = base + end + 1
            scan = end + 1
    if collect and pending and not overlong:
        _finish_line(blob, bytes(pending), line_start)
    for cut in cuts:  # a cut past the end: this version is shorter than the one before
        blob.prefix[cut] = b""
    blob.size = position


def _finish_line(blob: _Blob, text: bytes, offset: int) -> None:
    if (blob.want_lines or blob.want_line_ids) and text.strip():
        line = hashlib.blake2b(text.strip(), digest_size=16).digest()
        if blob.want_lines:
            blob.lines.add(line)
        if blob.want_line_ids:
            blob.line_ids.setdefault(line, _memory_id(text))
    if blob.ids_after is not None and offset >= blob.ids_after:
        memory_id = _memory_id(text)
        if memory_id is not None:
            blob.ids.add(memory_id)


def _memory_id(text: bytes) -> str | None:
    found = _MEMORY_ID.search(text)
    if found:
        with contextlib.suppress(ValueError):  # an escape JSON rejects: not an id to match
            value = json.loads(b'"' + found.group(1) + b'"')
            return value if isinstance(value, str) else None
    return None


def read_vault_history(repository: Repository | None, prefix: str) -> VaultHistory:
    """The git trail of the vault at ``prefix`` (its repository-relative path, "" at the top);
    ``reason`` says why it cannot be judged (no git, shallow)."""
    history = VaultHistory()
    if repository is None:
        history.reason = "no git"
        return history
    if is_shallow(repository):
        history.reason = "shallow clone"
        return history
    log_path = f"{prefix}/.bastra/audit-log.ndjson" if prefix else ".bastra/audit-log.ndjson"
    commits = vault_commits(repository, prefix)
    if not any(change.path == log_path for c in commits for change in c.changes) and not any(
        c.is_merge for c in commits
    ):
        history.reason = "log not in git"
        return history
    merges = [c for c in commits if c.is_merge]
    names = sorted(
        {f"{p}:{log_path}" for c in merges for p in c.parents}
        | {f"{c.sha}:{log_path}" for c in merges}
    )
    # transitions: (commit, parent blobs, new blob), newest first
    transitions: list[tuple[VaultCommit, list[str | None], str | None]] = []
    for commit in commits:
        for change in commit.changes:
            if change.path == log_path:
                transitions.append((commit, [change.old], change.new))
    blobs_of_names = object_sizes(repository, names)
    for commit in merges:
        merged = blobs_of_names.get(f"{commit.sha}:{log_path}")
        sides = [blobs_of_names.get(f"{p}:{log_path}") for p in commit.parents]
        new_blob = merged[0] if merged else None
        old_blobs = [side[0] if side else None for side in sides]
        if any(old != new_blob for old in old_blobs):
            transitions.append((commit, old_blobs, new_blob))
    transitions.sort(key=lambda t: commits.index(t[0]))
    if not transitions:
        history.reason = "log not in git"
        return history
    history.log_commits = len(transitions)
    everything = {b for _, olds, new in transitions for b in [*olds, new] if b}
    sizes = {
        name: found[1]
        for name, found in object_sizes(repository, sorted(everything)).items()
        if found
    }
    wanted: dict[str, _Blob] = {}
    budget = MAX_HISTORY_BYTES
    judged: list[tuple[VaultCommit, list[str | None], str | None]] = []
    for transition in transitions:
        _commit, olds, new = transition
        cost = sum(sizes.get(b, 0) for b in {*olds, new} if b and b not in wanted)
        if cost > budget:
            history.unverified_log["history too large to read"] += 1
            continue
        budget -= cost
        judged.append(transition)
        for blob in (b for b in [*olds, new] if b):
            wanted.setdefault(blob, _Blob())
        if new is None:
            continue
        target = wanted[new]
        merge = len(olds) > 1
        for old in olds:
            if old is not None:
                target.cuts.add(sizes.get(old, 0))
                wanted[old].cuts.add(sizes.get(old, 0))
                if merge:
                    wanted[old].want_lines = True
        if merge:
            target.want_lines = True
        elif olds[0] is None:
            target.ids_after = 0
        else:
            first = sizes.get(olds[0] or "", 0)
            target.ids_after = first if target.ids_after is None else min(target.ids_after, first)

    def consume(name: str, size: int, chunks: Iterator[bytes]) -> None:
        blob = wanted.get(name)
        if blob is not None:
            _digest_stream(blob, chunks)

    stream_blobs(repository, sorted(wanted), consume)
    added: dict[str, set[str] | None] = {}
    rewritten: list[tuple[VaultCommit, list[str | None], str | None, str]] = []
    for commit, olds, new in judged:
        problem = _judge(olds, new, wanted, sizes)
        if problem is not None:
            rewritten.append((commit, olds, new, problem))
            added[commit.sha] = None
        elif len(olds) == 1 and new is not None:
            added[commit.sha] = wanted[new].ids
    history.rewrites.extend(_named_rewrites(repository, rewritten))
    log_shas = {c.sha for c, _o, _n in transitions}
    _memory_changes(repository, prefix, commits, log_shas, added, history)
    return history


def _named_rewrites(
    repository: Repository,
    rewritten: list[tuple[VaultCommit, list[str | None], str | None, str]],
) -> list[Rewrite]:
    """Each rewrite with the memories whose entries it removed or changed: a line of a
    version before it (of either parent, for a merge) that the version after it lacks.

    A second pass over the versions of the rewrites alone (a rewrite is a defect: rare),
    line by line as the first one reads them, never a version held whole."""
    if not rewritten:
        return []
    blobs: dict[str, _Blob] = {}
    for _commit, olds, new, _problem in rewritten:
        for old in olds:
            if old is not None:
                blobs.setdefault(old, _Blob()).want_line_ids = True
        if new is not None:
            blobs.setdefault(new, _Blob()).want_lines = True

    def consume(name: str, size: int, chunks: Iterator[bytes]) -> None:
        _digest_stream(blobs[name], chunks)

    stream_blobs(repository, sorted(blobs), consume)
    named: list[Rewrite] = []
    for commit, olds, new, problem in rewritten:
        kept = blobs[new].lines if new is not None else set()
        lost: dict[str, None] = {}
        removed = False
        for old in olds:
            for line, memory_id in (blobs[old].line_ids if old is not None else {}).items():
                if line not in kept:
                    removed = True
                    if memory_id is not None:
                        lost.setdefault(memory_id)
        named.append(
            Rewrite(
                commit.sha,
                commit.date,
                commit.subject,
                problem,
                tuple(lost),
                reordered=new is not None and not removed,
            )
        )
    return named


def _judge(
    olds: list[str | None], new: str | None, wanted: dict[str, _Blob], sizes: dict[str, int]
) -> str | None:
    """Why this version of the log does not extend the one(s) before it, or None."""
    if new is None:
        return "deleted the audit log"
    result = wanted[new]
    for old in olds:
        if old is None:
            continue
        before = wanted[old]
        size = sizes.get(old, 0)
        extends = result.prefix.get(size) == before.prefix.get(size) and result.size >= size
        if extends:
            continue
        if len(olds) > 1 and before.lines <= result.lines:
            continue  # a merge may take the union of its parents' lines
        if result.size < size:
            return f"shortened the audit log ({size:,} bytes before, {result.size:,} after)"
        return "changed lines already in the audit log (the version before is not a prefix)"
    return None


def _memory_changes(
    repository: Repository,
    prefix: str,
    commits: list[VaultCommit],
    log_shas: set[str],
    added: dict[str, set[str] | None],
    history: VaultHistory,
) -> None:
    """Each non-merge commit's added or changed memory files, and whether the log records them."""
    first_log = max((i for i, c in enumerate(commits) if c.sha in log_shas), default=-1)
    changes: list[tuple[VaultCommit, str, str, str | None]] = []
    for position, commit in enumerate(commits):
        if commit.is_merge:
            continue
        for change in commit.changes:
            relative = change.path[len(prefix) + 1 :] if prefix else change.path
            if change.status not in "AMT" or change.new is None:
                continue
            if prefix and not change.path.startswith(prefix + "/"):
                continue
            if not _in_vault_memory_path(relative):
                continue
            if position > first_log:
                history.unverified_changes["before the audit log was committed"] += 1
                continue
            changes.append((commit, change.path, change.new, change.old))
    blobs = sorted({blob for _c, _p, new, old in changes for blob in (new, old) if blob})
    names = {new: PurePosixPath(path).name for _c, path, new, _o in changes}
    names.update({old: PurePosixPath(path).name for _c, path, _n, old in changes if old})
    facts: dict[str, MemoryFacts | None] = {}

    def consume(name: str, size: int, chunks: Iterator[bytes]) -> None:
        if size > MAX_FILE_BYTES:
            facts[name] = None
            return
        facts[name] = memory_facts_of_bytes(b"".join(chunks), names.get(name, ""))

    stream_blobs(repository, blobs, consume)
    for commit, path, new, old in changes:
        after = facts.get(new)
        if after is None:
            history.unverified_changes["memory too large or unreadable"] += 1
            continue
        if after.status != MEMORY or after.memory_id is None:
            continue
        before = facts.get(old) if old else None
        if before is not None and before.status == MEMORY and before.authored == after.authored:
            continue  # only fields Bastra's daemon writes itself changed
        history.memory_changes += 1
        ids = added.get(commit.sha, set())
        if ids is None:
            history.unverified_changes["log rewritten in the same commit"] += 1
            continue
        if after.memory_id not in ids:
            history.unaudited.append(
                Unaudited(
                    commit.sha,
                    commit.date,
                    commit.subject,
                    path,
                    after.memory_id,
                    old is None,
                )
            )
