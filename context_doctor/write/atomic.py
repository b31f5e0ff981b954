"""The one write path (docs/editor.md): every byte the doctor writes goes through this module.

The contract, for every writer:

* **Read once, refuse first.** :func:`read_snapshot` reads a file once and
  records its identity (device, inode, size, mtime_ns, mode). Callers compute
  the new bytes from that snapshot and refuse (:class:`WriteRefused`) before a
  byte moves.
* **No symlinks followed.** A symlinked target is refused (rule ``symlink``);
  the final component is opened with ``O_NOFOLLOW`` and every later step works
  relative to the parent directory's file descriptor, so a directory swapped
  for a link half-way cannot redirect the write. Every caller names the
  directory the file must stay in (``within=``, required; ``USER_NAMED`` for a
  place the user chose, :mod:`.contain`) and a symlinked parent that resolves
  outside it is refused too (rule ``outside``).
* **Atomic.** The new bytes go to a temporary file in the same directory
  (unnamed with ``O_TMPFILE`` where Linux offers it, so a killed writer leaves
  nothing at all; else ``.NAME.context-doctor-XXXXXXXX.tmp``), which is
  fsynced, given the target's mode, renamed over the target, and the directory
  is fsynced. A killed writer leaves the old bytes or the new bytes, never a
  mix. Named temporary files orphaned by a killed run are removed by the next
  write in that directory (they can only be orphans: see the lock).
* **Confirmed.** The written file is re-read and compared (rule
  ``not-on-disk``).
* **No concurrent update lost.** Writers take an advisory ``flock`` on the
  target's *parent directory* (no lock file exists, so ``git add -A`` has
  nothing to pick up and nothing is left behind by a killed writer; the kernel
  drops the lock with the process). Under the lock the file is compared with
  the snapshot - identity and bytes - and once more right before the rename, so
  a change by a program that ignores the lock is detected (rule
  ``changed-on-disk``). :func:`update_file` re-reads and recomputes under the
  lock, so two doctor writers on one file never lose an update. A program that
  had the file open for appending across the rename writes into the replaced
  copy: on Linux the writer waits (a read-lease probe, bounded) until no one
  holds the old file open for writing, then appends what landed there to the
  new file, so an appender loses no line.
* **Bytes are bytes.** Nothing here decodes or normalises line ends: CRLF stays CRLF.

Refusals raise :class:`WriteRefused` (a writing command exits 1); a missing,
unreadable or non-regular file, or an OS error while writing, raises
:class:`~context_doctor.errors.DoctorError` (exit 2).
"""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.guards.contain import inside
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_descriptor
from context_doctor.write.lock import TEMP_MARK, locked_directory

UPDATE_ATTEMPTS = 5
WRITER_WAIT_SECONDS = 2.0
_CHUNK = 1 << 20


class WriteRefused(Exception):
    """A rule refused the write; nothing was written (a writing command exits 1)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


class _ChangedSinceRead(WriteRefused):
    """The file is not the one read: :func:`update_file` reads it again and retries."""


@dataclass(frozen=True)
class FileSnapshot:
    """A file's bytes as read once, and the identity that tells whether it changed since."""

    path: Path
    data: bytes
    st_dev: int
    st_ino: int
    st_size: int
    st_mtime_ns: int
    mode: int  # permission bits (stat.S_IMODE)

    @property
    def identity(self) -> tuple[int, int, int, int]:
        return (self.st_dev, self.st_ino, self.st_size, self.st_mtime_ns)


def _identity(status: os.stat_result) -> tuple[int, int, int, int]:
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


# -- reading ------------------------------------------------------------------


def read_snapshot(path: Path, *, within: Path | None) -> FileSnapshot:
    """Read ``path`` once. Refuses a symlink; DoctorError when missing, a directory or unreadable."""
    _require_within(path, within)
    try:
        directory = os.open(_parent(path), os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise _read_error(path, error) from error
    try:
        return _snapshot_at(directory, path)
    finally:
        os.close(directory)


def _snapshot_at(directory: int, path: Path) -> FileSnapshot:
    handle = _open_target(directory, path)
    try:
        status = os.fstat(handle)
        data = _read_all(handle)
    except TooLarge as error:
        raise DoctorError(
            f"{path} {error} when it changes a file: nothing was written",
            "shorten or split it by hand (or archive it), then rerun",
        ) from error
    except OSError as error:
        raise _read_error(path, error) from error
    finally:
        os.close(handle)
    return FileSnapshot(
        path=path,
        data=data,
        st_dev=status.st_dev,
        st_ino=status.st_ino,
        st_size=status.st_size,
        st_mtime_ns=status.st_mtime_ns,
        mode=stat.S_IMODE(status.st_mode),
    )


def _open_target(directory: int, path: Path) -> int:
    """The target opened for reading without following a link; a regular file or a refusal."""
    if path.name in ("", ".", ".."):
        raise DoctorError(f"{path} is a directory, not a file", "name a regular file")
    try:
        handle = os.open(
            path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=directory
        )
    except OSError as error:
        if error.errno == errno.ELOOP or (
            error.errno == errno.ENXIO and _is_link(directory, path.name)
        ):
            raise WriteRefused(
                "symlink",
                f"{path} is a symlink; the doctor never writes through links "
                "(edit the file it points to by its own path)",
            ) from error
        raise _read_error(path, error) from error
    status = os.fstat(handle)
    if not stat.S_ISREG(status.st_mode):
        os.close(handle)
        kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise DoctorError(f"{path} is {kind}", "name a regular file")
    return handle


def _is_link(directory: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _read_all(handle: int, limit: int = MAX_WRITE_TARGET_BYTES) -> bytes:
    """The file's bytes, bounded (:func:`~context_doctor.guards.limits.read_descriptor`)."""
    return read_descriptor(handle, limit)


def _starts_with(handle: int, data: bytes | bytearray) -> bool:
    """Whether the open file begins with ``data``: compared a chunk at a time, so that a
    large file (a cache, a report) is not held a second and third time to confirm it."""
    view = memoryview(data)
    at = 0
    while at < len(view):
        chunk = os.pread(handle, min(len(view) - at, _CHUNK), at)
        if not chunk or view[at : at + len(chunk)] != chunk:
            return False
        at += len(chunk)
    return True


def _same_bytes(handle: int, expected: bytes) -> bool:
    """Whether the open file holds exactly ``expected`` (read no further than one byte past)."""
    try:
        return read_descriptor(handle, len(expected)) == expected
    except TooLarge:
        return False


def _read_error(path: Path, error: OSError) -> DoctorError:
    if error.errno == errno.ENOENT:
        return DoctorError(f"{path} does not exist", "check the path")
    if error.errno == errno.EISDIR:
        return DoctorError(f"{path} is a directory, not a file", "name a regular file")
    if error.errno == errno.ENOTDIR:
        return DoctorError(f"{path}: a parent of it is not a directory", "check the path")
    return DoctorError(
        f"cannot read {path}: {error.strerror or error}", "check the file's permissions"
    )


def _parent(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _require_within(path: Path, within: Path | None) -> None:
    """Refuse a target whose (symlinked) parent directory resolves outside ``within``."""
    if within is None:  # USER_NAMED: the user chose the place
        return
    if not inside(_parent(path), within):
        parent = Path(os.path.realpath(_parent(path)))
        raise WriteRefused(
            "outside",
            f"{path} resolves to {parent / path.name}, outside {within}; "
            "the doctor never writes outside the directory it was given",
        )


# -- writing ------------------------------------------------------------------


@dataclass
class _Temporary:
    fd: int
    name: str | None  # None while unnamed (O_TMPFILE)


def _create_temporary(
    directory: int, target_name: str, data: bytes | bytearray, mode: int
) -> _Temporary:
    """The new bytes in a temporary file of the same directory, fsynced, with ``mode``; named."""
    temporary = _open_temporary(directory, target_name)
    try:
        os.fchmod(temporary.fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(temporary.fd, view) :]
        os.fsync(temporary.fd)
        if temporary.name is None:
            temporary.name = _link_unnamed(directory, temporary.fd, target_name)
    except BaseException:
        _discard(directory, temporary)
        raise
    return temporary


def _temporary_name(target_name: str) -> str:
    return f".{target_name}.{TEMP_MARK}-{os.urandom(4).hex()}.tmp"


def _open_temporary(directory: int, target_name: str) -> _Temporary:
    o_tmpfile = getattr(os, "O_TMPFILE", 0)
    if o_tmpfile:
        try:
            return _Temporary(os.open(".", o_tmpfile | os.O_RDWR, 0o600, dir_fd=directory), None)
        except OSError:
            pass  # the filesystem does not support it: a named temporary file instead
    for _ in range(100):
        name = _temporary_name(target_name)
        try:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            return _Temporary(os.open(name, flags, 0o600, dir_fd=directory), name)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name")


def _link_unnamed(directory: int, handle: int, target_name: str) -> str:
    """Give an O_TMPFILE file a name (only now, when its bytes are complete and synced)."""
    for _ in range(100):
        name = _temporary_name(target_name)
        try:
            os.link(f"/proc/self/fd/{handle}", name, dst_dir_fd=directory, follow_symlinks=True)
            return name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name")


def _discard(directory: int, temporary: _Temporary) -> None:
    if temporary.name is not None:
        with suppress(OSError):
            os.unlink(temporary.name, dir_fd=directory)
    with suppress(OSError):
        os.close(temporary.fd)


def _fsync_directory(directory: int) -> None:
    with suppress(OSError):  # some filesystems refuse fsync on a directory; the rename happened
        os.fsync(directory)


def _renamed_into_place(
    path: Path, temporary: _Temporary, data: bytes | bytearray, directory: int
) -> None:
    """After the rename: the temporary name is gone, the directory synced, the bytes confirmed."""
    temporary.name = None
    _fsync_directory(directory)
    _confirm(path, temporary, data, directory)


def _confirm(path: Path, temporary: _Temporary, data: bytes | bytearray, directory: int) -> None:
    """Re-read what was written. If another writer replaced the file after us, theirs wins."""
    if not _starts_with(temporary.fd, data):
        raise WriteRefused(
            "not-on-disk",
            f"{path} does not hold what was just written to it; check the disk",
        )
    with suppress(OSError):
        now = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
        mine = os.fstat(temporary.fd)
        if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
            handle = _open_target(directory, path)
            try:
                holds = _starts_with(handle, data)
            except OSError as error:
                raise _read_error(path, error) from error
            finally:
                os.close(handle)
            if not holds:
                raise WriteRefused(
                    "not-on-disk",
                    f"{path} does not hold what was just written to it; check the disk",
                )


def _require_writable(path: Path, status: os.stat_result) -> None:
    """A file its owner made read-only is not replaced behind their back (a rename could)."""
    if status.st_uid == os.geteuid():
        writable = bool(status.st_mode & stat.S_IWUSR)
    else:
        writable = os.access(path, os.W_OK, follow_symlinks=False)
    if not writable:
        raise DoctorError(
            f"{path} is read-only", f"make it writable (`chmod u+w {path}`) if it should change"
        )


def _write_error(path: Path, error: OSError) -> DoctorError:
    return DoctorError(
        f"cannot write {path}: {error.strerror or error}",
        "check the file's and directory's permissions; the file was left as it was",
    )


def _changed(path: Path) -> WriteRefused:
    return _ChangedSinceRead(
        "changed-on-disk",
        f"{path} changed on disk since it was read; nothing was written (rerun to apply the "
        "change to the new content)",
    )


def refuse_unreadable(
    path: Path, old: bytes | None, new: bytes | bytearray, within: Path | None
) -> None:
    """The readability gate (:mod:`context_doctor.write.readable`), before any byte moves:
    :class:`WriteRefused` when ``new`` over ``old`` would leave a record unreadable."""
    from context_doctor.write.readable import judge_record

    refused = judge_record(path, old, new, within=within)
    if refused is not None:
        raise WriteRefused(*refused)


def replace_file(snapshot: FileSnapshot, new_data: bytes, *, within: Path | None) -> None:
    """Replace the file read as ``snapshot`` with ``new_data``, refusing if it changed since."""
    _require_within(snapshot.path, within)
    refuse_unreadable(snapshot.path, snapshot.data, new_data, within)
    with locked_directory(_parent(snapshot.path)) as directory:
        _replace_locked(directory, snapshot, new_data)


def _replace_locked(directory: int, snapshot: FileSnapshot, new_data: bytes) -> None:
    path = snapshot.path
    old = _open_target(directory, path)
    try:
        status = os.fstat(old)
        if _identity(status) != snapshot.identity or not _same_bytes(old, snapshot.data):
            raise _changed(path)
        _require_writable(path, status)
        try:
            temporary = _create_temporary(directory, path.name, new_data, snapshot.mode)
        except OSError as error:
            raise _write_error(path, error) from error
        try:
            # The last look, right before the rename: a program that ignores the lock.
            if not _wait_for_other_writers(old):
                raise WriteRefused(
                    "in-use",
                    f"another process holds {path} open for writing; what it writes would land "
                    "in the replaced copy - close it and rerun",
                )
            try:
                now = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
            except OSError as error:
                raise _changed(path) from error
            if _identity(now) != snapshot.identity:
                raise _changed(path)
            assert temporary.name is not None
            try:
                os.rename(temporary.name, path.name, src_dir_fd=directory, dst_dir_fd=directory)
            except OSError as error:
                raise _write_error(path, error) from error
            _renamed_into_place(path, temporary, new_data, directory)
        finally:
            _discard(directory, temporary)
        # An appender that opened the file before the rename writes into the replaced copy:
        # let it finish, then carry what it wrote over.
        _wait_for_other_writers(old)
        try:
            late = _read_all(old)
        except TooLarge:
            late = b""  # grown past the bound meanwhile: not an append we can carry over
    finally:
        os.close(old)
    if late != snapshot.data:
        _recover_late_write(directory, snapshot, late)


def _wait_for_other_writers(handle: int) -> bool:
    """Wait (bounded) until no other process holds ``handle``'s file open for writing.

    Linux grants a read lease only when nobody has the file open for writing, so
    taking one and dropping it at once is the probe. Where leases are not
    available (another OS, a file we do not own, a thread that cannot touch
    signal handlers) this returns at once. SIGIO, which a lease break would send,
    is ignored for the instant the lease is held. False: still held open after
    :data:`WRITER_WAIT_SECONDS`.
    """
    set_lease = getattr(fcntl, "F_SETLEASE", None)
    if set_lease is None or threading.current_thread() is not threading.main_thread():
        return True
    previous = signal.signal(signal.SIGIO, signal.SIG_IGN)
    try:
        deadline = time.monotonic() + WRITER_WAIT_SECONDS
        while True:
            try:
                fcntl.fcntl(handle, set_lease, fcntl.F_RDLCK)
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.001)
                continue
            except OSError:
                return True
            fcntl.fcntl(handle, set_lease, fcntl.F_UNLCK)
            return True
    finally:
        signal.signal(signal.SIGIO, previous if previous is not None else signal.SIG_DFL)


def _recover_late_write(directory: int, snapshot: FileSnapshot, late: bytes) -> None:
    """Bytes landed in the replaced file during the rename (an appender that opened it first).

    An append is carried over to the end of the new file; anything else cannot
    be merged and is refused loudly rather than lost silently.
    """
    path = snapshot.path
    if not late.startswith(snapshot.data):
        raise WriteRefused(
            "changed-on-disk",
            f"another program rewrote {path} while the doctor replaced it; its version was "
            "replaced - check the file",
        )
    tail = late[len(snapshot.data) :]
    current = _snapshot_at(directory, path)
    _replace_locked(directory, current, current.data + tail)


def update_file(
    path: Path,
    transform: Callable[[bytes], bytes],
    *,
    within: Path | None,
    attempts: int = UPDATE_ATTEMPTS,
) -> bool:
    """Read, ``transform``, replace - under the lock, retried when the file changes meanwhile.

    ``transform`` gets the current bytes and returns the new ones (or raises to
    refuse); it may run more than once. Returns False when it returned the
    bytes unchanged (nothing written).
    """
    _require_within(path, within)
    with locked_directory(_parent(path)) as directory:
        for _ in range(max(attempts, 1)):
            snapshot = _snapshot_at(directory, path)
            new_data = transform(snapshot.data)
            if new_data == snapshot.data:
                return False
            refuse_unreadable(path, snapshot.data, new_data, within)
            try:
                _replace_locked(directory, snapshot, new_data)
            except _ChangedSinceRead:
                continue
            return True
    raise WriteRefused(
        "changed-on-disk",
        f"{path} kept changing while the doctor tried to update it ({attempts} attempts); "
        "nothing was written",
    )


def write_file(
    path: Path,
    data: bytes | bytearray,
    *,
    mode: int | None = None,
    exclusive: bool = False,
    within: Path | None,
) -> None:
    """Create or replace a whole file (caches, hooks, outputs, backups) with the same guarantees.

    Refuses a symlinked target; creates no parent directory (see
    :func:`ensure_directory`). ``mode``: the new file's permission bits
    (default: the replaced file's, else 0666 minus the umask). ``exclusive``:
    refuse (rule ``exists``) when the file already exists.
    """
    _require_within(path, within)
    refuse_unreadable(path, None, data, within)
    with locked_directory(_parent(path)) as directory:
        try:
            existing = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        except OSError as error:
            raise _write_error(path, error) from error
        if existing is not None:
            if stat.S_ISLNK(existing.st_mode):
                raise WriteRefused(
                    "symlink", f"{path} is a symlink; the doctor never writes through links"
                )
            if exclusive:
                raise WriteRefused("exists", f"{path} already exists; nothing was written")
            if not stat.S_ISREG(existing.st_mode):
                raise DoctorError(f"{path} exists and is not a regular file", "name a file")
            _require_writable(path, existing)
        if mode is None:
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else default_mode()
        try:
            temporary = _create_temporary(directory, path.name, data, mode)
        except OSError as error:
            raise _write_error(path, error) from error
        try:
            assert temporary.name is not None
            try:
                if exclusive:
                    os.link(temporary.name, path.name, src_dir_fd=directory, dst_dir_fd=directory)
                    os.unlink(temporary.name, dir_fd=directory)
                else:
                    os.rename(temporary.name, path.name, src_dir_fd=directory, dst_dir_fd=directory)
            except FileExistsError as error:
                raise WriteRefused(
                    "exists", f"{path} already exists; nothing was written"
                ) from error
            except OSError as error:
                raise _write_error(path, error) from error
            _renamed_into_place(path, temporary, data, directory)
        finally:
            _discard(directory, temporary)


def append_file(path: Path, data: bytes, *, within: Path | None) -> None:
    """Append ``data`` in place (e.g. ``$GITHUB_STEP_SUMMARY``, which other steps append to).

    The one write that is not a rename: appending never truncates what is
    there, and a replace would race with the other appenders. The file is
    created when missing; a symlinked target is refused.
    """
    _require_within(path, within)
    refuse_unreadable(path, None, data, within)
    with locked_directory(_parent(path)) as directory:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            handle = os.open(path.name, flags, default_mode(), dir_fd=directory)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise WriteRefused(
                    "symlink", f"{path} is a symlink; the doctor never writes through links"
                ) from error
            raise _write_error(path, error) from error
        try:
            if not stat.S_ISREG(os.fstat(handle).st_mode):
                raise DoctorError(f"{path} is not a regular file", "name a file")
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view) :]
            os.fsync(handle)
        except OSError as error:
            raise _write_error(path, error) from error
        finally:
            os.close(handle)


def default_mode() -> int:
    """A new file's permission bits: 0666 minus the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
