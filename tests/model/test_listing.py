"""A directory listing answers exactly what pathlib would (model/listing.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from context_doctor.model.listing import Listing

NAMES = [
    "CONTEXT.md",
    "REFERENCE.md",
    "sessions",
    "reference",
    "to-file.md",
    "to-dir",
    "dangling.md",
    "loop.md",
    "dir.md",
    ".hidden.md",
    "notes.txt",
    "caf\udce9.md",
    "missing.md",
]


def _layout(root: Path) -> Path:
    here = root / "project"
    (here / "sessions").mkdir(parents=True)
    (here / "reference").mkdir()
    (here / "dir.md").mkdir()
    for name in ("CONTEXT.md", "REFERENCE.md", ".hidden.md", "notes.txt"):
        (here / name).write_text("x\n")
    (here / "caf\udce9.md").write_bytes(b"x\n")  # a name that is not UTF-8
    (here / "to-file.md").symlink_to(here / "CONTEXT.md")
    (here / "to-dir").symlink_to(here / "sessions")
    (here / "dangling.md").symlink_to(here / "nowhere.md")
    (here / "loop.md").symlink_to(here / "loop.md")
    return here


def test_listing_answers_as_pathlib_does(tmp_path: Path) -> None:
    here = _layout(tmp_path)
    listing = Listing(here)
    assert listing.listed
    for name in NAMES:
        path = here / name
        assert listing.is_file(name) == path.is_file(), name
        assert listing.is_dir(name) == path.is_dir(), name
        assert listing.absent(name) == (not os.path.lexists(path)), name
        assert (listing.plain(name) is not None) == (path.exists() and not path.is_symlink()), name
        assert listing.path(name) == path and listing.path(name) is listing.path(name)
    assert listing.is_plain_dir("sessions") and not listing.is_plain_dir("to-dir")
    expected = sorted(path.name for path in here.glob("*.md") if path.is_file())
    assert listing.markdown_files() == expected
    assert "to-file.md" in expected and "dangling.md" not in expected and "dir.md" not in expected


def test_a_directory_that_cannot_be_listed_asks_the_file_system(tmp_path: Path) -> None:
    here = _layout(tmp_path)
    missing = Listing(here / "nothing-here")
    assert not missing.listed and missing.markdown_files() == []
    assert not missing.is_file("CONTEXT.md") and missing.absent("CONTEXT.md")
    not_a_directory = Listing(here / "CONTEXT.md")
    assert not not_a_directory.listed and not not_a_directory.is_dir("x")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads an unreadable directory anyway")
def test_an_unreadable_directory_lists_nothing_as_glob_does(tmp_path: Path) -> None:
    here = _layout(tmp_path)
    (here / "sessions" / "2025-01.md").write_text("x\n")
    (here / "sessions").chmod(0o300)
    try:
        listing = Listing(here / "sessions")
        assert not listing.listed
        assert listing.markdown_files() == sorted(p.name for p in (here / "sessions").glob("*.md"))
        assert listing.is_file("2025-01.md") == (here / "sessions" / "2025-01.md").is_file()
    finally:
        (here / "sessions").chmod(0o700)
