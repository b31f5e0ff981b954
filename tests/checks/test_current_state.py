"""semantic-current-state on real git repositories: every trigger, its quiet case, bad input.

Each test builds a small knowledge base with ``make_repo``: a structured project
``alpha`` whose CURRENT_STATE.json is compiled by hand here (hashes and block
from the model's own functions), committed; then the test changes one thing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_examined,
    assert_quiet,
    assert_skipped,
    audit,
    git,
    line_of,
    sole,
    state_object,
)

from context_doctor.model.state_file import content_hashes, render_block

TODAY = "2026-06-20"
CHECK = "semantic-current-state"
STATE = "projects/alpha/CURRENT_STATE.json"
CONTEXT = "projects/alpha/CONTEXT.md"
REFERENCE = "projects/alpha/REFERENCE.md"
LOG = "projects/alpha/sessions/2026-06.md"

HEAD_LINES = "# Alpha — Working Context\n\n"
BODY = (
    "\nSee [REFERENCE.md](REFERENCE.md) and [sessions/](sessions/).\n\n"
    "## Current State\nThe parser is in.\n\n"
    "## What's Next\n- [ ] Ship the parser (as of 2026-06-18)\n"
)


def compiled(root: Path, state: dict[str, Any]) -> None:
    """Write CONTEXT.md with the block rendered from ``state``, then the state with fresh hashes."""
    project = root / "projects" / "alpha"
    block = "\n".join(render_block(state)) + "\n"
    (project / "CONTEXT.md").write_text(HEAD_LINES + block + BODY, encoding="utf-8")
    state = dict(state, content_hashes=content_hashes(project, "plans/plan.md"))
    (project / "CURRENT_STATE.json").write_text(json.dumps(state, indent=2) + "\n")


def build(make_repo: MakeRepo, **changes: Any) -> Path:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "message": "Alpha and beta",
                    "files": {
                        "projects/index.yaml": (
                            "projects:\n  - id: alpha\n    status: active\n"
                            "    last_session: 2026-06-18\n  - id: beta\n    status: active\n"
                        ),
                        REFERENCE: "# Alpha — Reference\n\nStable facts.\n",
                        LOG: "# June\n\n## 2026-06-18 — round 3\nParser in.\n",
                        "projects/alpha/plans/plan.md": "# Plan\n\n1. Parser\n",
                        "projects/beta/CONTEXT.md": (
                            "# Beta\n\n**Status:** Active\n**Last session:** 2026-06-18\n"
                        ),
                    },
                }
            ]
        }
    )
    compiled(root, state_object(**changes))
    git(root, "add", "-A")
    git(
        root, "commit", "-q", "-m", "Compile alpha", when="2026-06-18T11:00:00+00:00", identity=True
    )
    return root


def check_alpha(doctor: Doctor, root: Path) -> Run:
    return audit(doctor, "--project", str(root / "projects" / "alpha"), today=TODAY)


def alpha_findings(doctor: Doctor, root: Path) -> list[dict[str, Any]]:
    return check_alpha(doctor, root).findings(CHECK, "alpha")


def rewrite_state(root: Path, **changes: Any) -> None:
    path = root / STATE
    state = json.loads(path.read_text())
    state.update(changes)
    path.write_text(json.dumps(state, indent=2) + "\n")


# -- quiet -----------------------------------------------------------------------------


def test_a_compiled_project_is_quiet_and_replaces_body_currency(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    run = check_alpha(doctor, build(make_repo))
    assert_quiet(run, CHECK)
    assert_skipped(run, "body-currency", "structured state")


def test_a_project_without_state_or_releases_is_examined_and_quiet(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = build(make_repo)
    assert_quiet(audit(doctor, "--project", str(root / "projects" / "beta"), today=TODAY), CHECK)


# -- the state file itself -----------------------------------------------------------


def test_an_upstream_compiled_state_with_project_tree_keeps_its_skip(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    """The upstream compiler writes `project_tree`: no false defect, body-currency still skipped."""
    root = build(make_repo, project_tree="0" * 40)
    run = check_alpha(doctor, root)
    assert_quiet(run, CHECK)
    assert_skipped(run, "body-currency", "structured state")


def test_an_unknown_state_field_is_a_warning_not_an_invalid_file(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = build(make_repo, compiled_by="synthesis 2.1")
    run = check_alpha(doctor, root)
    finding = sole(run, CHECK, "alpha")
    assert finding["severity"] == "warning"
    assert finding["line"] == line_of(root, STATE, '"compiled_by"')
    assert "`compiled_by`" in finding["message"]
    assert_skipped(run, "body-currency", "structured state")  # still a valid state file


def test_schema_violation_names_field_and_line(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    rewrite_state(root, next_actions="ship it")
    finding = sole(check_alpha(doctor, root), CHECK, "alpha")
    assert finding["path"] == STATE
    assert finding["line"] == line_of(root, STATE, '"next_actions"')
    assert "`next_actions` is invalid" in finding["message"]


def test_an_invalid_state_file_does_not_switch_body_currency_off(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = build(make_repo)
    rewrite_state(root, schema_version=2)
    run = check_alpha(doctor, root)
    assert_examined(run, "body-currency")
    assert "schema_version" in sole(run, CHECK, "alpha")["message"]


def test_wrong_project_id(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    rewrite_state(root, project_id="omega")
    finding = sole(check_alpha(doctor, root), CHECK, "alpha")
    assert "project_id `omega` is not the project's directory name `alpha`" in finding["message"]
    assert finding["line"] == line_of(root, STATE, '"project_id"')


@pytest.mark.parametrize(
    ("plan", "reason"),
    [
        ("../../etc/passwd", "escapes the project"),
        ("/etc/passwd", "is an absolute path"),
        ("plans/missing.md", "does not exist"),
        ("plans", "is a directory, not a regular file"),
    ],
)
def test_unresolvable_controlling_plan(
    doctor: Doctor, make_repo: MakeRepo, plan: str, reason: str
) -> None:
    root = build(make_repo, controlling_plan=plan)
    found = [f for f in alpha_findings(doctor, root) if "controlling_plan" in f["message"]]
    assert len(found) == 1, found
    assert reason in found[0]["message"]
    assert found[0]["line"] == line_of(root, STATE, '"controlling_plan"')


def test_a_plan_behind_a_symlink_is_refused(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    (root / "projects/alpha/linked").symlink_to("plans")
    rewrite_state(root, controlling_plan="linked/plan.md")
    messages = [f["message"] for f in alpha_findings(doctor, root)]
    assert any("traverses a symlink (`linked`)" in message for message in messages), messages


@pytest.mark.parametrize("edited", [REFERENCE, LOG, "projects/alpha/plans/plan.md", CONTEXT])
def test_editing_a_hashed_file_fires(doctor: Doctor, make_repo: MakeRepo, edited: str) -> None:
    root = build(make_repo)
    with (root / edited).open("a", encoding="utf-8") as handle:
        handle.write("\nOne more line.\n")
    finding = sole(check_alpha(doctor, root), CHECK, "alpha")
    relative = edited.removeprefix("projects/alpha/")
    assert f"changed since the state was compiled: `{relative}`" in finding["message"]
    assert finding["line"] == line_of(root, STATE, '"content_hashes"')


def test_a_new_or_removed_markdown_file_fires(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    (root / "projects/alpha/notes.md").write_text("# Notes\n")
    (root / REFERENCE).unlink()
    message = sole(check_alpha(doctor, root), CHECK, "alpha")["message"]
    assert "recorded but no longer present: `REFERENCE.md`" in message
    assert "not recorded: `notes.md`" in message


def test_last_session_older_than_the_log(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo, last_session="2026-06-10")
    messages = [f["message"] for f in alpha_findings(doctor, root)]
    assert any(
        "last_session 2026-06-10 is older than the newest session entry 2026-06-18" in m
        for m in messages
    ), messages


def test_last_session_older_than_the_header(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    rewrite_state(root, last_session="2026-06-01")
    messages = [f["message"] for f in alpha_findings(doctor, root)]
    assert any("older than the CONTEXT.md header's Last session 2026-06-18" in m for m in messages)


def test_a_hand_edited_block_fires(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    path = root / CONTEXT
    path.write_text(path.read_text().replace("**Status:** Active", "**Status:** Paused"))
    found = [f for f in alpha_findings(doctor, root) if "generated block" in f["message"]]
    assert len(found) == 1, found
    assert found[0]["line"] == line_of(root, CONTEXT, "**Status:** Paused")
    assert "expected `**Status:** Active`" in found[0]["message"]


def test_a_state_file_without_a_block_fires(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    rewrite_state(root, phase="Ship (round 4)")  # the block still says round 3
    found = [f for f in alpha_findings(doctor, root) if "generated block" in f["message"]]
    assert len(found) == 1 and "expected `**Phase:** Ship (round 4)`" in found[0]["message"]
    path = root / CONTEXT
    text = path.read_text()
    path.write_text(text[: text.index("<!--")] + text[text.index("-->\n\nSee") + 4 :])
    messages = [f["message"] for f in alpha_findings(doctor, root)]
    assert any("CONTEXT.md has no generated block" in m for m in messages), messages


@pytest.mark.parametrize(
    "line",
    [
        "Current release: v1.2.0",
        "**Accepted baseline:** v1.2.0",
        "- Next checkpoint: the parser review",
        "*State as of: 2026-06-18 (round 3)*",
    ],
)
def test_current_looking_prose_outside_the_block(
    doctor: Doctor, make_repo: MakeRepo, line: str
) -> None:
    root = build(make_repo)
    with (root / REFERENCE).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{line}\n")
    found = [f for f in alpha_findings(doctor, root) if "current-looking prose" in f["message"]]
    assert len(found) == 1, found
    assert found[0]["path"] == REFERENCE
    assert found[0]["line"] == line_of(root, REFERENCE, line)


def test_history_and_code_are_not_current_prose(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    with (root / REFERENCE).open("a", encoding="utf-8") as handle:
        handle.write(
            "\n## History\n\n### Round 1 snapshot\nCurrent release: v1.0.0\n\n"
            "## Notes\n\n```\nCurrent release: v9.9.9\n```\n"
        )
    messages = [f["message"] for f in alpha_findings(doctor, root)]
    assert not any("current-looking prose" in m for m in messages), messages


# -- the release rule, with and without a state file --------------------------------------


def test_release_rule_with_a_state_file(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo, accepted_baseline="v1.9.0")
    with (root / LOG).open("a", encoding="utf-8") as handle:
        handle.write("\n## 2026-06-18 — round 3 close\nReleased v1.10.0 to production.\n")
    found = [f for f in alpha_findings(doctor, root) if "recorded as released" in f["message"]]
    paths = {(f["path"], f["line"]) for f in found}
    assert (STATE, line_of(root, STATE, '"accepted_baseline"')) in paths
    assert (CONTEXT, line_of(root, CONTEXT, "**Accepted baseline:**")) in paths
    assert all("v1.10.0" in f["message"] and LOG in f["message"] for f in found)


def release_repo(make_repo: MakeRepo, log_line: str, claim: str = "v1.19.0") -> Path:
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "projects:\n  - id: gamma\n    status: active\n",
                        "projects/gamma/CONTEXT.md": (
                            "# Gamma\n\n**Phase:** Hardening\n**Status:** Active\n"
                            f"**Last session:** 2026-06-18\n**Accepted baseline:** {claim}\n"
                        ),
                        "projects/gamma/sessions/2026-06.md": (
                            f"# June\n\n## 2026-06-18 — wrap-up\n{log_line}\n"
                        ),
                    },
                }
            ]
        }
    )


def gamma(doctor: Doctor, root: Path) -> Run:
    return audit(doctor, "--project", str(root / "projects" / "gamma"), today=TODAY)


def test_release_rule_without_a_state_file(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = release_repo(make_repo, "Shipped v1.20.0 and tagged it.")
    run = gamma(doctor, root)
    assert_examined(run, CHECK)
    finding = sole(run, CHECK, "gamma")
    assert finding["path"] == "projects/gamma/CONTEXT.md"
    assert finding["line"] == line_of(root, "projects/gamma/CONTEXT.md", "Accepted baseline")
    assert (
        "claims v1.19.0 as current, but v1.20.0 is recorded as released later"
        in (finding["message"])
    )


@pytest.mark.parametrize(
    "log_line",
    [
        "v1.21.0 will be released next week.",
        "Tagged v1.20.0-rc.1 for the testers.",
        "Released v1.20.0rc1.",
        "For example, a tool released as v2.0.0 would break this.",
        "v1.20.0 was not released: the build failed.",
        "Released v1.19.0, the accepted baseline.",
        "Released v1.18.3 as a hotfix of the old line.",
        "Planned: shipped v2.0.0 by August.",
    ],
)
def test_prospective_candidate_example_and_older_releases_are_quiet(
    doctor: Doctor, make_repo: MakeRepo, log_line: str
) -> None:
    assert_quiet(gamma(doctor, release_repo(make_repo, log_line)), CHECK)


def test_versions_compare_numerically(doctor: Doctor, make_repo: MakeRepo) -> None:
    quiet = release_repo(make_repo, "Released v1.9.3.", claim="v1.10.0")
    assert_quiet(gamma(doctor, quiet), CHECK)
    loud = release_repo(make_repo, "Released v1.10.0.", claim="v1.9.3")
    assert "v1.10.0" in sole(gamma(doctor, loud), CHECK, "gamma")["message"]


# -- bad input: a finding naming the reason, the rest of the corpus still audited ---------


def replace_state(root: Path, make: str) -> None:
    path = root / STATE
    path.unlink()
    if make == "directory":
        path.mkdir()
    elif make == "fifo":
        os.mkfifo(path)
    elif make == "symlink":
        path.symlink_to("plans/plan.md")
    elif make == "huge":
        path.write_text('{"x": [' + "1," * 5_000_000 + "1]}")
    elif make == "deep":
        path.write_text("[" * 50_000 + "]" * 50_000)
    elif make == "duplicate":
        path.write_text('{"project_id": "alpha", "project_id": "alpha"}')
    else:
        path.write_text(make)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        ("directory", "is a directory, not a regular file"),
        ("fifo", "is a FIFO, not a regular file"),
        ("symlink", "is a symlink"),
        ("huge", "over the 256 KiB limit"),
        ("[]", "is a JSON array, not a JSON object"),
        ("null", "is JSON null, not a JSON object"),
        ("deep", "nests deeper than 8 levels"),
        ("duplicate", "holds the key `project_id` twice"),
        ('{"a": NaN}', "holds `NaN`"),
        ("{ this is not json", "is not valid JSON"),
    ],
)
def test_bad_state_files_are_findings(
    doctor: Doctor, make_repo: MakeRepo, make: str, reason: str
) -> None:
    root = build(make_repo)
    replace_state(root, make)
    run = audit(doctor, "--source", str(root), today=TODAY)
    finding = sole(run, CHECK, "alpha")
    assert reason in finding["message"] and finding["path"] == STATE
    assert run.json["coverage"][CHECK] == {"examined": 2, "skipped": 0, "reasons": {}}
    assert run.json["coverage"]["body-currency"]["examined"] == 2  # nothing switched off


def test_a_non_utf8_state_file_is_record_unreadable(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo)
    (root / STATE).write_bytes(b'{"phase": "\xff"}')
    run = check_alpha(doctor, root)
    assert_skipped(run, CHECK, "unreadable")
    assert "is not valid UTF-8" in sole(run, "record-unreadable", "alpha")["message"]
