"""``edit apply`` (context_doctor.editor.apply): many edits, every gate once, every file or none."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from context_doctor import edit
from context_doctor.errors import DoctorError
from context_doctor.scenarios import build_scenario

NEWLINES = pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])

CONTEXT = """# Atlas — Working Context

**Phase:** Build (round 3)
**Status:** Active — search index rewrite
**Last session:** 2026-06-18 (round 3)

## Current State
- Indexer rewritten; query path next.

*State as of: 2026-06-18 (round 3)*
"""

LOG = """# Session Archive — June 2026

## 2026-06-18 — indexer

Rewrote the indexer.
"""


def project(tmp_path: Path, nl: str = "\n") -> Path:
    root = tmp_path / "projects" / "atlas"
    (root / "sessions").mkdir(parents=True)
    (root / "CONTEXT.md").write_bytes(CONTEXT.replace("\n", nl).encode())
    (root / "sessions" / "2026-06.md").write_bytes(LOG.replace("\n", nl).encode())
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def session_end(root: Path) -> list[dict[str, Any]]:
    return [
        {
            "op": "set-field",
            "file": str(root / "CONTEXT.md"),
            "field": "Last session",
            "value": "2026-06-19 (round 4)",
            "whole_value": True,
        },
        {
            "op": "replace",
            "file": str(root / "CONTEXT.md"),
            "anchor": "- Indexer rewritten; query path next.\n\n*State as of: 2026-06-18 (round 3)*",
            "replacement": "- Query path ported.\n\n*State as of: 2026-06-19 (round 4)*",
        },
        {"op": "set-field", "file": str(root / "CONTEXT.md"), "field": "Phase", "value": "Ship"},
        {
            "op": "replace",
            "file": str(root / "sessions" / "2026-06.md"),
            "anchor": "Rewrote the indexer.\n",
            "replacement": "Rewrote the indexer.\n\n## 2026-06-19 — query path\n\nPorted.\n",
        },
    ]


@NEWLINES
def test_a_session_end_passes_as_one_batch_where_single_edits_are_refused(
    tmp_path: Path, nl: str
) -> None:
    root = project(tmp_path, nl)
    before = snapshot(root)
    for alone in session_end(root)[:1]:
        with pytest.raises(edit.EditRefused) as refused:
            edit.apply([alone])
        assert refused.value.rule == "stale-body"
    assert snapshot(root) == before
    result = edit.apply(session_end(root))
    assert [item.path.name for item in result.files] == ["CONTEXT.md", "2026-06.md"]
    assert result.files[0].body_state == edit.BODY_CURRENT
    context = (root / "CONTEXT.md").read_bytes().decode()
    assert f"**Last session:** 2026-06-19 (round 4){nl}" in context
    assert f"*State as of: 2026-06-19 (round 4)*{nl}" in context
    assert (
        f"## 2026-06-19 — query path{nl}{nl}Ported.{nl}"
        in (root / "sessions" / "2026-06.md").read_bytes().decode()
    )
    assert sorted(p.name for p in root.iterdir()) == ["CONTEXT.md", "sessions"]


@NEWLINES
def test_the_header_may_not_move_ahead_of_the_log(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    before = snapshot(root)
    batch = session_end(root)[:3]
    with pytest.raises(edit.EditRefused) as refused:
        edit.apply(batch)
    assert refused.value.rule == "header-ahead-of-log"
    assert refused.value.override == "allow_header_ahead=True"
    assert "log add" in (refused.value.remedy or "")
    assert snapshot(root) == before
    edit.apply(batch, allow_header_ahead=True)
    assert snapshot(root) != before


@NEWLINES
def test_a_refusal_in_any_file_writes_none(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    before = snapshot(root)
    batch = session_end(root)
    batch[3] = {**batch[3], "anchor": "not in the log"}
    with pytest.raises(edit.EditRefused) as refused:
        edit.apply(batch)
    assert refused.value.rule == "anchor-absent"
    assert refused.value.message.startswith("edit 4 (replace 2026-06.md): ")
    assert snapshot(root) == before


@NEWLINES
def test_two_edits_of_the_same_text_overlap(tmp_path: Path, nl: str) -> None:
    root = project(tmp_path, nl)
    before = snapshot(root)
    context = str(root / "CONTEXT.md")
    with pytest.raises(edit.EditRefused) as refused:
        edit.apply(
            [
                {"op": "replace", "file": context, "anchor": "Build", "replacement": "Ship"},
                {"op": "set-field", "file": context, "field": "Phase", "value": "Done"},
            ]
        )
    assert refused.value.rule == "edits-overlap"
    assert snapshot(root) == before
    # Two insertions at one place do not overlap: they land in order.
    edit.apply(
        [
            {"op": "insert-before", "file": context, "anchor": "## Current", "text": "one\n"},
            {"op": "insert-before", "file": context, "anchor": "## Current", "text": "two\n"},
        ]
    )
    assert f"one{nl}two{nl}## Current".encode() in (root / "CONTEXT.md").read_bytes()


def test_a_per_edit_override_is_named_by_its_json_key(tmp_path: Path) -> None:
    root = project(tmp_path)
    with pytest.raises(edit.EditRefused) as refused:
        edit.apply(
            [
                {
                    "op": "replace",
                    "file": str(root / "CONTEXT.md"),
                    "anchor": "round 3",
                    "replacement": "x",
                }
            ]
        )
    assert refused.value.override == '"count": 3 in edit 1'


@pytest.mark.parametrize(
    ("edits", "says"),
    [
        ({"op": "replace"}, "not a list"),
        ([], "empty"),
        ([{"op": "rename", "file": "x"}], "`op`"),
        ([{"op": "replace", "file": "CONTEXT.md", "anchor": "a"}], "lacks `replacement`"),
        ([{"op": "delete-line", "file": "CONTEXT.md", "anchor": "a", "text": "b"}], "unknown key"),
        ([{"op": "delete-line", "file": "CONTEXT.md", "anchor": "a", "count": "2"}], "count"),
        ([{"op": "delete-line", "file": "CONTEXT.md", "anchor": 3}], "not a string"),
        ([{"op": "delete-line", "file": "CONTEXT.md", "anchor": "a"}] * 10_000, "10000 edits"),
        (["CONTEXT.md"], "not an object"),
    ],
    ids=[
        "not-a-list",
        "empty",
        "unknown-op",
        "missing-key",
        "unknown-key",
        "count-type",
        "anchor-type",
        "ten-thousand",
        "not-an-object",
    ],
)
def test_edits_that_cannot_be_read_are_doctor_errors(tmp_path: Path, edits: Any, says: str) -> None:
    root = project(tmp_path)
    before = snapshot(root)
    with pytest.raises(DoctorError) as error:
        edit.apply(edits) if isinstance(edits, list) and edits else _parse(edits)
    assert says in error.value.problem
    assert snapshot(root) == before


def _parse(edits: Any) -> None:
    from context_doctor.editor.edits_file import parse_edits

    parse_edits(edits)


def test_a_file_outside_the_project_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    root = project(tmp_path)
    other = tmp_path / "projects" / "beacon"
    other.mkdir()
    (other / "CONTEXT.md").write_text("# Beacon\n\n**Status:** Active\n")
    before = snapshot(tmp_path)
    with pytest.raises(DoctorError) as error:
        edit.apply(
            [
                {
                    "op": "set-field",
                    "file": str(root / "CONTEXT.md"),
                    "field": "Phase",
                    "value": "x",
                },
                {
                    "op": "set-field",
                    "file": str(other / "CONTEXT.md"),
                    "field": "Status",
                    "value": "y",
                },
            ]
        )
    assert "edit 2" in error.value.problem and "outside the project" in error.value.problem
    assert snapshot(tmp_path) == before


def test_the_registry_beside_the_project_may_join_the_batch(tmp_path: Path) -> None:
    root = project(tmp_path)
    index = tmp_path / "projects" / "index.yaml"
    index.write_text("projects:\n  - id: atlas\n    last_session: 2026-06-18\n")
    batch = session_end(root)
    batch.append(
        {"op": "replace", "file": str(index), "anchor": "2026-06-18", "replacement": "2026-06-19"}
    )
    edit.apply(batch)
    assert "last_session: 2026-06-19" in index.read_text()


def test_a_dry_run_prints_every_files_diff_and_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = snapshot(root)
    result = edit.apply(session_end(root), dry_run=True)
    assert snapshot(root) == before and not result.written
    diff = result.diff(tmp_path)
    assert "+++ b/projects/atlas/CONTEXT.md" in diff
    assert "+++ b/projects/atlas/sessions/2026-06.md" in diff


# -- all or nothing, with the process killed between two files -----------------------

_KILLER = """
import json, os, signal, sys
from context_doctor.write import batch
from context_doctor import edit

where = sys.argv[2]
if where == "between":
    def between(renamed):
        if renamed == 1:
            os.kill(os.getpid(), signal.SIGKILL)
    batch._between_files = between
else:
    real = batch._write_journal
    def journal(directory, name, entries, *, committed):
        if committed:
            os.kill(os.getpid(), signal.SIGKILL)
        real(directory, name, entries, committed=committed)
    batch._write_journal = journal
edit.apply(json.loads(sys.argv[1]))
"""


@pytest.mark.parametrize("where", ["between", "before-commit"])
def test_a_batch_killed_mid_write_ends_all_new_or_all_old(tmp_path: Path, where: str) -> None:
    root = project(tmp_path)
    before = snapshot(root)
    batch = session_end(root)
    after = subprocess.run(
        [sys.executable, "-c", _KILLER, json.dumps(batch), where],
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert after.returncode == -signal.SIGKILL, after.stderr
    killed = snapshot(root)
    journals = [p.name for p in root.iterdir() if p.name.endswith(".journal")]
    assert len(journals) == 1  # the interrupted batch is on record
    if where == "between":  # one file renamed, one not: what the journal exists to finish
        assert killed["CONTEXT.md"] != before["CONTEXT.md"]
        assert killed["sessions/2026-06.md"] == before["sessions/2026-06.md"]
    insert = [
        {
            "op": "insert-before",
            "file": str(root / "CONTEXT.md"),
            "anchor": "## Current",
            "text": "x\n",
        }
    ]
    # A dry run writes nothing, so it cannot finish the batch: it refuses, every byte kept.
    with pytest.raises(edit.EditRefused) as refused:
        edit.apply(insert, dry_run=True)
    assert refused.value.rule == "pending-batch"
    assert "context-doctor edit recover" in (refused.value.remedy or "")
    assert snapshot(root) == killed
    # The next writer in the project finishes (or discards) the interrupted batch first.
    edit.apply(insert)
    now = snapshot(root)
    now["CONTEXT.md"] = now["CONTEXT.md"].replace(b"x\n## Current", b"## Current", 1)
    assert sorted(p.name for p in root.iterdir()) == ["CONTEXT.md", "sessions"]
    assert sorted(p.name for p in (root / "sessions").iterdir()) == ["2026-06.md"]
    if where == "before-commit":
        assert now == before
    else:
        assert now["CONTEXT.md"] != before["CONTEXT.md"]
        assert now["sessions/2026-06.md"] != before["sessions/2026-06.md"]
        assert b"2026-06-19 (round 4)" in now["CONTEXT.md"]
        assert b"## 2026-06-19" in now["sessions/2026-06.md"]


def test_the_docs_session_end_example_applies_as_written(tmp_path: Path) -> None:
    """docs/editor.md's batch, on the demo it names: one edit alone is refused, all pass."""
    repo = Path(__file__).resolve().parents[2]
    page = (repo / "docs" / "editor.md").read_text(encoding="utf-8")
    section = page[page.index("### A session in one write") :]
    example = section[section.index("```json\n") + 8 :]
    edits = json.loads(example[: example.index("```")])
    demo = build_scenario(repo / "fixtures" / "scenarios" / "demo.yaml", tmp_path / "demo-kb")
    header = [item for item in edits if item.get("field") == "Last session"]
    with pytest.raises(edit.EditRefused):  # the header alone is refused ...
        edit.apply(header, cwd=demo)
    result = edit.apply(edits, cwd=demo)  # ... the whole session's end is not
    assert [item.path.name for item in result.files] == ["2026-06.md", "CONTEXT.md", "index.yaml"]
    assert result.files[1].body_state == edit.BODY_CURRENT


def test_the_registry_listed_first_does_not_widen_the_batch_to_every_project(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    other = tmp_path / "projects" / "beacon"
    other.mkdir()
    (other / "CONTEXT.md").write_text("# Beacon\n\n**Status:** Active\n")
    index = tmp_path / "projects" / "index.yaml"
    index.write_text("projects:\n  - id: atlas\n  - id: beacon\n")
    before = snapshot(tmp_path)
    with pytest.raises(DoctorError) as error:
        edit.apply(
            [
                {"op": "replace", "file": str(index), "anchor": "beacon", "replacement": "b"},
                {
                    "op": "set-field",
                    "file": str(root / "CONTEXT.md"),
                    "field": "Phase",
                    "value": "x",
                },
                {
                    "op": "set-field",
                    "file": str(other / "CONTEXT.md"),
                    "field": "Status",
                    "value": "y",
                },
            ]
        )
    assert "edit 3" in error.value.problem and "outside the project" in error.value.problem
    assert snapshot(tmp_path) == before


@NEWLINES
def test_a_dry_run_refuses_while_a_batch_is_pending_every_byte_kept(
    tmp_path: Path, nl: str
) -> None:
    """A preview writes nothing, so it cannot finish an interrupted batch: `pending-batch`."""
    root = tmp_path / "atlas"
    root.mkdir()
    context = root / "CONTEXT.md"
    context.write_bytes(f"# Atlas{nl}{nl}**Phase:** Build{nl}".encode())
    journal = root / ".context-doctor-apply-0123abcd.journal"
    journal.write_bytes(b'{"version": 1, "committed": false, "files": []}')
    before = {path.name: path.read_bytes() for path in root.iterdir()}
    for attempt in (
        lambda: edit.set_field(context, "Phase", "Ship", dry_run=True),
        lambda: edit.apply(
            [{"op": "set-field", "file": str(context), "field": "Phase", "value": "Ship"}],
            dry_run=True,
        ),
    ):
        with pytest.raises(edit.EditRefused) as refused:
            attempt()
        assert refused.value.rule == "pending-batch"
        assert {path.name: path.read_bytes() for path in root.iterdir()} == before
