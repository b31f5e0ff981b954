"""interrupted-edit: a batch of ``edit apply`` killed mid-write, and ``edit recover``.

The journals here are real: ``edit apply`` on a real repository, interrupted at the
write path's own seams after (or before) its commit point.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, template_tail

from context_doctor import edit
from context_doctor.write import batch as batch_write

TODAY = "2026-06-20"
CONTEXT = (
    "# Atlas — Working Context\n\n**Status:** Active — search index rewrite\n"
    "**Last session:** 2026-06-18\n\n## Current State\n- Indexer rewritten; query path next.\n"
    + template_tail()
)
LOG = "# Sessions 2026-06\n\n## 2026-06-18 — indexer\n\nRewrote the indexer.\n"


class Interrupted(Exception):
    """The writer stops here, as a killed process would."""


@pytest.fixture
def kb(make_repo: MakeRepo) -> Path:
    files = {
        "projects/index.yaml": "projects:\n  - id: atlas\n    status: active\n"
        "    last_session: 2026-06-18\n",
        "projects/atlas/CONTEXT.md": CONTEXT,
        "projects/atlas/sessions/2026-06.md": LOG,
    }
    commit = {"date": "2026-06-18T10:00:00+00:00", "message": "atlas: indexer", "files": files}
    return make_repo({"remote": True, "commits": [commit]})


def batch(project: Path) -> list[dict[str, Any]]:
    return [
        {
            "op": "replace",
            "file": str(project / "CONTEXT.md"),
            "anchor": "- Indexer rewritten; query path next.",
            "replacement": "- Indexer rewritten; query path ported.",
        },
        {
            "op": "replace",
            "file": str(project / "sessions" / "2026-06.md"),
            "anchor": "Rewrote the indexer.\n",
            "replacement": "Rewrote the indexer; started the query path.\n",
        },
    ]


@pytest.fixture
def after_commit_point(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stop a batch after its first rename: one file new, one old, the journal committed."""

    def between(renamed: int) -> None:
        if renamed == 1:
            raise Interrupted

    monkeypatch.setattr(batch_write, "_between_files", between)
    yield


def interrupt(project: Path) -> str:
    with pytest.raises(Interrupted):
        edit.apply(batch(project))
    (journal,) = [p.name for p in project.iterdir() if p.name.endswith(".journal")]
    return journal


def findings(doctor: Doctor, kb: Path, check: str) -> list[dict[str, Any]]:
    run = doctor("check", "--source", str(kb), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr
    return [f for f in run.json["findings"] if f["check"] == check]


def test_an_interrupted_batch_is_reported_and_the_remedy_finishes_it(
    kb: Path, doctor: Doctor, after_commit_point: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = kb / "projects" / "atlas"
    journal = interrupt(project)
    assert "query path ported" in (project / "CONTEXT.md").read_text()
    assert "started the query path" not in (project / "sessions" / "2026-06.md").read_text()
    monkeypatch.undo()  # the next process is not interrupted

    (finding,) = findings(doctor, kb, "interrupted-edit")
    assert finding["severity"] == "warning"
    assert finding["path"] == f"projects/atlas/{journal}"
    assert "interrupted `edit apply`" in finding["message"]
    assert "`context-doctor edit recover projects/atlas`" in finding["remedy"]
    # The journal is the batch's leftover, not work to commit: uncommitted-context would
    # have the user commit it (and its staged file) into the repository.
    for other in findings(doctor, kb, "uncommitted-context"):
        assert ".journal" not in other["message"] and ".staged" not in other["message"]

    # The remedy is a promise: run it as written, from the repository's top.
    run = doctor("edit", "recover", "projects/atlas", cwd=kb)
    assert run.exit_code == 0, run.stderr
    assert run.stdout == (
        "finished 1 interrupted batch in projects/atlas: wrote projects/atlas/sessions/2026-06.md\n"
    )
    assert sorted(p.name for p in project.iterdir()) == ["CONTEXT.md", "sessions"]
    assert sorted(p.name for p in (project / "sessions").iterdir()) == ["2026-06.md"]
    assert "started the query path" in (project / "sessions" / "2026-06.md").read_text()
    assert findings(doctor, kb, "interrupted-edit") == []


def test_a_batch_stopped_before_its_commit_point_is_discarded(
    kb: Path, doctor: Doctor, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = kb / "projects" / "atlas"
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    real = batch_write._write_journal

    def journal(directory: int, name: str, entries: Any, *, committed: bool) -> None:
        if committed:
            raise Interrupted
        real(directory, name, entries, committed=committed)

    monkeypatch.setattr(batch_write, "_write_journal", journal)
    interrupt(project)
    monkeypatch.undo()
    assert len(findings(doctor, kb, "interrupted-edit")) == 1
    run = doctor("edit", "recover", "projects/atlas", cwd=kb)
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("recovered 1 interrupted batch in projects/atlas: no file")
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
    assert findings(doctor, kb, "interrupted-edit") == []


def test_recover_without_a_journal_and_on_no_directory(kb: Path, doctor: Doctor) -> None:
    quiet = doctor("edit", "recover", "projects/atlas", cwd=kb)
    assert (quiet.exit_code, quiet.stdout) == (
        0,
        "no interrupted batch in projects/atlas: nothing to do\n",
    )
    missing = doctor("edit", "recover", "projects/nope", cwd=kb)
    assert missing.exit_code == 2
    assert missing.stderr.count("\n") == 1 and "is not a directory" in missing.stderr


def test_a_journal_in_a_dormant_project_is_still_reported(
    kb: Path, doctor: Doctor, after_commit_point: None
) -> None:
    index = kb / "projects" / "index.yaml"
    index.write_text(index.read_text().replace("status: active", "status: paused"))
    interrupt(kb / "projects" / "atlas")
    assert len(findings(doctor, kb, "interrupted-edit")) == 1
