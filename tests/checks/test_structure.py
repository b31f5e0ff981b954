"""Tier structure checks (docs/checks.md "Tier structure and budgets") on a real git corpus.

Every case is one project of ``fixtures/scenarios/structure.yaml``, built once
per session. Findings are read from an audit of the whole source; "examined"
and skip reasons come from an audit narrowed to one project (``--project``),
so the coverage counts belong to that project alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_quiet,
    assert_skipped,
    line_of,
    scenario_audit_fixtures,
    sole,
)

from context_doctor.checks.registry import load_checks

TODAY = "2026-06-20"
SCENARIO = "structure"

root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)


# -- context-present ---------------------------------------------------------


def test_context_present_missing_file_is_a_defect(corpus: Run) -> None:
    finding = sole(corpus, "context-present", "cp-missing")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/cp-missing/CONTEXT.md"
    assert finding["line"] is None
    assert "missing" in finding["message"]


@pytest.mark.parametrize("project", ["cp-empty", "cp-blank"])
def test_context_present_empty_or_blank_file_is_a_defect(corpus: Run, project: str) -> None:
    finding = sole(corpus, "context-present", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == f"projects/{project}/CONTEXT.md"
    assert "empty" in finding["message"]


@pytest.mark.parametrize("project", ["cp-no-heading", "cp-fenced-heading"])
def test_context_present_no_heading_is_a_warning(corpus: Run, project: str) -> None:
    """A `# heading` inside a code fence is not a heading."""
    finding = sole(corpus, "context-present", project)
    assert finding["severity"] == "warning"
    assert finding["path"] == f"projects/{project}/CONTEXT.md"
    assert "heading" in finding["message"]


@pytest.mark.parametrize("project", ["cp-ghost", "cp-ghost-paused"])
def test_context_present_registered_id_without_directory_is_a_defect(
    corpus: Run, root: Path, project: str
) -> None:
    finding = sole(corpus, "context-present", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/index.yaml"
    assert finding["line"] == line_of(root, "projects/index.yaml", f"- id: {project}", exact=True)
    assert f"projects/{project}/" in finding["message"]


def test_context_present_archived_id_without_directory_is_quiet(corpus: Run) -> None:
    assert corpus.findings("context-present", "cp-ghost-archived") == []
    # examined like every other project, not skipped
    coverage = corpus.json["coverage"]["context-present"]
    assert coverage["examined"] == corpus.json["projects_audited"]


def test_context_present_quiet_on_a_healthy_project(one: Callable[[str], Run]) -> None:
    assert_quiet(one("cp-ok"), "context-present")


def test_context_present_is_never_skipped(corpus: Run) -> None:
    """docs/checks.md: no skip reason. It examines projects with no CONTEXT.md and no directory too."""
    assert corpus.json["projects_audited"] == 39
    assert corpus.json["coverage"]["context-present"] == {
        "examined": 39,
        "skipped": 0,
        "reasons": {},
    }


def _context_checks() -> set[str]:
    return {name for name, spec in load_checks().items() if spec.needs_context}


OURS = {
    "context-budget",
    "sessions-present",
    "reference-present",
    "reference-budget",
    "reference-shard",
    "reference-index-budget",
    "reference-topic-budget",
    "reference-index-orphan",
    "reference-index-missing",
    "completed-items-in-context",
    "stale-session-in-context",
}


def test_missing_context_skips_every_other_check(one: Callable[[str], Run]) -> None:
    """cp-missing has a log with two dates and a reference/ shard: nothing else runs."""
    run = one("cp-missing")
    gated = _context_checks()
    assert gated >= OURS
    assert "context-present" not in gated
    for name in sorted(gated):
        assert run.json["coverage"][name] == {
            "examined": 0,
            "skipped": 1,
            "reasons": {"no CONTEXT.md": 1},
        }, name
    assert {f["check"] for f in run.findings(project="cp-missing")} & gated == set()
    assert run.findings("context-present", "cp-missing")


def test_empty_context_skips_every_other_check(one: Callable[[str], Run]) -> None:
    run = one("cp-empty")
    for name in sorted(_context_checks()):
        assert run.json["coverage"][name]["reasons"] == {"empty CONTEXT.md": 1}, name
    assert run.findings("context-present", "cp-empty")


def test_registered_id_without_directory_skips_other_checks(corpus: Run) -> None:
    """No --project for a directory that does not exist: read the corpus ledger.

    "no CONTEXT.md": cp-missing and the three ghosts; "empty CONTEXT.md": cp-empty, cp-blank.
    """
    assert corpus.json["coverage"]["context-budget"] == {
        "examined": 33,
        "skipped": 6,
        "reasons": {"empty CONTEXT.md": 2, "no CONTEXT.md": 4},
    }
    gated = _context_checks()
    for ghost in ("cp-ghost", "cp-ghost-paused", "cp-ghost-archived"):
        assert {f["check"] for f in corpus.findings(project=ghost)} & gated == set()


# -- context-budget ----------------------------------------------------------


@pytest.mark.parametrize(
    ("project", "lines", "budget"),
    [
        ("cb-151", 151, 150),
        ("cb-terminal-81", 81, 80),  # completed in the index
        ("cb-retired-81", 81, 80),  # retired `complete` is terminal too
    ],
)
def test_context_budget_fires(corpus: Run, project: str, lines: int, budget: int) -> None:
    finding = sole(corpus, "context-budget", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == f"projects/{project}/CONTEXT.md"
    assert finding["line"] is None
    assert f"{lines} lines" in finding["message"]
    assert f"{budget}-line" in finding["message"]


@pytest.mark.parametrize(
    "project",
    [
        "cb-150",  # exactly at the 150-line budget
        "cb-terminal-80",  # exactly at the completed budget
        "cb-paused-100",  # paused is dormant but not terminal: 150 applies
        "cb-header-active",  # "Active — not yet complete" is not completed
        "cb-incomplete",  # "incomplete", "completeness" say nothing
        # The index's status decides the budget when it gives one (docs/layouts.md): index
        # `active`, header reading completed is status-agreement's disagreement, not 80 lines.
        "cb-header-completed",
        "cb-phase-shipped",
    ],
)
def test_context_budget_quiet(one: Callable[[str], Run], corpus: Run, project: str) -> None:
    assert_quiet(one(project), "context-budget")
    assert corpus.findings("context-budget", project) == []


def test_context_budget_counts_only_real_line_breaks(one: Callable[[str], Run], root: Path) -> None:
    """U+2028 and a form feed inside a line do not end it (str.splitlines said 152 lines)."""
    raw = (root / "projects/cb-150-separators/CONTEXT.md").read_bytes()
    assert raw.count(b"\n") == 150
    assert "\u2028" in raw.decode() and "\f" in raw.decode()
    assert_quiet(one("cb-150-separators"), "context-budget")


def test_context_budget_skipped_without_context(one: Callable[[str], Run]) -> None:
    assert_skipped(one("cp-missing"), "context-budget", "no CONTEXT.md")
    assert_skipped(one("cp-blank"), "context-budget", "empty CONTEXT.md")


# -- sessions-present --------------------------------------------------------


def test_sessions_present_fires_past_80_lines_without_sessions(corpus: Run) -> None:
    finding = sole(corpus, "sessions-present", "sp-81")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/sp-81/CONTEXT.md"
    assert finding["line"] is None
    assert "81 lines" in finding["message"]


@pytest.mark.parametrize("project", ["sp-80", "sp-with-log"])
def test_sessions_present_quiet(one: Callable[[str], Run], corpus: Run, project: str) -> None:
    assert_quiet(one(project), "sessions-present")
    assert corpus.findings("sessions-present", project) == []


def test_sessions_present_skips_dormant(one: Callable[[str], Run], corpus: Run) -> None:
    assert_skipped(one("sp-paused"), "sessions-present", "dormant")
    assert corpus.findings("sessions-present", "sp-paused") == []


# -- reference-present -------------------------------------------------------


@pytest.mark.parametrize("project", ["rp-two-days", "rp-two-files"])
def test_reference_present_fires_after_two_session_dates(corpus: Run, project: str) -> None:
    finding = sole(corpus, "reference-present", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == f"projects/{project}/REFERENCE.md"
    assert finding["line"] is None
    assert finding["message"].startswith("2 sessions")


@pytest.mark.parametrize(
    "project",
    [
        "rp-same-day",  # two entries, one distinct date
        "rp-not-logs",  # README/INDEX, #### and fenced headings are not entries
        "rp-has-ref",  # two dates, REFERENCE.md present
    ],
)
def test_reference_present_quiet(one: Callable[[str], Run], corpus: Run, project: str) -> None:
    assert_quiet(one(project), "reference-present")
    assert corpus.findings("reference-present", project) == []


def test_reference_present_skips_dormant(one: Callable[[str], Run]) -> None:
    assert_skipped(one("rp-completed"), "reference-present", "dormant")


# -- completed-items-in-context ----------------------------------------------


def test_completed_items_fires_once_at_first_checked_item(corpus: Run, root: Path) -> None:
    finding = sole(corpus, "completed-items-in-context", "ci-checked")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/ci-checked/CONTEXT.md"
    assert finding["line"] == line_of(root, finding["path"], "[x] Shipped the parser")
    assert "2 checked items" in finding["message"]  # [x] and [X], not the [ ] ones


def test_completed_items_quiet(one: Callable[[str], Run], corpus: Run) -> None:
    """Unchecked items, `[x]` in prose and inside a code fence are not checked items."""
    assert_quiet(one("ci-open"), "completed-items-in-context")
    assert corpus.findings("completed-items-in-context", "ci-open") == []


def test_completed_items_skips_dormant(one: Callable[[str], Run]) -> None:
    assert_skipped(one("ci-paused"), "completed-items-in-context", "dormant")


# -- stale-session-in-context ------------------------------------------------


def test_stale_session_fires_more_than_7_days_before_newest_log_entry(
    corpus: Run, root: Path
) -> None:
    """Newest entry 2026-06-18: the 06-10 summary (8 days) fires, 06-11 (7 days) does not."""
    finding = sole(corpus, "stale-session-in-context", "ss-stale")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/ss-stale/CONTEXT.md"
    assert finding["line"] == line_of(root, finding["path"], "## Recent Session: 2026-06-10")
    assert "8 days older" in finding["message"]
    assert "2026-06-18" in finding["message"]


def test_stale_session_measures_against_newest_heading_without_a_log(
    corpus: Run, root: Path
) -> None:
    finding = sole(corpus, "stale-session-in-context", "ss-self")
    assert finding["line"] == line_of(root, finding["path"], "## Session 2026-05-01")
    assert "2026-06-15" in finding["message"]


@pytest.mark.parametrize(
    "project",
    [
        "ss-idle",  # idle since March: its one summary is the newest session, not stale
        "ss-idle-alone",  # no log, one old summary: measured against itself, not today
        "ss-fenced",  # an old dated "heading" inside a code fence is not a heading
    ],
)
def test_stale_session_quiet(one: Callable[[str], Run], corpus: Run, project: str) -> None:
    assert_quiet(one(project), "stale-session-in-context")
    assert corpus.findings("stale-session-in-context", project) == []


def test_stale_session_skips_dormant(one: Callable[[str], Run]) -> None:
    assert_skipped(one("ss-completed"), "stale-session-in-context", "dormant")


# -- context-budget: the leading clause, and the index first --------------------

LONG_STATUS = (
    "**Status:** Tools reframed as pipeline nodes (intake, scoring, report). Roster email sent — "
    "asking for a complete suite description of every tool… Awaiting response.\n"
)


# A Status line of about 2,000 characters whose leading clause says nothing.
STATUS_2000 = (
    "**Status:** " + "Tools reframed as pipeline nodes, a complete suite pending. " * 33 + "\n"
)


def _context(status: str, phase: str, lines: int) -> dict[str, Any]:
    head = f"# Intake tools — Working Context\n\n{phase}{status}**Last session:** 2026-06-10\n"
    return {"text": head + "\n---\n\n## Current State\n", "pad_to": lines}


def _audit_one_commit(
    make_repo: MakeRepo, doctor: Doctor, files: dict[str, Any]
) -> tuple[Path, Run]:
    root = make_repo({"commits": [{"date": "2026-06-10T10:00:00+00:00", "files": files}]})
    return root, doctor("check", "--source", str(root), "--today", "2026-06-12", "--json")


def test_a_completion_word_late_in_a_long_status_keeps_the_150_line_budget(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """A real active project: 107 lines, Status prose mentioning `complete`, Phase Active."""
    phase = "**Phase:** Active Evaluation — scoring the intake tools\n"
    _root, run = _audit_one_commit(
        make_repo,
        doctor,
        {
            "projects/index.yaml": "- id: intake\n  status: active\n",
            "projects/intake/CONTEXT.md": _context(LONG_STATUS, phase, 107),
            # No index status: the header alone decides, and still reads active.
            "projects/nostatus/CONTEXT.md": _context(LONG_STATUS, phase, 107),
        },
    )
    assert run.findings("context-budget") == []
    assert run.findings("status-agreement", "intake") == []
    assert run.findings("record-unreadable", "intake") == []


def test_a_single_project_repository_whose_header_reads_completed_gets_80_lines(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root, run = _audit_one_commit(
        make_repo, doctor, {"CONTEXT.md": _context("**Status:** Completed — handed over\n", "", 81)}
    )
    assert "81 lines, over the 80-line" in sole(run, "context-budget", root.name)["message"]


def test_a_long_status_with_no_verdict_and_no_phase_is_record_unreadable_not_completed(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    _root, run = _audit_one_commit(
        make_repo,
        doctor,
        {
            "projects/index.yaml": "- id: intake\n  status: active\n",
            "projects/intake/CONTEXT.md": _context(STATUS_2000, "", 107),
        },
    )
    assert run.findings("context-budget") == []
    assert sole(run, "record-unreadable", "intake")["severity"] == "warning"
