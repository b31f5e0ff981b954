"""Cross-tier agreement and lifecycle (docs/checks.md) on real git repositories.

The shared scenario ``fixtures/scenarios/lifecycle.yaml`` holds one project per
case; repositories whose *shape* is the case (no index.yaml, a single-project
repository) are built inline with ``make_repo``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    INDEX,
    Doctor,
    MakeRepo,
    field_line,
    is_whole_source,
    line_of,
    not_applicable,
    reasons,
    sole,
    template_tail,
)

TODAY = "2026-06-20"
LIFECYCLE_CHECKS = ("status-agreement", "record-unreadable", "status-vocabulary", "completed-date")


@pytest.fixture
def lifecycle(scenario_repo: Callable[[str], Path], doctor: Doctor) -> tuple[Path, Run]:
    root = scenario_repo("lifecycle")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr
    return root, run


def entry_line(root: Path, marker: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th index entry starting with ``- <marker>``."""
    return line_of(root, INDEX, f"- {marker}", exact=True, occurrence=occurrence)


# -- status-agreement --------------------------------------------------------


def test_directory_without_index_entry_is_a_defect(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    finding = sole(run, "status-agreement", "stray")
    assert finding["severity"] == "defect"
    assert finding["path"] == INDEX
    assert finding["line"] is None
    assert "projects/stray/" in finding["message"]
    assert "no entry in index.yaml" in finding["message"]


def test_index_completed_but_header_active_is_a_defect(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    finding = sole(run, "status-agreement", "closed-but-active")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/closed-but-active/CONTEXT.md"
    assert finding["line"] == 3  # the **Status:** line
    assert "`completed`" in finding["message"]
    assert "reads not completed" in finding["message"]


def test_schema_violations_name_entry_and_field(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    found = run.findings("status-agreement", "schema-bad")
    # Each violation points at the line of the field it names (docs/output.md).
    lines = {field_line(root, "schema-bad", name) for name in ("bounded", "last_session")}
    assert {finding["severity"] for finding in found} == {"defect"}
    assert {finding["path"] for finding in found} == {INDEX}
    assert {finding["line"] for finding in found} == lines
    messages = sorted(finding["message"] for finding in found)
    assert len(messages) == 2, messages
    assert all("`schema-bad`" in message for message in messages)
    # The remedy fixes the entry's field; it is not the header comparison's remedy.
    remedies = sorted(finding["remedy"] for finding in found)
    assert remedies[0].startswith("Correct its `bounded` field for `schema-bad` in ")
    assert remedies[1].startswith("Correct its `last_session` field for `schema-bad` in ")
    bounded, last_session = messages
    assert "field `bounded`" in bounded and "'false'" in bounded
    assert "field `last_session`" in last_session and "2026-13-45" in last_session


def test_string_bounded_false_does_not_make_a_standing_project(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    # reference-shard only examines standing projects: `bounded: "false"` is not one.
    assert not run.findings("reference-shard", "schema-bad")
    assert not_applicable(run, "reference-shard").get("bounded", 0) >= 1


def test_duplicate_id_names_both_entries(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    finding = sole(run, "status-agreement", "twin")
    first, second = entry_line(root, "id: twin", 1), entry_line(root, "id: twin", 2)
    assert finding["severity"] == "defect"
    assert finding["path"] == INDEX
    assert finding["line"] == second
    assert f"line {first}" in finding["message"]
    assert f"line {second}" in finding["message"]
    assert "registered twice" in finding["message"]


def test_entry_without_id_is_reported_once_per_source(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    finding = sole(run, "status-agreement", None)
    assert finding["severity"] == "defect"
    assert finding["source"] == root.name
    assert finding["path"] == INDEX
    assert "'id' is a required property" in finding["message"]
    assert "entry 7" in finding["message"]
    # Not repeated on any project.
    assert not any(
        "entry 7" in f["message"]
        for f in run.findings("status-agreement")
        if not is_whole_source(f)
    )


def test_entry_without_id_line_points_at_the_entry(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    lines = (root / INDEX).read_text(encoding="utf-8").splitlines()
    finding = sole(run, "status-agreement", None)
    assert lines[finding["line"] - 1].strip() == "- status: active"
    assert "last_session: 2026-06-01" in lines[finding["line"]]


def test_entry_without_id_reported_once_for_each_source(
    scenario_repo: Callable[[str], Path],
    make_repo: Callable[[Mapping[str, Any]], Path],
    doctor: Doctor,
) -> None:
    other = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: solo\n  status: active\n- status: paused\n",
                        "projects/solo/CONTEXT.md": "# Solo\n\n**Status:** Active\n",
                    },
                }
            ]
        }
    )
    lifecycle_root = scenario_repo("lifecycle")
    run = doctor(
        "check",
        "--source",
        str(lifecycle_root),
        "--source",
        str(other),
        "--select",
        "status-agreement",
        "--today",
        TODAY,
        "--json",
    )
    source_level = [f for f in run.findings("status-agreement") if is_whole_source(f)]
    assert sorted(f["source"] for f in source_level) == sorted([lifecycle_root.name, other.name])
    other_finding = next(f for f in source_level if f["source"] == other.name)
    assert other_finding["line"] == 3
    assert "entry 2" in other_finding["message"]


def test_status_agreement_quiet_when_index_and_header_agree(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    for project in ("steady", "finished", "typo-complete", "replaced", "undated", "mute"):
        assert not run.findings("status-agreement", project), project


def test_project_directories_but_no_index_yaml(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "projects/alpha/CONTEXT.md": "# Alpha\n\n**Status:** Active\n",
                        "projects/beta/CONTEXT.md": "# Beta\n\n**Status:** Active\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1
    found = run.findings("status-agreement")
    assert sorted(f["project"] for f in found) == ["alpha", "beta"]
    for finding in found:
        assert finding["severity"] == "defect"
        assert finding["path"] == INDEX
        assert "no index.yaml" in finding["message"]
        assert f"projects/{finding['project']}/" in finding["message"]
    # Without an index there is no entry to read a status from.
    assert reasons(run, "status-vocabulary") == {"not registered": 2}


SINGLE_PROJECT = {
    "remote": True,
    "commits": [
        {
            "date": "2026-06-01T09:00:00+00:00",
            "files": {
                "CONTEXT.md": "# Solo\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
                + template_tail()
            },
        }
    ],
}


def test_single_project_repository_skips_index_checks(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    root = make_repo(SINGLE_PROJECT)
    run = doctor("check", "--project", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.json["projects_audited"] == 1
    assert not_applicable(run, "status-agreement") == {"no index": 1}
    assert not_applicable(run, "status-vocabulary") == {"no index": 1}
    assert reasons(run, "completed-date") == {"not terminal": 1}
    assert run.json["coverage"]["record-unreadable"]["examined"] == 1
    assert not run.findings()


# -- record-unreadable ---------------------------------------------------------


def test_binary_context_is_an_unreadable_defect(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    finding = sole(run, "record-unreadable", "garbled")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/garbled/CONTEXT.md"
    assert "binary" in finding["message"]
    # Its CONTEXT.md-dependent checks stop, recorded as `unreadable`; nothing else speaks for it.
    assert [f["check"] for f in run.findings(project="garbled")] == ["record-unreadable"]
    for check in ("context-budget", "reference-present"):
        assert reasons(run, check).get("unreadable") == 1, check
    # status-agreement still reads its index entry; only the header comparison needs CONTEXT.md.
    assert not reasons(run, "status-agreement").get("unreadable")


def test_non_utf8_reference_is_an_unreadable_defect(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    finding = sole(run, "record-unreadable", "latin")
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/latin/REFERENCE.md"
    assert "not valid UTF-8" in finding["message"]
    # The check that reads REFERENCE.md skipped it; CONTEXT.md checks still ran.
    assert not run.findings("reference-budget", "latin")
    assert reasons(run, "reference-budget").get("unreadable") == 2  # garbled + latin


def test_an_unreadable_project_does_not_stop_the_corpus(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    assert run.json["projects_audited"] == 16
    audited = {f["project"] for f in run.findings()}
    assert {"closed-but-active", "twin", "mystery", "undated"} <= audited
    assert run.json["coverage"]["status-agreement"]["examined"] == 16


def test_header_without_verdict_is_a_warning(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    finding = sole(run, "record-unreadable", "mute")
    assert finding["severity"] == "warning"
    assert finding["path"] == "projects/mute/CONTEXT.md"
    assert finding["line"] == 4  # Status wins over Phase (line 3)
    assert "Under review" in finding["message"]
    assert "no completion verdict" in finding["message"]


def test_header_without_verdict_is_reported_for_paused_projects_too(
    lifecycle: tuple[Path, Run],
) -> None:
    """docs/checks.md: a dormant project whose header cannot be read is reported, never
    counted as examined in silence."""
    _, run = lifecycle
    finding = sole(run, "record-unreadable", "napping")
    assert finding["severity"] == "warning"
    assert "Waiting on the vendor" in finding["message"]
    assert not run.findings("record-unreadable", "steady")
    # record-unreadable has no skip rule (its defect half applies to every project): all examined.
    coverage = run.json["coverage"]["record-unreadable"]
    assert coverage == {"examined": 16, "skipped": 0, "reasons": {}}


def test_record_unreadable_reports_nothing_for_a_missing_project_directory(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: here\n  status: active\n- id: gone\n  status: active\n",
                        "projects/here/CONTEXT.md": "# Here\n\n**Status:** Active\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert not run.findings("record-unreadable")
    assert sole(run, "context-present", "gone")["path"] == INDEX
    # The index side of status-agreement needs no CONTEXT.md: examined, nothing to report.
    assert reasons(run, "status-agreement") == {}
    assert not run.findings("status-agreement")


# -- status-vocabulary -------------------------------------------------------------


@pytest.mark.parametrize(
    ("project", "status", "replacement"),
    [
        ("typo-complete", "complete", "`completed`"),
        ("replaced", "superseded", "`archived` with `superseded_by"),
        ("fresh", "new", "`active`"),
        ("forever", "ongoing", "`bounded: false`"),
    ],
)
def test_retired_status_is_a_warning_naming_the_replacement(
    lifecycle: tuple[Path, Run], project: str, status: str, replacement: str
) -> None:
    root, run = lifecycle
    finding = sole(run, "status-vocabulary", project)
    assert finding["severity"] == "warning"
    assert finding["path"] == INDEX
    assert finding["line"] == field_line(root, project, "status")
    assert f"`{status}` is retired" in finding["message"]
    assert replacement in finding["message"]


@pytest.mark.parametrize(
    ("project", "applicability", "edits"),
    [
        ("typo-complete", "safe", [("status", "completed")]),
        ("fresh", "safe", [("status", "active")]),
        ("forever", "unsafe", [("status", "active"), ("bounded", False)]),
        ("replaced", None, []),  # superseded_by names a project: a person's claim, never a fix
    ],
)
def test_retired_status_carries_exactly_the_spec_fix(
    lifecycle: tuple[Path, Run], project: str, applicability: str | None, edits: list[object]
) -> None:
    _, run = lifecycle
    fix = sole(run, "status-vocabulary", project)["fix"]
    if applicability is None:
        assert fix is None
        return
    assert fix["applicability"] == applicability
    assert fix["path"] == INDEX
    assert [(edit["key"], edit["value"]) for edit in fix["edits"]] == edits
    assert all(edit["entry_id"] == project for edit in fix["edits"])


def test_an_unknown_status_has_no_fix(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    assert sole(run, "status-vocabulary", "mystery")["fix"] is None


def test_unknown_status_is_a_defect_and_treated_as_live(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    finding = sole(run, "status-vocabulary", "mystery")
    assert finding["severity"] == "defect"
    assert finding["path"] == INDEX
    assert finding["line"] == field_line(root, "mystery", "status")
    assert "`wip`" in finding["message"]
    assert "treated as live" in finding["message"]
    # Live: the header's Active agrees with it, so status-agreement is quiet.
    assert not run.findings("status-agreement", "mystery")


def test_status_vocabulary_quiet_for_canonical_statuses(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    for project in ("steady", "finished", "napping", "undated", "closed-but-active"):
        assert not run.findings("status-vocabulary", project), project


def test_status_vocabulary_skips_unregistered_projects(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    assert reasons(run, "status-vocabulary") == {"not registered": 1}  # stray
    assert not run.findings("status-vocabulary", "stray")


# -- completed-date ------------------------------------------------------------------


def test_completed_without_completed_date_is_a_warning(lifecycle: tuple[Path, Run]) -> None:
    root, run = lifecycle
    finding = sole(run, "completed-date", "undated")
    assert finding["severity"] == "warning"
    assert finding["path"] == INDEX
    assert finding["line"] == field_line(root, "undated", "status")
    assert "no `completed_date`" in finding["message"]


def test_completed_date_quiet_when_present(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    for project in ("finished", "closed-but-active", "typo-complete", "replaced"):
        assert not run.findings("completed-date", project), project


def test_completed_date_skips_projects_that_are_not_terminal(lifecycle: tuple[Path, Run]) -> None:
    _, run = lifecycle
    coverage = run.json["coverage"]["completed-date"]
    # Terminal: closed-but-active, finished, typo-complete, replaced, undated; the header of
    # closed-but-active reads active: status-agreement reports that, the date waits.
    assert coverage["examined"] == 4
    assert coverage["reasons"] == {"not terminal": 11, "status disputed": 1}
    assert run.findings("status-agreement", "closed-but-active")


def test_completed_date_waits_while_the_header_disputes_the_status(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    """One root cause, one finding: index `completed`, header `Active`, no date."""
    context = "# Done\n\n**Status:** Active — still drafting\n**Last session:** 2026-06-01\n"
    files = {
        "projects/index.yaml": "- id: done\n  status: completed\n",
        "projects/done/CONTEXT.md": context,
    }
    root = make_repo({"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]})
    run = doctor("check", "--source", str(root), "--today", "2026-06-10", "--json")
    assert run.findings("completed-date") == []
    assert reasons(run, "completed-date") == {"status disputed": 1}
    assert sole(run, "status-agreement", "done")["severity"] == "defect"


def test_impossible_completed_date_is_reported(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "projects/index.yaml": (
                            "- id: done\n  status: completed\n  completed_date: 2026-02-30\n"
                        ),
                        "projects/done/CONTEXT.md": "# Done\n\n**Status:** Completed\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1, run.stderr  # not exit 2: the YAML is fine, the date is not
    finding = sole(run, "completed-date", "done")
    assert finding["severity"] == "warning"
    assert "2026-02-30" in finding["message"] and "not a real" in finding["message"]
    schema = sole(run, "status-agreement", "done")
    assert "field `completed_date`" in schema["message"]


# -- the lifecycle checks in the human report ------------------------------------------


def test_human_output_lists_coverage_for_lifecycle_checks(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("lifecycle")
    selection = ("--select", ",".join(LIFECYCLE_CHECKS))
    run = doctor("check", "--source", str(root), "--today", TODAY, *selection, "--show-coverage")
    assert run.exit_code == 1
    assert (
        "coverage completed-date: examined 4, skipped 12 (11 not terminal, 1 status disputed)"
        in run.stdout
    )
    assert "coverage status-vocabulary: examined 15, skipped 1 (1 not registered)" in run.stdout
    assert "projects/index.yaml:18:1  FAIL  [status-agreement]" in run.stdout
    compact = doctor("check", "--source", str(root), "--today", TODAY, *selection).stdout
    # The default output groups the same lines without a flag (docs/output.md).
    compact_text = " ".join(line.strip() for line in compact.splitlines())
    assert (
        "coverage completed-date: examined 4, skipped 12 (11 not terminal, 1 status disputed)"
        in compact_text
    )
    assert "coverage status-vocabulary: examined 15, skipped 1 (1 not registered)" in compact


# -- real header spellings, dormant headers, and pause against active (#18 items 6, 12) ------

REAL_HEADERS = {
    # (index status, the header lines between the title and `---`)
    "bold-colon-outside": ("completed", "**Status**: Completed\n**Completed**: 2026-05-01"),
    "bare-fields": ("paused", "Status: Paused — vendor contract\nLast session: 2026-05-01"),
    "above-the-rule": ("completed", "**Phase:** Handover\n**Status:** Completed"),
    "mute-archived": ("archived", "**Status:** Waiting on the vendor"),
    "paused-header": (
        "active",
        "**Status:** Paused — waiting on legal\n**Last session:** 2026-06-01",
    ),
    "on-hold-both": ("paused", "**Status:** On hold until Q3"),
    "active-both": ("active", "**Status:** Active — scoring\n**Last session:** 2026-06-01"),
}


@pytest.fixture
def real_headers(make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor) -> Run:
    files: dict[str, str] = {INDEX: "projects:\n"}
    for name, (status, header) in REAL_HEADERS.items():
        files[INDEX] += f"  - id: {name}\n    status: {status}\n    completed_date: 2026-05-01\n"
        files[f"projects/{name}/CONTEXT.md"] = (
            f"# {name} — Context\n\n{header}\n---\n\n## Summary\nWhat happened.\n"
        )
    root = make_repo({"commits": [{"date": "2026-06-01T10:00:00+00:00", "files": files}]})
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr
    return run


def test_every_header_spelling_is_read_for_dormant_projects(real_headers: Run) -> None:
    for name in ("bold-colon-outside", "bare-fields", "above-the-rule", "on-hold-both"):
        assert not real_headers.findings("record-unreadable", name), name
        assert not real_headers.findings("status-agreement", name), name


def test_a_dormant_header_without_a_verdict_is_reported_not_examined_in_silence(
    real_headers: Run,
) -> None:
    finding = sole(real_headers, "record-unreadable", "mute-archived")
    assert finding["severity"] == "warning"
    assert "Waiting on the vendor" in finding["message"]


def test_header_paused_against_index_active_is_a_disagreement(real_headers: Run) -> None:
    finding = sole(real_headers, "status-agreement", "paused-header")
    assert finding["severity"] == "defect"
    assert "index.yaml says status `active`" in finding["message"]
    assert "reads paused" in finding["message"]
    assert "Paused — waiting on legal" in finding["message"]
    assert finding["line"] == 3
    assert "`status: paused`" in finding["remedy"]
    assert not real_headers.findings("status-agreement", "active-both")


def test_a_paused_header_in_a_single_project_repository_has_no_index_to_disagree_with(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Doctor
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {"CONTEXT.md": "# Solo\n\n**Status:** Paused — vendor\n---\n"},
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert not_applicable(run, "status-agreement") == {"no index": 1}
    assert not run.findings("status-agreement")


def test_a_disagreement_quotes_the_field_that_gave_the_reading(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Status says nothing (`In review`), Phase decides (`Shipped`): the finding quotes the
    Phase, not the Status line that gave no verdict."""
    context = (
        "# Parser — Working Context\n\n**Status:** In review — the maintainers asked for a "
        "second benchmark run before merging\n**Phase:** Shipped (round 4)\n"
        "**Last session:** 2026-06-18\n\n---\n\n## Current State\nWaiting on review.\n"
    )
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "files": {
                        INDEX: "- id: parser\n  status: active\n",
                        "projects/parser/CONTEXT.md": context,
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    finding = sole(run, "status-agreement", "parser")
    assert finding["message"].endswith("reads completed (`Phase: Shipped (round 4)`)")
    assert finding["line"] == 4


def test_header_without_verdict_is_quiet_where_there_is_no_index(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """#27: the warning is about the cross-check with index.yaml. A single project's root
    CONTEXT.md (a hand-off note with no Status) has no index entry, so there is nothing the
    missing verdict stops: no warning. The same header in a registered project still warns."""
    note = "# Hand-off\n\n## Last Session: 2026-06-10\n\n## Current State\n\n- Parser split.\n"
    single = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-10T10:00:00+00:00",
                    "message": "parser split",
                    "files": {"CONTEXT.md": note, "src/app.py": "x\n"},
                }
            ],
        }
    )
    run = doctor("check", str(single), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr
    assert run.findings("record-unreadable") == []
    assert run.json["coverage"]["record-unreadable"]["examined"] == 1
