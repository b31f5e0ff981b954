"""The directory lock every writer takes (docs/editor.md): an advisory ``flock`` on the
target's parent directory, re-entrant within a thread.

No lock file exists, so ``git add -A`` has nothing to pick up and a killed writer leaves
nothing behind (the kernel drops the lock with the process). Under the lock, every named
temporary file in the directory is an orphan of a killed writer: taking the lock
removes them (:mod:`context_doctor.write.atomic` names them with :data:`TEMP_MARK`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from context_doctor.errors import DoctorError

LOCK_TIMEOUT_SECONDS = 30.0
TEMP_MARK = "context-doctor"
_ORPHAN = re.compile(rf"^\..*\.{TEMP_MARK}-[0-9a-f]{{8}}\.tmp$", re.S)


@dataclass
class _Locked:
    path: Path
    fd: int
    depth: int = 1


class _HeldLocks(threading.local):
    """The directory locks one thread holds.

    Per thread, not per process: the history is cached from a reader thread while the
    main thread may write the same cache directory, and a lock one thread holds must
    not let another in as if it were re-entering.  Each thread takes its own flock on
    its own descriptor, and flock serialises two descriptors even within one process.
    """

    def __init__(self) -> None:
        self.by_directory: dict[tuple[int, int], _Locked] = {}


_held = _HeldLocks()


@contextmanager
def locked_directory(directory: Path) -> Iterator[int]:
    """An exclusive flock on ``directory`` (re-entrant within a thread); yields its fd.

    The lock is on the directory itself, so no lock file is ever created. On
    taking it, named temporary files left by a killed writer are removed: a live
    writer holds this lock for as long as its temporary file exists.
    """
    try:
        handle = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise DoctorError(
            f"cannot open the directory {directory}: {error.strerror or error}",
            "check that it exists and is readable",
        ) from error
    status = os.fstat(handle)
    key = (status.st_dev, status.st_ino)
    held_here = _held.by_directory
    if key in held_here:
        os.close(handle)
        held = held_here[key]
        held.depth += 1
        try:
            yield held.fd
        finally:
            held.depth -= 1
        return
    try:
        locked = _acquire(handle, directory)
    except BaseException:
        os.close(handle)
        raise
    held_here[key] = _Locked(directory, handle)
    try:
        if locked:  # only under the lock is every temporary file here an orphan
            _remove_orphans(handle)
        yield handle
    finally:
        del held_here[key]
        os.close(handle)  # closing the last descriptor releases the flock


def _acquire(handle: int, directory: Path) -> bool:
    """Take the lock; False where the filesystem has no flock (some network and FUSE mounts).

    Without the lock, writes still refuse a file changed since it was read; only
    the serialisation of two doctor writers (and the orphan sweep) is lost.
    """
    deadline = time.monotonic() + LOCK_TIMEOUT_SECONDS
    delay = 0.001
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as error:
            if error.errno in (errno.ENOLCK, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):
                return False
            if not isinstance(error, BlockingIOError):
                raise DoctorError(
                    f"cannot lock {directory} for writing: {error.strerror or error}",
                    "check the directory",
                ) from error
            if time.monotonic() > deadline:
                raise DoctorError(
                    f"another context-doctor writer has held the lock on {directory} for "
                    f"{LOCK_TIMEOUT_SECONDS:g} s",
                    "wait for it to finish, or find the stuck process",
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


def _remove_orphans(directory: int) -> None:
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if _ORPHAN.match(name):
            with suppress(OSError):
                os.unlink(name, dir_fd=directory)
