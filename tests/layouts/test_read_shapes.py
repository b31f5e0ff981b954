"""The shapes people write first, read as they mean them (docs/layouts.md), as real repositories.

Each shape is built here in our own words, as a real git repository with commits at
chosen dates, in two twins: a planted stale record that must fire (a finding about that
record or its log) and a current one that must stay silent (no freshness finding, no
order finding). Then the remedy is a promise: `log add --set-header` on the stale twin
writes into the record's own date line and log, and the record is current.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, git

Files = dict[str, str]
FRESHNESS = frozenset(
    {"context-header-freshness", "unlogged-session", "last-session-freshness", "header-ahead"}
)


def commit(day: str, message: str, files: Files, hour: int = 10) -> dict[str, Any]:
    return {"date": f"{day}T{hour:02}:00:00+00:00", "message": message, "files": files}


def code(day: str, what: str) -> dict[str, Any]:
    return commit(day, what, {"src/app.py": f"# {what}\nVERSION = {day!r}\n"})


@dataclass(frozen=True)
class Shape:
    build: Callable[[bool], dict[str, Any]]
    today: str
    record: str  # the file a stale twin's finding names (or its log, ``log``)
    log: str | None = None
    label: str | None = None  # the date label a finding must name
    catch_up: str = ""  # the day `log add --set-header` logs on the stale twin
    seed: bool = False  # the seed's own template checks still speak
    dated: bool = True  # False: the record has no date field; its log alone moves


def history(
    stale: bool, record: Callable[[str], Files], first: str, later: list[str]
) -> dict[str, Any]:
    """Work on ``first`` recorded; then work on each ``later`` day, recorded only when
    current (``record(day)``: the files that say the record is up to that day)."""
    commits = [commit(first, "first work", {"src/app.py": "v1\n", **record(first)})]
    for day in later:
        if stale:
            commits.append(code(day, f"work of {day}"))
        else:
            commits.append(commit(day, f"work of {day}", {"src/app.py": f"{day}\n", **record(day)}))
    return {"commits": commits, "remote": True}


# -- CLAUDE.md: `## Current State (Updated: DATE)` -------------------------------------------


def claude_updated(stale: bool) -> dict[str, Any]:
    def record(day: str) -> Files:
        return {
            "CLAUDE.md": "# CLAUDE.md\n\nGuidance for agents here.\n\n## Commands\n\n- make test\n\n"
            f"## Current State (Updated: {day})\n\n- The importer runs nightly.\n"
        }

    return history(stale, record, "2026-05-04", ["2026-05-11", "2026-05-18"])


# -- AGENTS.md: `## CURRENT STATE (Month D, YYYY)`, SESSION_LOG.md beside it -----------------

MONTH = {"03": "March", "04": "April"}


def agents_upper(stale: bool) -> dict[str, Any]:
    sessions: list[str] = []

    def record(day: str) -> Files:
        sessions.append(day)
        spelled = f"{MONTH[day[5:7]]} {int(day[8:])}, {day[:4]}"
        log = "# Session log\n\n" + "".join(
            f"## Session {n} — {d} (Morning)\n\n### Done\n\n- Step {n}.\n\n"
            for n, d in enumerate(sessions, 1)
        )
        return {
            "AGENTS.md": f"# AGENTS.md\n\nHow to work here.\n\n## CURRENT STATE ({spelled})\n\n"
            "- Parser half ported.\n",
            "SESSION_LOG.md": log,
        }

    return history(stale, record, "2026-03-09", ["2026-03-16", "2026-04-02"])


# -- docs/PROGRESS.md written newest first by a review bot: `## [DATE] …` ----------------------


def progress_bracketed(stale: bool) -> dict[str, Any]:
    reviews: list[str] = []

    def record(day: str) -> Files:
        reviews.insert(0, day)
        top = "".join(
            f"## [{d}] Automated review 16:00 — {n} fixes\n\n- Checked the pages.\n\n"
            for n, d in enumerate(reviews, 1)
        )
        old = (
            "## Work history\n\n| Date | Change |\n|---|---|\n| 2026-03-02 | deploy |\n"
            "| 2026-02-20 | first page |\n\n## Commits\n\n- 2026-03-02 `abc1234` deploy\n"
            "- 2026-02-28 `def5678` pages\n"
        )
        return {"docs/PROGRESS.md": f"# Progress\n\n{top}{old}"}

    return history(stale, record, "2026-08-10", ["2026-08-17", "2026-08-21"])


# -- the seed's single project, its month log kept newest first ------------------------------


def seed_newest_first(stale: bool) -> dict[str, Any]:
    entries: list[str] = []

    def record(day: str) -> Files:
        entries.insert(0, day)
        if len(entries) > 1 and entries[1] == day:
            return {}
        log = "# Session Archive — April 2026\n\nNewest at the top.\n\n" + "".join(
            f"### {d}{'b' if n == 0 and len(entries) == 3 else ''} — work\n\nDone.\n\n"
            for n, d in enumerate(entries)
        )
        context = (
            f"# Headlines — Working Context\n\n**Status:** Active\n**Last session:** {day}\n\n"
            "See [REFERENCE.md](REFERENCE.md).\n\n## Current State\n\n- Grader live.\n\n"
            "## What's Next\n\n- [ ] Weekly ingest.\n\n---\n*Budget: 150 lines*\n"
        )
        return {
            "CONTEXT.md": context,
            "REFERENCE.md": "# Reference\n\n- Tables: feeds.\n",
            "sessions/2026-04.md": log,
        }

    return history(stale, record, "2026-04-06", ["2026-04-09", "2026-04-14"])


# -- near misses with a date line in another language ----------------------------------------

POLISH = {"05": "maja", "06": "czerwca"}


def project_status_polish(stale: bool) -> dict[str, Any]:
    def record(day: str) -> Files:
        spelled = f"{int(day[8:])} {POLISH[day[5:7]]} {day[:4]}"
        return {
            "PROJECT_STATUS.md": f"# System — stan projektu\n> **Data:** {spelled}\n"
            "> **Status:** gotowe do wdrożenia\n\n## Podsumowanie\n\n- Sesje działają.\n"
        }

    return history(stale, record, "2026-05-26", ["2026-06-02", "2026-06-05"])


def planning_state(stale: bool) -> dict[str, Any]:
    def record(day: str) -> Files:
        return {
            ".planning/STATE.md": "# Project State\n\n## Current Position\n\nPhase: 2 of 4\n"
            f"Last activity: {day} — plans executed\n\n## Notes\n\n- Catalogue first.\n"
        }

    return history(stale, record, "2026-02-16", ["2026-02-23", "2026-03-02"])


def claude_status_german(stale: bool) -> dict[str, Any]:
    def record(day: str) -> Files:
        dotted = f"{day[8:]}.{day[5:7]}.{day[:4]}"
        return {
            ".claude/STATUS.md": f"# Stand der Arbeit\n\n**Stand:** {dotted} · nach dem Review\n\n"
            "## Erledigt\n\n- Export nach CSV.\n"
        }

    return history(stale, record, "2026-09-07", ["2026-09-14", "2026-09-18"])


def session_log_root(stale: bool) -> dict[str, Any]:
    sessions: list[str] = []

    def record(day: str) -> Files:
        sessions.append(day)
        log = "# Session Log\n\n" + "".join(
            f"## Session: {d} 18:02\n\n### Completed\n\n- A step.\n\n### Next Steps\n\n- More.\n\n"
            for d in sessions
        )
        return {"SESSION_LOG.md": log}

    return history(stale, record, "2026-02-02", ["2026-02-09", "2026-02-15"])


SHAPES = {
    "claude-current-state-updated": Shape(
        claude_updated, "2026-05-25", "CLAUDE.md", label="Updated", catch_up="2026-05-18"
    ),
    "agents-upper-month-name-with-session-log": Shape(
        agents_upper, "2026-04-10", "AGENTS.md", log="SESSION_LOG.md", catch_up="2026-04-02"
    ),
    "progress-bracketed-newest-first": Shape(
        progress_bracketed, "2026-08-28", "docs/PROGRESS.md", catch_up="2026-08-21", dated=False
    ),
    "seed-log-newest-first": Shape(
        seed_newest_first, "2026-04-20", "CONTEXT.md", log="sessions/2026-04.md",
        catch_up="2026-04-14", seed=True,
    ),
    "project-status-polish": Shape(
        project_status_polish, "2026-06-10", "PROJECT_STATUS.md", label="Data",
        catch_up="2026-06-05",
    ),
    "planning-state": Shape(
        planning_state, "2026-03-06", ".planning/STATE.md", label="Last activity",
        catch_up="2026-03-02",
    ),
    "claude-status-german": Shape(
        claude_status_german, "2026-09-25", ".claude/STATUS.md", label="Stand",
        catch_up="2026-09-18",
    ),
    "session-log-root": Shape(
        session_log_root, "2026-02-20", "SESSION_LOG.md", catch_up="2026-02-15", dated=False
    ),
}  # fmt: skip


def audit(doctor: Doctor, root: object, today: str) -> Run:
    run = doctor("check", str(root), "--today", today, "--json")
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_stale_record_fires(name: str, make_repo: MakeRepo, doctor: Doctor) -> None:
    shape = SHAPES[name]
    run = audit(doctor, make_repo(shape.build(True)), shape.today)
    stale = [f for f in run.json["findings"] if f["check"] in FRESHNESS]
    assert stale, run.json["findings"]
    assert {f["path"] for f in stale} & {shape.record, shape.log}, stale
    if shape.label is not None:
        assert any(shape.label in f["message"] for f in stale), stale


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_current_record_is_silent(name: str, make_repo: MakeRepo, doctor: Doctor) -> None:
    shape = SHAPES[name]
    run = audit(doctor, make_repo(shape.build(False)), shape.today)
    findings = run.json["findings"]
    if shape.seed:  # the seed's template checks may speak; never freshness nor order
        findings = [f for f in findings if f["check"] in FRESHNESS | {"session-log-layout"}]
    assert findings == []


@pytest.mark.parametrize("name", list(SHAPES))
def test_log_add_set_header_brings_the_stale_record_up_to_date(
    name: str, make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The remedy is a promise: one `log add --set-header` moves the record's own date line
    (never a second one) and logs the session; the record is current."""
    shape = SHAPES[name]
    root = make_repo(shape.build(True))
    before = (root / shape.record).read_text(encoding="utf-8")
    added = doctor(
        "log", "add", str(root), "--date", shape.catch_up, "--title", "caught up",
        *(("--set-header",) if shape.dated else ()), "--today", shape.today,
    )  # fmt: skip
    assert added.exit_code == 0, added.stdout + added.stderr
    after = (root / shape.record).read_text(encoding="utf-8")
    for label in ("Last updated", "Last session", "Updated:"):  # never a second date line
        assert after.count(label) == before.count(label), after
    git(root, "add", "-A")
    git(root, "commit", "-qm", "log the session", when=f"{shape.today}T08:00:00+00:00")
    run = audit(doctor, root, shape.today)
    assert [f for f in run.json["findings"] if f["check"] in FRESHNESS] == []


def test_the_detected_layouts_are_named_as_read(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(project_status_polish(False))
    run = doctor("check", str(root), "--today", "2026-06-10")
    assert "layout PROJECT_STATUS.md, detected (near the layouts table)" in run.stdout


# -- what is not working memory stays silent ---------------------------------------------------


def test_a_standing_project_status_is_not_working_memory(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    statement = (
        "# CLAUDE.md\n\n## Project status\n\nAn unmaintained research playground: issues are "
        "read, pull requests are not merged.\n\n## Commands\n\n- make test\n"
    )
    root = make_repo(
        {
            "remote": True,
            "commits": [
                commit("2026-01-05", "guide", {"CLAUDE.md": statement, "src/app.py": "v1\n"}),
                code("2026-06-29", "fix"),
            ],
        }
    )
    run = doctor("check", str(root), "--today", "2026-12-04", "--json")
    assert run.json["findings"] == [] and run.json["projects_audited"] == 0, run.json
    layout = doctor("layout", str(root))
    assert "no working memory here" in layout.stdout
