"""A vault in Bastra's own file format (tests/vault/data/bastra-format, its README says how
it was made) audits clean, and each fault of SPEC §9 "Round two", planted in a copy, fires."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo
from vault_support import vault_scenario

DATA = Path(__file__).parent / "data" / "bastra-format"
TODAY = "2026-10-21"
PIN = "memories/projects/werkbank/pin-node-major-in-ci.md"
FLAG = "memories/projects/werkbank/run-migrations-behind-a-flag.md"
GERMAN = "memories/user/reply-in-german-to-the-team.md"
SQUASH = "memories/all-projects/squash-merge-feature-branches.md"

Files = dict[str, str]
Floors = list[dict[str, Any]]
Acts = list[dict[str, Any]]


def vault_files() -> Files:
    root = DATA / "vault"
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def machine() -> tuple[Floors, Acts]:
    floors = json.loads((DATA / "machine" / "floors.json").read_text(encoding="utf-8"))
    lines = (DATA / "machine" / "floor-acts.jsonl").read_text(encoding="utf-8").splitlines()
    return floors, [json.loads(line) for line in lines]


def audit(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, files: Files, floors: Floors, acts: Acts
) -> Run:
    root = make_repo(vault_scenario(files))
    floors_path = tmp_path / "machine" / "floors.json"
    floors_path.parent.mkdir()
    floors_path.write_text(json.dumps(floors, indent=2) + "\n", encoding="utf-8")
    acts_path = floors_path.parent / "floor-acts.jsonl"
    acts_path.write_text("".join(json.dumps(act) + "\n" for act in acts), encoding="utf-8")
    run = doctor(
        "check", "--vault", str(root), "--floors", str(floors_path), "--today", TODAY, "--json",
        env={"BASTRA_FLOOR_ACTS_PATH": str(acts_path)},
    )  # fmt: skip
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


def test_the_bastra_format_vault_audits_clean(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    run = audit(doctor, make_repo, tmp_path, vault_files(), *machine())
    assert run.json["findings"] == []
    assert run.exit_code == 0
    coverage = run.json["coverage"]
    for check in ("memory-frontmatter", "memory-link", "unaudited-change", "floor-stale"):
        assert coverage[check]["examined"] >= 1, (check, coverage[check])
        assert coverage[check]["skipped"] == 0, (check, coverage[check])


def _replace(path: str, old: str, new: str) -> Callable[[Files, Floors, Acts], None]:
    def plant(files: Files, floors: Floors, acts: Acts) -> None:
        assert old in files[path], (path, old)
        files[path] = files[path].replace(old, new, 1)

    return plant


def _add_line(path: str, line: str) -> Callable[[Files, Floors, Acts], None]:
    return _replace(path, "confidence: 1\n", f"{line}\nconfidence: 1\n")


def _plain_note_link(files: Files, floors: Floors, acts: Acts) -> None:
    _replace(
        PIN, "related:\n  - run-migrations", "related:\n  - meeting-notes\n  - run-migrations"
    )(files, floors, acts)
    files["Inbox/meeting-notes.md"] = "# Meeting notes\n\nA plain note.\n"


def _empty_file_link(files: Files, floors: Floors, acts: Acts) -> None:
    files[GERMAN] = files[GERMAN].rstrip("\n") + " Templates: [[Untitled]].\n"
    files["Inbox/Untitled.md"] = ""


def _why_without_by(files: Files, floors: Floors, acts: Acts) -> None:
    del floors[0]["affirmed_by"]


def _empty_reason(files: Files, floors: Floors, acts: Acts) -> None:
    floors[1]["reason"] = ""


def _empty_act(files: Files, floors: Floors, acts: Acts) -> None:
    acts.append({**acts[0], "affirmed_by": "", "why": "", "occurred_at": "2026-10-20T08:00:00.000Z",
                 "recorded": "2026-10-20T08:00:01.000Z"})  # fmt: skip


def _over_the_cap(files: Files, floors: Floors, acts: Acts) -> None:
    for number in range(11):
        floors.append({**floors[1], "memory_id": f"pinned-{number:02d}"})


def _exactly_28_days(files: Files, floors: Floors, acts: Acts) -> None:
    floors[1]["floored_at"] = floors[1]["last_affirmed"] = "2026-09-23T10:00:00.000Z"


PLANTED = {
    "confidence 1.5": (
        _replace(PIN, "confidence: 1\n", "confidence: 1.5\n"),
        "memory-frontmatter",
        "`confidence: 1.5` is outside 0..1",
    ),
    "related_via score 1.7": (
        _replace(FLAG, "score: 0.72", "score: 1.7"),
        "memory-frontmatter",
        "item 1 has `score` 1.7, outside 0..1",
    ),
    "sensitivity Private": (
        _replace(GERMAN, "sensitivity: team", "sensitivity: Private"),
        "memory-frontmatter",
        "silently becomes `team`, visible to outside tools",
    ),
    "stale_status rotten": (
        _add_line(PIN, "stale_status: rotten"),
        "memory-frontmatter",
        "`stale_status: rotten` is not one of fresh|aging|stale|expired",
    ),
    "expires_after_days -3": (
        _add_line(PIN, "expires_after_days: -3"),
        "memory-frontmatter",
        "`expires_after_days: -3` is not a positive whole number",
    ),
    "link to a plain note's name": (
        _plain_note_link,
        "memory-link",
        "`related` to `meeting-notes`, which is no memory id: only a plain note",
    ),
    "link to an empty file's name": (
        _empty_file_link,
        "memory-link",
        "wikilink to `Untitled`, which is no memory id: only an empty file",
    ),
    "floor why without affirmed_by": (
        _why_without_by,
        "floor-without-why",
        "has a `why` but no `affirmed_by`",
    ),
    "floor with an empty reason": (_empty_reason, "floor-without-why", "has an empty `reason`"),
    "affirm act without affirmed_by and why": (
        _empty_act,
        "floor-without-why",
        "has neither `affirmed_by` nor `why`",
    ),
    "13 floors": (_over_the_cap, "floor-cap", "floor 13 of 13 on this machine"),
    "a floor at exactly 28 days": (_exactly_28_days, "floor-stale", "28 days before 2026-10-21"),
}


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_each_planted_fault_fires(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, fault: str
) -> None:
    plant, check, says = PLANTED[fault]
    files = vault_files()
    floors, acts = machine()
    plant(files, floors, acts)
    run = audit(doctor, make_repo, tmp_path, files, floors, acts)
    assert any(says in f["message"] for f in run.findings(check)), run.json["findings"]


def test_what_bastra_does_not_judge_stays_quiet(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """Links from an `obsolete` memory, and the empty act that moved no clock."""
    files = vault_files()
    files[SQUASH] = files[SQUASH].rstrip("\n") + " See [[never-written]].\n"
    floors, acts = machine()
    run = audit(doctor, make_repo, tmp_path, files, floors, acts)
    assert run.findings("memory-link") == []
