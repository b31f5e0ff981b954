"""The demo corpus's outputs, pinned with syrupy snapshots, and the report schema."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from jsonschema import Draft202012Validator
from support import load_report_validator, template_tail
from syrupy.assertion import SnapshotAssertion

TODAY = "2026-06-20"


@pytest.fixture(scope="module")
def report_validator() -> Draft202012Validator:
    return load_report_validator(check_schema=True)


def _stable(report: dict[str, Any], root: Path) -> dict[str, Any]:
    report = dict(report)
    report["generated_at"] = "<generated_at>"
    report["doctor_version"] = "<version>"
    report["source_details"] = [{**source, "root": "<root>"} for source in report["source_details"]]
    return report


def test_demo_human_output(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run], snapshot: SnapshotAssertion
) -> None:
    run = doctor("check", "--source", str(scenario_repo("demo")), "--today", TODAY)
    assert run.exit_code == 1
    assert "\x1b[" not in run.stdout  # no colour when stdout is not a terminal
    assert run.stdout == snapshot


def test_demo_concise_output(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run], snapshot: SnapshotAssertion
) -> None:
    run = doctor(
        "check",
        "--source",
        str(scenario_repo("demo")),
        "--today",
        TODAY,
        "--output-format",
        "concise",
    )
    assert run.exit_code == 1
    assert run.stdout == snapshot


def test_demo_json_output(
    scenario_repo: Callable[[str], Path],
    doctor: Callable[..., Run],
    snapshot: SnapshotAssertion,
    report_validator: Draft202012Validator,
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 1
    report = run.raw
    report_validator.validate(report)
    assert report["ok"] is False
    assert report["readiness"] == "local"
    assert report["today"] == TODAY
    assert report["defects"] == sum(f["severity"] == "defect" for f in report["findings"])
    assert _stable(report, root) == snapshot


def test_json_findings_are_sorted(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    findings = doctor(
        "check", "--source", str(scenario_repo("demo")), "--today", TODAY, "--json"
    ).json["findings"]
    # docs/output.md: within a source by path, then line (a whole-file finding first), then check.
    keys = [(f["source"], f["path"], f["line"] or 0, f["check"]) for f in findings]
    assert keys == sorted(keys)


def test_error_output_validates_against_the_schema(
    tmp_path: Path, doctor: Callable[..., Run], report_validator: Draft202012Validator
) -> None:
    run = doctor("check", "--source", str(tmp_path / "missing"), "--json")
    assert run.exit_code == 2
    report_validator.validate(run.raw)
    assert run.raw == {**run.raw, "ok": False, "exit": 2}


def test_quiet_prints_only_the_verdict(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    run = doctor("check", "--source", str(scenario_repo("demo")), "--today", TODAY, "--quiet")
    assert run.exit_code == 1
    assert run.stdout.count("\n") == 1
    # The counts are pinned by the snapshots; here only the shape of the one line matters.
    assert re.match(r"DEFECTS: \d+ projects audited, \d+ defects, \d+ warnings ", run.stdout)


def test_statistics_counts_per_check(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run], snapshot: SnapshotAssertion
) -> None:
    run = doctor("check", "--source", str(scenario_repo("demo")), "--today", TODAY, "--statistics")
    assert run.exit_code == 1
    assert re.search(r"^\s+2\s+FAIL\s+status-agreement$", run.stdout, re.MULTILINE)
    assert run.stdout == snapshot


def test_exit_zero_and_warnings_as_defects(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    root = str(scenario_repo("demo"))
    assert doctor("check", "--source", root, "--today", TODAY, "--exit-zero", "-q").exit_code == 0
    warnings_only = doctor(
        "check", "--source", root, "--today", TODAY, "--select", "reference-shard", "-q"
    )
    assert warnings_only.exit_code == 0
    assert warnings_only.stdout.startswith("WARNINGS: 10 projects audited, 0 defects, 1 warning")
    strict = doctor(
        "check",
        "--source",
        root,
        "--today",
        TODAY,
        "--select",
        "reference-shard",
        "--warnings-as-defects",
        "-q",
    )
    assert strict.exit_code == 1


def test_user_text_is_not_read_as_markup(
    make_repo: Callable[..., Path], doctor: Callable[..., Run]
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: odd\n  status: '[bold red]weird[/]'\n",
                        "projects/odd/CONTEXT.md": "# Odd\n\n**Status:** Active\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert "status `[bold red]weird[/]` is not in the vocabulary" in run.stdout


def test_healthy_corpus_exits_zero(
    make_repo: Callable[..., Path], doctor: Callable[..., Run]
) -> None:
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: fine\n  status: active\n",
                        "projects/fine/CONTEXT.md": "# Fine\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
                        + template_tail(),
                    },
                }
            ],
        }
    )
    run = doctor("check", "--source", str(root), "--today", TODAY)
    assert run.exit_code == 0
    assert run.stdout.splitlines()[-1].startswith(
        "HEALTHY: 1 project audited, 0 defects, 0 warnings (1 source;"
    )
