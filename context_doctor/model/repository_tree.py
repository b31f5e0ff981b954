"""The repository's tree as references are resolved against it (docs/references.md "Resolving").

Paths are repository-relative POSIX strings. A path *resolves* when it names a file or a
folder of the work tree; symlinks inside the repository are followed (a folder linked to
another folder of the tree is that folder), and one whose target leaves the repository is
never followed: such a path is *outside*, counted and not judged. An empty folder resolves
nothing (git keeps no folder without files: a fresh clone would not have it). Nothing here reads a
file's bytes except the few a command names (a ``package.json``, a ``Makefile``), each
through the bounded reader and only when inside the repository.

One instance per repository and run; every answer is kept.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
from functools import cached_property
from pathlib import Path

from context_doctor.git.facts import RepositoryFacts
from context_doctor.guards.limits import TooLarge, read_limited
from context_doctor.guards.text import decode_utf8

FILE = "file"
FOLDER = "folder"
OUTSIDE = "outside"

MAX_RECIPE_FILE_BYTES = 1 << 20
_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.\-/][A-Za-z0-9_.\-/ \t]*?)\s*::?(?![=])", re.M)
_JUST_RECIPE = re.compile(r"^@?([A-Za-z0-9_][A-Za-z0-9_\-]*)(?:[ \t][^:\n=]*)?:(?![=])", re.M)
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z0-9_\-]+)\s*:=", re.M)
_MAKE_UNKNOWABLE = re.compile(r"^\s*-?s?include\s|^[^#\n]*%[^\n]*:|^[^#\n]*\$[({][^\n]*:", re.M)
_JUST_UNKNOWABLE = re.compile(r"^\s*(?:import|mod)\b|^\s*set\s+fallback", re.M)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")


class RepositoryTree:
    """What resolution asks of one repository's work tree, each answer asked once."""

    def __init__(self, facts: RepositoryFacts) -> None:
        self.facts = facts
        self.top = facts.repository.toplevel
        self._kinds: dict[str, str | None] = {}
        self._real_top = os.path.realpath(self.top)
        self._scripts: dict[str, frozenset[str] | None] = {}
        self._recipes: dict[tuple[str, str], frozenset[str] | None] = {}

    def kind(self, relative: str) -> str | None:
        """:data:`FILE`, :data:`FOLDER`, :data:`OUTSIDE` (it leads out of the repository), or
        None (nothing there)."""
        found = self._kinds.get(relative, "?")
        if found != "?":
            return found
        self._kinds[relative] = found = self._kind(relative)
        return found

    def _kind(self, relative: str) -> str | None:
        if relative in ("", "."):
            return FOLDER
        if relative.startswith("../") or relative == ".." or relative.startswith("/"):
            return OUTSIDE
        path = os.path.join(self.top, relative)
        try:
            mode = os.lstat(path).st_mode
        except (OSError, ValueError):
            # A missing name, or a folder on the way that is a link: resolve the parent.
            parent = posixpath.dirname(relative)
            if parent and self.kind(parent) == OUTSIDE:
                return OUTSIDE
            if not self._has_link_on_the_way(relative):
                return None
            return self._followed(path)
        if stat.S_ISLNK(mode):
            return self._followed(path)
        if stat.S_ISDIR(mode):
            return FOLDER if _holds_something(path) else None
        return FILE  # a regular file, or a FIFO or device: a name that is there

    def _has_link_on_the_way(self, relative: str) -> bool:
        parts = relative.split("/")[:-1]
        for end in range(1, len(parts) + 1):
            try:
                if stat.S_ISLNK(os.lstat(os.path.join(self.top, *parts[:end])).st_mode):
                    return True
            except OSError:
                return False
        return False

    def _followed(self, path: str) -> str | None:
        """Where a link (or a path through one) leads, when that is inside the repository."""
        try:
            real = os.path.realpath(path, strict=True)
        except (OSError, RuntimeError, ValueError):
            return None  # dangling, or a loop
        if real != self._real_top and not real.startswith(self._real_top + os.sep):
            return OUTSIDE
        try:
            mode = os.stat(real).st_mode
        except OSError:
            return None
        if stat.S_ISDIR(mode):
            return FOLDER if _holds_something(real) else None
        return FILE

    @cached_property
    def tracked(self) -> frozenset[str]:
        return self.facts.tracked_paths

    @cached_property
    def _names(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for path in self.tracked:
            found.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return found

    def named(self, name: str) -> list[str]:
        """The tracked files called ``name``, in any folder."""
        return sorted(self._names.get(name, ()))

    def ends_with(self, tail: str) -> bool:
        """A tracked path ends with ``/tail`` (or is inside a folder that does): shorthand for a
        package's own path (``src/tools/`` meaning ``src/pkg/tools/``)."""
        tail = tail.strip("/")
        if not tail:
            return False
        name = tail.rsplit("/", 1)[-1]
        for path in self._names.get(name, ()):
            if path == tail or path.endswith("/" + tail):
                return True
        return "/" + tail + "/" in self._folder_paths

    @cached_property
    def _folder_paths(self) -> str:
        """Every tracked file's folder, ``/``-framed, in one string (a folder shorthand is
        asked a few times a run; a substring search of one string is the cheap answer)."""
        return "\n".join(
            sorted({"/" + path.rsplit("/", 1)[0] + "/" for path in self.tracked if "/" in path})
        )

    def ignored(self, paths: list[str]) -> frozenset[str]:
        """Which of ``paths`` the repository's ignore rules match (as a file or a folder)."""
        return self.facts.ignored(paths)

    # -- what commands name ------------------------------------------------------------

    def _read(self, relative: str, limit: int) -> str | None:
        if self.kind(relative) != FILE:
            return None
        try:
            text, _ = decode_utf8(read_limited(Path(self.top, relative), limit))
        except (OSError, TooLarge):
            return None
        return text

    def package_scripts(self, folder: str) -> frozenset[str] | None:
        """The scripts of ``folder/package.json``; None when there is none or it cannot be read."""
        if folder not in self._scripts:
            found: frozenset[str] | None = None
            text = self._read(posixpath.join(folder, "package.json") if folder else "package.json",
                              MAX_RECIPE_FILE_BYTES)  # fmt: skip
            if text is not None:
                try:
                    data = json.loads(text)
                except (ValueError, RecursionError):
                    data = None
                scripts = data.get("scripts") if isinstance(data, dict) else None
                found = frozenset(scripts) if isinstance(scripts, dict) else frozenset()
            self._scripts[folder] = found
        return self._scripts[folder]

    @cached_property
    def every_package_script(self) -> frozenset[str]:
        """The scripts of every tracked ``package.json`` (a filtered or workspace run)."""
        found: set[str] = set()
        for path in self.named("package.json"):
            if "node_modules/" in path:
                continue
            scripts = self.package_scripts(posixpath.dirname(path))
            found |= scripts or set()
        return frozenset(found)

    def recipes(self, folder: str, tool: str) -> tuple[str, frozenset[str]] | None:
        """(the recipe file, its targets) for ``make``/``just`` run in ``folder``; None when
        there is no such file or its targets cannot be known (an include, a pattern rule)."""
        key = (folder, tool)
        if key in self._recipes:
            cached = self._recipes[key]
            return None if cached is None else (self._recipe_files[key], cached)
        names = MAKEFILES if tool == "make" else JUSTFILES
        result: frozenset[str] | None = None
        for name in names:
            relative = posixpath.join(folder, name) if folder else name
            text = self._read(relative, MAX_RECIPE_FILE_BYTES)
            if text is None:
                continue
            self._recipe_files[key] = relative
            result = _targets(text, tool)
            break
        self._recipes[key] = result
        return None if result is None else (self._recipe_files[key], result)

    @cached_property
    def _recipe_files(self) -> dict[tuple[str, str], str]:
        return {}


def _holds_something(folder: str) -> bool:
    """An empty folder (git keeps none: a clone would not have it) resolves nothing."""
    try:
        with os.scandir(folder) as entries:
            return next(entries, None) is not None
    except OSError:
        return False


def _targets(text: str, tool: str) -> frozenset[str] | None:
    if tool == "make":
        if _MAKE_UNKNOWABLE.search(text):
            return None
        found: set[str] = set()
        for match in _MAKE_TARGET.finditer(text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            if (
                text[line_start : match.start()].strip()
                or text[line_start : line_start + 1] in "\t"
            ):
                continue
            found.update(match.group(1).split())
        return frozenset(found)
    if _JUST_UNKNOWABLE.search(text):
        return None
    return frozenset(m.group(1) for m in _JUST_RECIPE.finditer(text)) | frozenset(
        m.group(1) for m in _JUST_ALIAS.finditer(text)
    )
