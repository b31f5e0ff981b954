"""``context_doctor.diagnose``: the in-process audit is what ``check --json`` prints (docs/surfaces.md)."""

from __future__ import annotations

import json
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


def test_the_docs_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/surfaces.md's Python block, executed as printed against the demo it names."""
    page = (REPO_ROOT / "docs" / "surfaces.md").read_text(encoding="utf-8")
    (example,) = [
        block
        for block in re.findall(r"```python\n(.*?)```", page, flags=re.DOTALL)
        if "context_doctor.diagnose(" in block
    ]
    build_scenario(REPO_ROOT / "fixtures" / "scenarios" / "demo.yaml", tmp_path / "demo-kb")
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "docs/surfaces.md", "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out.splitlines()
    report = context_doctor.diagnose(tmp_path / "demo-kb", today=TODAY)
    assert printed[0] == f"{report['defects']} defects in {report['projects_audited']} projects"
    assert len(printed) == 1 + report["defects"] > 1


# -- every option check takes, honoured as check honours it -------------


def _layouts_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose detected layout (STATUS.md) and a declared one (docs/NOTES.md,
    in a config file outside it) give other projects and other findings."""
    from support import commit_tree

    root = tmp_path / "kb"
    (root / "docs").mkdir(parents=True)
    (root / "STATUS.md").write_text(
        "# S\n\n**Status:** active\n**Last session:** 2026-01-01\n", encoding="utf-8"
    )
    (root / "docs/NOTES.md").write_text(
        "# Notes\n\n**Status:** blocked forever\n**Last session:** 2025-01-01\n", encoding="utf-8"
    )
    commit_tree(root)
    config = tmp_path / "declared.toml"
    config.write_text('[layout]\ncontext = "docs/NOTES.md"\nname = "notes"\n', encoding="utf-8")
    return root, config


def test_diagnose_honours_every_option_as_check_does(tmp_path: Path, doctor: Doctor) -> None:
    root, config = _layouts_repo(tmp_path)
    baseline = tmp_path / "baseline.json"
    written = doctor("check", str(root), "--today", TODAY, "--write-baseline", str(baseline))
    assert written.exit_code == 0, written.stderr
    cases: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        ({}, ()),
        ({"config": config}, ("--config", str(config))),
        ({"config": str(config), "readiness": "remote"}, ("--config", str(config),
                                                           "--readiness", "remote")),
        ({"select": "freshness"}, ("--select", "freshness")),
        ({"ignore": ["unpushed-context"]}, ("--ignore", "unpushed-context")),
        ({"baseline": baseline}, ("--baseline", str(baseline))),
        ({"warnings_as_defects": True}, ("--warnings-as-defects",)),
        ({"exit_zero": True, "config": config}, ("--exit-zero", "--config", str(config))),
        ({"cache": False, "jobs": 1}, ("--no-cache", "--jobs", "1")),
        ({"allow_shallow": True}, ("--allow-shallow",)),
    ]  # fmt: skip
    seen = set()
    for keywords, flags in cases:
        printed = doctor("check", str(root), "--today", TODAY, "--json", *flags)
        assert printed.exit_code in (0, 1), (flags, printed.stderr)
        returned = context_doctor.diagnose(root, today=TODAY, **keywords)
        assert _stamped_out(returned) == _stamped_out(printed.raw), flags
        seen.add(json.dumps(_stamped_out(returned), sort_keys=True))
    assert len(seen) >= 6  # the options change the report: the comparison is not vacuous
    declared = context_doctor.diagnose(root, today=TODAY, config=config)
    assert [source["layout"] for source in declared["source_details"]] == [
        "docs/NOTES.md, declared"
    ]
    for keywords, flags in (
        ({"source": None, "projects": [root]}, ("--project", str(root))),
        ({"source": None, "sources": [root]}, ("--source", str(root))),
        ({"source": [root / "STATUS.md", root]}, (str(root / "STATUS.md"), str(root))),
    ):
        where = keywords.pop("source")
        printed = doctor("check", *flags, "--today", TODAY, "--json")
        assert printed.exit_code in (0, 1), (flags, printed.stderr)
        returned = context_doctor.diagnose(where, today=TODAY, **keywords)
        assert _stamped_out(returned) == _stamped_out(printed.raw), flags


def test_diagnose_raises_doctor_error_for_every_input_check_refuses(
    tmp_path: Path, doctor: Doctor
) -> None:
    """Each input ``check --json`` answers with exit 2 raises DoctorError with a remedy (a
    9,000-byte path raised OSError), naming keywords rather than flags."""
    root, _ = _layouts_repo(tmp_path)
    long_path = str(tmp_path / ("a" * 9000))
    long_name = str(tmp_path / ("b" * 300))
    configs = {
        "missing.toml": None,
        "broken.toml": "not = [toml",
        "unknown.toml": "bogus = 1\n",
        "outside.toml": '[layout]\ncontext = "/etc/passwd"\n',
        "two-stars.toml": '[layout]\ncontext = "*/*/STATUS.md"\n',
    }
    for name, text in configs.items():
        if text is not None:
            (tmp_path / name).write_text(text, encoding="utf-8")
    cases: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        ({"source": tmp_path / "missing"}, (str(tmp_path / "missing"),)),
        ({"source": long_path}, (long_path,)),
        ({"source": long_name}, (long_name,)),
        ({"config": long_path}, (str(root), "--config", long_path)),
        ({"config": tmp_path}, (str(root), "--config", str(tmp_path))),
        ({"baseline": tmp_path / "none.json"}, (str(root), "--baseline",
                                                str(tmp_path / "none.json"))),
        ({"select": "no-such-check"}, (str(root), "--select", "no-such-check")),
        *[({"config": tmp_path / name}, (str(root), "--config", str(tmp_path / name)))
          for name in configs],
    ]  # fmt: skip
    for keywords, flags in cases:
        printed = doctor("check", *flags, "--today", TODAY, "--json")
        assert printed.exit_code == 2, (flags, printed.stdout)
        where = keywords.pop("source", root)
        with pytest.raises(DoctorError) as raised:
            context_doctor.diagnose(where, today=TODAY, **keywords)
        error = raised.value
        assert error.remedy, flags
        assert "--" not in re.sub(r"`[^`]*`", "", error.one_line()), error.one_line()
    for keywords in ({"jobs": 0}, {"cache": "no"}, {"source": 12}, {"projects": [None]},
                     {"config": 3.5}, {"baseline": 7}):  # fmt: skip
        where = keywords.pop("source", root)
        with pytest.raises(DoctorError) as raised:
            context_doctor.diagnose(where, today=TODAY, **keywords)
        assert raised.value.remedy
