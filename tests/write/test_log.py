"""``log add`` (context_doctor.write.log): one entry, in date order, header moved in the same write."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from context_doctor import edit
from context_doctor.write.log import LogEntry, add_entry

NEWLINES = pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])
TODAY = date(2026, 6, 30)

CONTEXT = """# Atlas — Working Context

**Phase:** Build (round 3)
**Status:** Active
**Last session:** 2026-06-18 — rewrote the indexer

## Current State
- Query path next.
"""

LOG = """# Session Archive — June 2026

### 2026-06-02: kickoff

Started.

### 2026-06-18: indexer

Rewrote the indexer.
"""


def project(tmp_path: Path, nl: str = "\n") -> Path:
    root = tmp_path / "projects" / "atlas"
    (root / "sessions").mkdir(parents=True)
    (root / "CONTEXT.md").write_bytes(CONTEXT.replace("\n", nl).encode())
    (root / "sessions" / "2026-06.md").write_bytes(LOG.replace("\n", nl).encode())
    (tmp_path / "projects" / "index.yaml").write_bytes(
        "projects:\n  - id: atlas  # the search project\n    status: active\n    "
        "last_session: 2026-06-18\n".replace("\n", nl).encode()
    )
    return root


def files(tmp_path: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(tmp_path)): path.read_bytes()
        for path in sorted(tmp_path.rglob("*"))
        if path.is_file()
    }


@NEWLINES
def test_an_entry_lands_in_date_order_in_the_files_own_style(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    add_entry(LogEntry(root, date(2026, 6, 10), "design", "Settled the design.\n"), today=TODAY)
    expected = LOG.replace(
        "### 2026-06-18: indexer",
        "### 2026-06-10: design\n\nSettled the design.\n\n### 2026-06-18: indexer",
    )
    assert (root / "sessions" / "2026-06.md").read_bytes() == expected.replace("\n", nl).encode()
    add_entry(LogEntry(root, date(2026, 6, 20), "ship"), today=TODAY)
    assert (
        (root / "sessions" / "2026-06.md")
        .read_bytes()
        .endswith(f"Rewrote the indexer.{nl}{nl}### 2026-06-20: ship{nl}".encode())
    )


@NEWLINES
def test_a_new_month_file_gets_its_title_line(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    add_entry(LogEntry(root, date(2026, 5, 30), "planning"), today=TODAY)
    assert (root / "sessions" / "2026-05.md").read_bytes() == (
        f"# Session Archive — May 2026{nl}{nl}## 2026-05-30 — planning{nl}".encode()
    )


@NEWLINES
@pytest.mark.parametrize(
    ("day", "title", "rule"),
    [
        (date(2026, 7, 1), "tomorrow", "date-in-future"),
        (date(2026, 6, 18), "Indexer", "duplicate-entry"),
        (date(2026, 6, 18), "  indexer ", "duplicate-entry"),
    ],
    ids=["future", "duplicate", "duplicate-spacing"],
)
def test_refusals_leave_every_file_byte_identical(
    tmp_path: Path, nl: str, day: date, title: str, rule: str
) -> None:
    project(tmp_path, nl)
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(
            LogEntry(tmp_path / "projects" / "atlas", day, title), today=TODAY, set_header=True
        )
    assert refused.value.rule == rule
    assert files(tmp_path) == before


@NEWLINES
def test_set_header_moves_the_header_and_the_index_in_the_same_write(
    tmp_path: Path, nl: str
) -> None:
    root = project(tmp_path, nl)
    result = add_entry(
        LogEntry(root, date(2026, 6, 20), "query path", "Ported.\n"),
        today=TODAY,
        set_header=True,
    )
    assert sorted(item.path.name for item in result.files) == [
        "2026-06.md",
        "CONTEXT.md",
        "index.yaml",
    ]
    context = (root / "CONTEXT.md").read_bytes().decode()
    # The old summary described the old session: the header names the new one.
    assert f"**Last session:** 2026-06-20 — query path{nl}" in context
    index = (tmp_path / "projects" / "index.yaml").read_bytes().decode()
    assert f"last_session: 2026-06-20{nl}" in index and "# the search project" in index


def test_set_header_on_a_header_that_shares_its_line_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    context = root / "CONTEXT.md"
    context.write_text(CONTEXT.replace("indexer\n", "indexer **Owner:** Ana\n"))
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(LogEntry(root, date(2026, 6, 20), "x"), today=TODAY, set_header=True)
    assert refused.value.rule == "field-shares-line"
    assert files(tmp_path) == before


@NEWLINES
@pytest.mark.parametrize(
    ("index", "rule"),
    [
        ("projects: [\n", "index-unreadable"),
        ("projects: [{id: atlas, last_session: 2026-06-18}]\n", "index-unwritable"),
    ],
    ids=["not-yaml", "flow-style"],
)
def test_an_index_that_cannot_move_with_the_header_writes_nothing(
    tmp_path: Path, nl: str, index: str, rule: str
) -> None:
    root = project(tmp_path, nl)
    (tmp_path / "projects" / "index.yaml").write_bytes(index.replace("\n", nl).encode())
    before = files(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        add_entry(LogEntry(root, date(2026, 6, 20), "x"), today=TODAY, set_header=True)
    assert refused.value.rule == rule
    assert files(tmp_path) == before
