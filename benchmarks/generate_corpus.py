"""Generate a large synthetic knowledge repository for benchmarking context-doctor.

The whole history is written straight into one pack (with its index), each commit
costing what it changed plus one SHA-1 over each tree it changed, so 8,000 projects
and 80,000 commits take minutes, not hours (``git fast-import`` re-serialised and
deltified the whole ``projects/`` tree at every commit: quadratic in the corpus)::

    python benchmarks/generate_corpus.py /tmp/kb --projects 2000 --commits 20000 --seed 1

What it builds (deterministic for a given seed and size):

* ``projects/<id>/`` for every project: ``CONTEXT.md`` with a ``**Phase:**`` /
  ``**Status:**`` / ``**Last session:**`` header, ``## Current State`` with an
  as-of marker and a ``## Next`` section of (sometimes stamped) items; monthly
  session logs ``sessions/YYYY-MM.md`` with dated ``##`` entries; a
  ``REFERENCE.md`` for most projects and ``reference/<topic>.md`` shards for a few.
* ``projects/index.yaml`` registering every project (mostly active, some
  paused, some completed with a ``completed_date``), rewritten by periodic
  "sync index" commits and once more at the end.
* Commits with author and committer dates spread over about 18 months, each
  author in their own UTC offset: mostly one project per commit (a session),
  some touching two or three projects, some bulk sweeps over many projects, a
  repository-wide sweep now and then (more than 10 files outside ``projects/``),
  commits that touch nothing under ``projects/`` at all, and a few merges.

The work tree is checked out at the end, clean.  Nothing here is read by the
test suite; it exists for ``benchmarks/run_benchmark.py``.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import heapq
import itertools
import os
import random
import shutil
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

START = datetime(2024, 6, 3, tzinfo=UTC)
END = datetime(2025, 11, 28, tzinfo=UTC)
DEFAULT_TODAY = "2025-12-01"  # the --today the benchmark audits with

AUTHORS = [
    ("Ada Lovelace", "ada@example.org", 0),
    ("Grace Hopper", "grace@example.org", -300),
    ("Alan Turing", "alan@example.org", 60),
    ("Katherine Johnson", "katherine@example.org", -240),
    ("Edsger Dijkstra", "edsger@example.org", 120),
    ("Barbara Liskov", "barbara@example.org", -480),
    ("Donald Knuth", "don@example.org", -420),
    ("Frances Allen", "fran@example.org", -300),
    ("Tony Hoare", "tony@example.org", 0),
    ("Radia Perlman", "radia@example.org", 330),
    ("Margaret Hamilton", "margaret@example.org", 540),
    ("John Backus", "john@example.org", 600),
    ("agent-bot", "agent-bot@example.org", 0),
]
# fmt: off
WORDS = [
    "ingest", "parser", "schema", "cache", "index", "review", "draft", "outline", "budget",
    "migration", "release", "benchmark", "dashboard", "survey", "interview", "spec", "api",
    "client", "server", "pipeline", "report", "audit", "model", "dataset", "eval", "prompt",
    "retrieval", "summary", "timeline", "backlog", "roadmap", "contract",
]
# fmt: on
TOPICS = ("architecture", "decisions", "glossary", "sources", "people", "metrics", "risks")
OUTSIDE_FILES = [f"docs/guide-{n:02d}.md" for n in range(40)] + [
    "README.md",
    "scripts/sync.py",
    "scripts/lint.sh",
    ".github/workflows/ci.yml",
]


@dataclass
class ProjectState:
    pid: str
    status: str = "active"
    bounded: bool = True
    sharded: bool = False
    has_reference: bool = False
    weight: float = 1.0
    created: bool = False
    retired: bool = False  # paused or completed by now
    reviewed_through: str | None = None  # post_close_reviewed_through in the index
    end_fraction: float = 2.0  # past this point of the timeline a dormant project is left alone
    round: int = 0
    last_logged: str | None = None  # newest session-log entry date
    header_date: str | None = None  # the CONTEXT.md **Last session:** date
    index_date: str | None = None  # last_session as the index last recorded it
    completed_date: str | None = None
    logs: dict[str, str] = field(default_factory=dict)  # sessions/YYYY-MM.md -> text
    reference_lines: int = 0
    topic_lines: dict[str, int] = field(default_factory=dict)
    items: list[tuple[str, str | None, bool]] = field(default_factory=list)
    sweeps: int = 0
    context_lines: int = 0  # extra body lines, so some CONTEXT.md files run long


DELTA_DEPTH = 50  # longest delta chain in the pack, as git's own pack.depth
BIG_TREE = 256  # a tree with this many entries is stored as a delta against its last version
OBJ_COMMIT, OBJ_TREE, OBJ_BLOB, OBJ_OFS_DELTA = 1, 2, 3, 6


class _Tree:
    """One directory of a branch's tree, kept sorted the way git sorts tree entries."""

    __slots__ = ("base", "children", "deleted", "dirty", "entries", "inserted", "keys", "sha",
                 "stale")  # fmt: skip

    def __init__(self) -> None:
        self.children: dict[bytes, _Tree] = {}
        self.keys: list[bytes] = []  # sorted sort keys (a directory's name ends in /)
        self.entries: list[bytes] = []  # the tree entry of each key
        self.stale = True  # sha needs computing again
        self.dirty: set[bytes] = set()  # keys whose entry differs from the stored base version
        self.inserted = False  # an entry was added since the base version
        self.deleted = False  # an entry was removed since the base version
        self.sha = b""
        # the last version written to the pack: (offset, delta depth, keys, entry offsets)
        self.base: tuple[int, int, list[bytes], list[int]] | None = None


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


class _Delta:
    """Git's delta encoding: copies from the base and literal inserts."""

    def __init__(self, base_size: int, size: int) -> None:
        self.parts = [_varint(base_size), _varint(size)]
        self.pending = bytearray()

    def insert(self, data: bytes) -> None:
        self.pending += data

    def _flush(self) -> None:
        data = self.pending
        for start in range(0, len(data), 127):
            chunk = data[start : start + 127]
            self.parts.append(bytes((len(chunk),)) + bytes(chunk))
        self.pending = bytearray()

    def copy(self, offset: int, size: int) -> None:
        self._flush()
        while size:
            step = min(size, 0xFFFFFF)
            flags, args = 0x80, bytearray()
            for shift in range(4):
                if (offset >> (8 * shift)) & 0xFF:
                    flags |= 1 << shift
                    args.append((offset >> (8 * shift)) & 0xFF)
            for shift in range(3):
                if (step >> (8 * shift)) & 0xFF:
                    flags |= 0x10 << shift
                    args.append((step >> (8 * shift)) & 0xFF)
            self.parts.append(bytes((flags,)) + bytes(args))
            offset += step
            size -= step

    def finish(self) -> bytes:
        self._flush()
        return b"".join(self.parts)


class PackWriter:
    """Writes the whole history as one pack and its index, with the objects git would write.

    ``git fast-import`` serialises, hashes and deltas every changed tree from scratch, so
    each commit costs time in proportion to the ``projects/`` tree (one entry per project):
    8,000 projects and 80,000 commits took two hours. Here a commit costs in proportion to
    what it changed, plus one SHA-1 over each changed tree: a large tree is stored as a delta
    against its last stored version, built from the entries that changed. The objects (and
    so every sha) are the ones fast-import wrote; only how the pack compresses them differs.
    """

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.pack_dir = repo / ".git" / "objects" / "pack"
        self.pack_path = self.pack_dir / "tmp-generate.pack"
        self.out = self.pack_path.open("wb")
        self.out.write(b"PACK" + (2).to_bytes(4, "big") + (0).to_bytes(4, "big"))
        self.position = 12
        self._crc = 0  # of the object _store wrote last, for the pack index
        self.index: dict[bytes, tuple[int, int]] = {}  # sha -> (offset, crc32)
        self.blob_bases: dict[bytes, tuple[bytes, int, int]] = {}  # path -> (text, offset, depth)
        self.root = _Tree()
        self.marks: dict[int, bytes] = {}  # mark -> commit sha
        self.mark = 0
        self.main: int | None = None  # the mark main's tip is at

    # -- objects -----------------------------------------------------------

    def _store(self, kind: int, size: int, payload: bytes, base: int | None = None) -> int:
        """Append one object (``payload`` uncompressed: the body, or a delta) and return its offset."""
        offset = self.position
        header = bytearray()
        byte = (kind << 4) | (size & 0x0F)
        size >>= 4
        while size:
            header.append(byte | 0x80)
            byte = size & 0x7F
            size >>= 7
        header.append(byte)
        if base is not None:
            distance = offset - base
            encoded = [distance & 0x7F]
            distance >>= 7
            while distance:
                distance -= 1
                encoded.append(0x80 | (distance & 0x7F))
                distance >>= 7
            header += bytes(reversed(encoded))
        raw = bytes(header) + zlib.compress(payload, 1)
        self.out.write(raw)
        self.position += len(raw)
        self._crc = zlib.crc32(raw)
        return offset

    def _object(self, kind: int, name: bytes, body: bytes) -> tuple[bytes, bool]:
        """The sha of a whole object, stored unless it already is; (sha, newly stored)."""
        digest = hashlib.sha1(b"%s %d\0" % (name, len(body)))
        digest.update(body)
        sha = digest.digest()
        if sha in self.index:
            return sha, False
        self.index[sha] = (self._store(kind, len(body), body), self._crc)
        return sha, True

    def _blob(self, path: bytes, text: bytes) -> bytes:
        digest = hashlib.sha1(b"blob %d\0" % len(text))
        digest.update(text)
        sha = digest.digest()
        if sha in self.index:
            return sha
        previous = self.blob_bases.get(path)
        if previous is not None and previous[2] < DELTA_DEPTH and text.startswith(previous[0]):
            delta = _Delta(len(previous[0]), len(text))
            delta.copy(0, len(previous[0]))
            delta.insert(text[len(previous[0]) :])
            payload = delta.finish()
            offset = self._store(OBJ_OFS_DELTA, len(payload), payload, previous[1])
            depth = previous[2] + 1
        else:
            offset = self._store(OBJ_BLOB, len(text), text)
            depth = 0
        self.index[sha] = (offset, self._crc)
        self.blob_bases[path] = (text, offset, depth)
        return sha

    # -- trees -------------------------------------------------------------

    def _set(self, path: str, sha: bytes | None) -> None:
        """Point ``path`` at a blob (None: remove it, and directories left empty)."""
        *folders, name = path.encode().split(b"/")
        chain = [self.root]
        for folder in folders:
            tree = chain[-1]
            child = tree.children.get(folder)
            if child is None:
                if sha is None:
                    return
                child = tree.children[folder] = _Tree()
                _put(tree, folder + b"/", b"")
            chain.append(child)
        leaf = chain[-1]
        if sha is None:
            _remove(leaf, name)
        else:
            _put(leaf, name, b"100644 " + name + b"\0" + sha)
        for tree, folder in zip(reversed(chain[:-1]), reversed(folders), strict=True):
            child = tree.children[folder]
            if sha is None and not child.keys:
                del tree.children[folder]
                _remove(tree, folder + b"/")
            else:
                tree.dirty.add(folder + b"/")
        for tree in chain:
            tree.stale = True

    def _tree(self, tree: _Tree) -> bytes:
        if not tree.stale:
            return tree.sha
        for key in [key for key in tree.dirty if key.endswith(b"/")]:
            name = key[:-1]
            _put(tree, key, b"40000 " + name + b"\0" + self._tree(tree.children[name]))
        entries = tree.entries
        body = b"".join(entries)
        digest = hashlib.sha1(b"tree %d\0" % len(body))
        digest.update(body)
        sha = digest.digest()
        tree.sha, tree.stale = sha, False
        if sha in self.index:
            return sha  # the base stays what the pack holds; dirty still counts from it
        base = tree.base
        if (
            base is not None
            and len(tree.keys) >= BIG_TREE
            and base[1] < DELTA_DEPTH
            and not tree.deleted
        ):
            offset, depth, base_keys, base_offsets = base
            delta = _Delta(base_offsets[-1], len(body))
            keys = tree.keys
            start = 0
            for position in [
                *sorted(bisect.bisect_left(keys, key) for key in tree.dirty),
                len(keys),
            ]:
                if position > start:  # an unchanged run: the same entries, in the same order
                    first = bisect.bisect_left(base_keys, keys[start])
                    last = first + position - start
                    delta.copy(base_offsets[first], base_offsets[last] - base_offsets[first])
                if position < len(keys):
                    delta.insert(entries[position])
                start = position + 1
            payload = delta.finish()
            stored = self._store(OBJ_OFS_DELTA, len(payload), payload, offset)
            depth += 1
        else:
            stored = self._store(OBJ_TREE, len(body), body)
            depth = 0
        self.index[sha] = (stored, self._crc)
        if len(tree.keys) >= BIG_TREE:
            if base is None or tree.inserted or tree.deleted:
                keys, offsets = list(tree.keys), [0, *itertools.accumulate(map(len, entries))]
            else:  # an entry keeps its length when its sha changes
                keys, offsets = base[2], base[3]
            tree.base = (stored, depth, keys, offsets)
        tree.dirty = set()
        tree.inserted = tree.deleted = False
        return sha

    # -- commits -----------------------------------------------------------

    def commit(
        self,
        ref: str,
        author: tuple[str, str, int],
        authored: int,
        committer: tuple[str, str, int],
        committed: int,
        message: str,
        files: dict[str, str],
        parent: int | None = None,
        merge: int | None = None,
    ) -> int:
        """One commit; its tree is main's plus ``files`` (a side branch starts from main's tip)."""
        if parent != self.main:
            raise SystemExit(f"commit on {ref} does not start from main's tip")
        before: dict[str, bytes | None] = {}
        for path in sorted(files):
            encoded = path.encode()
            if ref != "refs/heads/main":
                before[path] = self._lookup(encoded)
            self._set(path, self._blob(encoded, files[path].encode()))
        tree = self._tree(self.root)
        lines = [b"tree " + tree.hex().encode()]
        for mark in (parent, merge):
            if mark is not None:
                lines.append(b"parent " + self.marks[mark].hex().encode())
        lines.append(f"author {author[0]} <{author[1]}> {authored} {_offset(author[2])}".encode())
        lines.append(
            f"committer {committer[0]} <{committer[1]}> {committed} {_offset(committer[2])}".encode()
        )
        body = b"\n".join(lines) + b"\n\n" + message.encode()
        sha, _ = self._object(OBJ_COMMIT, b"commit", body)
        self.mark += 1
        self.marks[self.mark] = sha
        if ref == "refs/heads/main":
            self.main = self.mark
        else:  # main's tree is untouched by a side branch
            for path, previous in before.items():
                self._set(path, previous)
        return self.mark

    def _lookup(self, path: bytes) -> bytes | None:
        *folders, name = path.split(b"/")
        tree: _Tree | None = self.root
        for folder in folders:
            tree = tree.children.get(folder) if tree is not None else None
        record = _get(tree, name) if tree is not None else None
        return record[-20:] if record is not None else None

    def close(self) -> None:
        """Finish the pack, write its index and point main at the last main commit."""
        self.out.seek(8)
        self.out.write(len(self.index).to_bytes(4, "big"))
        self.out.close()
        digest = hashlib.sha1()
        with self.pack_path.open("rb") as pack:
            while chunk := pack.read(1 << 20):
                digest.update(chunk)
        checksum = digest.digest()
        with self.pack_path.open("ab") as pack:
            pack.write(checksum)
        name = self.pack_dir / f"pack-{checksum.hex()}"
        self.pack_path.rename(name.with_suffix(".pack"))
        shas = sorted(self.index)
        fanout = [0] * 256
        for sha in shas:
            fanout[sha[0]] += 1
        parts = [b"\xfftOc", (2).to_bytes(4, "big")]
        parts += [total.to_bytes(4, "big") for total in itertools.accumulate(fanout)]
        parts += shas
        parts += [self.index[sha][1].to_bytes(4, "big") for sha in shas]
        large: list[int] = []
        for sha in shas:
            offset = self.index[sha][0]
            if offset < 0x80000000:
                parts.append(offset.to_bytes(4, "big"))
            else:
                parts.append((0x80000000 | len(large)).to_bytes(4, "big"))
                large.append(offset)
        parts += [offset.to_bytes(8, "big") for offset in large]
        parts.append(checksum)
        index = b"".join(parts)
        name.with_suffix(".idx").write_bytes(index + hashlib.sha1(index).digest())
        assert self.main is not None
        subprocess.run(
            ["git", "update-ref", "refs/heads/main", self.marks[self.main].hex()],
            cwd=self.repo,
            check=True,
        )


def _get(tree: _Tree, key: bytes) -> bytes | None:
    position = bisect.bisect_left(tree.keys, key)
    if position < len(tree.keys) and tree.keys[position] == key:
        return tree.entries[position]
    return None


def _put(tree: _Tree, key: bytes, entry: bytes) -> None:
    position = bisect.bisect_left(tree.keys, key)
    if position < len(tree.keys) and tree.keys[position] == key:
        tree.entries[position] = entry
    else:
        tree.keys.insert(position, key)
        tree.entries.insert(position, entry)
        tree.inserted = True
    tree.dirty.add(key)


def _remove(tree: _Tree, key: bytes) -> None:
    position = bisect.bisect_left(tree.keys, key)
    if position < len(tree.keys) and tree.keys[position] == key:
        del tree.keys[position]
        del tree.entries[position]
        tree.dirty.discard(key)
        tree.deleted = True


def _offset(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}{minutes % 60:02d}"


def _local_date(timestamp: int, offset_minutes: int) -> str:
    moment = datetime.fromtimestamp(timestamp, timezone(timedelta(minutes=offset_minutes)))
    return moment.date().isoformat()


class Generator:
    def __init__(self, repo: Path, projects: int, commits: int, seed: int) -> None:
        self.repo = repo
        self.rng = random.Random(seed)
        self.n_projects = projects
        self.n_commits = commits
        self.projects = [self._new_project(i) for i in range(projects)]
        self.by_id = {project.pid: project for project in self.projects}
        cumulative = 0.0
        self.cum_weights: list[float] = []
        for project in self.projects:
            cumulative += project.weight
            self.cum_weights.append(cumulative)
        self.created = 0  # projects[:created] exist
        self.retiring: list[tuple[float, str, ProjectState]] = []
        self.position = 0
        self.fast: PackWriter | None = None
        self.tip: int | None = None
        self.counts = {"session": 0, "multi": 0, "bulk": 0, "outside-bulk": 0, "outside": 0,
                       "index": 0, "merge": 0, "create": 0, "import": 0, "close": 0, "review": 0}  # fmt: skip

    # -- projects ----------------------------------------------------------

    def _new_project(self, number: int) -> ProjectState:
        rng = self.rng
        word = rng.choice(WORDS)
        project = ProjectState(pid=f"p{number:05d}-{word}")
        roll = rng.random()
        if roll < 0.62:
            project.status = "active"
        elif roll < 0.80:
            project.status = "paused"
            project.end_fraction = rng.uniform(0.3, 0.95)
        else:
            project.status = "completed"
            project.end_fraction = rng.uniform(0.2, 0.95)
        project.bounded = rng.random() > 0.1
        project.has_reference = rng.random() < 0.75
        project.sharded = project.has_reference and rng.random() < 0.08
        project.weight = rng.paretovariate(1.3)  # a few busy projects, a long quiet tail
        project.context_lines = rng.choice((0, 0, 0, 10, 20, 40, 90, 140))
        return project

    def _pick(self) -> ProjectState:
        """A weighted choice among created projects, preferring ones still being worked on."""
        fraction = self.position / self.n_commits
        limit = self.cum_weights[self.created - 1]
        choice = self.projects[0]
        for _ in range(8):
            index = bisect.bisect_left(self.cum_weights, self.rng.random() * limit)
            choice = self.projects[min(index, self.created - 1)]
            if choice.end_fraction > fraction:
                break
        return choice

    def _context(self, project: ProjectState) -> str:
        date = project.header_date or "2024-06-03"
        status = project.status if project.retired else "active"
        lines = [
            f"# {project.pid}",
            "",
            f"**Phase:** round {max(project.round, 1)} — {WORDS[project.round % len(WORDS)]}",
            f"**Status:** {status}",
            f"**Last session:** {date} (round {max(project.round, 1)})",
            "",
            "## Current State",
            "",
            f"*State as of: {date} round {max(project.round, 1)}*",
            "",
            f"Working on the {WORDS[(project.round + 3) % len(WORDS)]} for {project.pid}.",
            "",
            "## Next",
            "",
        ]
        for text, stamp, checked in project.items:
            box = "[x]" if checked else "[ ]"
            suffix = f" (as of {stamp})" if stamp else ""
            lines.append(f"- {box} {text}{suffix}")
        lines += ["", "## Notes", ""]
        lines += [
            f"- note {n}: {WORDS[n % len(WORDS)]} detail" for n in range(project.context_lines)
        ]
        if project.sweeps:
            lines += ["", f"<!-- header format v{project.sweeps} -->"]
        return "\n".join(lines) + "\n"

    def _reference(self, project: ProjectState) -> str:
        lines = [f"# {project.pid} reference", ""]
        if project.sharded:
            lines += [f"- [{topic}](reference/{topic}.md)" for topic in sorted(project.topic_lines)]
        else:
            lines += [
                f"- fact {n}: {WORDS[n % len(WORDS)]}" for n in range(project.reference_lines)
            ]
        return "\n".join(lines) + "\n"

    def _topic(self, project: ProjectState, topic: str) -> str:
        lines = [f"# {topic}", ""]
        lines += [f"- {topic} fact {n}" for n in range(project.topic_lines[topic])]
        return "\n".join(lines) + "\n"

    def _session_files(self, project: ProjectState, date: str, logged: bool) -> dict[str, str]:
        """Files one working session on ``project`` writes on ``date``."""
        rng = self.rng
        project.round += 1
        files: dict[str, str] = {}
        if logged:
            log = f"sessions/{date[:7]}.md"
            text = project.logs.get(log) or f"# Sessions {date[:7]}\n"
            text += (
                f"\n## {date} — round {project.round}: {rng.choice(WORDS)} {rng.choice(WORDS)}\n\n"
                f"- worked on the {rng.choice(WORDS)}\n- decided to {rng.choice(WORDS)}\n"
            )
            project.logs[log] = text
            files[f"{project.pid}/{log}"] = text
            if project.last_logged is None or date > project.last_logged:
                project.last_logged = date
        if rng.random() < 0.93:  # otherwise the header lags the log
            project.header_date = date
            if rng.random() < 0.3:
                project.items.append((f"follow up on {rng.choice(WORDS)}", None, False))
            if rng.random() < 0.3:
                project.items.append((f"check the {rng.choice(WORDS)}", date, False))
            if project.items and rng.random() < 0.4:
                text, stamp, _ = project.items.pop(0)
                if rng.random() < 0.2:  # left in CONTEXT.md, checked
                    project.items.append((text, stamp, True))
            project.items = project.items[-8:]
            files[f"{project.pid}/CONTEXT.md"] = self._context(project)
        if project.has_reference and (project.reference_lines == 0 or rng.random() < 0.15):
            if project.sharded:
                topic = rng.choice(TOPICS)
                project.topic_lines[topic] = project.topic_lines.get(topic, 0) + rng.randint(3, 30)
                files[f"{project.pid}/reference/{topic}.md"] = self._topic(project, topic)
            project.reference_lines += rng.randint(5, 40)
            files[f"{project.pid}/REFERENCE.md"] = self._reference(project)
        return files

    def _create(self, project: ProjectState, date: str) -> dict[str, str]:
        project.created = True
        if project.status != "active":
            heapq.heappush(self.retiring, (project.end_fraction, project.pid, project))
        project.header_date = date
        project.items = [(f"set up {rng_word}", None, False) for rng_word in WORDS[:2]]
        files = {f"{project.pid}/CONTEXT.md": self._context(project)}
        if project.has_reference:
            project.reference_lines = self.rng.randint(3, 20)
            if project.sharded:
                for topic in self.rng.sample(TOPICS, 3):
                    project.topic_lines[topic] = self.rng.randint(5, 60)
                    files[f"{project.pid}/reference/{topic}.md"] = self._topic(project, topic)
            files[f"{project.pid}/REFERENCE.md"] = self._reference(project)
        return files

    def _index(self, final: bool) -> str:
        lines = ["# Project registry", "projects:"]
        for project in self.projects[: self.created]:
            lines.append(f"  - id: {project.pid}")
            lines.append(f"    status: {project.status if project.retired else 'active'}")
            if not project.bounded:
                lines.append("    bounded: false")
            # Most entries are brought up to date at each sync; some drift.
            if self.rng.random() < (0.9 if final else 0.7):
                project.index_date = project.last_logged or project.header_date
            if project.index_date:
                lines.append(f"    last_session: {project.index_date}")
            if project.status == "completed" and project.completed_date:
                lines.append(f"    completed_date: {project.completed_date}")
            if project.reviewed_through:
                lines.append(f"    post_close_reviewed_through: {project.reviewed_through}")
        return "\n".join(lines) + "\n"

    # -- commits -----------------------------------------------------------

    def _write(
        self,
        moment: int,
        author: tuple[str, str, int],
        message: str,
        files: dict[str, str],
        ref: str = "refs/heads/main",
        merge: int | None = None,
    ) -> int:
        """One commit whose parent is main's tip; returns its mark."""
        assert self.fast is not None
        committer = author if self.rng.random() < 0.9 else AUTHORS[-1]
        lag = self.rng.choice((0, 0, 0, 60, 600, 3600, 7200))
        if self.rng.random() < 0.02:
            lag += self.rng.randint(1, 5) * 86400  # rebased or cherry-picked days later
        return self.fast.commit(
            ref, author, moment, committer, moment + lag, message, files, self.tip, merge
        )

    def generate(self) -> dict[str, int]:
        rng = self.rng
        if self.repo.exists():
            shutil.rmtree(self.repo)
        self.repo.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(self.repo)], check=True)
        self.fast = PackWriter(self.repo)
        span = int((END - START).total_seconds())
        start = int(START.timestamp())
        moments = sorted(start + rng.randrange(span) for _ in range(self.n_commits))
        # A bulk import creates the first quarter of the projects; the rest appear one
        # commit at a time over the first 70% of the timeline.
        imported = self.n_projects // 4
        later = self.n_projects - imported
        slots = sorted(rng.sample(range(1, max(int(self.n_commits * 0.7), later + 1)), later))
        due = 0  # creations scheduled so far (a close-out defers one to the next commit)
        date = _local_date(moments[0], AUTHORS[0][2])
        files = {"README.md": "# Knowledge base\n", "scripts/sync.py": "print('sync')\n"}
        for project in self.projects[:imported]:
            files.update(_under_projects(self._create(project, date)))
        self.created = imported
        files["projects/index.yaml"] = self._index(final=False)
        self._commit("import", moments[0], AUTHORS[0], "Import existing projects", files)
        for position in range(1, self.n_commits):
            self.position = position
            while due < later and slots[due] <= position:
                due += 1
            author = rng.choice(AUTHORS)
            self._step(moments[position], author, imported + due)
        files = {}
        for project in self.projects[self.created :]:  # creations still deferred, if any
            files.update(_under_projects(self._create(project, date)))
        self.created = self.n_projects
        files["projects/index.yaml"] = self._index(final=True)
        self._commit("index", moments[-1] + 3600, AUTHORS[0], "Sync index", files)
        self.fast.close()
        subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=self.repo, check=True)
        self._review(moments[-1] + 7200)
        return self.counts

    def _commit(
        self,
        kind: str,
        moment: int,
        author: tuple[str, str, int],
        message: str,
        files: dict[str, str],
        merge: int | None = None,
    ) -> None:
        """A commit on main; ``kind`` is only counted for the summary line."""
        self.tip = self._write(moment, author, message, files, merge=merge)
        self.counts[kind] += 1

    def _step(self, moment: int, author: tuple[str, str, int], should_exist: int) -> None:
        """One commit (two for a merge) at ``moment``."""
        rng = self.rng
        date = _local_date(moment, author[2])
        closing = self._due(self.position / self.n_commits)
        roll = rng.random()
        if closing is not None:
            verb = "complete" if closing.status == "completed" else "pause"
            files = _under_projects(self._close(closing, date))
            self._commit("close", moment, author, f"{closing.pid}: {verb} project", files)
        elif self.created < should_exist:
            project = self.projects[self.created]
            self.created += 1
            files = _under_projects(self._create(project, date))
            self._commit("create", moment, author, f"{project.pid}: start project", files)
        elif self.position % 400 == 0:
            files = {"projects/index.yaml": self._index(final=False)}
            self._commit("index", moment, author, "Sync index", files)
        elif roll < 0.04:  # nothing under projects/: git log's pathspec skips these
            paths = rng.sample(OUTSIDE_FILES, rng.randint(1, 3))
            files = {path: f"# {path}\n\nrevision {self.position}\n" for path in paths}
            self._commit("outside", moment, author, "Update docs and scripts", files)
        elif roll < 0.055:  # a sweep over 4..400 projects
            chosen = rng.sample(
                self.projects[: self.created], min(rng.randint(4, 400), self.created)
            )
            files = {}
            for project in chosen:
                project.sweeps += 1
                files[f"projects/{project.pid}/CONTEXT.md"] = self._context(project)
            message = f"Sweep: normalise headers in {len(chosen)} projects"
            self._commit("bulk", moment, author, message, files)
        elif roll < 0.06:  # one project plus more than 10 files elsewhere: also a sweep
            paths = rng.sample(OUTSIDE_FILES, rng.randint(11, 30))
            files = {path: f"# {path}\n\nreformatted {self.position}\n" for path in paths}
            files.update(_under_projects(self._session_files(self._pick(), date, True)))
            self._commit("outside-bulk", moment, author, "Repository-wide reformat", files)
        elif roll < 0.065:  # a session on a side branch, merged
            project = self._pick()
            files = _under_projects(self._session_files(project, date, True))
            side = self._write(
                moment - 60, author, f"{project.pid}: session", files, ref="refs/heads/topic"
            )
            self._commit("merge", moment, author, "Merge branch 'topic'", {}, merge=side)
        elif roll < 0.09:  # two or three projects: still sessions, not a sweep
            chosen = {}
            for _ in range(rng.randint(2, 3)):
                picked = self._pick()
                chosen[picked.pid] = picked
            files = {}
            for project in chosen.values():
                files.update(_under_projects(self._session_files(project, date, True)))
            self._commit("multi", moment, author, "Sessions across projects", files)
        else:  # the common case: one session on one project
            project = self._pick()
            logged = rng.random() < 0.9 or project.last_logged is None
            files = _under_projects(self._session_files(project, date, logged))
            if not files:
                files = {f"projects/{project.pid}/CONTEXT.md": self._context(project)}
            self._commit(
                "session", moment, author, f"{project.pid}: session {project.round}", files
            )

    def _review(self, moment: int) -> None:
        """One ordinary commit recording post-close reviews of a tenth of the completed projects.

        The sha has to exist first, so this is the one commit fast-import does not write.
        """
        completed = [p for p in self.projects if p.status == "completed" and p.retired]
        if not completed:
            return
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=self.repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        for project in self.rng.sample(completed, max(1, len(completed) // 10)):
            project.reviewed_through = head[: self.rng.choice((7, 12, 40))]
        index = self.repo / "projects" / "index.yaml"
        text = index.read_text(encoding="utf-8")
        lines = []
        for line in text.splitlines():  # add the field without re-deciding any last_session
            lines.append(line)
            pid = line.removeprefix("  - id: ")
            if pid != line and self.by_id[pid].reviewed_through:
                lines.append(f"    post_close_reviewed_through: {self.by_id[pid].reviewed_through}")
        index.write_text("\n".join(lines) + "\n", encoding="utf-8")
        stamp = f"{moment} +0000"
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": AUTHORS[0][0], "GIT_AUTHOR_EMAIL": AUTHORS[0][1],
            "GIT_COMMITTER_NAME": AUTHORS[0][0], "GIT_COMMITTER_EMAIL": AUTHORS[0][1],
            "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp,
        }  # fmt: skip
        subprocess.run(
            ["git", "commit", "-q", "--no-verify", "-m", "Record post-close reviews",
             "projects/index.yaml"],
            cwd=self.repo, env=env, check=True,
        )  # fmt: skip
        self.counts["review"] += 1

    def _due(self, fraction: float) -> ProjectState | None:
        """A created project whose work is over and which has not been closed yet."""
        if self.retiring and self.retiring[0][0] <= fraction:
            return heapq.heappop(self.retiring)[2]
        return None

    def _close(self, project: ProjectState, date: str) -> dict[str, str]:
        """Pause or complete a project: the header and (at the next sync) the index say so."""
        project.retired = True
        if project.status == "completed":
            project.completed_date = project.last_logged or date
            project.context_lines = min(project.context_lines, 20)
            project.items = [item for item in project.items if self.rng.random() < 0.2]
        return {f"{project.pid}/CONTEXT.md": self._context(project)}


def _under_projects(files: dict[str, str]) -> dict[str, str]:
    return {f"projects/{path}": text for path, text in files.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="directory to create (replaced if it exists)")
    parser.add_argument("--projects", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.projects < 1 or args.commits < 2:
        parser.error("need at least one project and two commits")
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    started = time.perf_counter()
    counts = Generator(args.output.resolve(), args.projects, args.commits, args.seed).generate()
    elapsed = time.perf_counter() - started
    total = sum(counts.values()) + counts["merge"]  # a merge is two commits
    summary = ", ".join(f"{kind} {count}" for kind, count in counts.items())
    print(f"{args.output}: {args.projects} projects, {total} commits ({summary}) in {elapsed:.1f}s",
          file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
