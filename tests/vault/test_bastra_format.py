"""Vaults in Bastra Recall's own file format audit clean, and each fault of docs/vaults.md "Round
two", planted in a copy, fires while its control stays quiet.

Two fixtures (each README says how it was made):

- ``data/bastra-generated``: written by Bastra's own code (release 0.6.0-beta.1, run with
  node): saves by every actor kind, an update, the daemon's link rewrite, delete, restore,
  delete again, and one save through its MCP tool kept apart. Every planted fault is
  planted into a copy of it. That release has no
  floors, so the floors beside it are built here in the shape the doctor reads
  (``vault_support.floor``).
- ``data/bastra-format``: written by hand after the newer upstream code, kept only for what
  the older release cannot write: `write_origin`, a successor pair the daemon wrote
  (`replaces` / `superseded_by` / `obsolete`), the curator's REPORT.md, a plain note, and
  floors.json / floor-acts.jsonl in the newer release's layout. It must audit clean too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo
from vault_support import floor, vault_scenario

DATA = Path(__file__).parent / "data"
GENERATED = DATA / "bastra-generated"
HAND_WRITTEN = DATA / "bastra-format"
GENERATED_ON = "2026-12-01"  # the day the generator ran: its `created` dates and log times
WERKBANK = "memories/projects/werkbank"
PIN = f"{WERKBANK}/pin-the-node-major-in-ci.md"
FLAG = f"{WERKBANK}/run-migrations-behind-a-flag.md"
STAGING = f"{WERKBANK}/staging-database-is-shared.md"
BOOKMARK = "bookmarks/postgres-lock-monitoring-query.md"
GERMAN = "memories/user/reply-in-german-to-the-team.md"
REVIEW = "memories/all-projects/review-dependency-updates-weekly.md"

Files = dict[str, str]
Floors = list[dict[str, Any]]
Acts = list[dict[str, Any]]
Plant = Callable[[Files, Floors, Acts], None]


def tree(root: Path) -> Files:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def generated() -> Files:
    return tree(GENERATED / "vault")


def generated_floors() -> tuple[Floors, Acts]:
    """Two floors on generated memories: one affirmed by an act, one on its `last_affirmed`."""
    floors = [
        floor(
            "staging-database-is-shared",
            affirmed="2026-11-28T09:00:00.000Z",
            condition="incident:billing-staging-stall",
            reason="billing's staging runs still share the database",
            scope="werkbank",
            floored_at="2026-11-20T08:00:00.000Z",
            affirmed_by="mara",
            why="billing has not moved off the shared staging yet",
        ),
        floor(
            "run-migrations-behind-a-flag",
            affirmed="2026-11-25T10:00:00.000Z",
            condition="decision:migration-flags",
            reason="the two-deploy rule is new this quarter",
            floored_at="2026-11-25T10:00:00.000Z",
        ),
    ]
    acts = [
        {
            "memory_id": "staging-database-is-shared",
            "occurred_at": "2026-11-28T08:59:30.000Z",
            "affirmed_by": "mara",
            "why": "billing has not moved off the shared staging yet",
            "recorded": "2026-11-28T09:00:00.000Z",
        }
    ]
    return floors, acts


def hand_written() -> tuple[Files, Floors, Acts]:
    machine = HAND_WRITTEN / "machine"
    floors = json.loads((machine / "floors.json").read_text(encoding="utf-8"))
    lines = (machine / "floor-acts.jsonl").read_text(encoding="utf-8").splitlines()
    return tree(HAND_WRITTEN / "vault"), floors, [json.loads(line) for line in lines]


def audit(
    doctor: Doctor,
    make_repo: MakeRepo,
    tmp_path: Path,
    files: Files | list[Files],
    floors: Floors,
    acts: Acts,
    today: str = GENERATED_ON,
) -> Run:
    """Commit ``files`` (a list: one commit each, in order) and audit it with the floors."""
    trees = files if isinstance(files, list) else [files]
    root = make_repo(_commits(trees))
    floors_path = tmp_path / "machine" / "floors.json"
    floors_path.parent.mkdir(exist_ok=True)
    floors_path.write_text(json.dumps(floors, indent=2) + "\n", encoding="utf-8")
    acts_path = floors_path.parent / "floor-acts.jsonl"
    acts_path.write_text("".join(json.dumps(act) + "\n" for act in acts), encoding="utf-8")
    run = doctor(
        "check", "--vault", str(root), "--floors", str(floors_path), "--today", today, "--json",
        env={"BASTRA_FLOOR_ACTS_PATH": str(acts_path)},
    )  # fmt: skip
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


def _commits(trees: list[Files]) -> dict[str, Any]:
    scenario: dict[str, Any] = vault_scenario(trees[0])
    previous = trees[0]
    for number, files in enumerate(trees[1:], start=2):
        scenario["commits"].append(
            {
                "date": f"2026-06-{number:02d}T09:00:00+00:00",
                "message": f"vault {number}",
                "files": {path: text for path, text in files.items() if previous.get(path) != text},
                "delete": sorted(set(previous) - set(files)),
            }
        )
        previous = files
    return scenario


def assert_clean(run: Run) -> None:
    assert run.json["findings"] == []
    assert run.exit_code == 0
    coverage = run.json["coverage"]
    for check in ("memory-frontmatter", "memory-link", "unaudited-change", "floor-stale"):
        assert coverage[check]["examined"] >= 1, (check, coverage[check])
        assert coverage[check]["skipped"] == 0, (check, coverage[check])


def test_the_vault_bastra_wrote_audits_clean(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    assert_clean(audit(doctor, make_repo, tmp_path, generated(), *generated_floors()))


def test_the_hand_written_newer_format_vault_audits_clean(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    assert_clean(audit(doctor, make_repo, tmp_path, *hand_written(), today="2026-10-21"))


def test_the_daemons_link_rewrite_needs_no_audit_line(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """Bastra's enricher rewrote `related_via` and the auto-related block with no audit line;
    committed on its own (with the later deletes) it is no unaudited change, while a hand
    edit of a summary in the same commit is."""
    before = tree(GENERATED / "before-link-rewrite")
    after = generated()
    floors, acts = generated_floors()
    run = audit(doctor, make_repo, tmp_path, [before, after], floors, acts)
    assert run.findings() == []
    assert run.json["coverage"]["unaudited-change"]["examined"] >= 2

    edited = dict(after)
    edited[PIN] = edited[PIN].replace("a floating tag broke", "the lts tag broke", 1)
    assert edited[PIN] != after[PIN]
    run = audit(doctor, make_repo, tmp_path, [before, edited], floors, acts)
    assert [f["path"] for f in run.findings("unaudited-change")] == [PIN], run.findings()


def test_a_save_through_bastras_mcp_tool_is_an_unaudited_change(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """The release's MCP `save_memory` writes the memory and no audit line (a true finding
    about Bastra itself, not a planted fault)."""
    after = {**generated(), **tree(GENERATED / "mcp-save")}
    run = audit(doctor, make_repo, tmp_path, [generated(), after], *generated_floors())
    (found,) = run.findings()
    assert found["check"] == "unaudited-change"
    assert (
        "added memory `billing-owns-the-staging-reset` with no audit-log line" in found["message"]
    )


def _replace(path: str, old: str, new: str) -> Plant:
    def plant(files: Files, floors: Floors, acts: Acts) -> None:
        assert old in files[path], (path, old)
        files[path] = files[path].replace(old, new, 1)

    return plant


def _add_line(path: str, line: str) -> Plant:
    return _replace(path, "confidence: 1\n", f"{line}\nconfidence: 1\n")


def _plain_note_link(files: Files, floors: Floors, acts: Acts) -> None:
    _replace(PIN, "related: []\n", "related:\n  - meeting-notes\n")(files, floors, acts)
    files["Inbox/meeting-notes.md"] = "# Meeting notes\n\nA plain note.\n"


def _empty_file_link(files: Files, floors: Floors, acts: Acts) -> None:
    files[GERMAN] = files[GERMAN].rstrip("\n") + " Templates: [[Untitled]].\n"
    files["Inbox/Untitled.md"] = ""


def _why_without_by(files: Files, floors: Floors, acts: Acts) -> None:
    del floors[0]["affirmed_by"]


def _empty_reason(files: Files, floors: Floors, acts: Acts) -> None:
    floors[1]["reason"] = ""


def _empty_act(files: Files, floors: Floors, acts: Acts) -> None:
    acts.append({**acts[0], "affirmed_by": "", "why": "", "occurred_at": "2026-11-30T08:00:00.000Z",
                 "recorded": "2026-11-30T08:00:01.000Z"})  # fmt: skip


def _over_the_cap(files: Files, floors: Floors, acts: Acts) -> None:
    for number in range(11):
        floors.append({**floors[1], "memory_id": f"pinned-{number:02d}"})


def _exactly_28_days(files: Files, floors: Floors, acts: Acts) -> None:
    floors[1]["floored_at"] = floors[1]["last_affirmed"] = "2026-11-03T10:00:00.000Z"


def _superseded(files: Files, floors: Floors, acts: Acts) -> None:
    """Staging replaces the flag workflow (the newer daemon's supersede flow, which the
    generating release lacks): staging cites it on purpose, the bookmark does not."""
    _replace(STAGING, "confidence: 1\n", "replaces: run-migrations-behind-a-flag\nconfidence: 1\n")(
        files, floors, acts
    )
    _replace(FLAG, "confidence: 0.9\n", "superseded_by: staging-database-is-shared\nconfidence: 0.9\n")(
        files, floors, acts
    )  # fmt: skip


def _dangling_from(marker: str) -> Plant:
    def plant(files: Files, floors: Floors, acts: Acts) -> None:
        _replace(FLAG, "confidence: 0.9\n", f"{marker}confidence: 0.9\n")(files, floors, acts)
        files[FLAG] = files[FLAG].rstrip("\n") + "\n\nSee [[never-written]].\n"

    return plant


PLANTED: dict[str, tuple[Plant, str, str]] = {
    "confidence 1.5": (
        _replace(PIN, "confidence: 1\n", "confidence: 1.5\n"),
        "memory-frontmatter",
        "`confidence: 1.5` is outside 0..1",
    ),
    "related_via score 1.7": (
        _replace(FLAG, "score: 0.991", "score: 1.7"),
        "memory-frontmatter",
        "item 1 has `score` 1.7, outside 0..1",
    ),
    "sensitivity Private": (
        _replace(GERMAN, "sensitivity: private", "sensitivity: Private"),
        "memory-frontmatter",
        "silently becomes `team`, visible to outside tools",
    ),
    "stale_status rotten": (
        _add_line(PIN, "stale_status: rotten"),
        "memory-frontmatter",
        "`stale_status: rotten` is not one of fresh|aging|stale|expired",
    ),
    "expires_after_days -3": (
        _replace(REVIEW, "expires_after_days: 180", "expires_after_days: -3"),
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
    "a link from a memory that is not obsolete": (
        _dangling_from(""),
        "memory-link",
        "wikilink to `never-written`, which is unknown",
    ),
    "a citation of a superseded memory by another memory": (
        _superseded,
        "memory-link",
        "`related_via` and wikilink to `run-migrations-behind-a-flag`, which is superseded by "
        "`staging-database-is-shared`",
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
    "a floor at exactly 28 days": (
        _exactly_28_days,
        "floor-stale",
        f"28 days before {GENERATED_ON}",
    ),
}


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_each_planted_fault_fires(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, fault: str
) -> None:
    plant, check, says = PLANTED[fault]
    files = generated()
    floors, acts = generated_floors()
    plant(files, floors, acts)
    run = audit(doctor, make_repo, tmp_path, files, floors, acts)
    assert any(says in f["message"] for f in run.findings(check)), run.json["findings"]


def test_what_bastra_does_not_judge_stays_quiet(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """Links from an `obsolete` memory; a successor citing the memory it replaces."""
    files = generated()
    floors, acts = generated_floors()
    _dangling_from("obsolete: true\n")(files, floors, acts)
    run = audit(doctor, make_repo, tmp_path, files, floors, acts)
    assert run.findings("memory-link") == []

    files = generated()
    _superseded(files, floors, acts)
    run = audit(doctor, make_repo, tmp_path, files, floors, acts)
    # The bookmark's one relation, which Bastra wrote twice (`related_via` and the
    # auto-related block), is one finding.
    assert [f["path"] for f in run.findings("memory-link")] == [BOOKMARK], run.findings()
