"""``context-doctor state init|compile`` on real git repositories (docs/editor.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, assert_skipped, audit, git, head

import context_doctor.commands.state as command_module
from context_doctor.editor.state import plan_compile
from context_doctor.model.state_file import BLOCK_END, BLOCK_START

TODAY = "2026-06-20"
NOW = "2026-06-20T09:30:00+02:00"
CHECK = "semantic-current-state"
PROJECT = "projects/alpha"

CONTEXT = """\
# Alpha — Working Context

**Phase:** Build (round 3)
**Status:** Active
**Last session:** 2026-06-17 (round 3)
**Accepted baseline:** v1.2.0
**Controlling plan:** [the plan](plans/plan.md)
**Owner:** Dana

See [REFERENCE.md](REFERENCE.md) and [sessions/](sessions/).

## Current State
The parser is in.

*State as of: 2026-06-18 (round 3)*

## What's Next
- [ ] Ship the parser (as of 2026-06-18)
- [x] Write the lexer
- Review the grammar

*State as of: 2026-06-18 (round 3)*

## Notes
- not an action

## History
*State as of: 2026-06-01 (round 1)*
"""


def files(context: str = CONTEXT) -> dict[str, Any]:
    return {
        "projects/index.yaml": "projects:\n  - id: alpha\n    status: active\n",
        f"{PROJECT}/CONTEXT.md": context,
        f"{PROJECT}/REFERENCE.md": "# Alpha — Reference\n",
        f"{PROJECT}/sessions/2026-06.md": "# June\n\n## 2026-06-18 — round 3\nParser in.\n",
        f"{PROJECT}/plans/plan.md": "# Plan\n",
    }


def repo(make_repo: MakeRepo, **changes: Any) -> Path:
    chosen = files()
    chosen.update(changes)
    return make_repo(
        {"commits": [{"date": "2026-06-18T10:00:00+00:00", "message": "alpha", "files": chosen}]}
    )


def state(doctor: Doctor, root: Path, *args: str) -> Any:
    return doctor("state", *args, "--now", NOW, cwd=root)


def snapshot(root: Path) -> dict[str, bytes]:
    project = root / PROJECT
    return {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}


def test_init_compile_check_round_trip(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    run = state(doctor, root, "init", PROJECT)
    assert run.exit_code == 0, run.stderr
    written = json.loads((root / PROJECT / "CURRENT_STATE.json").read_text())
    assert written == {
        "schema_version": 1,
        "project_id": "alpha",
        "phase": "Build (round 3)",
        "status": "Active",
        "controlling_plan": "plans/plan.md",
        "accepted_baseline": "v1.2.0",
        "next_actions": ["Ship the parser", "Review the grammar"],
        "last_session": "2026-06-18",
        "session_id": None,
        "content_hashes": written["content_hashes"],
        "repository": root.name,
        "project_path": PROJECT,
        "git_head": head(root),
        # What the upstream compiler records: the project folder's tree at HEAD.
        "project_tree": git(root, "rev-parse", f"HEAD:{PROJECT}"),
        "source_heads": written["source_heads"],
        "updated_at": "2026-06-20T09:30:00+02:00",
    }
    assert list(written)[list(written).index("git_head") + 1] == "project_tree"
    assert set(written["content_hashes"]) == {
        "CONTEXT.md",
        "REFERENCE.md",
        "sessions/2026-06.md",
        "plans/plan.md",
    }
    assert list(written["source_heads"].values()) == [head(root)]

    run = state(doctor, root, "compile", PROJECT)
    assert run.exit_code == 0, run.stderr
    assert "removed 2 as-of markers (the block replaces them)" in run.stdout
    text = (root / PROJECT / "CONTEXT.md").read_text()
    assert "The parser is in.\n\n## What's Next" in text
    assert "- Review the grammar\n\n## Notes" in text
    assert text.endswith("## History\n*State as of: 2026-06-01 (round 1)*\n")  # history stays
    lines = text.splitlines()
    assert lines[:13] == [
        "# Alpha — Working Context",
        "",
        BLOCK_START,
        "**Phase:** Build (round 3)",
        "**Status:** Active",
        "**Last session:** 2026-06-18",
        "**Accepted baseline:** v1.2.0",
        "**Controlling plan:** [plans/plan.md](plans/plan.md)",
        "**Next actions:**",
        "- Ship the parser",
        "- Review the grammar",
        BLOCK_END,
        "**Owner:** Dana",
    ]
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "structured", when="2026-06-18T12:00:00+00:00", identity=True)

    report = audit(doctor, "--project", str(root / PROJECT), today=TODAY)
    assert report.findings(CHECK) == [], report.findings(CHECK)
    assert_skipped(report, "body-currency", "structured state")

    again = state(doctor, root, "compile", PROJECT)  # idempotent apart from git_head
    assert again.exit_code == 0

    with (root / PROJECT / "REFERENCE.md").open("a") as handle:
        handle.write("A new stable fact.\n")
    fired = audit(doctor, "--project", str(root / PROJECT), today=TODAY).findings(CHECK)
    assert len(fired) == 1 and "`REFERENCE.md`" in fired[0]["message"]

    assert state(doctor, root, "compile", PROJECT).exit_code == 0
    assert audit(doctor, "--project", str(root / PROJECT), today=TODAY).findings(CHECK) == []


def test_compile_twice_writes_nothing_the_second_time(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    assert state(doctor, root, "init", PROJECT).exit_code == 0
    assert state(doctor, root, "compile", PROJECT).exit_code == 0
    before = snapshot(root)
    run = state(doctor, root, "compile", PROJECT)
    assert run.exit_code == 0 and "nothing written" in run.stdout
    assert snapshot(root) == before


def test_plan_and_baseline_options_win(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo, **{f"{PROJECT}/plans/other.md": "# Other\n"})
    run = state(doctor, root, "init", PROJECT, "--plan", "plans/other.md", "--baseline", "v2.0.0")
    assert run.exit_code == 0, run.stderr
    written = json.loads((root / PROJECT / "CURRENT_STATE.json").read_text())
    assert (written["controlling_plan"], written["accepted_baseline"]) == (
        "plans/other.md",
        "v2.0.0",
    )


def test_without_header_fields_the_block_goes_under_the_title(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = repo(make_repo)
    assert state(doctor, root, "init", PROJECT).exit_code == 0
    path = root / PROJECT / "CONTEXT.md"
    path.write_bytes(b"# Alpha\r\nIntro.\r\n\r\n## Current State\r\nIn.\r\n")
    assert state(doctor, root, "compile", PROJECT).exit_code == 0
    raw = path.read_bytes()
    assert raw.startswith(b"# Alpha\r\n\r\n" + BLOCK_START.encode() + b"\r\n**Phase:**")
    assert raw.endswith(BLOCK_END.encode() + b"\r\n\r\nIntro.\r\n\r\n## Current State\r\nIn.\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF kept, never mixed


@pytest.mark.parametrize(
    ("args", "context", "rule"),
    [
        ((), CONTEXT.replace("**Controlling plan:** [the plan](plans/plan.md)\n", ""), "plan"),
        (("--plan", "../../etc/passwd"), CONTEXT, "plan"),
        (("--plan", "/etc/passwd"), CONTEXT, "plan"),
        (("--plan", "plans/missing.md"), CONTEXT, "plan"),
        ((), CONTEXT.replace("**Status:** Active\n", ""), "no-status"),
    ],
)
def test_init_refusals_write_nothing(
    doctor: Doctor, make_repo: MakeRepo, args: tuple[str, ...], context: str, rule: str
) -> None:
    root = repo(make_repo, **{f"{PROJECT}/CONTEXT.md": context})
    before = snapshot(root)
    run = state(doctor, root, "init", PROJECT, *args)
    assert run.exit_code == 1, run.stdout + run.stderr
    assert f"[{rule}]" in run.stderr
    assert snapshot(root) == before


def test_init_refuses_an_existing_state_file(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo, **{f"{PROJECT}/CURRENT_STATE.json": "{}\n"})
    before = snapshot(root)
    run = state(doctor, root, "init", PROJECT)
    assert run.exit_code == 1 and "[state-exists]" in run.stderr
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("state_text", "rule"),
    [
        (None, "no-state"),
        ("{ this is not json", "invalid-state"),
        ('{"schema_version": 1}', "invalid-state"),
        ("[]", "invalid-state"),
    ],
)
def test_compile_refusals_write_nothing(
    doctor: Doctor, make_repo: MakeRepo, state_text: str | None, rule: str
) -> None:
    extra = {} if state_text is None else {f"{PROJECT}/CURRENT_STATE.json": state_text}
    root = repo(make_repo, **extra)
    before = snapshot(root)
    run = state(doctor, root, "compile", PROJECT)
    assert run.exit_code == 1, run.stdout + run.stderr
    assert f"[{rule}]" in run.stderr
    assert snapshot(root) == before


def test_compile_refuses_a_state_of_another_project(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    assert state(doctor, root, "init", PROJECT).exit_code == 0
    path = root / PROJECT / "CURRENT_STATE.json"
    path.write_text(path.read_text().replace('"project_id": "alpha"', '"project_id": "beta"'))
    before = snapshot(root)
    run = state(doctor, root, "compile", PROJECT)
    assert run.exit_code == 1 and "[invalid-state]" in run.stderr
    assert snapshot(root) == before


def test_a_missing_project_is_exit_2(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = repo(make_repo)
    assert state(doctor, root, "init", "projects/nope").exit_code == 2


def test_a_state_file_changed_while_compiling_writes_nothing(
    doctor: Doctor, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer edits CURRENT_STATE.json after the plan was computed: refused, untouched."""
    root = repo(make_repo)
    assert state(doctor, root, "init", PROJECT).exit_code == 0
    state_path = root / PROJECT / "CURRENT_STATE.json"
    planned = plan_compile

    def plan_then_interfere(*args: Any, **kwargs: Any) -> Any:
        plan = planned(*args, **kwargs)
        state_path.write_text(state_path.read_text().replace("Active", "Paused"))
        return plan

    monkeypatch.setattr(command_module, "plan_compile", plan_then_interfere)
    before = (root / PROJECT / "CONTEXT.md").read_bytes()
    run = state(doctor, root, "compile", PROJECT)
    assert run.exit_code == 1 and "[changed-on-disk]" in run.stderr
    assert (root / PROJECT / "CONTEXT.md").read_bytes() == before


# -- state set: CURRENT_STATE.json and the block, in one write ------------------------


def compiled(doctor: Doctor, make_repo: MakeRepo) -> Path:
    root = repo(make_repo)
    assert state(doctor, root, "init", PROJECT).exit_code == 0
    assert state(doctor, root, "compile", PROJECT).exit_code == 0
    return root


def block_lines(root: Path) -> list[str]:
    lines = (root / PROJECT / "CONTEXT.md").read_text().splitlines()
    return lines[lines.index(BLOCK_START) + 1 : lines.index(BLOCK_END)]


def test_state_set_changes_the_state_and_the_block_together(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = compiled(doctor, make_repo)
    run = state(doctor, root, "set", PROJECT, "--field", "phase", "--value", "Ship (round 4)")
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith(f"set phase in {PROJECT}: wrote {PROJECT}/CONTEXT.md, ")
    assert json.loads((root / PROJECT / "CURRENT_STATE.json").read_text())["phase"] == (
        "Ship (round 4)"
    )
    assert "**Phase:** Ship (round 4)" in block_lines(root)
    assert not [p for p in (root / PROJECT).iterdir() if p.name.startswith(".")]


def test_next_actions_come_one_per_line_and_the_block_holds_exactly_those(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = compiled(doctor, make_repo)
    actions = tmp_path / "actions.txt"
    actions.write_text("- [ ] Ship the parser\n\n")
    run = state(
        doctor, root, "set", PROJECT, "--field", "next_actions", "--value-file", str(actions)
    )
    assert run.exit_code == 0, run.stderr
    lines = block_lines(root)
    # What's Next still lists more items: the block copies the state's one action, no more.
    assert lines[lines.index("**Next actions:**") + 1 :] == ["- Ship the parser"]
    assert state(doctor, root, "compile", PROJECT).stdout.endswith("nothing written\n")


@pytest.mark.parametrize(
    ("field", "value", "code", "says"),
    [
        ("last_session", "tomorrow", 1, "refused [invalid-state]"),
        ("phase", "Build (round 3)", 1, "refused [no-change]"),
        ("git_head", "abc", 2, "not a field `state set` changes"),
        ("phase", "", 1, "refused [invalid-state]"),
    ],
    ids=["bad-date", "no-change", "derived-field", "empty"],
)
def test_state_set_refusals_leave_both_files_byte_identical(
    doctor: Doctor, make_repo: MakeRepo, field: str, value: str, code: int, says: str
) -> None:
    root = compiled(doctor, make_repo)
    before = snapshot(root)
    run = state(doctor, root, "set", PROJECT, "--field", field, "--value", value)
    assert run.exit_code == code, run.stdout + run.stderr
    assert says in run.stderr
    assert snapshot(root) == before


def test_an_edit_inside_the_block_names_state_set_which_then_passes(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = compiled(doctor, make_repo)
    before = snapshot(root)
    run = doctor(
        "edit",
        "set-field",
        f"{PROJECT}/CONTEXT.md",
        "--field",
        "Phase",
        "--value",
        "Ship",
        cwd=root,
    )
    assert run.exit_code == 1 and "refused [generated-block]" in run.stderr
    assert f"context-doctor state set '{PROJECT}' --field phase" in run.stderr
    assert snapshot(root) == before
    run = state(doctor, root, "set", PROJECT, "--field", "phase", "--value", "Ship")
    assert run.exit_code == 0, run.stderr
