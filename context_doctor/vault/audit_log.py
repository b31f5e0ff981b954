"""Bastra's audit log, ``.bastra/audit-log.ndjson``, read as a stream (docs/vaults.md).

One JSON object per line, appended by every audited mutation.  The file can be
large (every entry carries two frontmatter snapshots): it is read in chunks,
a line at a time, and only what the checks need is kept (the memory id,
operation, time and line number of each entry, and the redacted secrets of its
snapshots; the secrets themselves, from the snapshots and the entry's own text
fields, are held in memory only, for redacting every quote of them).  A line longer than :data:`MAX_LINE` is not parsed: its entry is
unverifiable, never guessed at.  The format is outside Bastra's compatibility
promise, so a value the doctor does not know (an operation or actor added
later) makes the entry unverifiable rather than wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from context_doctor.guards.redact import redact
from context_doctor.model.secrets import SecretHit, find_secrets

REQUIRED = ("id", "memory_id", "timestamp", "actor", "operation", "diff_before", "diff_after")
ACTORS = frozenset(("user", "assistant", "system", "import"))
OPERATIONS = frozenset(("create", "update", "delete", "restore"))
MAX_LINE = 8 << 20  # a frontmatter snapshot pair is kilobytes; 8 MiB is no entry Bastra wrote
CHUNK = 1 << 20
MAX_SCANNED = 200_000


class AuditEntry(NamedTuple):
    line: int
    memory_id: str
    timestamp: str
    operation: str


class LineProblem(NamedTuple):
    line: int
    problem: str
    unknown_shape: bool  # a shape the doctor does not know (unverifiable), not a broken line


@dataclass
class AuditLog:
    """What the checks need of the log; ``problem``: why it could not be read at all."""

    rel_path: str
    lines: int = 0
    entries: list[AuditEntry] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    secrets: list[SecretHit] = field(default_factory=list)
    problem: str | None = None
    # The secrets themselves (never cached, never printed): what outputs are redacted of.
    secret_values: set[str] = field(default_factory=set, repr=False)
    # Lines already scanned for secrets (a digest of the line: its (kind, value) pairs).
    scanned: dict[bytes, tuple[tuple[str, str], ...]] = field(default_factory=dict, repr=False)

    def by_memory(self) -> dict[str, list[AuditEntry]]:
        """Each memory's entries in Bastra's order: by timestamp, then by line."""
        grouped: dict[str, list[AuditEntry]] = {}
        for entry in sorted(self.entries, key=lambda e: (e.timestamp, e.line)):
            grouped.setdefault(entry.memory_id, []).append(entry)
        return grouped

    def unknown_ids(self) -> set[str]:
        """Memory ids with an entry of a shape the doctor does not know."""
        return {
            problem.problem.split("`", 2)[1]
            for problem in self.problems
            if problem.unknown_shape and problem.problem.startswith("memory `")
        }


def spans_of(handle: int) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, byte offset, bytes) for each line of an open file, read in chunks; a
    line over :data:`MAX_LINE` comes as ``None`` and is never held in memory whole."""
    number = 0
    pending = bytearray()
    overlong = False
    base = 0  # the file offset of the chunk's first byte
    line_start = 0
    while True:
        chunk = os.read(handle, CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not overlong:
                    pending += chunk[start:]
                    if len(pending) > MAX_LINE:
                        overlong = True
                        pending.clear()
                break
            number += 1
            if overlong:
                yield number, line_start, None
            else:
                pending += chunk[start:end]
                yield number, line_start, bytes(pending) if len(pending) <= MAX_LINE else None
            pending.clear()
            overlong = False
            start = end + 1
            line_start = base + start
        base += len(chunk)
    if pending or overlong:
        yield number + 1, line_start, None if overlong else bytes(pending)


def lines_of(handle: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, bytes) for each line of an open file (see :func:`spans_of`)."""
    for number, _offset, raw in spans_of(handle):
        yield number, raw


def snapshot_lines(snapshot: Any) -> list[str]:
    """A frontmatter snapshot as ``key: value`` lines, the shape the secret rules read."""
    if not isinstance(snapshot, dict):
        return []
    found: list[str] = []
    for key, value in snapshot.items():
        if isinstance(value, str):
            found.extend(f"{key}: {part}" for part in value.splitlines() or [""])
        elif isinstance(value, list):
            found.extend(f"{key}: {item}" for item in value if isinstance(item, str))
        elif isinstance(value, dict):
            found.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return found


def parse_line(number: int, raw: bytes | None, log: AuditLog) -> None:
    """Add one line's entry (or its problem) to ``log``."""
    if raw is None:
        log.problems.append(
            LineProblem(number, f"is over {MAX_LINE >> 20} MiB: not read", unknown_shape=True)
        )
        return
    if not raw.strip():
        return  # Bastra skips blank lines too
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        log.problems.append(LineProblem(number, "is not JSON", unknown_shape=False))
        return
    if not isinstance(value, dict):
        log.problems.append(LineProblem(number, "is not a JSON object", unknown_shape=False))
        return
    _quoted_fields(value, log)
    missing = [name for name in REQUIRED if name not in value]
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        log.problems.append(LineProblem(number, f"lacks {names}", unknown_shape=False))
        return
    memory_id, operation = value["memory_id"], value["operation"]
    if not isinstance(memory_id, str) or not memory_id or not isinstance(value["timestamp"], str):
        log.problems.append(
            LineProblem(number, "has a `memory_id` or `timestamp` that is not text", False)
        )
        return
    if operation not in OPERATIONS or value["actor"] not in ACTORS:
        odd = (
            f"operation `{operation}`"
            if operation not in OPERATIONS
            else f"actor `{value['actor']}`"
        )
        log.problems.append(
            LineProblem(number, f"memory `{memory_id}`: unknown {odd}", unknown_shape=True)
        )
        return
    log.entries.append(AuditEntry(number, memory_id, value["timestamp"], operation))
    for snapshot in (value["diff_before"], value["diff_after"]):
        for line in snapshot_lines(snapshot):
            for kind, secret in _scanned(log, line):
                log.secrets.append(SecretHit(number, kind, redact(secret)))
                log.secret_values.add(secret)


def _quoted_fields(value: dict[str, Any], log: AuditLog) -> None:
    """Keep the secrets in an entry's own text fields (a memory id, an operation), which
    findings and skip reasons quote: redacted wherever they appear, not reported here."""
    for key, field_value in value.items():
        if isinstance(field_value, str) and key not in ("diff_before", "diff_after"):
            log.secret_values.update(secret for _, secret in _scanned(log, f"{key}: {field_value}"))


def _scanned(log: AuditLog, line: str) -> tuple[tuple[str, str], ...]:
    """The (kind, secret) pairs in one line, each distinct line scanned once: an update's
    `diff_before` is the previous entry's `diff_after`, so most lines repeat."""
    key = hashlib.blake2b(line.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    found = log.scanned.get(key)
    if found is None:
        if len(log.scanned) >= MAX_SCANNED:
            log.scanned.clear()  # bounded memory on a log of mostly distinct values
        found = tuple((hit.kind, hit.value) for hit in find_secrets([line]))
        log.scanned[key] = found
    return found


class LogRecord(NamedTuple):
    """What a read of the log leaves for the next run (``vault/model.py`` keeps it in the
    repository's cache): the file's identity, and every fact the checks need except the
    secrets themselves, which are never cached; the lines that hold one are named by
    their byte span and re-read alone."""

    identity: tuple[int, ...]  # device, inode, size, mtime and ctime in nanoseconds
    lines: int
    entries: list[AuditEntry]
    problems: list[LineProblem]
    secrets: list[SecretHit]
    secret_spans: list[tuple[int, int, int]]  # (line number, offset, length)


# A log changed this recently may change again within the clock's granularity (racy, as
# git's index says): it is read, never kept.
RACY_NS = 2_000_000_000


def _identity(handle: int) -> tuple[int, ...]:
    found = os.fstat(handle)
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def read_audit_log(
    path: Path, rel_path: str, known: LogRecord | None = None
) -> tuple[AuditLog, LogRecord | None]:
    """The log at ``path``, streamed, and the record of it to keep (None: nothing to keep);
    a symlink or a non-regular file is not read.  When ``known`` describes the file as it
    is (same device, inode, size, mtime and ctime), only its lines holding a secret are
    read again: the log is not re-read and re-parsed on a warm run."""
    log = AuditLog(rel_path)
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    except OSError as error:
        log.problem = (
            "is a symlink (not followed)"
            if path.is_symlink()
            else f"cannot be read ({error.strerror or error})"
        )
        return log, None
    record: LogRecord | None = None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            log.problem = "is not a regular file"
            return log, None
        identity = _identity(handle)
        if known is not None and tuple(known.identity) == identity:
            if _recall(handle, known, log):
                return log, None
            log = AuditLog(rel_path)
            os.lseek(handle, 0, os.SEEK_SET)
        spans: list[tuple[int, int, int]] = []
        for number, offset, raw in spans_of(handle):
            log.lines = number
            held = len(log.secret_values)
            parse_line(number, raw, log)
            if len(log.secret_values) > held and raw is not None:
                spans.append((number, offset, len(raw)))
        settled = time.time_ns() - max(identity[3], identity[4]) > RACY_NS
        if settled and _identity(handle) == identity:
            record = LogRecord(identity, log.lines, log.entries, log.problems, log.secrets, spans)
    except OSError as error:
        log.problem = f"cannot be read ({error.strerror or error})"
        record = None
    finally:
        os.close(handle)
    return log, record


def _recall(handle: int, known: LogRecord, log: AuditLog) -> bool:
    """``log`` from the record, its secrets re-read from the lines that hold them; False
    when a line no longer reads as it did (then the log is read whole)."""
    log.lines = known.lines
    log.entries = list(known.entries)
    log.problems = list(known.problems)
    log.secrets = list(known.secrets)
    for number, offset, length in known.secret_spans:
        raw = os.pread(handle, length, offset)
        scratch = AuditLog(log.rel_path)
        if len(raw) != length:
            return False
        parse_line(number, raw, scratch)
        if not scratch.secret_values:
            return False
        log.secret_values |= scratch.secret_values
    return True
