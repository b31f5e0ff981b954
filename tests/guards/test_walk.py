"""The doctor's one directory walk (context_doctor/guards/walk.py): iterative, never through a
symlinked directory, what it cannot look at collected, never raised."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import write_files

from context_doctor.guards.walk import Walk, walk_files


def _markdown(name: str) -> bool:
    return name.endswith(".md")


def _not_dotted(name: str) -> bool:
    return not name.startswith(".")


def _relative(top: Path, walk: Walk) -> list[tuple[str, bool]]:
    """Each file found, relative to ``top``, and whether it is a regular one."""
    return [
        (Path(path).relative_to(top).as_posix(), path not in walk.irregular) for path in walk.files
    ]


def test_wanted_files_are_found_through_the_entered_directories(tmp_path: Path) -> None:
    top = write_files(
        tmp_path / "project",
        {
            "CONTEXT.md": "# Context\n",
            "notes.txt": "not wanted\n",
            "docs/plan.md": "# Plan\n",
            "docs/deep/er/log.md": "# Log\n",
            ".hidden/secret.md": "# pruned with its folder\n",
            ".dotted.md": "# a dotted file is a file, not a folder\n",
        },
    )
    walk = walk_files(top, wanted=_markdown, enter=_not_dotted, order=str)
    assert _relative(top, walk) == [
        (".dotted.md", True),
        ("CONTEXT.md", True),
        ("docs/deep/er/log.md", True),
        ("docs/plan.md", True),
    ]
    assert walk.blind == []


def test_a_symlinked_directory_is_never_entered(tmp_path: Path) -> None:
    outside = write_files(tmp_path / "outside", {"private.md": "# not the project's\n"})
    top = write_files(tmp_path / "project", {"CONTEXT.md": "# Context\n"})
    (top / "linked").symlink_to(outside, target_is_directory=True)
    (top / "loop").symlink_to(top, target_is_directory=True)
    walk = walk_files(top, wanted=_markdown, regular_only=False, order=str)
    assert _relative(top, walk) == [("CONTEXT.md", True)]


def test_a_file_that_is_no_regular_one_is_reported_only_when_asked(tmp_path: Path) -> None:
    outside = write_files(tmp_path / "outside", {"shared.md": "# shared\n"})
    top = write_files(tmp_path / "project", {"CONTEXT.md": "# Context\n"})
    (top / "shared.md").symlink_to(outside / "shared.md")
    (top / "dangling.md").symlink_to(tmp_path / "gone.md")
    os.mkfifo(top / "pipe.md")
    regular = walk_files(top, wanted=_markdown, order=str)
    assert _relative(top, regular) == [("CONTEXT.md", True)]
    every = walk_files(top, wanted=_markdown, regular_only=False, order=str)
    assert _relative(top, every) == [
        ("CONTEXT.md", True),
        ("dangling.md", False),
        ("pipe.md", False),
        ("shared.md", False),
    ]


def test_a_directory_with_a_wanted_name_is_entered_not_reported(tmp_path: Path) -> None:
    top = write_files(tmp_path / "project", {"odd.md/inside.md": "# inside\n"})
    walk = walk_files(top, wanted=_markdown, regular_only=False)
    assert _relative(top, walk) == [("odd.md/inside.md", True)]


def test_the_order_is_the_callers(tmp_path: Path) -> None:
    top = write_files(tmp_path / "project", {"a.md": "", "a/b.md": "", "a-b.md": ""})
    by_string = walk_files(top, wanted=_markdown, order=str)
    assert _relative(top, by_string) == [("a-b.md", True), ("a.md", True), ("a/b.md", True)]
    by_component = walk_files(top, wanted=_markdown, order=lambda path: path.split("/"))
    assert _relative(top, by_component) == [
        ("a/b.md", True),
        ("a-b.md", True),
        ("a.md", True),
    ]
    unordered = walk_files(top, wanted=_markdown)
    assert sorted(_relative(top, unordered)) == sorted(_relative(top, by_string))


def test_a_top_that_cannot_be_listed_is_a_blind_spot(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert walk_files(missing, wanted=_markdown) == ([], set(), [str(missing)])
    plain = tmp_path / "plain.md"
    plain.write_text("# a file, not a folder\n", encoding="utf-8")
    assert walk_files(plain, wanted=_markdown) == ([], set(), [str(plain)])


# -- a path past the system's limit, and depth ----------------------------------------

LONG_NAME = "n" * 200
LONG_LEVELS = 25  # 25 x 201 characters: past Linux's 4,096-byte PATH_MAX


@pytest.fixture
def past_the_path_limit(tmp_path: Path) -> Iterator[Path]:
    """A chain of long folder names built through directory descriptors (a path to its
    bottom is too long to name), removed the same way."""
    top = tmp_path / "project"
    top.mkdir()
    (top / "CONTEXT.md").write_text("# Context\n", encoding="utf-8")
    descriptors = [os.open(top, os.O_RDONLY)]
    try:
        for _ in range(LONG_LEVELS):
            os.mkdir(LONG_NAME, dir_fd=descriptors[-1])
            descriptors.append(os.open(LONG_NAME, os.O_RDONLY, dir_fd=descriptors[-1]))
        yield top
    finally:
        for parent in reversed(descriptors[:-1]):
            os.close(descriptors.pop())
            os.rmdir(LONG_NAME, dir_fd=parent)
        os.close(descriptors.pop())


def test_a_folder_past_the_path_limit_is_a_blind_spot_never_an_error(
    past_the_path_limit: Path,
) -> None:
    walk = walk_files(past_the_path_limit, wanted=_markdown)
    assert _relative(past_the_path_limit, walk) == [("CONTEXT.md", True)]
    assert len(walk.blind) == 1
    assert len(walk.blind[0]) > 4096
    assert walk.blind[0].startswith(str(past_the_path_limit / LONG_NAME))


NESTED_LEVELS = 1_100


@pytest.fixture
def deeply_nested(tmp_path: Path) -> Iterator[Path]:
    top = tmp_path / "project"
    levels = [top]
    top.mkdir()
    for _ in range(NESTED_LEVELS):  # one level at a time: makedirs recurses
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    bottom = levels[-1] / "bottom.md"
    bottom.write_text("# Bottom\n", encoding="utf-8")
    yield top
    bottom.unlink()
    for level in reversed(levels[1:]):  # pytest's own cleanup would recurse once per level
        level.rmdir()


def test_1100_nested_folders_are_walked_without_recursing(deeply_nested: Path) -> None:
    walk = walk_files(deeply_nested, wanted=_markdown)
    assert _relative(deeply_nested, walk) == [
        ("/".join(["d"] * NESTED_LEVELS) + "/bottom.md", True)
    ]
    assert walk.blind == []
