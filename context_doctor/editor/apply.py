"""Many edits, one gate, one write (docs/editor.md ``edit apply``), and the verbs built on it.

A :class:`Batch` reads each file of one project once, applies edits to the
text in memory in order (refusing two that touch the same text), runs every
gate once on each file's final text (so moving ``Last session``, ``Phase`` and
the as-of marker together passes where three separate edits would each be
refused), checks the header against the session log of the same final state,
and writes every file or none (:func:`context_doctor.write.batch.commit_files`).
The single-file verbs (:func:`set_field`, :func:`replace_once`,
:func:`insert_before`, :func:`delete_line`) are batches of one.

Decisions where the spec is silent (also in CHANGELOG.md):

- A batch edits one project: the nearest directory at or above the first file
  that holds a ``CONTEXT.md`` (else the first file's directory). Every file
  must be inside it, or be the ``index.yaml`` beside it (the project's
  registry). The journal of an interrupted batch lives in that directory.
- Two edits overlap when the second changes text the first wrote or removed
  (insertions at the same point do not overlap; they land in order).
- ``header-ahead-of-log`` compares dates only, and only when the edit moves
  ``Last session`` to a later date; it reads ``sessions/*.md`` beside the
  ``CONTEXT.md`` (their final text when the batch changes them) and is skipped
  for a project without ``sessions/``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Unpack

from context_doctor.editor.edit import (
    DecodedText,
    EditRefused,
    EditResult,
    Splice,
    apply_splices,
    decode,
    decoded_text,
    plan_delete_line,
    plan_insert_before,
    plan_replace,
    plan_set_field,
    unified_diff,
)
from context_doctor.editor.edits_file import MAX_EDITS, OPS, Edit, parse_edit
from context_doctor.editor.gates import Claims, Gates, gates_claimed, judge, last_session
from context_doctor.errors import DoctorError
from context_doctor.guards.contain import repository_root
from context_doctor.model.documents import Document
from context_doctor.model.sessions import NOT_LOGS, entries_of
from context_doctor.write import atomic, batch
from context_doctor.write.directory import ensure_directory


@dataclass
class _File:
    path: Path
    snapshot: atomic.FileSnapshot | None  # None: the batch creates it
    decoded: DecodedText
    body: str
    within: Path
    dirty: list[tuple[int, int]] = field(default_factory=list)
    touched: bool = False  # an edit changed it (a file only read is neither judged nor written)

    @property
    def original(self) -> str:
        return self.decoded.body if self.snapshot is not None else ""


@dataclass(frozen=True)
class ApplyResult:
    files: list[EditResult]

    @property
    def written(self) -> bool:
        return any(result.written for result in self.files)

    def diff(self, label: Path | None = None) -> str:
        """The combined unified diff, each file labelled relative to ``label`` when given."""
        return "".join(result.diff(_label(result.path, label)) for result in self.files)


def _label(path: Path, base: Path | None) -> str:
    if base is None:
        return str(path)
    try:
        return os.path.relpath(path, base)
    except ValueError:
        return str(path)


def project_root(path: Path) -> Path:
    """The project a file belongs to: the nearest directory at or above it with a CONTEXT.md.

    Walks no higher than the repository's top (a directory holding ``.git``);
    a file in no project is its own directory's.
    """
    start = Path(os.path.abspath(path)).parent
    for directory in (start, *start.parents):
        if (directory / "CONTEXT.md").is_file():
            return directory
        if (directory / ".git").exists():
            break
    return start


@dataclass(frozen=True)
class Recovered:
    """What ``edit recover`` found in a project and what finishing it wrote."""

    journals: list[str]  # the journal names found (each finished or discarded)
    finished: list[Path]  # the files renamed into place from a committed journal


def recover_project(project: Path) -> Recovered:
    """Finish or discard the batch an interrupted ``edit apply`` left in ``project``.

    What every later batch in the project does first (:class:`Batch`), as a command of
    its own: a committed journal's staged files are renamed over their targets, an
    uncommitted one's are removed; a target changed by hand since is DoctorError.
    """
    root = Path(os.path.abspath(project))
    if not root.is_dir():
        raise DoctorError(
            f"{project} is not a directory",
            "name the project directory that holds the .context-doctor-apply-*.journal file",
        )
    try:
        journals = sorted(name for name in os.listdir(root) if batch.is_journal_name(name))
    except OSError as error:
        raise DoctorError(
            f"{project} cannot be listed ({error.strerror})", "check its permissions"
        ) from error
    # The tree a Batch in this project writes within (see Batch.__init__).
    finished = batch.recover(root, within=repository_root(root) or root.parent)
    return Recovered(journals, finished)


def _refuse_pending_journal(root: Path) -> None:
    try:
        pending = sorted(name for name in os.listdir(root) if batch.is_journal_name(name))
    except OSError:
        return  # an unlistable project: the edit itself reports what it cannot read
    if pending:
        raise EditRefused(
            "pending-batch",
            f"{root} holds an interrupted batch ({pending[0]}); a dry run writes nothing, "
            "so it cannot finish it first",
            remedy=f"finish or discard it with `context-doctor edit recover {shlex.quote(str(root))}`, "
            "then preview again",
        )


class Batch:
    """The files of one project, edited in memory; :meth:`commit` judges and writes them."""

    def __init__(self, root: Path, *, dry_run: bool = False) -> None:
        self.root = Path(os.path.abspath(root))
        # Where every write of the batch must stay (docs/caches.md "Containment"): the project's
        # repository, so a project directory symlinked out of it is refused, as by every
        # writer; outside git, the directory holding the project the user named (its
        # index.yaml may join the batch).
        self.tree = repository_root(self.root) or self.root.parent
        self.files: dict[Path, _File] = {}
        if dry_run:
            # A dry run writes nothing, so it cannot finish an interrupted batch first, and a
            # preview of files a pending journal is about to replace would show a stale state.
            _refuse_pending_journal(self.root)
        else:
            batch.recover(self.root, within=self.tree)

    def _key(self, path: Path) -> Path:
        return Path(os.path.abspath(path))

    def check_within(self, path: Path) -> None:
        """DoctorError unless ``path`` may be part of this batch (checked before any edit)."""
        self._within(path)

    def holds_index_beside(self) -> bool:
        """Whether the ``index.yaml`` beside the project may join the batch: only when it
        lies in the batch's tree (a project at the repository's top has none of its own)."""
        return self.root != self.tree and self.root.parent.is_relative_to(self.tree)

    def _within(self, path: Path) -> Path:
        """The tree ``path``'s write must stay in; DoctorError when it is not the batch's."""
        key = self._key(path)
        if key.is_relative_to(self.root) or (
            key == self.root.parent / "index.yaml" and self.holds_index_beside()
        ):
            return self.tree
        raise DoctorError(
            f"{path} is outside the project {self.root}",
            "one batch edits one project: its files and the index.yaml beside it",
        )

    def file(self, path: Path) -> _File:
        """The file as the batch holds it (read once, on first use)."""
        key = self._key(path)
        found = self.files.get(key)
        if found is None:
            within = self._within(path)
            snapshot = atomic.read_snapshot(path, within=within)
            decoded = decode(path, snapshot.data)
            found = _File(path, snapshot, decoded, decoded.body, within)
            self.files[key] = found
        return found

    def create(self, path: Path, body: str) -> _File:
        """A new file with ``body`` (refused at commit if one appears meanwhile)."""
        key = self._key(path)
        if key in self.files or os.path.lexists(key):
            raise atomic.WriteRefused("exists", f"{path} already exists")
        within = self._within(path)
        created = _File(path, None, decoded_text(body), body, within, [(0, len(body))], True)
        self.files[key] = created
        return created

    def change(self, path: Path, splices: list[Splice], what: str) -> None:
        """Apply ``splices`` to the file's current text; refuse one that touches earlier edits."""
        target = self.file(path)
        for splice in splices:
            for start, end in target.dirty:
                if _overlap(start, end, splice.start, splice.end):
                    raise EditRefused(
                        "edits-overlap",
                        f"{what} changes text of {path.name} that an earlier edit of the batch "
                        "already changed"
                        if what
                        else f"it changes text of {path.name} that an earlier edit of the batch "
                        "already changed",
                        remedy="make them one edit",
                    )
        target.body = apply_splices(target.body, splices)
        target.dirty = _moved(target.dirty, splices)
        target.touched = True

    def edit(self, edit: Edit, what: str = "the edit") -> None:
        target = self.file(edit.file)
        body = target.body
        if edit.op == "set-field":
            assert edit.field is not None and edit.value is not None
            splices = plan_set_field(
                edit.file,
                body,
                edit.field,
                edit.value,
                whole_value=edit.whole_value,
                section=edit.section,
            )
        elif edit.op == "replace":
            assert edit.anchor is not None and edit.replacement is not None
            splices = plan_replace(
                edit.file, target.decoded, body, edit.anchor, edit.replacement, edit.count
            )
        elif edit.op == "insert-before":
            assert edit.anchor is not None and edit.text is not None
            splices = plan_insert_before(
                edit.file, target.decoded, body, edit.anchor, edit.text, edit.count
            )
        elif edit.op == "delete-line":
            assert edit.anchor is not None
            splices = plan_delete_line(edit.file, target.decoded, body, edit.anchor, edit.count)
        else:
            raise DoctorError(f"unknown edit `{edit.op}`", f"use one of {', '.join(OPS)}")
        self.change(edit.file, splices, what)

    @property
    def touched(self) -> dict[Path, _File]:
        return {key: held for key, held in self.files.items() if held.touched}

    def judge(self, gates: Gates) -> dict[Path, str]:
        """Every gate, once, on each file's final text; the body state of each file."""
        states: dict[Path, str] = {}
        touched = self.touched
        for key, held in touched.items():
            try:
                states[key] = judge(held.path, held.original, held.body, gates)
            except EditRefused as refused:
                if len(touched) > 1:
                    refused.message = f"{held.path}: {refused.message}"
                    refused.args = (f"[{refused.rule}] {refused.message}",)
                raise
        if not gates.allow_header_ahead:
            for held in touched.values():
                if held.path.name == "CONTEXT.md":
                    self._judge_header_ahead(held)
        return states

    def _judge_header_ahead(self, context: _File) -> None:
        after = last_session(Document.from_text(context.body, context.path, context.path.name))
        if after is None or after[0] is None:
            return
        before = last_session(Document.from_text(context.original, context.path, context.path.name))
        if before is not None and before[0] is not None and after[0] <= before[0]:
            return
        logs = context.path.parent / "sessions"
        if not logs.is_dir():
            return
        newest = None
        logs_key = self._key(logs)
        in_batch = [held.path for key, held in self.files.items() if key.parent == logs_key]
        for path in sorted({self._key(p): p for p in [*logs.glob("*.md"), *in_batch]}.values()):
            if path.name.casefold() in NOT_LOGS or not path.name.endswith(".md"):
                continue
            held = self.files.get(self._key(path))
            text = held.body if held is not None else _read_log(path)
            document = Document.from_text(text, path, f"sessions/{path.name}")
            for entry in entries_of(document, 0):
                if entry.date is not None and (newest is None or entry.date > newest):
                    newest = entry.date
        if newest is not None and after[0] <= newest:
            return
        said = f"the newest entry in sessions/ is {newest}" if newest else "sessions/ has no entry"
        raise EditRefused(
            "header-ahead-of-log",
            f"**Last session:** would say {after[0]} but {said}; log the session first",
            remedy="or add the entry in the same change: `context-doctor log add "
            f"{_shell(str(context.path.parent))} --date {after[0]} --title '…' --set-header`",
        )

    def commit(self, gates: Gates, *, dry_run: bool = False) -> ApplyResult:
        """Judge every file, then write them all (or, with ``dry_run``, none)."""
        states = self.judge(gates)
        touched = self.touched
        if dry_run:  # the preview refuses what the write would (write/readable.py)
            for held in touched.values():
                old = held.snapshot.data if held.snapshot is not None else None
                atomic.refuse_unreadable(
                    held.path, old, held.decoded.encode(held.body), held.within
                )
        results = [
            EditResult(
                held.path,
                held.snapshot.data if held.snapshot is not None else b"",
                held.decoded.encode(held.body),
                states[key],
                written=not dry_run,
                created=held.snapshot is None,
            )
            for key, held in touched.items()
        ]
        if not dry_run:
            for held in touched.values():
                if held.snapshot is None:
                    ensure_directory(held.path.parent, within=held.within)
            batch.commit_files(
                [
                    batch.PlannedFile(result.path, result.after, held.snapshot, within=held.within)
                    for result, held in zip(results, touched.values(), strict=True)
                ],
                journal_dir=self.root,
                within=self.tree,
            )
        return ApplyResult(results)


def _read_log(path: Path) -> str:
    try:
        data = atomic.read_snapshot(path, within=repository_root(path)).data
    except (DoctorError, atomic.WriteRefused) as error:
        raise DoctorError(
            f"cannot read {path} to check the header against the log: {error}",
            "fix the log file, or pass --allow-header-ahead",
        ) from error
    return decode(path, data).body


def _shell(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _overlap(start: int, end: int, new_start: int, new_end: int) -> bool:
    if start < end and new_start < new_end:
        return max(start, new_start) < min(end, new_end)
    if new_start == new_end:
        return start < new_start < end
    return new_start < start < new_end


def _moved(dirty: list[tuple[int, int]], splices: list[Splice]) -> list[tuple[int, int]]:
    """The changed regions after ``splices``: the old ones shifted, plus each splice's new text."""
    ordered = sorted(splices, key=lambda s: (s.start, s.end))

    def shift(position: int) -> int:
        return position + sum(len(s.new) - (s.end - s.start) for s in ordered if s.end <= position)

    moved = [(shift(start), shift(end)) for start, end in dirty]
    offset = 0
    for splice in ordered:
        start = splice.start + offset
        moved.append((start, start + len(splice.new)))
        offset += len(splice.new) - (splice.end - splice.start)
    return moved


# -- the API -------------------------------------------------------------------------


def apply(
    edits: Sequence[Edit | Mapping[str, Any]],
    *,
    cwd: Path | str | None = None,
    **claims: Unpack[Claims],
) -> ApplyResult:
    """Apply ``edits`` (``Edit`` objects or EDITS.json-shaped dicts) in order, gate once, write all.

    A relative ``file`` is relative to ``cwd`` (default: the working directory).

    Raises ``EditRefused`` (nothing written) naming the rule and the edit, or
    DoctorError for edits that cannot be read.
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    parsed = [
        _based(edit, base) if isinstance(edit, Edit) else parse_edit(edit, number, base)
        for number, edit in enumerate(edits, start=1)
    ]
    if not parsed:
        raise DoctorError("no edits given", "give at least one edit")
    if len(parsed) > MAX_EDITS:
        raise DoctorError(f"{len(parsed)} edits, more than {MAX_EDITS}", "split the batch")
    gates, dry_run = gates_claimed("apply", claims)
    with as_edit_refusal():
        # The project is the first file's that is not the registry beside it.
        first = next((e.file for e in parsed if e.file.name != "index.yaml"), parsed[0].file)
        batch = Batch(project_root(first), dry_run=dry_run)
        for number, edit in enumerate(parsed, start=1):
            try:
                batch.check_within(edit.file)
            except DoctorError as error:
                raise DoctorError(f"edit {number}: {error.problem}", error.remedy) from None
        for number, edit in enumerate(parsed, start=1):
            try:
                batch.edit(edit, "")
            except EditRefused as refused:
                raise _in_batch(refused, number, edit) from None
        return batch.commit(gates, dry_run=dry_run)


def _based(edit: Edit, base: Path) -> Edit:
    """``edit`` with a relative file taken from ``base``, as an EDITS.json edit's is."""
    if edit.file.is_absolute():
        return edit
    return replace(edit, file=base / edit.file)


_JSON_KEYS = {"--count": "count", "--whole-value": "whole_value"}


def _in_batch(refused: EditRefused, number: int, edit: Edit) -> EditRefused:
    """A verb's refusal as one of a batch: it names the edit, and a per-edit override by its key."""
    override = refused.override
    if override is not None:
        flag, _, value = override.partition(" ")
        if flag in _JSON_KEYS:
            override = f'"{_JSON_KEYS[flag]}": {value or "true"} in edit {number}'
    again = EditRefused(
        refused.rule,
        f"edit {number} ({edit.op} {edit.file.name}): {refused.message}",
        override=override,
        remedy=refused.remedy,
    )
    return again


def _one(verb: str, edit: Edit, claims: Claims) -> EditResult:
    gates, dry_run = gates_claimed(verb, claims)
    with as_edit_refusal():
        batch = Batch(project_root(edit.file), dry_run=dry_run)
        batch.edit(edit)
        return batch.commit(gates, dry_run=dry_run).files[0]


@contextmanager
def as_edit_refusal() -> Iterator[None]:
    """A write-path refusal (a symlink, a file changed meanwhile) as the editor's one type."""
    try:
        yield
    except EditRefused:
        raise
    except atomic.WriteRefused as refused:
        raise EditRefused(refused.rule, refused.message) from refused


def set_field(
    path: Path | str,
    field: str,
    value: str,
    *,
    whole_value: bool = False,
    section: str | None = None,
    **claims: Unpack[Claims],
) -> EditResult:
    """Set the one ``**field:**`` header field to ``value`` (inside ``section``, the heading
    the file's layout keeps its record under, when given); raises ``EditRefused``."""
    edit = Edit(
        "set-field", Path(path), field=field, value=value, whole_value=whole_value, section=section
    )
    return _one("set_field", edit, claims)


def replace_once(
    path: Path | str,
    anchor: str,
    replacement: str,
    *,
    count: int = 1,
    **claims: Unpack[Claims],
) -> EditResult:
    """Replace ``anchor``, which must occur exactly ``count`` times; raises ``EditRefused``."""
    edit = Edit("replace", Path(path), anchor=anchor, replacement=replacement, count=count)
    return _one("replace_once", edit, claims)


def insert_before(
    path: Path | str,
    anchor: str,
    text: str,
    *,
    count: int = 1,
    **claims: Unpack[Claims],
) -> EditResult:
    """Insert whole lines before the line(s) starting with ``anchor``; raises ``EditRefused``."""
    edit = Edit("insert-before", Path(path), anchor=anchor, text=text, count=count)
    return _one("insert_before", edit, claims)


def delete_line(
    path: Path | str,
    anchor: str,
    *,
    count: int = 1,
    **claims: Unpack[Claims],
) -> EditResult:
    """Delete the line(s) starting with ``anchor`` (``count`` of them); raises ``EditRefused``."""
    edit = Edit("delete-line", Path(path), anchor=anchor, count=count)
    return _one("delete_line", edit, claims)


__all__ = [
    "ApplyResult",
    "Batch",
    "Edit",
    "apply",
    "delete_line",
    "insert_before",
    "project_root",
    "replace_once",
    "set_field",
    "unified_diff",
]
