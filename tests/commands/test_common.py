"""What every command shares (commands/common.py): ``--debug`` shows the doctor's log lines.

The cache and the replay say why they were not used through plain ``logging``
(``context_doctor.cache``); ``--debug`` puts those lines on stderr for the one command,
and without it they reach any handler a caller installs (here pytest's ``caplog``).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from support import Doctor, MakeRepo

TODAY = "2026-06-20"
CORPUS = {
    "commits": [
        {
            "date": "2026-06-18T10:00:00+00:00",
            "files": {
                "projects/index.yaml": "projects:\n  - id: alpha\n",
                "projects/alpha/CONTEXT.md": "# Alpha\n\n**Status:** active\n",
            },
        }
    ]
}


def _damage_the_cache(root: Path) -> None:
    for path in (root / ".git" / "context-doctor" / "cache").iterdir():
        path.write_bytes(b"not a cache")


def test_debug_shows_why_the_cache_was_not_used_and_only_for_that_command(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(CORPUS)
    assert doctor("check", str(root), "--today", TODAY).exit_code in (0, 1)
    _damage_the_cache(root)
    debug = doctor("check", str(root), "--today", TODAY, "--debug")
    assert "context-doctor: cache: " in debug.stderr
    _damage_the_cache(root)
    quiet = doctor("check", str(root), "--today", TODAY)
    assert "context-doctor: cache: " not in quiet.stderr
    assert not logging.getLogger("context_doctor").handlers


def test_the_lines_are_plain_logging_records(
    make_repo: MakeRepo, doctor: Doctor, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_repo(CORPUS)
    doctor("check", str(root), "--today", TODAY)
    _damage_the_cache(root)
    with caplog.at_level(logging.DEBUG, logger="context_doctor.cache"):
        doctor("check", str(root), "--today", TODAY)
    assert any("ignored" in record.getMessage() for record in caplog.records)
    assert {record.name for record in caplog.records} == {"context_doctor.cache"}


# -- round three: an over-long path is exit 2 with one line ---------------------------


@pytest.mark.parametrize("shape", ["a 300-byte name", "3,000 parts"])
@pytest.mark.parametrize("command", ["check", "edit", "log"])
def test_an_over_long_path_is_exit_2_with_one_line(
    make_repo: MakeRepo, doctor: Doctor, shape: str, command: str
) -> None:
    files = {"projects/alpha/CONTEXT.md": "# Alpha\n"}
    root = make_repo({"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]})
    long = (
        root / "projects" / ("x" * 300)
        if shape == "a 300-byte name"
        else root.joinpath(*["a"] * 3_000)
    )
    arguments = {
        "check": ["check", str(long), "--today", "2026-06-10"],
        "edit": ["edit", "set-field", str(long / "CONTEXT.md"), "--field", "Phase", "--value", "x"],
        "log": ["log", "add", str(long), "--date", "2026-06-09", "--title", "x"],
    }[command]
    run = doctor(*arguments)
    assert run.exit_code == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert "internal error" not in run.stderr
    assert "too long" in run.stderr
