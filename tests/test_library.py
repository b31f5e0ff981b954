"""``context_doctor.diagnose``: the in-process audit is what ``check --json`` prints (SPEC §7)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, Run

import context_doctor
from context_doctor.errors import DoctorError
from context_doctor.scenarios import build_scenario

TODAY = "2026-06-20"
Doctor = Callable[..., Run]


def _stamped_out(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its one clock reading (two runs are never the same second)."""
    return {key: value for key, value in report.items() if key != "generated_at"}


@pytest.mark.parametrize(
    ("keywords", "flags"),
    [
        ({}, ()),
        ({"readiness": "remote"}, ("--readiness", "remote")),
        (
            {"select": ["context-budget", "session-freshness"]},
            ("--select", "context-budget,session-freshness"),
        ),
        ({"ignore": "context-budget"}, ("--ignore", "context-budget")),
    ],
)
def test_diagnose_returns_what_check_json_prints(
    scenario_repo: Callable[[str], Path],
    doctor: Doctor,
    keywords: dict[str, Any],
    flags: tuple[str, ...],
) -> None:
    root = scenario_repo("demo")
    printed = doctor("check", str(root), "--today", TODAY, "--json", *flags)
    assert printed.exit_code == 1, printed.stderr
    returned = context_doctor.diagnose(root, today=date.fromisoformat(TODAY), **keywords)
    assert _stamped_out(returned) == _stamped_out(printed.raw)
    assert returned["exit"] == 1 and returned["ok"] is False and returned["findings"]


def test_diagnose_takes_a_str_path_and_a_str_date(scenario_repo: Callable[[str], Path]) -> None:
    root = scenario_repo("demo")
    assert _stamped_out(context_doctor.diagnose(str(root), today=TODAY)) == _stamped_out(
        context_doctor.diagnose(root, today=date.fromisoformat(TODAY))
    )


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"select": ["no-such-check"]}, "in select"),
        ({"ignore": ""}, "in ignore"),
        ({"readiness": "everywhere"}, "readiness="),
        ({"today": "20260620"}, "today="),
        ({"today": "2026-02-30"}, "today="),
    ],
)
def test_diagnose_raises_doctor_error_naming_the_keyword(
    scenario_repo: Callable[[str], Path], keywords: dict[str, Any], named: str
) -> None:
    with pytest.raises(context_doctor.DoctorError) as raised:
        context_doctor.diagnose(scenario_repo("demo"), **{"today": TODAY, **keywords})
    error = raised.value
    assert named in error.problem and error.remedy
    # A whole command in backticks may keep its flags: it is run as printed.
    words = re.sub(r"`[^`]*`", "", f"{error.problem} {error.remedy}")
    assert "--" not in words, error.one_line()


def test_diagnose_raises_where_the_cli_exits_2(tmp_path: Path, doctor: Doctor) -> None:
    (tmp_path / "loose").mkdir()  # a directory in no git repository
    for path in (tmp_path / "missing", tmp_path / "loose"):
        assert doctor("check", str(path), "--json").exit_code == 2
        with pytest.raises(DoctorError) as raised:
            context_doctor.diagnose(path)
        assert raised.value.remedy


def test_import_context_doctor_loads_no_audit() -> None:
    """`import context_doctor` stays cheap: diagnose's machinery is loaded on the first call."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import sys, context_doctor\n"
            "print(sorted(m for m in sys.modules if m.startswith('context_doctor')))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    ).stdout
    assert loaded.strip() == "['context_doctor']"


def test_the_readme_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's Python block, executed as printed against a knowledge base of its name."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    (example,) = [
        block
        for block in re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
        if "context_doctor.diagnose(" in block
    ]
    build_scenario(REPO_ROOT / "fixtures" / "scenarios" / "demo.yaml", tmp_path / "knowledge-base")
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {"__name__": "readme_example"})
    printed = capsys.readouterr().out.splitlines()
    report = context_doctor.diagnose(tmp_path / "knowledge-base", today=TODAY)
    assert printed[0] == f"{report['defects']} defects in {report['projects_audited']} projects"
    assert len(printed) == 1 + report["defects"] > 1
