"""One ``os.scandir`` of a project's directory, asked instead of the file system.

A project's tier layout (CONTEXT.md, REFERENCE.md, sessions/, reference/, the logs
and topics in them) used to be learned one ``stat``, ``lstat``, ``glob`` and
``realpath`` at a time, by several properties, and again by several checks: on a
2,000-project corpus about 80,000 ``stat`` and 146,000 ``lstat`` calls and as many
``pathlib`` objects.  A :class:`Listing` reads a directory once and answers from each
entry's type, which ``scandir`` reports without a ``stat``.

It gives exactly the answers ``pathlib`` gives, or asks ``pathlib``:

* an entry that is not a symlink: its type is the listing's (``is_file`` and
  ``is_dir`` follow symlinks, and there is none to follow);
* a symlink: asked of the file system, as before (dangling, looping and leaving
  symlinks keep their exact answers);
* a name the listing lacks: asked of the file system too, after one ``lexists``
  (remembered) says whether anything is there at all, since a case-insensitive file
  system finds ``CONTEXT.md`` under another spelling;
* a directory that cannot be listed: every question is asked of the file system.
"""

from __future__ import annotations

import os
from pathlib import Path


class Listing:
    """The entries of one directory, by name, read once."""

    __slots__ = ("_absent", "_markdown", "_paths", "_text", "directory", "entries", "listed")

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._text = str(directory)
        self._paths: dict[str, Path] = {}
        self._absent: dict[str, bool] = {}
        self._markdown: list[str] | None = None
        try:
            with os.scandir(directory) as scan:
                self.entries = {entry.name: entry for entry in scan}
            self.listed = True
        except OSError:  # missing, not a directory, not readable: ask the file system
            self.entries = {}
            self.listed = False

    def path(self, name: str) -> Path:
        """``directory / name``, one object per name (tier documents and paths share it)."""
        found = self._paths.get(name)
        if found is None:
            found = self._paths[name] = self.directory / name
        return found

    def plain(self, name: str) -> os.DirEntry[str] | None:
        """The entry named ``name`` when it is listed and is not a symlink."""
        entry = self.entries.get(name)
        if entry is None or entry.is_symlink():
            return None
        return entry

    def absent(self, name: str) -> bool:
        """Nothing at all is there under ``name`` (not even a dangling symlink)."""
        if name in self.entries:
            return False
        known = self._absent.get(name)
        if known is None:
            known = self._absent[name] = not os.path.lexists(os.path.join(self._text, name))
        return known

    def is_file(self, name: str) -> bool:
        """``(directory / name).is_file()``."""
        return self._is(name, directory=False)

    def is_dir(self, name: str) -> bool:
        """``(directory / name).is_dir()``."""
        return self._is(name, directory=True)

    def _is(self, name: str, *, directory: bool) -> bool:
        """A listed plain entry answers from the listing; one not there at all is neither;
        anything else (a symlink, a folder that could not be listed) is asked of the file
        system, following links."""
        entry = self.plain(name)
        if entry is not None:
            return (entry.is_dir if directory else entry.is_file)(follow_symlinks=False)
        if self.absent(name):
            return False
        path = self.path(name)
        return path.is_dir() if directory else path.is_file()

    def is_plain_dir(self, name: str) -> bool:
        """A listed directory that is not a symlink."""
        entry = self.plain(name)
        return entry is not None and entry.is_dir(follow_symlinks=False)

    def markdown_files(self) -> list[str]:
        """The names ``sorted(p for p in directory.glob("*.md") if p.is_file())`` gives.

        ``glob`` matches dot-files too and lists nothing from an unreadable directory;
        within one directory, paths sort as their names do.  Worked out once: the
        caller filters a copy.
        """
        if self._markdown is None:
            if not self.listed:
                found = [path.name for path in self.directory.glob("*.md") if path.is_file()]
            else:
                found = [n for n in self.entries if n.endswith(".md") and self.is_file(n)]
            self._markdown = sorted(found)
        return list(self._markdown)
