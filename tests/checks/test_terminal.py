"""Terminal projects and the post-close review (docs/checks.md "Terminal projects") on real git.

``fixtures/scenarios/terminal.yaml`` holds one project per case for
terminal-project-active and terminal-project-open-items, plus the live and
paused projects those checks must skip. The post-close review cases need the
sha of a commit the scenario made, so they are built in steps: ``make_repo``
builds the history up to the reviewed commit, ``git rev-parse`` reads its sha,
and ``build_scenario`` on the same directory adds the commits (and uncommitted
work) that follow. Findings come from an audit of the whole source; coverage
from an audit narrowed to one project with ``--project``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
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
    audit,
    field_line,
    git,
    head,
    line_of,
    scenario_audit_fixtures,
    short_sha_of,
    sole,
)

from context_doctor.git.run import git_environment
from context_doctor.scenarios import build_scenario

TODAY = "2026-06-20"
SCENARIO = "terminal"
TERMINAL_CHECKS = ("terminal-project-active", "terminal-project-open-items")
ACTIVE = "terminal-project-active"
OPEN_ITEMS = "terminal-project-open-items"
UNRESOLVABLE = "post-close-review-unresolvable"

LIVE = ("steady", "unset", "mystery", "stray")  # active, no status, unknown status, no entry
PAUSED = ("napping",)
TERMINAL = (
    "log-late",
    "header-late",
    "index-late",
    "closed-same-day",
    "closed-after-last",
    "undated",
    "commit-late",
    "commit-next-day",
    "swept-a",
    "swept-b",
    "swept-c",  # archived
    "swept-d",  # the retired `complete`
    "trio-a",
    "trio-b",
    "trio-c",
    "owes-vendor",
    "all-chased",
)

root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)


# -- coverage: live projects are skipped, terminal ones examined ---------------------


@pytest.mark.parametrize("check", TERMINAL_CHECKS)
def test_every_live_project_is_skipped_and_every_terminal_one_examined(
    corpus: Run, check: str
) -> None:
    coverage = corpus.json["coverage"][check]
    assert coverage == {
        "examined": len(TERMINAL),
        "skipped": len(LIVE) + len(PAUSED),
        "reasons": {"live": len(LIVE), "paused": len(PAUSED)},
    }
    assert {f["project"] for f in corpus.findings(check)} <= set(TERMINAL)


@pytest.mark.parametrize("project", LIVE)
@pytest.mark.parametrize("check", TERMINAL_CHECKS)
def test_live_project_is_skipped_as_live(
    one: Callable[[str], Run], project: str, check: str
) -> None:
    """Each has an unchecked item under What's Next; being live, it owes it legitimately."""
    assert_skipped(one(project), check, "live")


@pytest.mark.parametrize("project", TERMINAL)
@pytest.mark.parametrize("check", TERMINAL_CHECKS)
def test_terminal_project_is_examined(one: Callable[[str], Run], project: str, check: str) -> None:
    assert_examined(one(project), check)


def test_without_a_review_the_unresolvable_check_skips_everyone(corpus: Run) -> None:
    projects = len(LIVE) + len(PAUSED) + len(TERMINAL)
    # a shape, not a gate (docs/checks.md): counted, never listed in coverage
    assert UNRESOLVABLE not in corpus.json["coverage"]
    assert corpus.json["not_applicable"][UNRESOLVABLE] == {
        "count": projects,
        "reason": "no review recorded",
    }


# -- terminal-project-active: the records -------------------------------------------


def test_log_entry_after_completed_date_fires(corpus: Run, root: Path) -> None:
    """completed_date 2026-01-01, a log entry 2026-06-01 (committed on 2026-01-01)."""
    log = "projects/log-late/sessions/2026-06.md"
    finding = sole(corpus, ACTIVE, "log-late")
    assert finding["severity"] == "warning"
    assert finding["path"] == INDEX
    assert finding["line"] == field_line(root, "log-late", "status")
    assert "status `completed` with completed_date 2026-01-01" in finding["message"]
    assert (
        f"session-log entry 2026-06-01 ({log}:{line_of(root, log, '## 2026-06-01')})"
        in finding["message"]
    )
    assert "commit" not in finding["message"]  # the log is the only evidence


def test_header_last_session_after_completed_date_fires(corpus: Run, root: Path) -> None:
    context = "projects/header-late/CONTEXT.md"
    finding = sole(corpus, ACTIVE, "header-late")
    assert "completed_date 2026-01-01" in finding["message"]
    line = line_of(root, context, "**Last session:**")
    assert f"CONTEXT.md Last session 2026-03-01 (line {line})" in finding["message"]


def test_index_last_session_after_completed_date_fires(corpus: Run) -> None:
    finding = sole(corpus, ACTIVE, "index-late")
    assert "completed_date 2026-01-01" in finding["message"]
    assert "index.yaml last_session 2026-03-01" in finding["message"]


def test_close_on_the_day_of_the_last_session_is_quiet(one: Callable[[str], Run]) -> None:
    """completed_date = last_session = log = header = closing commit = 2026-06-01."""
    assert_quiet(one("closed-same-day"), ACTIVE)


def test_closing_pass_after_the_last_session_is_quiet(one: Callable[[str], Run]) -> None:
    """completed_date 2026-06-01, last_session 2026-05-20: the closing commit is on the anchor."""
    assert_quiet(one("closed-after-last"), ACTIVE)


def test_without_completed_date_the_anchor_is_last_session(corpus: Run, root: Path) -> None:
    """No completed_date, last_session 2026-01-01, a session commit on 2026-04-15."""
    finding = sole(corpus, ACTIVE, "undated")
    sha = short_sha_of(root, "undated: more work, months later")
    assert "status `completed` with last_session 2026-01-01" in finding["message"]
    assert "completed_date" not in finding["message"]
    assert f"commit {sha} of 2026-04-15" in finding["message"]
    # ...and the missing anchor is its own finding.
    missing = sole(corpus, "completed-date", "undated")
    assert missing["severity"] == "warning"
    assert "no `completed_date`" in missing["message"]


# -- terminal-project-active: the commits -------------------------------------------


def test_session_commit_two_days_after_completed_date_fires(corpus: Run, root: Path) -> None:
    finding = sole(corpus, ACTIVE, "commit-late")
    sha = short_sha_of(root, "commit-late: work two days after the close")
    assert "completed_date 2026-06-01" in finding["message"]
    assert f"commit {sha} of 2026-06-03" in finding["message"]
    assert finding["line"] == field_line(root, "commit-late", "status")


def test_commit_one_day_after_in_the_authors_offset_is_quiet(one: Callable[[str], Run]) -> None:
    """Authored 2026-06-02T23:30-05:00 (2026-06-03 in UTC): its work date is one day after."""
    assert_quiet(one("commit-next-day"), ACTIVE)


@pytest.mark.parametrize("project", ["swept-a", "swept-b", "swept-c", "swept-d"])
def test_bulk_sweep_after_completed_date_is_quiet(one: Callable[[str], Run], project: str) -> None:
    """One commit on 2026-06-10 touches four projects: a sweep, not a session."""
    assert_quiet(one(project), ACTIVE)


@pytest.mark.parametrize("project", ["trio-a", "trio-b", "trio-c"])
def test_commit_across_three_projects_is_still_a_session(
    corpus: Run, root: Path, project: str
) -> None:
    sha = short_sha_of(root, "trio: one more session across three projects")
    finding = sole(corpus, ACTIVE, project)
    assert f"commit {sha} of 2026-06-10" in finding["message"]


# -- terminal-project-open-items ----------------------------------------------------


def test_completed_project_with_an_unchecked_item_fires(corpus: Run, root: Path) -> None:
    context = "projects/owes-vendor/CONTEXT.md"
    finding = sole(corpus, OPEN_ITEMS, "owes-vendor")
    assert finding["severity"] == "warning"
    assert finding["path"] == context
    assert finding["line"] == line_of(root, context, "chase the vendor")
    assert "status `completed` but 1 unchecked item remains" in finding["message"]
    assert "What's Next" in finding["message"]
    assert "chase the vendor" in finding["message"]


def test_completed_project_with_only_checked_items_is_quiet(one: Callable[[str], Run]) -> None:
    assert_quiet(one("all-chased"), OPEN_ITEMS)


# -- paused: dormant for the freshness and item questions, not terminal -------------


@pytest.mark.parametrize(
    "check",
    [
        "last-session-freshness",
        "context-header-freshness",
        "freshness-unverifiable",
        "unlogged-session",
        "item-currency",
        "completed-items-in-context",
        "stale-session-in-context",
        "sessions-present",
        "reference-present",
    ],
)
def test_paused_project_is_skipped_as_dormant(one: Callable[[str], Run], check: str) -> None:
    """napping owes an item, holds a checked one and has unlogged commits; nobody asks."""
    assert_skipped(one("napping"), check, "dormant")


@pytest.mark.parametrize(
    "check",
    ["status-vocabulary", "status-agreement", "context-present", "context-budget", "header-lag"],
)
def test_paused_project_is_still_examined_structurally(
    one: Callable[[str], Run], check: str
) -> None:
    assert_examined(one("napping"), check)


def test_paused_project_is_held_to_the_context_budget(corpus: Run) -> None:
    finding = sole(corpus, "context-budget", "napping")
    assert finding["severity"] == "defect"
    assert "160 lines, over the 150-line budget" in finding["message"]


@pytest.mark.parametrize("check", TERMINAL_CHECKS)
def test_paused_project_is_skipped_by_terminal_checks(
    one: Callable[[str], Run], check: str
) -> None:
    assert_skipped(one("napping"), check, "paused")


# -- the post-close review ------------------------------------------------------------

CLOSED_CONTEXT = (
    "# Closed — Context\n\n**Status:** Completed 2026-01-01\n**Last session:** 2026-01-01\n"
)


def closed_index(*, review: str | None = None, **dates: str) -> str:
    """The index: ``closed`` (completed 2026-01-01) and a live neighbour."""
    fields = {"completed_date": "2026-01-01", "last_session": "2026-01-01", **dates}
    lines = ["projects:", "  - id: closed", "    status: completed"]
    lines += [f"    {name}: {value}" for name, value in fields.items()]
    if review is not None:
        lines.append(f"    post_close_reviewed_through: '{review}'")
        lines.append("    post_close_reviewed_on: '2026-03-11'")
    lines += ["  - id: neighbour", "    status: active", ""]
    return "\n".join(lines)


REVIEW_BASE = {
    "commits": [
        {
            "date": "2026-01-01T17:00:00+00:00",
            "message": "closed: the final session and the close",
            "files": {
                INDEX: closed_index(),
                "projects/closed/CONTEXT.md": CLOSED_CONTEXT,
                "projects/closed/sessions/2026-01.md": "# Sessions\n\n## 2026-01-01 — wrap-up\n",
                "projects/neighbour/CONTEXT.md": "# Neighbour\n\n**Status:** Active\n",
            },
        },
        {
            "date": "2026-03-10T10:00:00+01:00",
            "message": "closed: archive pass, trimmed to budget",
            "files": {"projects/closed/notes.md": "Archived the drafts.\n"},
        },
    ]
}


def extend(root: Path, *commits: Mapping[str, Any], uncommitted: Any = None) -> None:
    """Add real commits (and optionally uncommitted work) to a repository built by make_repo."""
    scenario: dict[str, Any] = {"commits": list(commits)}
    if uncommitted is not None:
        scenario["uncommitted"] = uncommitted
    build_scenario(scenario, root)


def record_review(root: Path, sha: str, **dates: str) -> None:
    """A later commit that touches only index.yaml, naming ``sha`` as reviewed."""
    extend(
        root,
        {
            "date": "2026-03-11T09:00:00+01:00",
            "message": "index: post-close review of closed",
            "files": {INDEX: closed_index(review=sha, **dates)},
        },
    )
    changed = git(root, "show", "--name-only", "--format=", "HEAD").split()
    assert changed == [INDEX]


@pytest.fixture
def reviewed(make_repo: MakeRepo) -> tuple[Path, str]:
    """``closed`` with a session commit after its close, reviewed through its newest commit."""
    root = make_repo(REVIEW_BASE)
    sha = head(root)
    record_review(root, sha)
    return root, sha


def audit_closed(doctor: Doctor, root: Path) -> Run:
    return audit(doctor, "--project", str(root / "projects" / "closed"), today=TODAY)


def test_unreviewed_closing_work_fires(make_repo: MakeRepo, doctor: Doctor) -> None:
    """The baseline the review answers: the archive pass is a session commit after the close."""
    root = make_repo(REVIEW_BASE)
    run = audit_closed(doctor, root)
    sha = short_sha_of(root, "closed: archive pass")
    assert f"commit {sha} of 2026-03-10" in sole(run, ACTIVE, "closed")["message"]
    assert_not_applicable(run, UNRESOLVABLE, "no review recorded")


def test_review_of_the_newest_commit_silences(reviewed: tuple[Path, str], doctor: Doctor) -> None:
    root, _ = reviewed
    run = audit_closed(doctor, root)
    assert_skipped(run, ACTIVE, "reviewed")
    assert_quiet(run, UNRESOLVABLE)
    assert run.exit_code == 0, run.findings()


def test_review_through_a_later_commit_also_silences(make_repo: MakeRepo, doctor: Doctor) -> None:
    """The project's newest commit only has to be an ancestor of the reviewed one."""
    root = make_repo(REVIEW_BASE)
    extend(
        root,
        {
            "date": "2026-03-10T12:00:00+01:00",
            "message": "neighbour: a session",
            "files": {"projects/neighbour/notes.md": "Worked.\n"},
        },
    )
    record_review(root, head(root))
    assert_skipped(audit_closed(doctor, root), ACTIVE, "reviewed")


def test_review_by_abbreviated_sha_silences(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(REVIEW_BASE)
    record_review(root, head(root)[:12])
    run = audit_closed(doctor, root)
    assert_skipped(run, ACTIVE, "reviewed")
    assert_quiet(run, UNRESOLVABLE)


def test_new_project_commit_after_the_review_rearms(
    reviewed: tuple[Path, str], doctor: Doctor
) -> None:
    root, _ = reviewed
    extend(
        root,
        {
            "date": "2026-03-12T10:00:00+01:00",
            "message": "closed: one more disposition",
            "files": {"projects/closed/notes.md": "Archived the drafts.\nAnd the slides.\n"},
        },
    )
    run = audit_closed(doctor, root)
    assert_examined(run, ACTIVE)
    message = sole(run, ACTIVE, "closed")["message"]
    assert f"commit {short_sha_of(root, 'closed: one more disposition')} of 2026-03-12" in message
    assert_quiet(run, UNRESOLVABLE)  # the review still resolves; it just no longer covers


def test_new_bulk_sweep_after_the_review_rearms(reviewed: tuple[Path, str], doctor: Doctor) -> None:
    """A sweep is no evidence of work, but it is a new project commit: the review lapses and
    the already-reviewed session commit is evidence again."""
    root, _ = reviewed
    extend(
        root,
        {
            "date": "2026-03-12T10:00:00+01:00",
            "message": "sweep: licence notes everywhere",
            "files": {f"projects/{name}/LICENSE.md": "CC-BY-4.0\n" for name in "abcd"}
            | {"projects/closed/LICENSE.md": "CC-BY-4.0\n"},
        },
    )
    run = audit_closed(doctor, root)
    message = sole(run, ACTIVE, "closed")["message"]
    assert f"commit {short_sha_of(root, 'closed: archive pass')} of 2026-03-10" in message
    assert "2026-03-12" not in message


@pytest.mark.parametrize(
    "uncommitted",
    [
        {"files": {"projects/closed/notes.md": "Archived the drafts.\nUnsaved second thought.\n"}},
        {"files": {"projects/closed/scratch.md": "never added\n"}},
        {"delete": ["projects/closed/notes.md"]},
    ],
    ids=["modified", "untracked", "deleted"],
)
def test_uncommitted_project_work_rearms(
    make_repo: MakeRepo, doctor: Doctor, uncommitted: dict[str, Any]
) -> None:
    root = make_repo(REVIEW_BASE)
    sha = head(root)
    extend(
        root,
        {
            "date": "2026-03-11T09:00:00+01:00",
            "message": "index: post-close review of closed",
            "files": {INDEX: closed_index(review=sha)},
        },
        uncommitted=uncommitted,
    )
    run = audit_closed(doctor, root)
    assert_examined(run, ACTIVE)
    assert "commit" in sole(run, ACTIVE, "closed")["message"]


def test_uncommitted_work_elsewhere_does_not_rearm(
    reviewed: tuple[Path, str], doctor: Doctor
) -> None:
    root, _ = reviewed
    extend(root, uncommitted={"files": {"projects/neighbour/draft.md": "wip\n"}})
    assert_skipped(audit_closed(doctor, root), ACTIVE, "reviewed")


@pytest.mark.parametrize(
    ("field", "value"),
    [("last_session", "2026-03-10"), ("completed_date", "2026-01-05")],
)
def test_index_dates_changed_after_the_review_rearm(
    reviewed: tuple[Path, str], doctor: Doctor, field: str, value: str
) -> None:
    root, sha = reviewed
    extend(
        root,
        {
            "date": "2026-03-12T09:00:00+01:00",
            "message": f"index: move {field}",
            "files": {INDEX: closed_index(review=sha, **{field: value})},
        },
    )
    run = audit_closed(doctor, root)
    assert_examined(run, ACTIVE)
    message = sole(run, ACTIVE, "closed")["message"]
    assert f"commit {short_sha_of(root, 'closed: archive pass')} of 2026-03-10" in message


def test_index_date_changed_but_uncommitted_rearms(
    reviewed: tuple[Path, str], doctor: Doctor
) -> None:
    root, sha = reviewed
    extend(
        root, uncommitted={"files": {INDEX: closed_index(review=sha, last_session="2026-03-10")}}
    )
    run = audit_closed(doctor, root)
    message = sole(run, ACTIVE, "closed")["message"]
    assert "index.yaml last_session 2026-03-10" in message


ZERO_SHA = "0000000000000000000000000000000000000000"


def test_unresolvable_review_is_a_defect_and_the_project_is_still_judged(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(REVIEW_BASE)
    record_review(root, ZERO_SHA)
    run = audit(doctor, "--source", str(root), today=TODAY)
    assert run.exit_code == 1
    defect = sole(run, UNRESOLVABLE, "closed")
    assert defect["severity"] == "defect"
    assert defect["path"] == INDEX
    assert defect["line"] == field_line(root, "closed", "post_close_reviewed_through")
    assert f"`{ZERO_SHA}` does not resolve to a commit" in defect["message"]
    active = sole(run, ACTIVE, "closed")
    assert f"commit {short_sha_of(root, 'closed: archive pass')} of 2026-03-10" in active["message"]
    coverage = run.json["coverage"]
    assert coverage[ACTIVE] == {"examined": 1, "skipped": 1, "reasons": {"live": 1}}
    assert coverage[UNRESOLVABLE] == {"examined": 1, "skipped": 0, "reasons": {}}
    assert run.json["not_applicable"][UNRESOLVABLE] == {"count": 1, "reason": "no review recorded"}


def test_review_of_a_commit_before_the_newest_does_not_silence(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Reviewed through the close, but the archive pass came after it."""
    root = make_repo(REVIEW_BASE)
    first = git(root, "rev-parse", "HEAD~1")
    record_review(root, first)
    run = audit_closed(doctor, root)
    assert_examined(run, ACTIVE)
    assert_quiet(run, UNRESOLVABLE)
    assert len(run.findings(ACTIVE)) == 1


def commit_on(root: Path, date: str, message: str, files: Mapping[str, str]) -> None:
    """A real commit on the current branch, with ``date`` as author and committer date."""
    extend(root, {"date": date, "message": message, "files": dict(files)})


def test_project_work_merged_in_after_the_review_rearms(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Work done on a branch (2026-03-05) and merged after the review (of the 2026-03-10 archive
    pass) is a new project commit to the reviewed history, even though its date is older."""
    root = make_repo(REVIEW_BASE)
    reviewed_sha = head(root)
    git(root, "checkout", "-q", "-b", "side", "HEAD~1")
    commit_on(
        root,
        "2026-03-05T10:00:00+01:00",
        "closed: work on a laptop branch",
        {"projects/closed/laptop.md": "Done offline.\n"},
    )
    git(root, "checkout", "-q", "-")
    record_review(root, reviewed_sha)
    env = git_environment() | {
        "GIT_AUTHOR_DATE": "2026-03-12T09:00:00+01:00",
        "GIT_COMMITTER_DATE": "2026-03-12T09:00:00+01:00",
    }
    subprocess.run(
        ["git", "-c", "user.name=x", "-c", "user.email=x@example.invalid",
         "merge", "-q", "--no-ff", "--no-edit", "side"],
        cwd=root, env=env, capture_output=True, check=True,
    )  # fmt: skip
    assert (root / "projects/closed/laptop.md").is_file()
    run = audit_closed(doctor, root)
    assert_examined(run, ACTIVE)
    message = sole(run, ACTIVE, "closed")["message"]
    assert (
        f"commit {short_sha_of(root, 'closed: work on a laptop branch')} of 2026-03-05" in message
    )


def test_the_remedy_names_the_sha_a_post_close_review_would_record(corpus: Run, root: Path) -> None:
    newest = git(root, "log", "-1", "--format=%H", "--", "projects/log-late").strip()
    finding = sole(corpus, ACTIVE, "log-late")
    assert f"`post_close_reviewed_through: {newest}`" in finding["remedy"]
    assert finding["fix"] is None  # a review is a claim: never fixed
    assert "<sha" not in finding["remedy"]


# -- one finding for one missing date ------------------------------------------------


def test_a_terminal_project_without_any_date_is_one_finding_and_a_counted_skip(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """No completed_date and no last_session: completed-date says so, and that it leaves the
    post-completion question unanswerable; terminal-project-active skips with its reason
    instead of printing the same remedy a second time."""
    context = (
        "# Meridian — Working Context\n\n**Status:** Completed — rollout shipped to every "
        "region, runbook handed over\n**Last session:** 2026-06-05\n\n---\n\n## Summary\nDone.\n"
    )
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-05T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: meridian\n  status: completed\n",
                        "projects/meridian/CONTEXT.md": context,
                    },
                }
            ]
        }
    )
    run = doctor(
        "check", "--project", str(root / "projects/meridian"), "--today", "2026-06-20", "--json"
    )
    finding = sole(run, "completed-date", "meridian")
    assert "whether it is still being worked cannot be checked" in finding["message"]
    assert run.findings("terminal-project-active") == []
    assert_skipped(run, "terminal-project-active", "no anchor date")
    remedies = [f["remedy"] for f in run.findings(project="meridian")]
    assert len(remedies) == len(set(remedies))
