"""``--select``/``--ignore`` with groups and "did you mean"; ``-o``; machine formats on exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Run
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from context_doctor.checks.registry import GROUPS, load_checks

Doctor = Callable[..., Run]
TODAY = "2026-06-20"
SARIF_SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "sarif-2.1.0-rtm.5.schema.json"


def test_every_check_has_a_known_group() -> None:
    for spec in load_checks().values():
        assert spec.group in GROUPS, (spec.name, spec.group)


def test_select_by_group(scenario_repo: Callable[[str], Path], doctor: Doctor) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", "--select", "currency")
    assert set(run.json["coverage"]) == {
        "header-currency",
        "header-lag",
        "body-currency",
        "item-currency",
    }
    ignored = doctor(
        "check", "--source", str(root), "--today", TODAY, "--json", "--ignore", "grades,structure"
    )
    assert "context-budget" not in ignored.json["coverage"]
    assert "freshness-overdue" not in ignored.json["coverage"]
    assert "item-currency" in ignored.json["coverage"]


@pytest.mark.parametrize(
    ("name", "hint"),
    [("item-curency", "did you mean `item-currency`?"), ("currncy", "did you mean `currency`?")],
)
def test_unknown_name_is_exit_2_with_did_you_mean(
    scenario_repo: Callable[[str], Path], doctor: Doctor, name: str, hint: str
) -> None:
    run = doctor("check", "--source", str(scenario_repo("demo")), "--select", name)
    assert run.exit_code == 2
    assert hint in run.stderr
    assert run.stderr.count("\n") == 1


@pytest.mark.parametrize("value", ["", "item-currency,,header-lag", " "])
def test_empty_name_is_exit_2(
    scenario_repo: Callable[[str], Path], doctor: Doctor, value: str
) -> None:
    run = doctor("check", "--source", str(scenario_repo("demo")), "--select", value)
    assert run.exit_code == 2
    assert "empty check name" in run.stderr


def test_output_file_is_written_whole(
    scenario_repo: Callable[[str], Path], doctor: Doctor, tmp_path: Path
) -> None:
    target = tmp_path / "report.sarif"
    run = doctor(
        "check",
        "--source",
        str(scenario_repo("demo")),
        "--today",
        TODAY,
        "--output-format",
        "sarif",
        "-o",
        str(target),
    )
    assert run.exit_code == 1
    assert run.stdout == ""
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert [p.name for p in tmp_path.iterdir()] == ["report.sarif"]  # no temp file left


@pytest.mark.parametrize("output", ["human", "json", "sarif", "github", "gitlab"])
def test_output_file_in_a_missing_directory_is_exit_2(
    scenario_repo: Callable[[str], Path], doctor: Doctor, tmp_path: Path, output: str
) -> None:
    """The error is said once, in every format (the machine formats said it twice)."""
    target = tmp_path / "nowhere" / "out.txt"
    run = doctor(
        "check", "--source", str(scenario_repo("demo")), "--today", TODAY,
        "--output-format", output, "-o", str(target),
    )  # fmt: skip
    assert run.exit_code == 2
    assert "does not exist" in run.stderr and run.stderr.count("\n") == 1
    assert not target.parent.exists()


def sarif_validator() -> Validator:
    """A validator for the SARIF 2.1.0 schema the repository ships (draft-07)."""
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    validator: Validator = validator_for(schema)(schema)
    return validator


def test_sarif_on_exit_2_is_a_valid_log(doctor: Doctor, tmp_path: Path) -> None:
    run = doctor("check", "--source", str(tmp_path / "missing"), "--output-format", "sarif")
    assert run.exit_code == 2
    log = json.loads(run.stdout)
    sarif_validator().validate(log)
    (only,) = log["runs"]
    invocation = only["invocations"][0]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert "does not exist" in notification["message"]["text"]
    # The same through -o: the upload step never sees a 0-byte file.
    target = tmp_path / "out.sarif"
    doctor(
        "check",
        "--source",
        str(tmp_path / "missing"),
        "--output-format",
        "sarif",
        "-o",
        str(target),
    )
    sarif_validator().validate(json.loads(target.read_text(encoding="utf-8")))


def test_sarif_of_a_run_is_valid_and_rules_carry_groups(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    run = doctor(
        "check",
        "--source",
        str(scenario_repo("demo")),
        "--today",
        TODAY,
        "--output-format",
        "sarif",
    )
    log = json.loads(run.stdout)
    sarif_validator().validate(log)
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["item-currency"]["properties"]["tags"] == ["currency"]
    for rule in rules.values():
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]


def test_github_on_exit_2_is_one_error_command(doctor: Doctor, tmp_path: Path) -> None:
    run = doctor("check", "--source", str(tmp_path / "missing"), "--output-format", "github")
    assert run.exit_code == 2
    (line,) = run.stdout.splitlines()
    assert line.startswith("::error::context-doctor: source ")


def test_gitlab_code_quality(scenario_repo: Callable[[str], Path], doctor: Doctor) -> None:
    root = scenario_repo("demo")
    gitlab = json.loads(
        doctor("check", "--source", str(root), "--today", TODAY, "--output-format", "gitlab").stdout
    )
    sarif = json.loads(
        doctor("check", "--source", str(root), "--today", TODAY, "--output-format", "sarif").stdout
    )
    results = sarif["runs"][0]["results"]
    assert len(gitlab) == len(results)
    for issue, result in zip(gitlab, results, strict=True):
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["fingerprint"] == result["partialFingerprints"]["contextDoctor/v1"]
        assert issue["severity"] == {"error": "major", "warning": "minor"}[result["level"]]
        assert issue["location"]["lines"]["begin"] >= 1


def test_sarif_on_a_bad_option_is_a_valid_log(tmp_path: Path) -> None:
    """Usage errors go through the console script (``main``), not the click group."""
    target = tmp_path / "out.sarif"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "context_doctor",
            "check",
            "--today",
            "soon",
            "--output-format",
            "sarif",
            "-o",
            str(target),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    log = json.loads(target.read_text(encoding="utf-8"))
    sarif_validator().validate(log)
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False


# -- only full runs write the report cache -------------------------------------


@pytest.mark.parametrize(
    "narrowing", [("--select", "body-currency"), ("--ignore", "context-budget")]
)
def test_a_narrowed_console_run_never_writes_the_report_cache(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    isolated_home: Path,
    narrowing: tuple[str, str],
) -> None:
    root = scenario_repo("demo")
    (isolated_home / "console.yaml").write_text(
        f"sources:\n  - name: demo-kb\n    root: {root}\n    projects_dir: projects\n",
        encoding="utf-8",
    )
    cache = isolated_home / "context-doctor" / "last-report.json"
    full = doctor("check", "--today", "2026-06-20", "--json", cwd=root.parent)
    assert full.exit_code == 1 and cache.is_file()
    before = cache.read_bytes()
    narrowed = doctor("check", "--today", "2026-06-20", *narrowing, cwd=root.parent)
    assert narrowed.exit_code in (0, 1), narrowed.stderr
    assert cache.read_bytes() == before  # the full run's report stands
    assert "report cache" in narrowed.stderr and "not written" in narrowed.stderr
    assert json.loads(before)["ok"] is False
