"""SARIF 2.1.0 and GitHub Actions output (docs/output.md), on the demo corpus and real repositories.

SARIF is validated against the bundled OASIS schema
(``schemas/sarif-2.1.0-rtm.5.schema.json``, draft-04). Both formats are pinned
with syrupy snapshots of the demo corpus (`scenario_repo("demo")`, audited on
2026-06-20); the tool version is masked so a release does not churn them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, SCENARIOS, Run
from jsonschema import Draft4Validator
from support import Doctor, MakeRepo, template_tail
from syrupy.assertion import SnapshotAssertion

from context_doctor.checks.registry import load_checks
from context_doctor.render.check_pages import page_url, render_page
from context_doctor.render.github import render_github
from context_doctor.report.findings import Finding, Severity
from context_doctor.report.report import Report
from context_doctor.scenarios import build_scenario

TODAY = "2026-06-20"
FINGERPRINT = "contextDoctor/v1"


@pytest.fixture(scope="module")
def sarif_validator() -> Draft4Validator:
    schema = json.loads((REPO_ROOT / "schemas" / "sarif-2.1.0-rtm.5.schema.json").read_text())
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def sarif(doctor: Doctor, root: Path, *extra: str) -> dict[str, Any]:
    run = doctor(
        "check", "--source", str(root), "--today", TODAY, "--output-format", "sarif", *extra
    )
    assert run.exit_code in (0, 1), run.stderr
    loaded: dict[str, Any] = json.loads(run.stdout)
    return loaded


def masked(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    driver = document["runs"][0]["tool"]["driver"]
    driver["version"] = driver["semanticVersion"] = "<version>"
    return document


def located(result: dict[str, Any]) -> tuple[str, int]:
    physical = result["locations"][0]["physicalLocation"]
    return physical["artifactLocation"]["uri"], physical["region"]["startLine"]


# -- SARIF ---------------------------------------------------------------------


def test_demo_sarif_validates_against_the_schema(
    scenario_repo: Callable[[str], Path], doctor: Doctor, sarif_validator: Draft4Validator
) -> None:
    document = sarif(doctor, scenario_repo("demo"))
    sarif_validator.validate(document)
    assert document["version"] == "2.1.0"
    assert document["runs"][0]["results"], "the demo corpus has findings"


def test_one_rule_per_selected_check_with_help(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    document = sarif(doctor, scenario_repo("demo"))
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    registry = load_checks()
    assert [rule["id"] for rule in rules] == sorted(registry)
    for rule in rules:
        spec = registry[rule["id"]]
        assert spec.explanation in rule["help"]["text"]
        assert spec.remedy in rule["help"]["text"]
        assert rule["shortDescription"]["text"] == spec.summary
        assert rule["defaultConfiguration"]["level"] in ("error", "warning")
        # As GitHub code scanning documents them: Markdown help, the rule's whole page (no
        # link without `[output] docs_url`: no address of ours is published).
        assert "helpUri" not in rule
        assert spec.remedy in rule["help"]["markdown"]
        assert render_page(spec).partition("\n\n")[2] in rule["help"]["markdown"]
        assert "](http" not in rule["help"]["markdown"]
        secret = "secret" in spec.name.split("-")
        assert ("security" in rule["properties"]["tags"]) is secret
        assert ("security-severity" in rule["properties"]) is secret
        if secret:
            assert 7.0 <= float(rule["properties"]["security-severity"]) <= 10.0
    assert {"secret-in-context"} <= {
        r["id"] for r in rules if "security" in r["properties"]["tags"]
    }
    driver = document["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert "synthesisengineering" not in json.dumps(document)


def test_docs_url_links_the_driver_and_every_built_in_rule(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    sarif_validator: Draft4Validator,
    tmp_path: Path,
) -> None:
    config = tmp_path / "context-doctor.toml"
    config.write_text('[output]\ndocs_url = "https://docs.example.org/cd/"\n', encoding="utf-8")
    document = sarif(doctor, scenario_repo("demo"), "--config", str(config))
    sarif_validator.validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://docs.example.org/cd"
    for rule in driver["rules"]:
        page = f"https://docs.example.org/cd/checks/{rule['id']}.md"
        assert rule["helpUri"] == page == page_url(rule["id"], "https://docs.example.org/cd")
        assert f"]({page})" in rule["help"]["markdown"]


@pytest.mark.parametrize("value", ['"docs.example.org"', '""', "3", '"https://a b"'])
def test_a_docs_url_that_is_no_web_address_is_refused(
    scenario_repo: Callable[[str], Path], doctor: Doctor, tmp_path: Path, value: str
) -> None:
    config = tmp_path / "context-doctor.toml"
    config.write_text(f"[output]\ndocs_url = {value}\n", encoding="utf-8")
    run = doctor("check", "--source", str(scenario_repo("demo")), "--config", str(config))
    assert run.exit_code == 2, run.stdout
    assert "output.docs_url" in run.stderr


def test_rules_follow_the_selection(
    scenario_repo: Callable[[str], Path], doctor: Doctor, sarif_validator: Draft4Validator
) -> None:
    document = sarif(doctor, scenario_repo("demo"), "--select", "context-budget,status-agreement")
    sarif_validator.validate(document)
    run = document["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [
        "context-budget",
        "status-agreement",
    ]
    assert {result["ruleId"] for result in run["results"]} == {
        "context-budget",
        "status-agreement",
    }


def test_every_result_is_located_and_indexed(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    run = sarif(doctor, root)["runs"][0]
    findings = doctor("check", "--source", str(root), "--today", TODAY, "--json").json["findings"]
    rules = run["tool"]["driver"]["rules"]
    assert len(run["results"]) == len(findings)
    for result, finding in zip(run["results"], findings, strict=True):
        uri, line = located(result)
        assert line >= 1
        assert uri == finding["path"]
        assert line == (finding["line"] or 1)
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding["check"]
        assert result["level"] == {"defect": "error", "warning": "warning"}[finding["severity"]]
        assert result["partialFingerprints"][FINGERPRINT]


def test_fingerprints_are_stable_across_runs(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")

    def prints() -> list[str]:
        return [
            r["partialFingerprints"][FINGERPRINT] for r in sarif(doctor, root)["runs"][0]["results"]
        ]

    first = prints()
    assert first == prints()
    assert len(set(first)) == len(first)  # distinct findings never share a fingerprint


def test_fingerprints_survive_a_line_inserted_above_a_finding(
    tmp_path: Path, doctor: Doctor
) -> None:
    root = build_scenario(SCENARIOS / "demo.yaml", tmp_path / "kb")
    context = root / "projects" / "compass" / "CONTEXT.md"
    before = {
        r["partialFingerprints"][FINGERPRINT]: located(r)
        for r in sarif(doctor, root)["runs"][0]["results"]
    }
    lines = context.read_text().splitlines(keepends=True)
    assert lines[6].startswith("See [REFERENCE.md]")
    context.write_text("".join([*lines[:7], "An unrelated line.\n", *lines[7:]]))
    after = {
        r["partialFingerprints"][FINGERPRINT]: located(r)
        for r in sarif(doctor, root)["runs"][0]["results"]
    }
    moved = 0
    for fingerprint, (uri, line) in before.items():
        assert fingerprint in after, f"{uri}:{line} lost its fingerprint"
        if uri == "projects/compass/CONTEXT.md" and line > 7:
            assert after[fingerprint] == (uri, line + 1)
            moved += 1
        else:
            assert after[fingerprint] == (uri, line)
    assert moved >= 2  # the compass findings below the insertion (item currency)


def test_demo_sarif_snapshot(
    scenario_repo: Callable[[str], Path], doctor: Doctor, snapshot: SnapshotAssertion
) -> None:
    assert masked(sarif(doctor, scenario_repo("demo"))) == snapshot


# -- GitHub Actions ----------------------------------------------------------------


def github(doctor: Doctor, root: Path, **options: Any) -> Run:
    return doctor(
        "check", "--source", str(root), "--today", TODAY, "--output-format", "github", **options
    )


def unescape(text: str) -> str:
    return (
        text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def parse_annotation(line: str) -> tuple[str, dict[str, str], str]:
    assert line.startswith("::")
    command, _, rest = line[2:].partition(" ")
    properties_text, separator, body = rest.partition("::")
    assert separator, line
    properties = {}
    for item in properties_text.split(","):
        key, _, value = item.partition("=")
        assert ":" not in value and "," not in value
        properties[key] = unescape(value)
    return command, properties, body


def test_github_annotations_are_escaped(make_repo: MakeRepo, doctor: Doctor) -> None:
    odd = "projects/a:b,c"
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": (
                            '- id: "a:b,c"\n  status: "50%\\ndone"\n  last_session: 2026-06-01\n'
                        ),
                        f"{odd}/CONTEXT.md": (
                            "# Odd\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
                            + template_tail()
                        ),
                    },
                }
            ],
            "uncommitted": {"files": {f"{odd}/100%.md": "Not committed.\n"}},
        }
    )
    run = github(doctor, root)
    assert run.exit_code == 1
    findings = doctor("check", "--source", str(root), "--today", TODAY, "--json").json["findings"]
    *annotations, verdict = run.stdout.splitlines()
    assert len(annotations) == len(findings) == 2
    assert verdict.startswith("DEFECTS: 1 project audited, 1 defect, 1 warning")
    by_check = {}
    findings.sort(key=lambda finding: finding["severity"] != "defect")  # defects first
    for line, finding in zip(annotations, findings, strict=True):
        command, properties, body = parse_annotation(line)
        assert "\n" not in body and "\r" not in body
        assert command == {"defect": "error", "warning": "warning"}[finding["severity"]]
        assert properties["file"] == finding["path"]
        assert properties["title"] == f"context-doctor {finding['check']}"
        assert unescape(body) == f"{finding['message']} (remedy: {finding['remedy']})"
        by_check[finding["check"]] = line
    assert by_check["status-vocabulary"].startswith(
        "::error file=projects/index.yaml,line=2,title=context-doctor status-vocabulary::"
        "status `50%25%0Adone` is not in the vocabulary"
    )
    assert by_check["uncommitted-context"].startswith(
        "::warning file=projects/a%3Ab%2Cc/100%25.md,title=context-doctor uncommitted-context::"
        "1 file is uncommitted under projects/a:b,c/ (100%25.md)"
    )


def test_github_step_summary_is_appended_when_set(
    scenario_repo: Callable[[str], Path], doctor: Doctor, tmp_path: Path
) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    run = github(doctor, scenario_repo("demo"), env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.exit_code == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n## context-doctor\n")
    assert "| severity | check | location | message |" in text
    assert "| defect | `context-budget` | `projects/beacon/CONTEXT.md` |" in text
    assert "## context-doctor" not in run.stdout  # the summary goes to the file, not stdout


def test_github_step_summary_is_not_written_when_unset(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run = doctor(
        "check",
        "--source",
        str(scenario_repo("demo")),
        "--today",
        TODAY,
        "--output-format",
        "github",
        cwd=tmp_path,
    )
    assert run.exit_code == 1
    assert list(tmp_path.iterdir()) == []
    assert "## context-doctor" not in run.stdout


def test_demo_github_snapshot(
    scenario_repo: Callable[[str], Path], doctor: Doctor, snapshot: SnapshotAssertion
) -> None:
    run = github(doctor, scenario_repo("demo"))
    assert run.exit_code == 1
    annotations = run.stdout.splitlines()[:-1]
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in annotations)
    kinds = [line.split(" ", 1)[0] for line in annotations]
    assert kinds == sorted(kinds, key=["::error", "::warning", "::notice"].index)
    assert run.stdout == snapshot


# -- a partial console sweep (a listed source unreachable) -----------------------------


def partial_console(home: Path, scenario_repo: Callable[[str], Path], gone: Path) -> None:
    """A console.yaml listing the demo corpus and a source whose root does not exist."""
    demo = scenario_repo("demo")
    (home / "console.yaml").write_text(
        "sources:\n"
        f"  - name: gone\n    root: {gone}\n    projects_dir: projects\n"
        f"  - name: work\n    root: {demo}\n    projects_dir: projects\n",
        encoding="utf-8",
    )


def test_a_partial_sweep_is_not_a_successful_sarif_run(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
    sarif_validator: Draft4Validator,
) -> None:
    partial_console(isolated_home, scenario_repo, tmp_path / "gone")
    run = doctor("check", "--today", TODAY, "--output-format", "sarif", cwd=tmp_path)
    assert run.exit_code == 2
    document = json.loads(run.stdout)
    sarif_validator.validate(document)
    (sarif_run,) = document["runs"]
    invocation = sarif_run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["exitCode"] == 2
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "error"
    text = notification["message"]["text"]
    assert "`gone` could not be audited" in text and str(tmp_path / "gone") in text
    assert "Remedy: fix or remove the source in console.yaml" in text
    assert sarif_run["results"]  # what was audited is still reported


def test_a_partial_sweep_is_an_error_in_github_output(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
) -> None:
    partial_console(isolated_home, scenario_repo, tmp_path / "gone")
    summary = tmp_path / "step-summary.md"
    run = doctor(
        "check",
        "--today",
        TODAY,
        "--output-format",
        "github",
        cwd=tmp_path,
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert run.exit_code == 2
    *commands, verdict = run.stdout.splitlines()
    errors = [line for line in commands if line.startswith("::error::")]
    assert len(errors) == 1
    assert "source `gone` could not be audited" in unescape(errors[0])
    assert "remedy: fix or remove the source in console.yaml" in unescape(errors[0])
    assert any(line.startswith("::error file=") for line in commands)  # the findings stay
    assert not verdict.startswith("::")
    text = summary.read_text()
    assert "**Not audited**" in text and "- source `gone`:" in text
    assert str(tmp_path / "gone") in text.replace("\\", "")  # Markdown-escaped, inert


def test_a_partial_sweep_keeps_gitlab_output_to_findings(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
) -> None:
    # GitLab's format has no error channel: exit 2 and stderr carry it (render/gitlab.py).
    partial_console(isolated_home, scenario_repo, tmp_path / "gone")
    run = doctor("check", "--today", TODAY, "--output-format", "gitlab", cwd=tmp_path)
    assert run.exit_code == 2
    issues = json.loads(run.stdout)
    assert issues and all(issue["location"]["path"] for issue in issues)
    assert run.stderr.startswith("context-doctor: error: source `gone` could not be audited")


# -- exit 2 and the hosts' limits ------------------------------------------------------


@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "output-file"])
def test_gitlab_writes_an_empty_report_on_exit_2(
    doctor: Doctor, tmp_path: Path, to_file: bool
) -> None:
    out = tmp_path / "gl-code-quality.json"
    missing = str(tmp_path / "no-such-corpus")
    args = ["check", "--source", missing, "--today", TODAY, "--output-format", "gitlab"]
    run = doctor(*args, *(["-o", str(out)] if to_file else []), cwd=tmp_path)
    assert run.exit_code == 2
    assert json.loads(out.read_text() if to_file else run.stdout) == []
    assert run.stderr.startswith("context-doctor: error:")
    assert run.stderr.count("\n") == 1


def _finding(number: int, severity: Severity) -> Finding:
    return Finding(
        check="context-budget" if severity is Severity.DEFECT else "unlogged-session",
        severity=severity,
        source="kb",
        project=f"p{number:02d}",
        path=f"projects/p{number:02d}/CONTEXT.md",
        line=1,
        message=f"finding {number}",
        remedy="fix it",
    )


def test_github_puts_defects_first_and_says_what_it_cannot_show() -> None:
    from datetime import date

    warnings = [_finding(number, Severity.WARNING) for number in range(14)]
    defects = [_finding(number, Severity.DEFECT) for number in range(14, 26)]
    report = Report(
        today=date(2026, 6, 20),
        readiness="local",
        generated_at="2026-06-20T00:00:00Z",
        sources=[],
        projects_audited=26,
        findings=warnings + defects,  # the report's order: warnings happen to come first
        coverage={},
    )
    lines = render_github(report).splitlines()
    kinds = [line.split(" ", 1)[0] for line in lines if line.startswith("::")]
    assert kinds[:10] == ["::error"] * 10  # defects first, at most GitHub's 10 per step
    assert kinds[10:20] == ["::warning"] * 10
    [notice] = [line for line in lines if line.startswith("::notice")]
    assert notice.startswith("::notice title=context-doctor::2 more defects and 4 more warnings")
    assert "step summary" in notice
    assert "finding 14" in lines[0]  # each kind keeps the report's order
    assert lines.index(notice) == 20
    few = render_github(Report(**{**report.__dict__, "findings": warnings[:3]}))
    assert "::notice" not in few
