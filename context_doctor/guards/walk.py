"""One directory walk for every reader of a tree of notes (state hashes, freshness, vaults).

The audited tree is untrusted, so the walk is the same careful one everywhere:

- Iterative (a stack of directories, never recursion, unlike Python 3.11's ``os.walk``):
  1,100 nested folders are walked as far as the system lets a path reach, never a
  ``RecursionError``.
- A directory is entered only when it is one itself: a symlink to a directory is never
  followed (it could leave the tree or loop back into it).
- What cannot be looked at (a directory that cannot be listed, an entry whose type cannot
  be read) is collected in :attr:`Walk.blind`, never raised; a caller that reports blind
  spots shows them, one that does not leaves them out like an unreadable file.

What differs between the readers is a parameter: which directory names are entered,
which file names are wanted, whether a wanted name that is not a regular file (a
symlink, a FIFO) is reported for the caller to resolve, and the order of the files.
An entry whose name is neither entered nor wanted is passed over without a look.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple


class Walk(NamedTuple):
    """The wanted files under a top, and what the walk could not look at."""

    files: list[str]
    """Their paths: the top joined with the names that lead to each (``os.DirEntry.path``).
    One that is a regular file was reached without crossing a symlink: it lies inside the
    top by construction, so it needs no ``realpath`` of its own. (Plain strings, not a
    record per file: a record costs a microsecond or more each, and a warm run walks every
    source.)"""
    irregular: set[str]
    """The files reported that are not regular ones (only with ``regular_only=False``)."""
    blind: list[str]
    """Directories that could not be listed and entries whose type could not be read, as
    paths, in the order the walk met them."""


def _every(_name: str) -> bool:
    return True


def walk_files(
    top: str | os.PathLike[str],
    *,
    wanted: Callable[[str], bool],
    enter: Callable[[str], bool] = _every,
    regular_only: bool = True,
    order: Callable[[str], Any] | None = None,
) -> Walk:
    """Every file under ``top`` whose name is ``wanted``, through the directories whose
    name may be ``enter``-ed (symlinked directories never).

    ``regular_only``: report only regular files; when False, a wanted entry of another kind
    (a symlink to a file, a dangling one, a FIFO) is reported too, and named in
    :attr:`Walk.irregular`.
    ``order``: a sort key over the paths; None keeps the order of the walk (last directory
    found, first listed; entries in the order the system lists them).
    """
    files: list[str] = []
    irregular: set[str] = set()
    blind: list[str] = []
    pending = [os.fspath(top)]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            blind.append(directory)
            continue
        for entry in entries:
            name = entry.name
            enterable = enter(name)
            wanted_name = wanted(name)
            if not enterable and not wanted_name:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if enterable:
                        pending.append(entry.path)
                    continue
                # Asked only of a wanted name; it cannot fail once ``is_dir`` has answered
                # (both read the one ``lstat`` the entry keeps).
                regular = wanted_name and entry.is_file(follow_symlinks=False)
            except OSError:
                blind.append(entry.path)
                continue
            if regular:
                files.append(entry.path)
            elif wanted_name and not regular_only:
                files.append(entry.path)
                irregular.add(entry.path)
    if order is not None:
        files.sort(key=order)
    return Walk(files, irregular, blind)
