"""The audit log and the floors, read defensively (context_doctor/vault/audit_log.py, floors.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from vault_support import entry, floor, floors_file

from context_doctor.vault import audit_log
from context_doctor.vault.audit_log import read_audit_log
from context_doctor.vault.floors import floors_beside, floors_location, read_floors


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_the_log_is_streamed_across_chunk_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_log, "CHUNK", 7)  # every line crosses several reads
    lines = [entry(f"m{n}", "create", number=n) for n in range(30)]
    log, _ = read_audit_log(write(tmp_path / "log", "\n".join(lines) + "\n\n"), "log")
    assert [e.memory_id for e in log.entries] == [f"m{n}" for n in range(30)]
    assert log.problems == [] and log.lines == 31


def test_an_overlong_line_is_never_held_and_counts_as_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_log, "MAX_LINE", 1000)
    monkeypatch.setattr(audit_log, "CHUNK", 64)
    text = entry("a", "create") + "\n" + entry("b", "update", note="y" * 3000) + "\n"
    text += entry("c", "create", number=3)  # the last line has no newline (a write in flight)
    log, _ = read_audit_log(write(tmp_path / "log", text), "log")
    assert [e.memory_id for e in log.entries] == ["a", "c"]
    assert [(p.line, p.unknown_shape) for p in log.problems] == [(2, True)]


def test_a_five_megabyte_line_is_read(tmp_path: Path) -> None:
    big = entry("big", "update", after={"id": "big", "summary": "x" * (5 << 20)})
    log, _ = read_audit_log(write(tmp_path / "log", big + "\n"), "log")
    assert [e.memory_id for e in log.entries] == ["big"] and log.problems == []


def test_a_symlinked_log_is_not_followed(tmp_path: Path) -> None:
    real = write(tmp_path / "real", entry("a", "create") + "\n")
    os.symlink(real, tmp_path / "log")
    log, _ = read_audit_log(tmp_path / "log", "log")
    assert log.problem == "is a symlink (not followed)" and log.entries == []


def test_unknown_operations_are_unknown_shapes(tmp_path: Path) -> None:
    log, _ = read_audit_log(write(tmp_path / "log", entry("a", "archive") + "\n"), "log")
    assert log.entries == [] and log.unknown_ids() == {"a"}


def test_live_affirmation_follows_bastras_rule(tmp_path: Path) -> None:
    floors = floors_file(tmp_path / "floors.json", floor("m", affirmed="2026-05-01T08:00:00Z"))
    acts = [
        {"memory_id": "m", "occurred_at": "2026-04-01T00:00:00Z", "affirmed_by": "a", "why": "old",
         "recorded": "2026-06-10T00:00:00Z"},  # before floored_at: another floor's act
        {"memory_id": "m", "occurred_at": "2026-05-20T00:00:00Z", "affirmed_by": "a", "why": "w",
         "recorded": "2026-05-21T00:00:00Z"},
        {"memory_id": "m", "affirmed_by": "a", "why": "inline", "recorded": "2026-05-10T00:00:00Z"},
        {"memory_id": "m", "affirmed_by": 7},  # a shape Bastra skips
    ]  # fmt: skip
    write(tmp_path / "floor-acts.jsonl", "".join(json.dumps(a) + "\n" for a in acts))
    read = read_floors(*floors_beside(floors, {}))
    assert read is not None and read.skipped == 1
    assert read.live(read.floors[0]) == "2026-05-20T00:00:00Z"


def test_floors_location(tmp_path: Path) -> None:
    assert floors_location({}, tmp_path) == (
        tmp_path / ".bastra" / "floors.json",
        tmp_path / ".bastra" / "floor-acts.jsonl",
    )
    env = {"BASTRA_FLOORS_PATH": "/x/f.json", "BASTRA_FLOOR_ACTS_PATH": "/y/a.jsonl"}
    assert floors_location(env, tmp_path) == (Path("/x/f.json"), Path("/y/a.jsonl"))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{oops", "is not JSON"),
        ('{"memory_id": "m"}', "is not a JSON array"),
        (None, "is not a regular file"),
    ],
)
def test_a_floors_file_that_cannot_be_judged(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    path = tmp_path / "floors.json"
    if content is None:
        path.mkdir()
    else:
        write(path, content)
    read = read_floors(path, tmp_path / "acts")
    assert read is not None and read.problem is not None and read.problem.startswith(problem)
    assert read_floors(tmp_path / "absent.json", tmp_path / "acts") is None


TOKEN = "ghp_" + "Zq8rT2mW9xK4vB7nL1pS6dF3hJ5gC0aE8yU2"


def test_an_unchanged_log_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_log, "RACY_NS", -(10**18))  # every write counts as settled
    lines = [entry(f"m{n}", "create", number=n) for n in range(5)]
    lines.insert(2, entry("leak", "update", after={"id": "leak", "summary": f"token {TOKEN}"}))
    path = write(tmp_path / "log", "\n".join(lines) + "\n{not json\n")
    cold, record = read_audit_log(path, "log")
    assert record is not None and [span[0] for span in record.secret_spans] == [3]

    def no_stream(handle: int) -> None:
        raise AssertionError("the whole log was read again")

    monkeypatch.setattr(audit_log, "spans_of", no_stream)
    warm, again = read_audit_log(path, "log", record)
    assert again is None  # nothing new to keep
    assert (warm.lines, warm.entries, warm.problems, warm.secrets) == (
        cold.lines,
        cold.entries,
        cold.problems,
        cold.secrets,
    )
    # The secret itself is never cached: it is read back from its own line, for redaction.
    assert TOKEN in warm.secret_values and TOKEN in cold.secret_values
    assert TOKEN not in repr(record)


def test_a_changed_log_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_log, "RACY_NS", -(10**18))
    path = write(tmp_path / "log", entry("a", "create") + "\n")
    _, record = read_audit_log(path, "log")
    with path.open("a", encoding="utf-8") as appended:
        appended.write(entry("b", "create", number=2) + "\n")
    log, fresh = read_audit_log(path, "log", record)
    assert [e.memory_id for e in log.entries] == ["a", "b"] and fresh is not None


def test_a_log_written_just_now_is_not_kept(tmp_path: Path) -> None:
    """Racy: a write within the clock's granularity could hide a same-size change."""
    _, record = read_audit_log(write(tmp_path / "log", entry("a", "create") + "\n"), "log")
    assert record is None
