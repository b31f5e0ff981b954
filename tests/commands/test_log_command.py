"""``context-doctor log add``: exit 0 written, 1 refused (every file untouched), 2 usage."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import Doctor

CONTEXT = "# Atlas\n\n**Status:** Active\n**Last session:** 2026-06-18\n\n## Notes\nx\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "projects" / "atlas"
    (root / "sessions").mkdir(parents=True)
    (root / "CONTEXT.md").write_text(CONTEXT)
    (root / "sessions" / "2026-06.md").write_text(
        "# Session Archive — June 2026\n\n## 2026-06-18 — a\n"
    )
    return root


def test_log_add_with_set_header_writes_the_entry_and_the_header(
    doctor: Doctor, tmp_path: Path
) -> None:
    root = project(tmp_path)
    (tmp_path / "entry.md").write_bytes(b"Ported the query path.  \n\t- detail\n")
    run = doctor(
        "log",
        "add",
        "projects/atlas",
        "--date",
        "2026-06-20",
        "--title",
        "query path",
        "--text-file",
        "entry.md",
        "--set-header",
        "--today",
        "2026-06-21",
        cwd=tmp_path,
    )
    assert run.exit_code == 0, run.stderr
    assert run.stdout == (
        "logged 2026-06-20: wrote projects/atlas/CONTEXT.md (body currency unverifiable), "
        "projects/atlas/sessions/2026-06.md\n"
    )
    assert (
        (root / "sessions" / "2026-06.md")
        .read_bytes()
        .endswith(
            b"## 2026-06-20 \xe2\x80\x94 query path\n\nPorted the query path.  \n\t- detail\n"
        )
    )
    assert "**Last session:** 2026-06-20\n" in (root / "CONTEXT.md").read_text()


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--date", "2026-06-22", "--title", "x"], 1, "refused [date-in-future]"),
        (["--date", "2026-06-18", "--title", "A"], 1, "refused [duplicate-entry]"),
        (["--date", "2026-06-31", "--title", "x"], 2, "not a YYYY-MM-DD date"),
        (["--date", "2026-06-20", "--title", "x", "--text", "-"], 2, "not UTF-8"),
    ],
    ids=["future", "duplicate", "bad-date", "stdin-not-utf8"],
)
def test_log_add_refusals_and_bad_input_touch_nothing(
    doctor: Doctor, tmp_path: Path, args: list[str], code: int, says: str
) -> None:
    root = project(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    run = doctor(
        "log", "add", str(root), *args, "--today", "2026-06-21", input=b"\xff\xfe", cwd=tmp_path
    )
    assert run.exit_code == code
    assert says in run.stderr
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_log_add_help_shows_a_worked_example(doctor: Doctor) -> None:
    help_text = doctor("log", "add", "--help").stdout
    assert "Example" in help_text and "context-doctor log add" in help_text
