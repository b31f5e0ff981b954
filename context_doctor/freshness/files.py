"""Which files of a tree follow pai-freshness-v1, and each one's frontmatter as read.

A file is graded when its leading frontmatter block names the convention
(:func:`declares_convention` looks at its first 4 KiB); :func:`discover_files` finds them
with the doctor's one directory walk, and :func:`read_file` reads one (bounded, UTF-8).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from context_doctor.freshness.frontmatter import (
    CONVENTION,
    Frontmatter,
    read_frontmatter,
    split_frontmatter,
)
from context_doctor.guards.limits import TooLarge, read_limited, resolves_within
from context_doctor.guards.text import BOM
from context_doctor.guards.walk import Walk, walk_files

SKIPPED_DIRECTORIES = frozenset({".git", "node_modules", "Backups", "__pycache__", ".venv"})


HEAD_BYTES = 4096  # the first look at a file: does its frontmatter name the convention?


@dataclass
class FileRead:
    """One file's frontmatter as read, before derived files look at their sources."""

    frontmatter: Frontmatter | None
    problem: str | None
    text: str | None


def read_file(path: Path) -> FileRead:
    try:
        raw = read_limited(path)
    except TooLarge as error:
        return FileRead(None, str(error), None)
    except OSError as error:
        return FileRead(None, f"cannot be read ({error.strerror or error})", None)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return FileRead(None, f"is not valid UTF-8 (byte {error.start})", None)
    frontmatter, problem = read_frontmatter(text)
    return FileRead(frontmatter, problem, text)


def declares_convention(path: Path | str) -> bool:
    """Cheap first look: does the file open with a block that names the convention?"""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return False  # a FIFO would block the first read; read_file reports it
        head = os.read(handle, HEAD_BYTES)
    except OSError:
        return False
    finally:
        os.close(handle)
    return _head_declares(head)


def declares_in_bytes(raw: bytes) -> bool:
    """:func:`declares_convention`'s answer for a file whose bytes (or first 4 KiB) are ``raw``."""
    if not raw.startswith((b"---", b"\xef\xbb\xbf---")):
        return False  # the common case, decided without decoding (or copying) anything
    return _head_declares(raw[:HEAD_BYTES])


def _head_declares(head: bytes) -> bool:
    if not head.startswith((b"---", b"\xef\xbb\xbf---")):
        return False  # the common case, decided without decoding anything
    text = head.decode("utf-8", "replace").removeprefix(BOM)
    try:
        parts = split_frontmatter(text)
    except ValueError:  # never closed (or longer than the first look): all of it is the block
        return CONVENTION in text
    # Only the leading block counts: another tool's frontmatter over a body that quotes
    # the convention (documentation of it, say) does not make the file a graded one.
    # A block declaring another freshness convention is looked at too, to be named.
    return parts is not None and (CONVENTION in parts[1] or _declares_other(parts[1]))


_CONVENTION_LINE = re.compile(r"^convention[ \t]*:[ \t]*(.*)$", re.MULTILINE)


_REVIEW_KEY = re.compile(r"^last_(?:reviewed|updated)[ \t]*:", re.MULTILINE)


def _declares_other(block: str) -> bool:
    """A ``convention:`` other than pai-freshness-v1 on a block that is about freshness (its
    value names freshness, or the block carries review dates); other tools' frontmatter is
    not ours to judge."""
    found = _CONVENTION_LINE.search(block)
    if found is None:
        return False
    return "freshness" in found.group(1).lower() or _REVIEW_KEY.search(block) is not None


def _markdown_files(root: Path) -> Walk:
    """Every ``*.md`` name under ``root`` (dot and skipped directories pruned), in path
    order (component by component, as ``Path`` sorts); those the walk did not reach as a
    regular file without crossing a symlink are its ``irregular`` ones.

    The doctor's one walk (:mod:`context_doctor.guards.walk`): a symlinked directory is never
    entered, a directory that cannot be listed is passed over.  A regular file reached
    that way lies inside ``root`` by construction, so it needs no ``realpath`` of its own.
    """
    return walk_files(
        root,
        wanted=lambda name: name.endswith(".md"),
        enter=_entered,
        regular_only=False,
        order=lambda path: path.split("/"),
    )


def _entered(name: str) -> bool:
    return not name.startswith(".") and name not in SKIPPED_DIRECTORIES


def discover_files(root: Path, known: Mapping[str, bool] | None = None) -> Iterator[Path]:
    """Markdown files under ``root`` that declare the convention (dot directories skipped).

    In path order (component by component, as ``Path`` sorts).  A symlink out of the
    tree is never opened: only a file reached through a symlink is resolved.  ``known``:
    the answer for files whose bytes the run has already read (the tier files, read by
    ``store.prepare``), by absolute path: they are not opened again.
    """
    known = known or {}
    walk = _markdown_files(root)
    for name in walk.files:
        if name not in walk.irregular:
            declares = known.get(name)
            if declares if declares is not None else declares_convention(name):
                yield Path(name)
            continue
        path = Path(name)
        if path.is_file() and resolves_within(path, root) and declares_convention(path):
            yield path
