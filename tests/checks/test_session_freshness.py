"""Session freshness (docs/checks.md "Session freshness") on real git repositories.

``fixtures/scenarios/freshness.yaml`` holds one project per case, each created
in its own commit so that no project's evidence is a bulk sweep. Cases whose
*history shape* is the point (five projects swept at once, a shallow clone, a
single-project repository) are built inline with ``make_repo``. Findings come
from an audit of the whole source; coverage from an audit narrowed to one
project with ``--project``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    INDEX,
    Doctor,
    MakeRepo,
    assert_examined,
    assert_not_applicable,
    assert_quiet,
    assert_skipped,
    field_line,
    git,
    line_of,
    scenario_audit_fixtures,
    short_sha_of,
    sole,
    template_tail,
)

from context_doctor.git.run import git_environment

TODAY = "2026-06-20"
SCENARIO = "freshness"
FRESHNESS = (
    "last-session-freshness",
    "context-header-freshness",
    "freshness-unverifiable",
    "unlogged-session",
)

root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)


def freshness_findings(run: Run, project: str | None = None) -> list[dict[str, Any]]:
    return [f for f in run.findings(project=project) if f["check"] in FRESHNESS]


# -- last-session-freshness and context-header-freshness: the log speaks ------


def test_log_entry_newer_than_header_and_index_is_two_defects(corpus: Run, root: Path) -> None:
    """Log entry 2026-06-02, header and index 2026-06-01: a one-day gap is stale."""
    log = "projects/log-ahead/sessions/2026-06.md"
    evidence = f"2026-06-02 ({log}:{line_of(root, log, '## 2026-06-02')})"

    index = sole(corpus, "last-session-freshness", "log-ahead")
    assert index["severity"] == "defect"
    assert index["path"] == INDEX
    assert index["line"] == field_line(root, "log-ahead", "last_session")
    assert "2026-06-01 is behind the newest session-log entry" in index["message"]
    assert evidence in index["message"]

    header = sole(corpus, "context-header-freshness", "log-ahead")
    assert header["severity"] == "defect"
    assert header["path"] == "projects/log-ahead/CONTEXT.md"
    assert header["line"] == line_of(root, "projects/log-ahead/CONTEXT.md", "**Last session:**")
    assert "2026-06-01 is behind the newest session-log entry" in header["message"]
    assert evidence in header["message"]


def test_header_and_index_ahead_of_the_log_are_one_defect(
    corpus: Run, root: Path, one: Callable[[str], Run]
) -> None:
    """Header and index 2026-06-02, log 2026-06-01, a commit on 2026-06-02: one missing
    session, reported once, by the header's finding naming both records."""
    log = "projects/header-ahead/sessions/2026-06.md"
    evidence = f"2026-06-01 ({log}:{line_of(root, log, '## 2026-06-01')})"

    assert corpus.findings("last-session-freshness", "header-ahead") == []
    assert_examined(one("header-ahead"), "last-session-freshness")

    header = sole(corpus, "context-header-freshness", "header-ahead")
    assert header["severity"] == "defect"
    assert header["path"] == "projects/header-ahead/CONTEXT.md"
    assert header["line"] == line_of(root, "projects/header-ahead/CONTEXT.md", "**Last session:**")
    assert "2026-06-02 (and index.yaml last_session) is ahead of" in header["message"]
    assert "the log lacks that session" in header["message"]
    assert evidence in header["message"]


def test_an_index_ahead_of_the_log_alone_is_still_its_own_defect(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The header agrees with the log; only the index claims the later session: the index's
    finding stands (a true defect is never folded away)."""
    context = (
        "# Atlas — Working Context\n\n**Status:** Active — drafting the rollout plan, "
        "waiting on the platform team's answers\n**Last session:** 2026-06-01\n\n---\n\n"
        "## Current State\nDrafting.\n"
    )
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: atlas\n  status: active\n"
                        "  last_session: 2026-06-05\n",
                        "projects/atlas/CONTEXT.md": context,
                        "projects/atlas/sessions/2026-06.md": "# June\n\n## 2026-06-01 — plan\n",
                    },
                },
                {
                    "date": "2026-06-05T10:00:00+00:00",
                    "files": {"projects/atlas/REFERENCE.md": "# Atlas — Reference\n\nFacts.\n"},
                },
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", "2026-06-06", "--json")
    index = sole(run, "last-session-freshness", "atlas")
    assert "2026-06-05 is ahead of the newest session-log entry 2026-06-01" in index["message"]
    assert "the log lacks that session" in index["message"]
    assert run.findings("context-header-freshness", "atlas") == []


@pytest.mark.parametrize("check", ["last-session-freshness", "context-header-freshness"])
def test_records_matching_the_newest_entry_are_quiet(one: Callable[[str], Run], check: str) -> None:
    """in-step's newest entry is a ``###`` heading dated 2026-06-05, like its records."""
    assert_quiet(one("in-step"), check)


def test_log_entry_committed_months_after_its_session_is_quiet(one: Callable[[str], Run]) -> None:
    """The log entry (2026-03-01) and the commit that adds it (2026-06-10) differ by months:
    the log is the evidence, and a commit that touches sessions/ is no unlogged session."""
    run = one("late-log")
    for check in FRESHNESS:
        assert_quiet(run, check)


@pytest.mark.parametrize("check", FRESHNESS)
def test_paused_project_is_skipped_as_dormant(one: Callable[[str], Run], check: str) -> None:
    """paused disagrees everywhere and has late unlogged commits; nobody asks."""
    assert_skipped(one("paused"), check, "dormant")


def test_entry_without_last_session_skips_the_index_check(one: Callable[[str], Run]) -> None:
    run = one("no-last-session")
    assert_not_applicable(run, "last-session-freshness", "no last_session")
    assert_quiet(run, "context-header-freshness")


def test_single_project_repository_skips_the_index_check(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "CONTEXT.md": "# Solo\n\n**Status:** Active\n**Last session:** 2026-05-01\n",
                        "sessions/2026-06.md": "# Sessions\n\n## 2026-06-01 — kickoff\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--project", str(root), "--today", TODAY, "--json")
    assert run.json["not_applicable"]["last-session-freshness"]["reason"] == "no index"
    # the header has no index to hide behind
    finding = sole(run, "context-header-freshness", root.name)
    assert finding["path"] == "CONTEXT.md"
    assert "sessions/2026-06.md:3" in finding["message"]


def _hand_off_note(make_repo: MakeRepo, heading: str) -> Path:
    """A root CONTEXT.md that is a hand-off note headed `## Last Session: DATE`, a log
    reaching 2026-06-01, and nothing after it."""
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "CONTEXT.md": f"# Hand-off\n\n{heading}\n\nPicked up the parser.\n",
                        "sessions/2026-06.md": "# Sessions\n\n## 2026-06-01 — parser\n",
                    },
                }
            ]
        }
    )


def test_a_last_session_heading_is_read_and_a_stale_one_fires(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """#27: `## Last Session: DATE` was "unreadable", and its remedy stamped a later date."""
    root = _hand_off_note(make_repo, "## Last Session: 2026-04-08")
    run = doctor("check", "--project", str(root), "--today", TODAY, "--json")
    finding = sole(run, "context-header-freshness", root.name)
    assert finding["severity"] == "defect"
    assert finding["line"] == 3
    assert "2026-04-08" in finding["message"] and "readable" not in finding["message"]
    assert (
        "edit set-field CONTEXT.md --field 'Last Session' --value 2026-06-01" in (finding["remedy"])
    )
    # The remedy is a promise: the editor moves the heading's date, and the finding goes.
    edit = doctor(
        "edit",
        "set-field",
        str(root / "CONTEXT.md"),
        "--field",
        "Last Session",
        "--value",
        "2026-06-01",
    )
    assert edit.exit_code == 0, edit.stdout + edit.stderr
    assert "## Last Session: 2026-06-01\n" in (root / "CONTEXT.md").read_text()
    again = doctor("check", "--project", str(root), "--today", TODAY, "--json")
    assert again.findings("context-header-freshness") == []


def test_a_current_last_session_heading_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _hand_off_note(make_repo, "## Last Session: 2026-06-01")
    run = doctor("check", "--project", str(root), "--today", TODAY, "--json")
    assert_quiet(run, "context-header-freshness")


# -- no log: git history speaks ------------------------------------------------


@pytest.mark.parametrize("check", ["last-session-freshness", "context-header-freshness"])
def test_no_log_records_matching_the_newest_commit_are_quiet(
    one: Callable[[str], Run], check: str
) -> None:
    assert_quiet(one("no-log-ok"), check)


def test_no_log_header_and_index_disagreeing_are_one_defect(corpus: Run) -> None:
    """With no log to settle it, the disagreement is one finding (the header's), naming both."""
    assert corpus.findings("last-session-freshness", "no-log-disagree") == []
    header = sole(corpus, "context-header-freshness", "no-log-disagree")
    assert header["severity"] == "defect"
    assert header["path"] == "projects/no-log-disagree/CONTEXT.md"
    assert header["line"] == 4
    assert "2026-06-07 differs from index.yaml last_session 2026-06-06" in header["message"]
    assert "record it in both places" in header["remedy"]
    assert "projects/no-log-disagree/sessions/2026-06.md" in header["remedy"]


def test_no_log_records_lagging_the_newest_commit_are_one_defect(corpus: Run, root: Path) -> None:
    """Header and index 2026-06-01; a later session commit on 2026-06-08 changed nothing:
    one unrecorded session, one finding naming both records and the log to start."""
    sha = short_sha_of(root, "no-log-lags: a later session")
    evidence = f"lags the newest session commit {sha} (work date 2026-06-08) by 7 days"
    assert corpus.findings("last-session-freshness", "no-log-lags") == []
    header = sole(corpus, "context-header-freshness", "no-log-lags")
    assert header["severity"] == "defect"
    assert (header["path"], header["line"]) == ("projects/no-log-lags/CONTEXT.md", 4)
    assert "2026-06-01 (and index.yaml last_session) " + evidence in header["message"]
    assert "`last_session: 2026-06-08` in projects/index.yaml" in header["remedy"]
    assert "projects/no-log-lags/sessions/2026-06.md" in header["remedy"]


@pytest.mark.parametrize("project", ["offset-west", "offset-east"])
def test_author_offsets_work_date_is_the_local_date(
    one: Callable[[str], Run], root: Path, project: str
) -> None:
    """offset-west: 2026-06-11T23:30-12:00 is 2026-06-12 in UTC, two days after the
    header (committed in July, too); offset-east: 2026-06-12T00:30+14:00 is 2026-06-11
    in UTC. Locally both are within a day of the header: no finding."""
    run = one(project)
    for check in FRESHNESS:
        assert run.findings(check) == [], check
    assert run.json["coverage"]["last-session-freshness"]["examined"] == 1
    assert run.json["coverage"]["context-header-freshness"]["examined"] == 1


def test_author_offset_east_counts_the_local_day(corpus: Run, root: Path) -> None:
    """2026-06-13T00:30+14:00 is only one day after the 2026-06-11 header in UTC,
    but two days locally: the work date is the author's local date, so it lags."""
    sha = short_sha_of(root, "offset-east-lags")
    # Header and index record the same day: one finding, the header's, naming both.
    assert corpus.findings("last-session-freshness", "offset-east-lags") == []
    finding = sole(corpus, "context-header-freshness", "offset-east-lags")
    assert f"{sha} (work date 2026-06-13) by 2 days" in finding["message"]


def scenario(commits: list[dict[str, Any]]) -> dict[str, Any]:
    return {"commits": commits}


FIVE = ("p1", "p2", "p3", "p4", "p5")
FIVE_INDEX = "projects:\n" + "".join(
    f"  - id: {name}\n    status: active\n    last_session: 2026-06-01\n" for name in FIVE
)


def _context(name: str, note: str = "") -> str:
    return f"# {name}\n\n**Status:** Active\n**Last session:** 2026-06-01\n{note}" + template_tail()


def test_one_commit_changing_five_projects_is_no_session(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Each project created on 2026-06-01 in its own commit; one sweep on 2026-06-15
    rewrites all five. No log: the sweep is no session, so nothing lags."""
    commits: list[dict[str, Any]] = [
        {"date": "2026-06-01T08:00:00+00:00", "files": {INDEX: FIVE_INDEX}}
    ]
    commits += [
        {
            "date": "2026-06-01T09:00:00+00:00",
            "message": f"create {name}",
            "files": {f"projects/{name}/CONTEXT.md": _context(name)},
        }
        for name in FIVE
    ]
    commits.append(
        {
            "date": "2026-06-15T09:00:00+00:00",
            "message": "sweep",
            "files": {f"projects/{name}/CONTEXT.md": _context(name, "\nSwept.\n") for name in FIVE},
        }
    )
    root = make_repo(scenario(commits))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert freshness_findings(run) == []
    assert run.json["coverage"]["last-session-freshness"]["examined"] == 5
    # narrowed to one project, the sweep is still a sweep: bulk is a property of the commit
    narrowed = doctor(
        "check", "--project", str(root / "projects" / "p1"), "--today", TODAY, "--json"
    )
    assert narrowed.json["projects_audited"] == 1
    assert freshness_findings(narrowed) == []


def test_project_rewritten_alone_after_a_sweep_is_flagged_alone(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The same five created together (a sweep), then p3's CONTEXT.md rewritten alone on
    2026-06-10 with no log and no header change: only p3 lags, naming that commit."""
    root = make_repo(
        scenario(
            [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "message": "create all five",
                    "files": {
                        INDEX: FIVE_INDEX,
                        **{f"projects/{name}/CONTEXT.md": _context(name) for name in FIVE},
                    },
                },
                {
                    "date": "2026-06-10T09:00:00+00:00",
                    "message": "p3 alone",
                    "files": {"projects/p3/CONTEXT.md": _context("p3", "\nRewritten.\n")},
                },
            ]
        )
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1
    sha = short_sha_of(root, "p3 alone")
    flagged = run.findings("last-session-freshness") + run.findings("context-header-freshness")
    # Header and index record the same day: one finding (the header's) names both.
    assert sorted((f["check"], f["project"]) for f in flagged) == [
        ("context-header-freshness", "p3"),
    ]
    for finding in flagged:
        assert f"{sha} (work date 2026-06-10) by 9 days" in finding["message"]
    # The other four have only the sweep to go on: that is unverifiable, not stale.
    unverifiable = run.findings("freshness-unverifiable")
    assert sorted(f["project"] for f in unverifiable) == ["p1", "p2", "p4", "p5"]
    for finding in unverifiable:
        assert finding["severity"] == "warning"
        assert finding["path"] == f"projects/{finding['project']}/CONTEXT.md"
        assert "bulk sweep" in finding["message"]
        assert "of 2026-06-01" in finding["message"]


def test_unlogged_rewrite_after_a_sweep_with_logs_is_flagged_alone(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """With a log each, a sweep that edits all five CONTEXT.md files a week later is no
    unlogged session; one project's own later edit is."""
    log = "# Sessions\n\n## 2026-06-01 — kickoff\n"
    root = make_repo(
        scenario(
            [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        INDEX: FIVE_INDEX,
                        **{f"projects/{name}/CONTEXT.md": _context(name) for name in FIVE},
                        **{f"projects/{name}/sessions/2026-06.md": log for name in FIVE},
                    },
                },
                {
                    "date": "2026-06-08T09:00:00+00:00",
                    "files": {
                        f"projects/{name}/CONTEXT.md": _context(name, "\nSwept.\n") for name in FIVE
                    },
                },
                {
                    "date": "2026-06-12T09:00:00+00:00",
                    "message": "p2 alone",
                    "files": {"projects/p2/CONTEXT.md": _context("p2", "\nAlone.\n")},
                },
            ]
        )
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    found = run.findings("unlogged-session")
    assert [f["project"] for f in found] == ["p2"]
    assert f"{short_sha_of(root, 'p2 alone')} of 2026-06-12" in found[0]["message"]
    assert freshness_findings(run, "p1") == []


# -- freshness-unverifiable ------------------------------------------------------


def test_impossible_log_date_is_unverifiable(corpus: Run, root: Path) -> None:
    log = "projects/impossible-log/sessions/2026-02.md"
    finding = sole(corpus, "freshness-unverifiable", "impossible-log")
    assert finding["severity"] == "warning"
    assert finding["path"] == log
    assert finding["line"] == line_of(root, log, "## 2026-02-30")
    assert "`2026-02-30` is not a real date" in finding["message"]


def test_a_stub_without_header_or_log_is_one_finding(make_repo: MakeRepo, doctor: Doctor) -> None:
    """Issue #28: no header, no log, only a bulk sweep: one root cause (nothing says when the
    project was last worked), so one finding, freshness-unverifiable's, naming the header."""
    names = ("a", "b", "c", "d")
    index = "projects:\n" + "".join(f"  - id: {n}\n    status: active\n" for n in names)
    stub = "# {}\n\n**Status:** Active\n" + template_tail()
    files = {INDEX: index, **{f"projects/{n}/CONTEXT.md": stub.format(n) for n in names}}
    root = make_repo(scenario([{"date": "2026-06-01T09:00:00+00:00", "files": files}]))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.findings("context-header-freshness") == []
    finding = sole(run, "freshness-unverifiable", "a")
    assert "there is no session log, no `**Last session:**` header and" in finding["message"]
    assert (
        "Then add `**Last session:**` with that session's date to the header of "
        in (finding["remedy"])
    )
    # with a session commit, git says when: the missing header is its own finding again
    (root / "projects/a/CONTEXT.md").write_text(stub.format("a") + "\nMore.\n", "utf-8")
    git(root, "commit", "-qam", "a: worked", when="2026-06-10T09:00:00+00:00")
    again = doctor("check", "--project", str(root / "projects/a"), "--today", TODAY, "--json")
    assert again.findings("freshness-unverifiable") == []
    assert "has no readable" in sole(again, "context-header-freshness", "a")["message"]


def test_freshness_unverifiable_quiet_with_a_log(one: Callable[[str], Run]) -> None:
    assert_quiet(one("in-step"), "freshness-unverifiable")


def test_freshness_unverifiable_quiet_with_a_session_commit(one: Callable[[str], Run]) -> None:
    assert_quiet(one("no-log-ok"), "freshness-unverifiable")


def test_only_bulk_sweeps_and_no_log_is_unverifiable(make_repo: MakeRepo, doctor: Doctor) -> None:
    """Four projects created in one commit (more than 3: a sweep) and never touched alone."""
    names = ("a", "b", "c", "d")
    index = "projects:\n" + "".join(f"  - id: {n}\n    status: active\n" for n in names)
    root = make_repo(
        scenario(
            [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        INDEX: index,
                        **{f"projects/{n}/CONTEXT.md": _context(n) for n in names},
                    },
                }
            ]
        )
    )
    sha = git(root, "rev-parse", "--short=7", "HEAD")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    found = run.findings("freshness-unverifiable")
    assert sorted(f["project"] for f in found) == list(names)
    for finding in found:
        assert f"bulk sweep {sha} of 2026-06-01" in finding["message"]
        assert finding["line"] is None


# -- unlogged-session -----------------------------------------------------------


def test_unlogged_session_names_the_commit(corpus: Run, root: Path) -> None:
    sha = short_sha_of(root, "unlogged: a session that wrote no log entry")
    finding = sole(corpus, "unlogged-session", "unlogged")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/unlogged/CONTEXT.md"
    assert finding["line"] is None
    assert "newest session-log entry (2026-06-01)" in finding["message"]
    assert f"{sha} of 2026-06-05" in finding["message"]
    # the log is the evidence: the records match it, so freshness itself is quiet
    assert corpus.findings("context-header-freshness", "unlogged") == []


def test_unlogged_edit_the_next_day_is_quiet(one: Callable[[str], Run]) -> None:
    assert_quiet(one("unlogged-next-day"), "unlogged-session")


def test_unlogged_session_skipped_without_a_log(one: Callable[[str], Run]) -> None:
    assert_skipped(one("no-log-ok"), "unlogged-session", "no log")
    # a log whose only entry has an impossible date is no log either
    assert_skipped(one("impossible-log"), "unlogged-session", "no log")


def _maintained(message: str) -> dict[str, Any]:
    """A logged session on 06-01, then a CONTEXT.md-only commit on 06-05 with ``message``."""
    context = "# M\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
    return {
        "commits": [
            {
                "date": "2026-06-01T10:00:00+00:00",
                "message": "session",
                "files": {
                    INDEX: "- id: m\n  status: active\n  last_session: 2026-06-01\n",
                    "projects/m/CONTEXT.md": context,
                    "projects/m/sessions/2026-06.md": "# June\n\n## 2026-06-01 — work\nDone.\n",
                },
            },
            {
                "date": "2026-06-05T10:00:00+00:00",
                "message": message,
                "files": {"projects/m/CONTEXT.md": context + "\nTrimmed.\n"},
            },
        ]
    }


@pytest.mark.parametrize(
    "trailer",
    ["Context-Doctor: maintenance", "context-doctor :  MAINTENANCE", "CONTEXT-DOCTOR:maintenance"],
)
def test_maintenance_commit_is_not_an_unlogged_session(
    make_repo: MakeRepo, doctor: Doctor, trailer: str
) -> None:
    """A fix pass that touched CONTEXT.md declares itself and raises no new warning."""
    root = make_repo(_maintained(f"fix six defects\n\n{trailer}"))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.findings("unlogged-session") == []
    assert run.json["coverage"]["unlogged-session"]["examined"] == 1


def test_the_same_commit_without_the_trailer_is_unlogged(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(_maintained("fix six defects"))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert len(run.findings("unlogged-session")) == 1


# -- shallow clones ----------------------------------------------------------------


def _shallow_clone(make_repo: MakeRepo, tmp_path: Path) -> Path:
    """A healthy two-project repository with two commits, cloned with depth 1."""
    origin = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        INDEX: "projects:\n"
                        "  - id: logged\n    status: active\n    last_session: 2026-06-01\n"
                        "  - id: unlogged\n    status: active\n    last_session: 2026-06-01\n",
                        "projects/logged/CONTEXT.md": _context(
                            "Logged",
                            "\nSee [REFERENCE.md](REFERENCE.md), [sessions/](sessions/).\n",
                        ),
                        "projects/logged/sessions/2026-06.md": "# S\n\n## 2026-06-01 — kickoff\n",
                        "projects/unlogged/CONTEXT.md": _context("Unlogged"),
                    },
                },
                {
                    "date": "2026-06-02T10:00:00+00:00",
                    "files": {"projects/logged/REFERENCE.md": "# Reference\n"},
                },
            ]
        }
    )
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)],
        env=git_environment(),
        check=True,
        capture_output=True,
    )
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    return clone


def test_shallow_clone_is_exit_2_with_the_remedy(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    clone = _shallow_clone(make_repo, tmp_path)
    run = doctor("check", "--source", str(clone), "--today", TODAY)
    assert run.exit_code == 2
    assert "shallow" in run.stderr
    assert "fetch-depth: 0" in run.stderr
    as_json = doctor("check", "--source", str(clone), "--today", TODAY, "--json")
    assert as_json.exit_code == 2
    assert as_json.json["ok"] is False


def test_allow_shallow_reports_what_it_cannot_verify(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    clone = _shallow_clone(make_repo, tmp_path)
    run = doctor("check", "--source", str(clone), "--today", TODAY, "--allow-shallow", "--json")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.json["defects"] == 0
    assert {f["check"] for f in run.findings()} == {"freshness-unverifiable"}
    messages = sorted((f["project"], f["message"]) for f in run.findings())
    named = [(project, message.split(" ", 1)[0]) for project, message in messages]
    # each history-dependent check that could not answer is named
    assert ("logged", "unlogged-session") in named
    assert ("unlogged", "last-session-freshness") in named
    assert ("unlogged", "context-header-freshness") in named
    for finding in run.findings():
        assert finding["severity"] == "warning"
        assert finding["path"] == f"projects/{finding['project']}/CONTEXT.md"
        assert "fetch-depth: 0" in finding["remedy"]
    # and freshness-unverifiable's own question (no log: what does git say?)
    assert any("shallow clone" in m for p, m in messages if p == "unlogged")
    coverage = run.json["coverage"]
    assert coverage["unlogged-session"]["reasons"] == {"history unavailable": 1, "no log": 1}
    assert coverage["last-session-freshness"]["reasons"] == {"history unavailable": 1}
    assert coverage["context-header-freshness"]["reasons"] == {"history unavailable": 1}
    # the logged project's freshness is settled by its log, without history
    assert coverage["last-session-freshness"]["examined"] == 1


# -- the environment a pre-push hook exports -------------------------------------


def test_hook_environment_does_not_redirect_git(
    root: Path, make_repo: MakeRepo, doctor: Doctor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GIT_DIR / GIT_WORK_TREE / GIT_INDEX_FILE pointing at another repository are ignored."""
    elsewhere = make_repo(
        {
            "commits": [
                {
                    "date": "2026-01-01T09:00:00+00:00",
                    "files": {"projects/no-log-lags/CONTEXT.md": "# Decoy\n"},
                }
            ]
        }
    )
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(elsewhere))
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / ".git" / "index"))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    sha = short_sha_of(root, "no-log-lags: a later session")
    finding = sole(run, "context-header-freshness", "no-log-lags")
    assert f"{sha} (work date 2026-06-08)" in finding["message"]
    assert run.json["projects_audited"] == 15


# -- fixes and remedies: the value the doctor already computed -------------------


@pytest.mark.parametrize("project", ["log-ahead"])
def test_index_last_session_off_the_log_carries_a_safe_fix_to_the_log_date(
    corpus: Run, project: str
) -> None:
    log_date = {"log-ahead": "2026-06-02"}[project]
    index = sole(corpus, "last-session-freshness", project)
    assert index["fix"]["applicability"] == "safe"
    assert index["fix"]["edits"] == [
        {
            "kind": "SetEntryField",
            "position": index["fix"]["edits"][0]["position"],
            "entry_id": project,
            "key": "last_session",
            "value": log_date,
        }
    ]
    assert f"Set `last_session: {log_date}` in {INDEX}" in index["remedy"]
    header = sole(corpus, "context-header-freshness", project)
    assert header["fix"] is None  # a header date is a claim: never fixed
    assert f"--value {log_date}`" in header["remedy"]


def test_without_a_log_there_is_no_fix_but_the_remedy_names_the_commit(
    corpus: Run, root: Path
) -> None:
    sha = short_sha_of(root, "no-log-lags: a later session")
    header = sole(corpus, "context-header-freshness", "no-log-lags")
    assert header["fix"] is None
    assert "`last_session: 2026-06-08` in projects/index.yaml" in header["remedy"]
    assert f"commit {sha}" in header["remedy"]
    assert "sessions/2026-06.md" in header["remedy"]
    assert sole(corpus, "context-header-freshness", "no-log-disagree")["fix"] is None


# -- a header ahead of its log: git decides which one lags ----------------------

AHEAD_CONTEXT = """# Intake tools — Working Context

**Phase:** Active Evaluation — scoring the intake tools against the roster
**Status:** Tools reframed as pipeline nodes (intake, scoring, report). Roster email sent — asking for a complete suite description. Awaiting response.
**Last session:** 2026-04-18 (round 3)

For stable reference facts: see [REFERENCE.md](REFERENCE.md)
For session history: see [sessions/](sessions/)

---

## Current State
- Scoring rubric drafted; two tools scored.

*State as of: 2026-04-18 (round 3)*

## What's Next
1. [ ] Score the remaining tools (as of 2026-04-18)

*State as of: 2026-04-18 (round 3)*

---
*This file follows the Tiered Context Architecture. Budget: ≤150 lines.*
"""
AHEAD_LOG = """# Sessions — April 2026

## 2026-04-02 — kickoff (round 1)
Listed the tools and the roster.

## 2026-04-10 — first scores (round 2)
Scored two tools.
"""


def _ahead_repo(make_repo: MakeRepo, *, last_commit: str, maintenance: bool = False) -> Path:
    """Header and index say 2026-04-18, the log's newest entry is 2026-04-10; the commit that
    advanced the header is dated ``last_commit``."""
    message = "intake: round 3 scores" + ("\n\nContext-Doctor: maintenance" if maintenance else "")
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-04-10T17:00:00+02:00",
                    "message": "intake: round 2",
                    "files": {
                        INDEX: "projects:\n  - id: intake\n    status: active\n"
                        "    last_session: 2026-04-10\n",
                        "projects/intake/CONTEXT.md": AHEAD_CONTEXT.replace(
                            "2026-04-18 (round 3)", "2026-04-10 (round 2)"
                        ),
                        "projects/intake/REFERENCE.md": "# Intake — Reference\n",
                        "projects/intake/sessions/2026-04.md": AHEAD_LOG,
                    },
                },
                {
                    "date": last_commit,
                    "message": message,
                    "files": {
                        INDEX: "projects:\n  - id: intake\n    status: active\n"
                        "    last_session: 2026-04-18\n",
                        "projects/intake/CONTEXT.md": AHEAD_CONTEXT,
                    },
                },
            ]
        }
    )


def test_header_ahead_of_the_log_with_commits_on_its_day_is_a_missing_log_entry(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _ahead_repo(make_repo, last_commit="2026-04-18T19:00:00+02:00")
    sha = git(root, "rev-parse", "--short=7", "HEAD")
    run = doctor("check", "--source", str(root), "--today", "2026-04-20", "--json")
    header = sole(run, "context-header-freshness", "intake")
    assert "is ahead of the newest session-log entry 2026-04-10" in header["message"]
    assert f"commit {sha} of 2026-04-18" in header["message"]
    assert "the log lacks that session" in header["message"]
    # The remedy logs the session: its date, its commit, its monthly file; never rolls back.
    remedy = header["remedy"]
    assert "`## 2026-04-18 — …`" in remedy
    assert sha in remedy
    assert "projects/intake/sessions/2026-04.md" in remedy
    assert "2026-04-10" not in remedy and "set-field" not in remedy
    # The index records the same day: the header's finding names it; no second defect, and
    # no fix moves the index back to the log (that would make it less true).
    assert run.findings("last-session-freshness", "intake") == []
    assert "(and index.yaml last_session)" in header["message"]
    # The same commit is the unlogged session: reported once, by the header's finding.
    assert run.findings("unlogged-session", "intake") == []
    assert_examined(_one(doctor, root, "intake", "2026-04-20"), "unlogged-session")


def _one(doctor: Doctor, root: Path, project: str, today: str) -> Run:
    return doctor(
        "check", "--project", str(root / "projects" / project), "--today", today, "--json"
    )


def test_unlogged_work_before_the_headers_day_is_still_reported(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Log 04-10, a REFERENCE.md commit on 04-14, the header advanced on 04-18: the 04-18
    session is the header's finding; the 04-14 one is its own unlogged session."""
    root = _ahead_repo(make_repo, last_commit="2026-04-18T19:00:00+02:00")
    (root / "projects/intake/REFERENCE.md").write_text("# Intake — Reference\n\nScores.\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "intake: reference", when="2026-04-14T10:00:00+02:00")
    run = doctor("check", "--source", str(root), "--today", "2026-04-20", "--json")
    assert sole(run, "context-header-freshness", "intake")
    unlogged = sole(run, "unlogged-session", "intake")
    assert "of 2026-04-14" in unlogged["message"]
    assert "`## 2026-04-14 — …`" in unlogged["remedy"]


def test_header_ahead_with_only_a_maintenance_commit_is_told_to_come_back(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _ahead_repo(make_repo, last_commit="2026-04-18T19:00:00+02:00", maintenance=True)
    run = doctor("check", "--source", str(root), "--today", "2026-04-20", "--json")
    header = sole(run, "context-header-freshness", "intake")
    assert "the log lacks" not in header["message"]
    assert "No commit touches the project on or after 2026-04-18" in header["remedy"]
    assert "2026-04-10" in header["remedy"]
    index = sole(run, "last-session-freshness", "intake")
    assert index["fix"] is not None and index["fix"]["applicability"] == "safe"


def test_header_ahead_of_every_commit_is_told_to_come_back(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The header says 04-18 but the newest commit is of 04-12: no evidence for that day."""
    root = _ahead_repo(make_repo, last_commit="2026-04-12T19:00:00+02:00")
    run = doctor("check", "--source", str(root), "--today", "2026-04-20", "--json")
    header = sole(run, "context-header-freshness", "intake")
    assert "ahead of the newest session-log entry 2026-04-10" in header["message"]
    assert "the log lacks" not in header["message"]
    assert "No commit touches the project on or after 2026-04-18" in header["remedy"]


def test_header_ahead_of_the_log_is_skipped_when_dormant(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _ahead_repo(make_repo, last_commit="2026-04-18T19:00:00+02:00")
    index = (root / INDEX).read_text(encoding="utf-8").replace("active", "paused")
    (root / INDEX).write_text(index, encoding="utf-8")
    git(root, "commit", "-qam", "pause intake", identity=True, when="2026-04-19T10:00:00+00:00")
    run = doctor(
        "check", "--project", str(root / "projects/intake"), "--today", "2026-04-20", "--json"
    )
    assert_skipped(run, "context-header-freshness", "dormant")


# -- unlogged-session: any file of the project ----------------------------------


def _agreeing_repo(make_repo: MakeRepo, later: dict[str, Any]) -> Path:
    """Header, log and index agree on 2026-06-01; ``later`` is one more commit."""
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T17:00:00+02:00",
                    "message": "atlas: kickoff",
                    "files": {
                        INDEX: "projects:\n  - id: atlas\n    status: active\n"
                        "    last_session: 2026-06-01\n",
                        "projects/atlas/CONTEXT.md": "# Atlas — Working Context\n\n"
                        "**Status:** Active\n**Last session:** 2026-06-01\n",
                        "projects/atlas/REFERENCE.md": "# Atlas — Reference\n",
                        "projects/atlas/sessions/2026-06.md": "# Sessions\n\n## 2026-06-01 — kickoff\n",
                    },
                },
                later,
            ]
        }
    )


def test_a_later_commit_to_reference_and_an_artifact_is_an_unlogged_session(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _agreeing_repo(
        make_repo,
        {
            "date": "2026-06-15T11:00:00+02:00",
            "message": "atlas: vendor facts and the scoring sheet",
            "files": {
                "projects/atlas/REFERENCE.md": "# Atlas — Reference\n\n## Vendors\n- Acme\n",
                "projects/atlas/resources/artifacts/scores.md": "# Scores\n",
            },
        },
    )
    sha = git(root, "rev-parse", "--short=7", "HEAD")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    finding = sole(run, "unlogged-session", "atlas")
    assert f"{sha} of 2026-06-15" in finding["message"]
    assert "REFERENCE.md" in finding["message"]
    assert "resources/artifacts/scores.md" in finding["message"]
    assert "`## 2026-06-15 — …`" in finding["remedy"]
    assert "projects/atlas/sessions/2026-06.md" in finding["remedy"]


def test_a_later_commit_that_logs_its_session_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _agreeing_repo(
        make_repo,
        {
            "date": "2026-06-15T11:00:00+02:00",
            "message": "atlas: vendor facts",
            "files": {
                "projects/atlas/REFERENCE.md": "# Atlas — Reference\n\n## Vendors\n- Acme\n",
                "projects/atlas/CONTEXT.md": "# Atlas — Working Context\n\n"
                "**Status:** Active\n**Last session:** 2026-06-15\n",
                "projects/atlas/sessions/2026-06.md": "# Sessions\n\n## 2026-06-01 — kickoff\n\n"
                "## 2026-06-15 — vendor facts\n",
            },
        },
    )
    index = (root / INDEX).read_text(encoding="utf-8").replace("2026-06-01", "2026-06-15")
    (root / INDEX).write_text(index, encoding="utf-8")
    git(root, "commit", "-qam", "index", identity=True, when="2026-06-15T12:00:00+02:00")
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-20", "--json"
    )
    assert_quiet(run, "unlogged-session")


def test_a_later_maintenance_commit_to_reference_is_quiet(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _agreeing_repo(
        make_repo,
        {
            "date": "2026-06-15T11:00:00+02:00",
            "message": "atlas: tidy links\n\nContext-Doctor: maintenance",
            "files": {"projects/atlas/REFERENCE.md": "# Atlas — Reference\n\nTidied.\n"},
        },
    )
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-20", "--json"
    )
    assert_quiet(run, "unlogged-session")


def test_a_commit_touching_fifty_files_of_one_project_is_one_finding(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    files = {f"projects/atlas/resources/artifacts/a{n:02}.md": f"# A{n}\n" for n in range(50)}
    root = _agreeing_repo(
        make_repo, {"date": "2026-06-15T11:00:00+02:00", "message": "artifacts", "files": files}
    )
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    finding = sole(run, "unlogged-session", "atlas")
    assert "and 47 more" in finding["message"]


# -- active-project-idle ---------------------------------------------------------


def _idle_repo(make_repo: MakeRepo, *, status: str = "active", log: bool = True) -> Path:
    files = {
        INDEX: f"projects:\n  - id: atlas\n    status: {status}\n    last_session: 2026-03-02\n",
        "projects/atlas/CONTEXT.md": "# Atlas — Working Context\n\n**Status:** Active — vendor "
        "scoring\n**Last session:** 2026-03-02\n---\n\n## Current State\n- Scores drafted.\n",
    }
    if log:
        files["projects/atlas/sessions/2026-03.md"] = "# March\n\n## 2026-03-02 — scoring\n"
    return make_repo(
        {"commits": [{"date": "2026-03-02T17:00:00+01:00", "message": "atlas", "files": files}]}
    )


def _idle_audit(doctor: Doctor, root: Path, *extra: str) -> Run:
    return doctor(
        "check",
        "--project",
        str(root / "projects/atlas"),
        "--today",
        "2026-06-20",
        "--json",
        *extra,
    )


def test_an_active_project_idle_for_110_days_says_so(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo)
    finding = sole(_idle_audit(doctor, root), "active-project-idle", "atlas")
    assert finding["severity"] == "warning"
    assert finding["path"] == INDEX
    assert finding["line"] == field_line(root, "atlas", "status")
    assert "no session for 110 days (newest 2026-03-02" in finding["message"]
    assert "projects/atlas/sessions/2026-03.md:3" in finding["message"]
    assert "over the 60-day idle limit" in finding["message"]
    assert "`status: paused` for `atlas`" in finding["remedy"]
    assert "Paused State" in finding["remedy"]


def test_without_a_log_the_newest_session_commit_dates_the_project(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _idle_repo(make_repo, log=False)
    finding = sole(_idle_audit(doctor, root), "active-project-idle", "atlas")
    assert "no session for 110 days" in finding["message"]
    assert "commit " in finding["message"] and "there is no session log" in finding["message"]


def test_idle_days_is_configurable(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo)
    (root / "context-doctor.toml").write_text(
        "[checks.active-project-idle]\nidle_days = 120\n", encoding="utf-8"
    )
    assert_quiet(_idle_audit(doctor, root), "active-project-idle")
    settings = doctor("check", "--source", str(root), "--show-settings")
    assert "checks.active-project-idle.idle_days = 120" in settings.stdout


def test_a_bad_idle_days_is_exit_2(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo)
    (root / "context-doctor.toml").write_text(
        "[checks.active-project-idle]\nidle_days = 0\n", encoding="utf-8"
    )
    run = doctor("check", "--source", str(root), "--today", "2026-06-20")
    assert run.exit_code == 2
    assert "checks.active-project-idle.idle_days" in run.stderr


def test_a_project_worked_within_idle_days_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo)
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-05-01", "--json"
    )
    assert_quiet(run, "active-project-idle")


def test_a_paused_project_is_skipped_as_dormant(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo, status="paused")
    assert_skipped(_idle_audit(doctor, root), "active-project-idle", "dormant")


def test_a_project_with_no_session_evidence_is_skipped(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _idle_repo(make_repo, log=False)
    git(
        root, "commit", "-q", "--amend", "-m", "sweep\n\nContext-Doctor: maintenance", identity=True
    )
    assert_skipped(_idle_audit(doctor, root), "active-project-idle", "no evidence")
