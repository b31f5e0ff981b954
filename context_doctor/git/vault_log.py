"""A memory vault's git history (docs/vaults.md), read in one pass: the commits, and the blobs asked of them.

Two questions need history: did any commit rewrite the audit log instead of
appending to it, and did a commit change a memory without an audit line?  Both
are answered from one ``git log`` over the vault (raw changes, full history, so a
merge that dropped one side's lines is seen too), one ``git cat-file
--batch-check`` (blob sizes, and the log's version at each parent of a merge,
named ``<commit>:<path>``) and one ``git cat-file --batch`` that streams the
blobs the caller asks for: never a git process per commit.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from context_doctor.errors import DoctorError
from context_doctor.git.repository import Repository
from context_doctor.git.run import hardened_environment, neutralised_filters, run_git, spawn_git

NULL_BLOB = "0" * 40


@dataclass(frozen=True)
class Change:
    """One path a commit changed against its (first and only) parent."""

    path: str
    status: str  # A, M, D, T (git's raw status letter)
    old: str | None  # the parent's blob, None when added
    new: str | None  # this commit's blob, None when deleted


@dataclass
class VaultCommit:
    sha: str
    parents: tuple[str, ...]
    date: str  # author date, ISO 8601 with the author's offset
    subject: str
    changes: list[Change] = field(default_factory=list)

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


def _blob(text: str) -> str | None:
    return None if not text or set(text) == {"0"} else text


def vault_commits(repository: Repository, pathspec: str) -> list[VaultCommit]:
    """Every commit touching ``pathspec`` (repository-relative), newest first, with its raw
    changes; a merge is listed (when it differs from a parent there) without changes."""
    result = run_git(
        [
            "log", "-z", "--no-color", "--full-history", "--no-renames", "--raw",
            "--no-abbrev", "--no-ext-diff", "--no-textconv",
            "--format=%x00C%H%x00%P%x00%aI%x00%s%x00", "HEAD", "--", pathspec or ".",
        ],
        repository.toplevel,
        config=neutralised_filters(repository.toplevel),
    )  # fmt: skip
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        if any("does not have any commits" in line or "bad revision" in line for line in message):
            return []
        raise DoctorError(
            f"git log failed in {repository.toplevel}: {message[0] if message else 'unknown'}",
            "check that the repository is intact (`git fsck`)",
        )
    return _parse_log(result.stdout)


def _parse_log(output: bytes) -> list[VaultCommit]:
    commits: list[VaultCommit] = []
    tokens = output.split(b"\x00")
    index = 0
    current: VaultCommit | None = None
    while index < len(tokens):
        token = tokens[index]
        text = token.decode("utf-8", "surrogateescape").lstrip("\n")
        if text.startswith("C") and index + 3 < len(tokens) and len(text) in (41, 65):
            parents = tokens[index + 1].decode("ascii", "replace").split()
            current = VaultCommit(
                text[1:],
                tuple(parents),
                tokens[index + 2].decode("ascii", "replace"),
                tokens[index + 3].decode("utf-8", "surrogateescape"),
            )
            commits.append(current)
            index += 4
            continue
        if text.startswith(":") and current is not None and index + 1 < len(tokens):
            fields = text[1:].split()
            if len(fields) >= 5:
                path = tokens[index + 1].decode("utf-8", "surrogateescape")
                current.changes.append(
                    Change(path, fields[4][:1], _blob(fields[2]), _blob(fields[3]))
                )
            index += 2
            continue
        index += 1
    return commits


def _batch_input(names: Iterable[str]) -> tempfile._TemporaryFileWrapper[bytes]:
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (returned to the caller, who closes it)
    for name in names:
        handle.write(name.encode("utf-8", "surrogateescape") + b"\n")
    handle.seek(0)
    return handle  # type: ignore[return-value]


def object_sizes(repository: Repository, names: list[str]) -> dict[str, tuple[str, int] | None]:
    """For each object name (a blob id, or ``<commit>:<path>``): (blob id, size), or None
    when it names nothing (the path did not exist at that commit)."""
    if not names:
        return {}
    with _batch_input(names) as stdin:
        process = subprocess.run(
            ["git", "--no-pager", "cat-file", "--batch-check"],
            cwd=repository.toplevel,
            env=hardened_environment(),
            stdin=stdin,
            capture_output=True,
            check=False,
        )
    found: dict[str, tuple[str, int] | None] = {}
    lines = process.stdout.decode("utf-8", "surrogateescape").split("\n")
    for name, line in zip(names, lines, strict=False):
        parts = line.split()
        found[name] = (parts[0], int(parts[2])) if len(parts) == 3 and parts[1] == "blob" else None
    return found


Consume = Callable[[str, int, Iterator[bytes]], None]


def _chunks(output: IO[bytes], remaining: list[int]) -> Iterator[bytes]:
    """The rest of one object's contents, in bounded pieces (``remaining`` counts down)."""
    while remaining[0] > 0:
        piece = output.read(min(remaining[0], 1 << 20))
        if not piece:
            return
        remaining[0] -= len(piece)
        yield piece


def stream_blobs(repository: Repository, blobs: list[str], consume: Consume) -> None:
    """Stream each blob's bytes to ``consume(blob, size, chunks)`` in one ``cat-file --batch``;
    chunks ``consume`` leaves unread are skipped, never held whole."""
    if not blobs:
        return
    with _batch_input(blobs) as stdin:
        process = spawn_git(
            ["git", "--no-pager", "cat-file", "--batch"],
            repository.toplevel,
            hardened_environment(),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert process.stdout is not None
        output = process.stdout
        try:
            for _ in blobs:
                header = output.readline().decode("ascii", "replace").split()
                if len(header) != 3:
                    continue  # `<name> missing`: nothing follows
                name, size = header[0], int(header[2])
                remaining = [size]
                consume(name, size, _chunks(output, remaining))
                for _skipped in _chunks(output, remaining):
                    pass  # what the consumer left unread
                output.read(1)  # the newline after the contents
        finally:
            output.close()
            process.wait()
