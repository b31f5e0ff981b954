"""What the write path does to directories and names: make them, move a file aside, remove one.

The same rules as a write (:mod:`context_doctor.write.atomic`): every caller names the
directory the path must stay in (``within=``), nothing is followed through a symlink,
each step runs under the directory lock, and the directory is fsynced after a rename or
an unlink.
"""

from __future__ import annotations

import os
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.guards.contain import inside
from context_doctor.write.atomic import (
    WriteRefused,
    _fsync_directory,
    _parent,
    _require_within,
    _write_error,
)
from context_doctor.write.lock import locked_directory


def ensure_directory(path: Path, *, within: Path | None) -> None:
    """``mkdir -p`` for the doctor's own directories (caches, backups under the git directory).

    With ``within``, each missing directory is made one at a time below it, and one
    that exists must resolve inside it: a symlinked component cannot carry the new
    directories (and what is later written into them) elsewhere.
    """
    if within is None:  # USER_NAMED
        _make_directories(path)
        return
    absolute = Path(os.path.abspath(path))
    root = Path(os.path.abspath(within))
    _make_directories(root)  # the caller's own directory: trusted, made as asked
    if not absolute.is_relative_to(root):
        if inside(absolute, within):  # the same place spelled through a link
            absolute = Path(os.path.realpath(absolute))
            root = Path(os.path.realpath(within))
        else:
            raise WriteRefused(
                "outside",
                f"the directory {path} lies outside {within}; "
                "the doctor never writes outside the directory it was given",
            )
    current = root
    for part in absolute.relative_to(root).parts:
        current = current / part
        if not os.path.lexists(current):
            _make_directories(current, parents=False)
        if not inside(current, within):
            raise WriteRefused(
                "outside",
                f"{current} resolves to {os.path.realpath(current)}, outside {within}; "
                "the doctor never writes outside the directory it was given",
            )


def _make_directories(path: Path, *, parents: bool = True) -> None:
    try:
        path.mkdir(parents=parents, exist_ok=True)
    except FileExistsError as error:
        raise DoctorError(f"{path} exists and is not a directory", "move it aside") from error
    except OSError as error:
        raise DoctorError(
            f"cannot create the directory {path}: {error.strerror or error}",
            "check the permissions of its parent",
        ) from error


def move_aside(path: Path, destination: Path, *, within: Path | None) -> None:
    """Rename ``path`` (a file or a link, never followed) to a new name in the same directory.

    Refuses (rule ``exists``) when ``destination`` exists. Used to keep what a
    writer replaces (a hook that is not ours) as a backup.
    """
    if _parent(destination).resolve() != _parent(path).resolve():
        raise ValueError("move_aside keeps the file in its directory")
    _require_within(path, within)
    with locked_directory(_parent(path)) as directory:
        try:
            os.link(
                path.name,
                destination.name,
                src_dir_fd=directory,
                dst_dir_fd=directory,
                follow_symlinks=False,
            )
            os.unlink(path.name, dir_fd=directory)
        except FileExistsError as error:
            raise WriteRefused("exists", f"{destination} already exists") from error
        except OSError as error:
            raise _write_error(path, error) from error
        _fsync_directory(directory)


def remove_file(path: Path, *, within: Path | None) -> None:
    """Delete ``path`` (a file or a link, never followed) under the directory lock; fsync it.

    Used by ``hook uninstall`` for a hook the doctor wrote; a missing file is
    already removed.
    """
    _require_within(path, within)
    with locked_directory(_parent(path)) as directory:
        try:
            os.unlink(path.name, dir_fd=directory)
        except FileNotFoundError:
            return
        except OSError as error:
            raise _write_error(path, error) from error
        _fsync_directory(directory)
