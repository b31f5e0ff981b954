"""Artifacts (``resources/artifacts/*.md``) and the scripts they cite (``resources/scripts/``).

A **citation** is ``resources/scripts/…`` (project-relative) or ``../scripts/…``
(relative to the artifact) not preceded by a path character, so
``projects/x/resources/scripts/y`` or ``../../scripts/y`` is not one.  It ends
at whitespace, a quote, a bracket, ``|``, ``*``, ``,`` or ``;``; a trailing
``.``/``:``/``!``/``?`` and a ``#fragment`` or ``?query`` are dropped.  Code
spans and fences count: an invocation in a code block is a citation too.

A citation is resolved **lexically** (``..`` folded without asking the file
system) and then walked component by component with ``lstat``, so nothing
outside the project is ever followed: it is a problem when it escapes
``resources/scripts/``, traverses a symlink (``resources``,
``resources/scripts`` and every component below count), does not exist, is
neither a regular file nor a directory, or is an empty directory (one with no
entry other than dot-files such as ``.gitkeep``).  A non-empty directory is fine.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from context_doctor.model.documents import Document
from context_doctor.model.state_file import symlink_on_the_way

ARTIFACTS_DIR = "resources/artifacts"
SCRIPTS_DIR = "resources/scripts"
_PATH_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-~/\\"
)
_PREFIXES = ("resources/scripts/", "../scripts/")
_STOP = frozenset(" \t`'\"<>()[]{}|*,;")
_TRAILING = ".:!?"


@dataclass(frozen=True)
class Citation:
    cited: str  # as written (trailing punctuation dropped)
    line: int
    problem: str | None


@dataclass(frozen=True)
class Artifact:
    rel_path: str
    citations: tuple[Citation, ...]
    unreadable: str | None = None


def citations_in(lines: list[str]) -> list[tuple[str, int]]:
    """``(citation, line)`` for every script citation, first occurrence of each only."""
    found: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        for prefix in _PREFIXES:
            start = line.find(prefix)
            while start != -1:
                if start == 0 or line[start - 1] not in _PATH_CHARACTERS:
                    end = start + len(prefix)
                    while end < len(line) and line[end] not in _STOP:
                        end += 1
                    cited = line[start:end].split("#", 1)[0].split("?", 1)[0].rstrip(_TRAILING)
                    found.setdefault(cited, number)
                start = line.find(prefix, start + 1)
    return sorted(found.items(), key=lambda item: (item[1], item[0]))


def citation_problem(directory: Path, cited: str) -> str | None:
    """Why ``cited`` (from an artifact of the project at ``directory``) is not a script."""
    relative = cited if cited.startswith("resources/") else f"{ARTIFACTS_DIR}/{cited}"
    normal = posixpath.normpath(relative)
    if normal != SCRIPTS_DIR and not normal.startswith(SCRIPTS_DIR + "/"):
        return f"escapes {SCRIPTS_DIR}/ (resolves to `{normal}`)"
    linked = symlink_on_the_way(directory, normal)
    if linked is not None:
        return f"traverses a symlink (`{linked}`)"
    try:
        mode = os.lstat(directory / normal).st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as error:
        return f"cannot be examined ({error.strerror or error.__class__.__name__})"
    if stat.S_ISDIR(mode):
        try:
            entries = [name for name in os.listdir(directory / normal) if not name.startswith(".")]
        except OSError as error:
            return f"cannot be listed ({error.strerror or error.__class__.__name__})"
        return None if entries else "is an empty directory"
    if not stat.S_ISREG(mode):
        return "is not a regular file"
    return None


def read_artifacts(directory: Path, relative: Callable[[Path], str]) -> list[Artifact]:
    """Every Markdown file directly under ``resources/artifacts/``, with its citations checked."""
    container = directory / ARTIFACTS_DIR
    linked = symlink_on_the_way(directory, ARTIFACTS_DIR)
    if linked is not None:
        return [Artifact(relative(directory / linked), (), "is a symlink; artifacts are not read")]
    try:
        names = sorted(os.listdir(container))
    except OSError:
        return []
    found: list[Artifact] = []
    for name in names:
        if not name.endswith(".md"):
            continue
        path = container / name
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            found.append(Artifact(relative(path), (), "is a symlink; it is not read"))
            continue
        if not stat.S_ISREG(mode):
            continue
        document = Document(path, relative(path))
        if document.problem is not None:
            found.append(Artifact(document.rel_path, (), document.problem))
            continue
        found.append(
            Artifact(
                document.rel_path,
                tuple(
                    Citation(cited, line, citation_problem(directory, cited))
                    for cited, line in citations_in(document.lines)
                ),
            )
        )
    return found
