"""Several files written all or none (docs/editor.md): the batch ``edit apply`` and ``state compile`` use.

A rename replaces one file atomically; nothing replaces two. ``commit_files``
therefore journals: every new version is first written beside its target as a
staged file (fsynced), then a journal in the batch's directory records the
targets, the staged names and the sha256 of the old and new bytes, and only once
the journal says ``committed`` are the staged files renamed over their targets. A
process killed before that point leaves every file as it was (the next writer
removes the staged files); killed after it, the next writer finishes the renames
(``recover``), so no reader is left with a batch half-applied once any doctor
writer has run. Staged files are named ``.NAME.context-doctor-apply-TX.staged``,
which the orphan sweep of single-file writes leaves alone.

Every single file of a batch is written with the same guarantees as one
:mod:`context_doctor.write.atomic` write (no link followed, the parent's lock, confirmed).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.guards.contain import inside
from context_doctor.guards.limits import TooLarge, read_limited
from context_doctor.write.atomic import (
    FileSnapshot,
    WriteRefused,
    _changed,
    _create_temporary,
    _discard,
    _fsync_directory,
    _identity,
    _open_target,
    _parent,
    _require_within,
    _require_writable,
    _same_bytes,
    _snapshot_at,
    _write_error,
    default_mode,
    refuse_unreadable,
    replace_file,
    write_file,
)
from context_doctor.write.lock import locked_directory

_JOURNAL = re.compile(r"^\.context-doctor-apply-([0-9a-f]{8})\.journal$")
_STAGED_MARK = "context-doctor-apply"
JOURNAL_VERSION = 1
MAX_JOURNAL_BYTES = 1 << 20


_LEFTOVER = re.compile(
    r"^\.(context-doctor-apply-[0-9a-f]{8}\.journal|.+\.context-doctor-apply-[0-9a-f]{8}\.staged)$"
)


def is_journal_name(name: str) -> bool:
    """``name`` is the journal of a batch (what ``recover`` finishes or discards)."""
    return _JOURNAL.match(name) is not None


def is_batch_leftover(name: str) -> bool:
    """``name`` is a batch's journal or one of its staged files: never work to commit."""
    return _LEFTOVER.match(name) is not None


@dataclass(frozen=True)
class PlannedFile:
    """One file of a batch: its new bytes, and the snapshot they replace (None: created)."""

    path: Path
    data: bytes
    snapshot: FileSnapshot | None
    within: Path | None  # required, as for every write (None: USER_NAMED)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _staged_name(target_name: str, transaction: str) -> str:
    return f".{target_name}.{_STAGED_MARK}-{transaction}.staged"


# Test seam: called with the number of files already renamed, before each rename after
# the commit point (a test kills the process here to prove all-or-nothing).
_between_files: Callable[[int], None] = lambda renamed: None  # noqa: E731


def commit_files(files: list[PlannedFile], *, journal_dir: Path, within: Path | None) -> None:
    """Write every file of ``files`` or none of them (see the section comment above).

    Each existing target must still be its snapshot (identity and bytes), each new
    one must still be absent; otherwise :class:`WriteRefused` and nothing changes.
    One file needs no journal: it is one :func:`replace_file` or :func:`write_file`.
    """
    journal_dir = Path(os.path.abspath(journal_dir))
    for planned in files:
        _require_within(planned.path, planned.within)
    for planned in files:  # every file readable, or none written (write/readable.py)
        old = None if planned.snapshot is None else planned.snapshot.data
        refuse_unreadable(planned.path, old, planned.data, planned.within)
    _require_within(journal_dir / "journal", within)  # the journal is written there too
    if len(files) == 1:
        only = files[0]
        if only.snapshot is None:
            write_file(only.path, only.data, exclusive=True, within=only.within)
        else:
            replace_file(only.snapshot, only.data, within=only.within)
        return
    directories = sorted({os.path.abspath(_parent(p.path)) for p in files} | {str(journal_dir)})
    with ExitStack() as stack:
        handles = {
            directory: stack.enter_context(locked_directory(Path(directory)))
            for directory in directories
        }
        _recover_locked(journal_dir, handles, within)
        modes = [_check_planned(handles, planned) for planned in files]
        transaction = os.urandom(4).hex()
        journal_name = f".context-doctor-apply-{transaction}.journal"
        journal_fd = handles[str(journal_dir)]
        entries = [
            {
                "path": os.path.relpath(os.path.abspath(planned.path), journal_dir),
                "staged": _staged_name(planned.path.name, transaction),
                "old": None if planned.snapshot is None else _sha256(planned.snapshot.data),
                "new": _sha256(planned.data),
            }
            for planned in files
        ]
        _write_journal(journal_fd, journal_name, entries, committed=False)
        try:
            for planned, entry, mode in zip(files, entries, modes, strict=True):
                directory = handles[os.path.abspath(_parent(planned.path))]
                _stage(directory, str(entry["staged"]), planned.data, mode)
            for directory in handles.values():
                _fsync_directory(directory)
            for planned in files:  # the last look before the commit point
                _check_planned(handles, planned)
        except BaseException:
            _discard_staged(handles, files, entries)
            with suppress(OSError):
                os.unlink(journal_name, dir_fd=journal_fd)
            raise
        _write_journal(journal_fd, journal_name, entries, committed=True)  # the commit point
        for number, (planned, entry) in enumerate(zip(files, entries, strict=True)):
            _between_files(number)
            directory = handles[os.path.abspath(_parent(planned.path))]
            try:
                os.rename(
                    str(entry["staged"]),
                    planned.path.name,
                    src_dir_fd=directory,
                    dst_dir_fd=directory,
                )
            except OSError as error:
                raise _write_error(planned.path, error) from error
        for directory in handles.values():
            _fsync_directory(directory)
        for planned in files:
            directory = handles[os.path.abspath(_parent(planned.path))]
            if _snapshot_at(directory, planned.path).data != planned.data:
                raise WriteRefused(
                    "not-on-disk",
                    f"{planned.path} does not hold what was just written to it; check the disk",
                )
        os.unlink(journal_name, dir_fd=journal_fd)
        _fsync_directory(journal_fd)


def _check_planned(handles: dict[str, int], planned: PlannedFile) -> int:
    """The mode the new file gets; refuses a target that is not what the batch was planned on."""
    directory = handles[os.path.abspath(_parent(planned.path))]
    if planned.snapshot is None:
        try:
            os.stat(planned.path.name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return default_mode()
        except OSError as error:
            raise _write_error(planned.path, error) from error
        raise WriteRefused("exists", f"{planned.path} appeared since it was read; nothing written")
    handle = _open_target(directory, planned.path)
    try:
        status = os.fstat(handle)
        if _identity(status) != planned.snapshot.identity or not _same_bytes(
            handle, planned.snapshot.data
        ):
            raise _changed(planned.path)
        _require_writable(planned.path, status)
    finally:
        os.close(handle)
    return planned.snapshot.mode


def _stage(directory: int, name: str, data: bytes, mode: int) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    handle = os.open(name, flags, 0o600, dir_fd=directory)
    try:
        os.fchmod(handle, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view) :]
        os.fsync(handle)
    finally:
        os.close(handle)


def _discard_staged(
    handles: dict[str, int], files: list[PlannedFile], entries: list[dict[str, str | None]]
) -> None:
    for planned, entry in zip(files, entries, strict=True):
        with suppress(OSError, KeyError):
            os.unlink(str(entry["staged"]), dir_fd=handles[os.path.abspath(_parent(planned.path))])


def _write_journal(
    directory: int, name: str, entries: list[dict[str, str | None]], *, committed: bool
) -> None:
    data = json.dumps(
        {"version": JOURNAL_VERSION, "committed": committed, "files": entries}, indent=1
    ).encode("utf-8")
    temporary = _create_temporary(directory, name, data, 0o600)
    try:
        assert temporary.name is not None
        os.rename(temporary.name, name, src_dir_fd=directory, dst_dir_fd=directory)
        temporary.name = None
        _fsync_directory(directory)
    finally:
        _discard(directory, temporary)


def recover(journal_dir: Path, *, within: Path | None) -> list[Path]:
    """Finish (or discard) a batch a killed writer left in ``journal_dir``; the files finished.

    A committed journal's staged files are renamed over their targets; an
    uncommitted one's are removed. A target that is neither its old nor its new
    version (changed by hand since) is not touched: DoctorError naming it and the
    staged file that holds the batch's version. A journal is only acted on inside
    ``within``: a directory that resolves outside it, or a journal naming a target
    there, is a refusal (a journal can be committed to a hostile repository).
    """
    if within is not None and not inside(journal_dir, within):
        raise WriteRefused(
            "outside",
            f"{journal_dir} resolves to {os.path.realpath(journal_dir)}, outside {within}; "
            "the doctor never writes outside the directory it was given",
        )
    try:
        names = os.listdir(journal_dir)
    except OSError:
        return []
    if not any(_JOURNAL.match(name) for name in names):
        return []
    with locked_directory(journal_dir) as directory:
        return _recover_locked(journal_dir, {str(journal_dir): directory}, within)


def _recover_locked(journal_dir: Path, handles: dict[str, int], within: Path | None) -> list[Path]:
    directory = handles[str(journal_dir)]
    finished: list[Path] = []
    for name in sorted(os.listdir(directory)):
        match = _JOURNAL.match(name)
        if match is None:
            continue
        journal = _read_journal(journal_dir / name)
        transaction = match.group(1)
        targets = [
            _journal_target(journal_dir, entry, transaction, within) for entry in journal["files"]
        ]
        with ExitStack() as stack:
            for target, _ in targets:
                key = os.path.abspath(_parent(target))
                if key not in handles:
                    handles = {**handles, key: stack.enter_context(locked_directory(Path(key)))}
            for (target, staged), entry in zip(targets, journal["files"], strict=True):
                fd = handles[os.path.abspath(_parent(target))]
                if not journal["committed"]:
                    with suppress(FileNotFoundError):
                        os.unlink(staged, dir_fd=fd)
                    continue
                if _finish(fd, target, staged, entry):
                    finished.append(target)
            for fd in handles.values():
                _fsync_directory(fd)
        os.unlink(name, dir_fd=directory)
        _fsync_directory(directory)
    return finished


def _read_journal(path: Path) -> dict[str, Any]:
    problem = DoctorError(
        f"{path} is not a journal context-doctor wrote (an interrupted `edit apply`)",
        "look at the files it names, then remove it",
    )
    try:
        # Bounded and never through a link or into a FIFO: a journal is the doctor's own
        # few lines, and one committed to a hostile repository may point at /dev/zero.
        data = json.loads(read_limited(path, MAX_JOURNAL_BYTES, follow=False))
    except (OSError, ValueError, TooLarge) as error:
        raise problem from error
    if (
        not isinstance(data, dict)
        or data.get("version") != JOURNAL_VERSION
        or not isinstance(data.get("committed"), bool)
        or not isinstance(data.get("files"), list)
        or not all(
            isinstance(entry, dict)
            and isinstance(entry.get("path"), str)
            and isinstance(entry.get("staged"), str)
            and isinstance(entry.get("new"), str)
            and (entry.get("old") is None or isinstance(entry.get("old"), str))
            for entry in data["files"]
        )
    ):
        raise problem
    return data


def _journal_target(
    journal_dir: Path, entry: dict[str, Any], transaction: str, within: Path | None
) -> tuple[Path, str]:
    """The target a journal entry names, kept inside the journal's directory (or its registry)
    and, symlinks resolved, inside ``within``."""
    target = Path(os.path.normpath(journal_dir / entry["path"]))
    lexical = target.is_relative_to(journal_dir) or target == journal_dir.parent / "index.yaml"
    contained = within is None or inside(_parent(target), within)
    staged = entry["staged"]
    if not (lexical and contained) or staged != _staged_name(target.name, transaction):
        raise DoctorError(
            f"{journal_dir}: an apply journal names {entry['path']}, outside the project",
            "remove the journal (.context-doctor-apply-*.journal) after checking the files",
        )
    return target, staged


def _finish(directory: int, target: Path, staged: str, entry: dict[str, Any]) -> bool:
    try:
        current = _snapshot_at(directory, target).data
    except DoctorError:
        current = None  # a target the batch was creating
    if current is not None and _sha256(current) == entry["new"]:
        with suppress(FileNotFoundError):
            os.unlink(staged, dir_fd=directory)
        return False
    old_matches = entry["old"] is None if current is None else _sha256(current) == entry["old"]
    try:
        staged_data = _snapshot_at(directory, target.parent / staged).data
    except DoctorError:
        staged_data = None
    if not old_matches or staged_data is None or _sha256(staged_data) != entry["new"]:
        raise DoctorError(
            f"an interrupted `edit apply` cannot be finished: {target} changed since "
            f"(the batch's version is in {target.parent / staged})",
            "compare the two, keep the right one, and remove the journal",
        )
    os.rename(staged, target.name, src_dir_fd=directory, dst_dir_fd=directory)
    return True
