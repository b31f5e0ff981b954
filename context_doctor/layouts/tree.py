"""What a probe sees of a repository: its folders' listings and a few files' lines, read once.

Each detection probe (:mod:`.detect`) is a small pure function of a :class:`Tree`, so a
test hands a probe a tree of its own; the real one lists a folder the first time a
probe asks about it, and reads a file (bounded, :func:`context_doctor.guards.limits.read_limited`)
only when a probe needs its words (is a root ``CONTEXT.md`` working memory, does
``CLAUDE.md`` hold a ``## Current status`` section).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from context_doctor.guards.limits import TooLarge, read_limited
from context_doctor.guards.text import decode_utf8
from context_doctor.guards.text import lines as split_lines


class Tree(Protocol):
    """The questions a probe may ask, by POSIX path relative to the tree's top."""

    def is_file(self, relative: str) -> bool: ...

    def is_dir(self, relative: str) -> bool: ...

    def names(self, relative: str) -> list[str]: ...

    def lines(self, relative: str) -> list[str] | None: ...


class DirectoryTree:
    """A :class:`Tree` over a directory on disk; symlinks count by what they lead to."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self._listings: dict[str, dict[str, bool] | None] = {}
        self._lines: dict[str, list[str] | None] = {}

    def _listing(self, relative: str) -> dict[str, bool] | None:
        """name -> is a directory, for the folder ``relative`` (None: no such folder)."""
        if relative in self._listings:
            return self._listings[relative]
        found: dict[str, bool] | None
        try:
            with os.scandir(self.top / relative if relative else self.top) as scan:
                found = {}
                for entry in scan:
                    try:
                        found[entry.name] = entry.is_dir()
                    except OSError:
                        found[entry.name] = False
        except OSError:
            found = None
        self._listings[relative] = found
        return found

    def _entry(self, relative: str) -> bool | None:
        folder, _, name = relative.rpartition("/")
        listing = self._listing(folder)
        return None if listing is None else listing.get(name)

    def is_file(self, relative: str) -> bool:
        return self._entry(relative) is False and (self.top / relative).is_file()

    def is_dir(self, relative: str) -> bool:
        return self._entry(relative) is True

    def names(self, relative: str) -> list[str]:
        return sorted(self._listing(relative) or ())

    def lines(self, relative: str) -> list[str] | None:
        if relative not in self._lines:
            text: str | None = None
            if self.is_file(relative):
                try:
                    text, _ = decode_utf8(read_limited(self.top / relative))
                except (OSError, TooLarge):
                    text = None
            self._lines[relative] = None if text is None else split_lines(text)
        return self._lines[relative]
