"""Hygiene (docs/checks.md "Hygiene, provenance and secrets"): template, archive trigger, log layout.

``fixtures/scenarios/hygiene.yaml`` holds one project per case (hy- prefixes); findings come
from an audit of the whole source, coverage from an audit narrowed with ``--project``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_not_applicable,
    assert_quiet,
    assert_skipped,
    line_of,
    scenario_audit_fixtures,
    sole,
)

TODAY = "2026-06-20"
root, corpus, one = scenario_audit_fixtures("hygiene", TODAY)


# -- context-archive-due -----------------------------------------------------------


def test_archive_due_over_120_lines_within_budget(corpus: Run) -> None:
    finding = sole(corpus, "context-archive-due", "hy-archive")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/hy-archive/CONTEXT.md"
    assert finding["message"] == (
        "CONTEXT.md is 130 lines, over the 120-line archive trigger (budget 150)"
    )


def test_archive_due_leaves_an_over_budget_file_to_context_budget(
    one: Callable[[str], Run],
) -> None:
    run = one("hy-over")
    assert_quiet(run, "context-archive-due")
    assert len(run.findings("context-budget")) == 1


def test_archive_due_quiet_on_a_short_file(one: Callable[[str], Run]) -> None:
    assert_quiet(one("hy-ok"), "context-archive-due")


def test_archive_due_skips_dormant_projects(one: Callable[[str], Run]) -> None:
    assert_skipped(one("hy-paused"), "context-archive-due", "dormant")


# -- context-template ------------------------------------------------------------------


def test_template_one_finding_per_file_lists_every_missing_part(corpus: Run) -> None:
    """Issue #28: one warning per file, every missing part named, one remedy adding them all."""
    (finding,) = corpus.findings("context-template", "hy-bare")
    assert finding["message"] == (
        "CONTEXT.md departs from the working-context template: no link to REFERENCE.md, "
        "no link to sessions/, no `## Current State`, no `## What's Next`, "
        "no budget footer (no `Budget:` line among the last 5)"
    )
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/hy-bare/CONTEXT.md"
    assert finding["remedy"] == (
        "In projects/hy-bare/CONTEXT.md: "
        "add `For stable reference facts: see [REFERENCE.md](REFERENCE.md)` under the header; "
        "add `For session history: see [sessions/](sessions/)` under the header; "
        "add a `## Current State` section; add a `## What's Next` section; "
        "end the file with `*This file follows the Tiered Context Architecture. "
        "Budget: ≤150 lines.*` (the seed's working-context template)."
    )


def test_template_links_asked_only_for_what_exists(corpus: Run) -> None:
    """hy-over has neither REFERENCE.md nor sessions/: no link asked for, only the rest."""
    (finding,) = corpus.findings("context-template", "hy-over")
    assert "link" not in finding["message"]
    assert finding["message"].endswith(
        "no `## Current State`, no `## What's Next`, "
        "no budget footer (no `Budget:` line among the last 5)"
    )


def test_template_quiet_on_the_seed_template(one: Callable[[str], Run]) -> None:
    """`./REFERENCE.md#anchor` is a link to REFERENCE.md; `What's Next — Prioritized` counts."""
    assert_quiet(one("hy-ok"), "context-template")


def test_template_a_completed_header_is_not_asked_for_working_sections(
    corpus: Run,
) -> None:
    assert corpus.findings("context-template", "hy-closing") == []


def test_template_skips_dormant_projects(one: Callable[[str], Run]) -> None:
    assert_skipped(one("hy-paused"), "context-template", "dormant")


# -- completed-items-in-context: the milestones exception ------------------------------------


@pytest.mark.parametrize("project", ["hy-milestones", "hy-ok"])
def test_short_milestones_section_is_the_allowed_exception(
    one: Callable[[str], Run], project: str
) -> None:
    assert_quiet(one(project), "completed-items-in-context")


def test_long_milestones_section_gets_no_exception(corpus: Run, root: Path) -> None:
    finding = sole(corpus, "completed-items-in-context", "hy-milestones-long")
    assert "11 checked items" in finding["message"]
    assert finding["line"] == line_of(root, "projects/hy-milestones-long/CONTEXT.md", "[x] One")


# -- session-log-layout --------------------------------------------------------------------


def test_a_log_kept_newest_first_is_its_own_convention(corpus: Run) -> None:
    """Dates that only fall (same-day suffixes aside) are an order, not a fault: only a log
    that mixes both orders is told to reorder."""
    assert corpus.findings("session-log-layout", "hy-newest-first") == []


def test_log_layout_problems_one_per_file_and_kind(corpus: Run, root: Path) -> None:
    log = "projects/hy-logs/sessions/2026-06.md"
    found = {
        (f["path"], f["line"]): f["message"]
        for f in corpus.findings("session-log-layout", "hy-logs")
    }
    assert found == {
        (
            "projects/hy-logs/sessions/notes.md",
            None,
        ): "session log `notes.md` is not named YYYY-MM.md",
        (
            log,
            line_of(root, log, "## 2026-05-28"),
        ): "entry dated 2026-05-28 is outside 2026-06.md's month",
        # mostly newest first (06-10, 06-03, 05-28): the one entry against it is named
        (log, line_of(root, log, "## 2026-06-12")): (
            "entry dated 2026-06-12 comes after one dated 2026-05-28: the log mixes both "
            "orders, most of it newest first"
        ),
    }


def test_log_layout_quiet_on_monthly_chronological_logs(one: Callable[[str], Run]) -> None:
    """README.md is not a log; same-day entries are in order; two monthly files."""
    assert_quiet(one("hy-ok"), "session-log-layout")


def test_log_layout_skipped_without_a_log(one: Callable[[str], Run]) -> None:
    assert_not_applicable(one("hy-bare-nolog"), "session-log-layout", "no log")


# -- session-log-layout: an entry dated after --today --------------------------


def _logged(make_repo: MakeRepo, log: str) -> Path:
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-10T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: atlas\n  status: active\n",
                        "projects/atlas/CONTEXT.md": "# Atlas\n\n**Status:** Active\n",
                        "projects/atlas/sessions/2026-06.md": log,
                    },
                }
            ]
        }
    )


def test_a_log_entry_dated_after_today_is_a_finding(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _logged(make_repo, "# June\n\n## 2026-06-09 — scoping\n\n## 2026-06-28 — launch\n")
    run = doctor("check", "--source", str(root), "--today", "2026-06-12", "--json")
    finding = sole(run, "session-log-layout", "atlas")
    assert "entry dated 2026-06-28 is after today (2026-06-12)" in finding["message"]
    assert finding["line"] == 5
    assert finding["path"] == "projects/atlas/sessions/2026-06.md"


def test_a_log_entry_dated_today_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _logged(make_repo, "# June\n\n## 2026-06-09 — scoping\n\n## 2026-06-12 — build\n")
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-12", "--json"
    )
    assert_quiet(run, "session-log-layout")


def test_a_project_without_a_log_is_skipped_for_future_entries(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _logged(make_repo, "")
    (root / "projects/atlas/sessions/2026-06.md").unlink()
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-12", "--json"
    )
    assert_not_applicable(run, "session-log-layout", "no log")


# -- completed-items-in-context: the milestones exception at the end of the file


def _milestones_repo(make_repo: MakeRepo, done: int, status: str = "active") -> Path:
    items = "".join(f"- [x] Milestone {n} shipped\n" for n in range(1, done + 1))
    context = (
        "# Atlas — Working Context\n\n**Status:** Active\n**Last session:** 2026-06-10\n---\n\n"
        f"## Current State\n- Building.\n\n## Completed milestones\n{items}\n---\n"
        "*This file follows the Tiered Context Architecture. Budget: ≤150 lines.*\n"
        "*Archive trigger: 120 lines.*\n"
    )
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-10T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": f"- id: atlas\n  status: {status}\n",
                        "projects/atlas/CONTEXT.md": context,
                    },
                }
            ]
        }
    )


def _milestones_audit(doctor: Doctor, root: Path) -> Run:
    return doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-12", "--json"
    )


def test_a_last_milestones_section_counts_its_own_lines_not_the_footer(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Nine milestones (10 lines with the blank) above `---` and a two-line footer."""
    run = _milestones_audit(doctor, _milestones_repo(make_repo, 9))
    assert_quiet(run, "completed-items-in-context")


def test_a_last_milestones_section_over_ten_lines_is_reported(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = _milestones_audit(doctor, _milestones_repo(make_repo, 11))
    assert sole(run, "completed-items-in-context", "atlas")["severity"] == "warning"


def test_milestones_of_a_paused_project_are_skipped(make_repo: MakeRepo, doctor: Doctor) -> None:
    run = _milestones_audit(doctor, _milestones_repo(make_repo, 11, "paused"))
    assert_skipped(run, "completed-items-in-context", "dormant")


# -- session-log-layout: a misnamed log's remedy names its target -------------


def _misnamed(make_repo: MakeRepo, logs: dict[str, str]) -> Path:
    context = (
        "# Atlas — Working Context\n\n**Status:** Active — interviewing the pilot teams, "
        "notes below\n**Last session:** 2026-06-09\n\n---\n\n## Current State\nPilots.\n"
    )
    files = {
        "projects/index.yaml": "- id: atlas\n  status: active\n",
        "projects/atlas/CONTEXT.md": context,
    }
    files.update({f"projects/atlas/sessions/{name}": text for name, text in logs.items()})
    return make_repo({"commits": [{"date": "2026-06-10T10:00:00+00:00", "files": files}]})


def _layout_remedy(make_repo: MakeRepo, doctor: Doctor, logs: dict[str, str]) -> str:
    root = _misnamed(make_repo, logs)
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    (finding,) = [
        f for f in run.findings("session-log-layout", "atlas") if "not named" in f["message"]
    ]
    return str(finding["remedy"])


def test_a_misnamed_log_is_told_its_month_file(make_repo: MakeRepo, doctor: Doctor) -> None:
    remedy = _layout_remedy(
        make_repo,
        doctor,
        {"june notes.md": "# June\n\n## 2026-06-02 — kickoff\n\n## 2026-06-09 — pilots\n"},
    )
    assert remedy == "Rename it to projects/atlas/sessions/2026-06.md, the month of its 2 entries."


def test_a_misnamed_log_is_never_renamed_onto_an_existing_file(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    remedy = _layout_remedy(
        make_repo,
        doctor,
        {
            "notes.md": "# Notes\n\n## 2026-06-02 — kickoff\n",
            "2026-06.md": "# June\n\n## 2026-06-09 — pilots\n",
        },
    )
    assert "Rename" not in remedy
    assert remedy == (
        "projects/atlas/sessions/2026-06.md already exists, so do not rename: merge its entry "
        "into projects/atlas/sessions/2026-06.md in date order, then delete "
        "projects/atlas/sessions/notes.md."
    )


def test_a_misnamed_log_without_dates_is_told_what_to_decide(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    remedy = _layout_remedy(make_repo, doctor, {"scratch.md": "# Scratch\n\nLoose thoughts.\n"})
    assert "YYYY" not in remedy
    assert "cannot be derived" in remedy and "projects/atlas/sessions/" in remedy


def test_a_misnamed_log_spanning_months_names_each_file(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    remedy = _layout_remedy(
        make_repo,
        doctor,
        {
            "spring.md": "# Spring\n\n## 2026-05-28 — scoping\n\n## 2026-06-02 — kickoff\n",
            "2026-06.md": "# June\n\n## 2026-06-09 — pilots\n",
        },
    )
    assert remedy == (
        "Move its entries into the monthly files they belong to: "
        "projects/atlas/sessions/2026-05.md, projects/atlas/sessions/2026-06.md (exists: merge "
        "in date order); then delete projects/atlas/sessions/spring.md."
    )
