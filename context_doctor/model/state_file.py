"""Structured state: ``CURRENT_STATE.json``, its generated block and its content hashes.

Reading is strict and bounded, because the file is the authority a structured
project resumes from and it comes from the audited tree: a regular,
non-symlink file under 256 KiB (never opened otherwise, so a FIFO cannot
hang the run), UTF-8 JSON whose nesting is measured by a cheap token scan
*before* it is parsed (so deep nesting cannot reach the recursion limit), no
duplicate keys, no NaN/Infinity, a JSON object valid against
``schemas/current-state.schema.json``.  A file that cannot be read or is not
UTF-8 is ``unreadable`` (``record-unreadable`` reports it, as for every tier
file); every other problem is a :class:`StateProblem` that
``semantic-current-state`` reports.

Everything here that touches the file system (the state file, the
controlling plan, the hashed ``*.md`` files) runs once per project and is
cached on :class:`StructuredState`; rendering the block is pure.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import stat
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from context_doctor.guards.limits import TooLarge, kind_of, read_limited
from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.text import BOM
from context_doctor.guards.walk import walk_files
from context_doctor.guards.yamlio import validator
from context_doctor.model.documents import Document

STATE_FILE = "CURRENT_STATE.json"
SCHEMA = "current-state.schema.json"
SCHEMA_VERSION = 1
MAX_BYTES = 256 * 1024
MAX_DEPTH = 8
MAX_SCHEMA_PROBLEMS = 20
BLOCK_START = "<!-- synthesis-current-state:start -->"
BLOCK_END = "<!-- synthesis-current-state:end -->"
FIELD_ORDER = (
    "schema_version",
    "project_id",
    "phase",
    "status",
    "controlling_plan",
    "accepted_baseline",
    "next_actions",
    "last_session",
    "session_id",
    "content_hashes",
    "repository",
    "project_path",
    "git_head",
    "project_tree",
    "source_heads",
    "updated_at",
)
# Written by state init|compile; a file without it is still valid (older compilers).
OPTIONAL_FIELDS = frozenset({"project_tree"})

# A JSON string (escapes kept whole), a bracket, or anything else a byte at a time.
_TOKENS = LazyPattern(r'"(?:[^"\\\n]|\\.)*"(?P<colon>\s*:)?|[\[\]{}]')
_HASH_CHUNK = 1 << 16


@dataclass(frozen=True)
class StateProblem:
    """Why the state file is not a valid state object; ``field`` None means the whole file."""

    message: str
    field: str | None = None
    line: int | None = None


@dataclass
class StateReading:
    present: bool
    unreadable: str | None = None  # record-unreadable's reason: cannot be read / not UTF-8
    problems: list[StateProblem] = field(default_factory=list)
    data: dict[str, Any] | None = None  # set only when the object is valid
    key_lines: dict[str, int] = field(default_factory=dict)  # top-level key -> 1-based line
    raw: bytes | None = None  # the bytes read, when the file was read
    # Top-level keys the schema does not name: a warning, never an invalid file.
    unknown_keys: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.present and self.unreadable is None and not self.problems and bool(self.data)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _ForbiddenConstant(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(constant)
        self.constant = constant


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _reject_constant(constant: str) -> Any:
    raise _ForbiddenConstant(constant)


def _read_bounded(path: Path) -> tuple[bytes | None, StateProblem | None, str | None]:
    """The file's bytes, or the problem (semantic) or the unreadable reason."""
    try:
        status = os.lstat(path)
    except OSError as error:
        return None, None, f"cannot be read ({error.strerror or error.__class__.__name__})"
    if stat.S_ISLNK(status.st_mode):
        return None, StateProblem("is a symlink; the state file must be a regular file"), None
    if not stat.S_ISREG(status.st_mode):
        return None, StateProblem(f"is {kind_of(status.st_mode)}, not a regular file"), None
    if status.st_size > MAX_BYTES:
        return None, _too_big(status.st_size), None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        return None, None, f"cannot be read ({error.strerror or error.__class__.__name__})"
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # swapped since the lstat
            return None, StateProblem("is not a regular file"), None
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES:
            chunk = os.read(descriptor, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        return None, None, f"cannot be read ({error.strerror or error.__class__.__name__})"
    finally:
        os.close(descriptor)
    raw = b"".join(chunks)
    if len(raw) > MAX_BYTES:
        return None, _too_big(len(raw)), None
    return raw, None, None


def _too_big(size: int) -> StateProblem:
    return StateProblem(f"is {size} bytes, over the {MAX_BYTES // 1024} KiB limit")


def _scan(text: str) -> tuple[int, dict[str, int]]:
    """The deepest nesting (stopping once past MAX_DEPTH) and each top-level key's line."""
    newlines = [match.start() for match in re.finditer("\n", text)]
    depth = deepest = 0
    key_lines: dict[str, int] = {}
    for match in _TOKENS.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                break
        elif token in "]}":
            depth -= 1
        elif depth == 1 and match.group("colon") is not None:
            try:
                key = json.loads(token[: len(token) - len(match.group("colon"))])
            except ValueError:
                continue
            key_lines.setdefault(str(key), bisect_right(newlines, match.start()) + 1)
    return deepest, key_lines


def _json_kind(value: object) -> str:
    if value is None:
        return "JSON null"
    if isinstance(value, list):
        return "a JSON array"
    if isinstance(value, str):
        return "a JSON string"
    if isinstance(value, bool):
        return "a JSON boolean"
    return "a JSON number"


def read_state(path: Path) -> StateReading:
    """Read and validate a state file; never raises for anything the file holds."""
    if not os.path.lexists(path):
        return StateReading(present=False)
    raw, problem, unreadable = _read_bounded(path)
    if raw is None:
        return StateReading(True, unreadable, [problem] if problem else [])
    if b"\x00" in raw:
        return StateReading(True, "is binary (contains NUL bytes), not UTF-8 text")
    try:
        text = raw.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        return StateReading(True, f"is not valid UTF-8 (byte {error.start})")
    deepest, key_lines = _scan(text)
    if deepest > MAX_DEPTH:
        return StateReading(True, problems=[StateProblem(f"nests deeper than {MAX_DEPTH} levels")])
    try:
        loaded = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except _DuplicateKey as duplicate:
        return StateReading(
            True,
            problems=[StateProblem(f"holds the key `{duplicate.key}` twice", duplicate.key)],
            key_lines=key_lines,
        )
    except _ForbiddenConstant as constant:
        return StateReading(
            True,
            problems=[StateProblem(f"holds `{constant.constant}`, which JSON does not allow")],
        )
    except json.JSONDecodeError as error:
        return StateReading(
            True, problems=[StateProblem(f"is not valid JSON: {error.msg}", None, error.lineno)]
        )
    except (ValueError, RecursionError) as error:  # e.g. an integer too long to convert
        return StateReading(True, problems=[StateProblem(f"cannot be parsed: {error}"[:200])])
    if not isinstance(loaded, dict):
        return StateReading(
            True, problems=[StateProblem(f"is {_json_kind(loaded)}, not a JSON object")]
        )
    problems = schema_problems(loaded, key_lines)
    return StateReading(
        True,
        problems=problems,
        data=None if problems else loaded,
        key_lines=key_lines,
        raw=raw,
        unknown_keys=sorted(set(loaded) - set(FIELD_ORDER)),
    )


def schema_problems(data: dict[str, Any], key_lines: dict[str, int]) -> list[StateProblem]:
    """Violations of the schema, each naming the field (and its line when it is present)."""
    found: list[StateProblem] = []
    errors = sorted(
        validator(SCHEMA).iter_errors(data), key=lambda e: [str(part) for part in e.path]
    )
    for error in errors[:MAX_SCHEMA_PROBLEMS]:
        path = [str(part) for part in error.absolute_path]
        if error.validator == "required":
            missing = re.match(r"'([^']*)' is a required property", error.message)
            name = missing.group(1) if missing else "?"
            found.append(StateProblem(f"lacks the required field `{name}`", name))
            continue
        top = path[0] if path else None
        where = ".".join(part[:60] for part in path) or "(the object)"
        found.append(
            StateProblem(
                f"`{where}` is invalid: {_short(error.message)}",
                top,
                key_lines.get(top) if top else None,
            )
        )
    if len(errors) > MAX_SCHEMA_PROBLEMS:
        found.append(StateProblem(f"and {len(errors) - MAX_SCHEMA_PROBLEMS} more schema errors"))
    return found


def _short(message: str) -> str:
    return message if len(message) <= 160 else message[:157] + "..."


# -- paths inside the project ---------------------------------------------------------


def lexical_inside(relative: str) -> str | None:
    """``relative`` normalised lexically (POSIX), or None when it is absolute or escapes."""
    if not relative or relative.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", relative):
        return None
    normal = posixpath.normpath(relative.replace("\\", "/"))
    if normal == ".." or normal.startswith("../") or normal.startswith("/"):
        return None
    return normal


def symlink_on_the_way(directory: Path, normal: str) -> str | None:
    """The first component of ``normal`` (under ``directory``) that is a symlink, if any."""
    current = directory
    walked: list[str] = []
    for part in normal.split("/"):
        if part in ("", "."):
            continue
        current = current / part
        walked.append(part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return "/".join(walked)
        except OSError:
            return None  # missing: the caller reports that
    return None


@dataclass(frozen=True)
class PlanCheck:
    """The controlling plan resolved inside the project: its normal path or the problem."""

    normal: str | None
    problem: str | None


def resolve_plan(directory: Path, raw: str) -> PlanCheck:
    normal = lexical_inside(raw)
    if normal is None:
        where = "is an absolute path" if raw.startswith(("/", "\\")) else "escapes the project"
        if re.match(r"^[A-Za-z]:", raw):
            where = "is an absolute path"
        return PlanCheck(None, f"{where}; it must be a path inside the project")
    if normal == ".":
        return PlanCheck(None, "names the project directory itself, not a file")
    linked = symlink_on_the_way(directory, normal)
    if linked is not None:
        return PlanCheck(None, f"traverses a symlink (`{linked}`)")
    target = directory / normal
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return PlanCheck(None, "does not exist")
    except OSError as error:
        return PlanCheck(None, f"cannot be read ({error.strerror or error.__class__.__name__})")
    if not stat.S_ISREG(mode):
        return PlanCheck(None, f"is {kind_of(mode)}, not a regular file")
    try:
        with open(target, "rb") as handle:  # readable: one byte proves it
            handle.read(1)
    except OSError as error:
        return PlanCheck(None, f"cannot be read ({error.strerror or error.__class__.__name__})")
    return PlanCheck(normal, None)


# -- the generated block --------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """The generated block in CONTEXT.md: 1-based lines of its markers (end None: unclosed)."""

    start: int
    end: int | None
    extra_starts: tuple[int, ...] = ()


def find_block(lines: list[str]) -> Block | None:
    starts = [n for n, line in enumerate(lines, start=1) if line.strip() == BLOCK_START]
    if not starts:
        ends = [n for n, line in enumerate(lines, start=1) if line.strip() == BLOCK_END]
        return Block(0, ends[0]) if ends else None
    start = starts[0]
    end = next(
        (n for n, line in enumerate(lines, start=1) if n > start and line.strip() == BLOCK_END),
        None,
    )
    return Block(start, end, tuple(starts[1:]))


def render_block(data: dict[str, Any]) -> list[str]:
    """The block's lines (markers included), as ``state compile`` writes them."""
    plan = str(data["controlling_plan"])
    return [
        BLOCK_START,
        f"**Phase:** {data['phase']}",
        f"**Status:** {data['status']}",
        f"**Last session:** {data['last_session']}",
        f"**Accepted baseline:** {data['accepted_baseline']}",
        f"**Controlling plan:** [{plan}]({plan})",
        "**Next actions:**",
        *(f"- {action}" for action in data["next_actions"]),
        BLOCK_END,
    ]


def without_block(raw: bytes) -> bytes:
    """CONTEXT.md's bytes with the generated block's lines (markers included) removed."""
    lines = raw.splitlines(keepends=True)
    stripped = [line.decode("utf-8", "replace").strip() for line in lines]
    try:
        start = stripped.index(BLOCK_START)
        end = stripped.index(BLOCK_END, start + 1)
    except ValueError:
        return raw
    return b"".join(lines[:start] + lines[end + 1 :])


# -- content hashes -------------------------------------------------------------------


def _sha256_file(path: Path, transform: Callable[[bytes], bytes] | None = None) -> str | None:
    # Bounded like every read (a 1 GiB file planted in a project was hashed in full), never
    # blocked on a FIFO: a file past the bound has no hash, as an unreadable one.
    try:
        data = read_limited(path)
    except (OSError, TooLarge):
        return None
    return hashlib.sha256(transform(data) if transform is not None else data).hexdigest()


def markdown_files(directory: Path) -> list[str]:
    """Project-relative paths of every regular ``*.md`` under the project.

    Symlinks (files or directories) are not followed and directories whose
    name starts with ``.`` are not entered: the hashes cover what the project
    itself holds. The doctor's one walk (:mod:`context_doctor.guards.walk`, never recursion):
    1,100 nested folders are walked, and what cannot be listed (a path past the system's
    limit) is left out like an unreadable file.
    """
    walk = walk_files(directory, wanted=lambda name: name.endswith(".md"), enter=_not_dotted)
    return sorted(Path(path).relative_to(directory).as_posix() for path in walk.files)


def _not_dotted(name: str) -> bool:
    return not name.startswith(".")


def content_hashes(directory: Path, plan: str | None) -> dict[str, str | None]:
    """``{path: sha256}`` as ``state compile`` records it; None for a file that cannot be read."""
    paths = markdown_files(directory)
    if plan is not None and plan not in paths:
        paths.append(plan)
    return {
        relative: _sha256_file(
            directory / relative, without_block if relative == "CONTEXT.md" else None
        )
        for relative in sorted(paths)
    }


# -- the per-project view -------------------------------------------------------------


class StructuredState:
    """A project's state file and everything checked against it, read once."""

    def __init__(
        self,
        directory: Path,
        rel_path: str,
        context: Document,
        *,
        path: Path | None = None,
        absent: bool = False,
    ) -> None:
        """``path``: ``directory / STATE_FILE`` when the caller has it already; ``absent``:
        the caller knows nothing at all is there (its directory listing and an ``lexists``
        said so), which is what :func:`read_state` would find first."""
        self.directory = directory
        self.path = directory / STATE_FILE if path is None else path
        self.rel_path = rel_path
        self.context = context
        if absent:
            self.__dict__["reading"] = StateReading(present=False)

    @cached_property
    def reading(self) -> StateReading:
        return read_state(self.path)

    @property
    def present(self) -> bool:
        return self.reading.present

    @property
    def valid(self) -> bool:
        return self.reading.valid

    @property
    def data(self) -> dict[str, Any]:
        assert self.reading.data is not None, "only a valid state has data"
        return self.reading.data

    def line_of(self, key: str) -> int | None:
        return self.reading.key_lines.get(key)

    @cached_property
    def plan(self) -> PlanCheck:
        return resolve_plan(self.directory, str(self.data["controlling_plan"]))

    @cached_property
    def fresh_hashes(self) -> dict[str, str | None]:
        return content_hashes(self.directory, self.plan.normal)

    @cached_property
    def block(self) -> Block | None:
        return find_block(self.context.lines)
