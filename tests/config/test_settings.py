"""Configuration (context-doctor.toml, [tool.context-doctor], --config) on real repositories."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, template_tail

TODAY = "2026-06-20"

INDEX = """\
projects:
  - id: alpha
    status: active
  - id: mystery
    status: wip
  - id: long
    status: active
"""


def corpus(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """alpha is healthy; mystery has an unknown status; long is a 20-line CONTEXT.md."""
    files: dict[str, Any] = {
        "projects/index.yaml": INDEX,
        "projects/alpha/CONTEXT.md": "# Alpha\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
        + template_tail(),
        "projects/mystery/CONTEXT.md": "# Mystery\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
        + template_tail(),
        "projects/long/CONTEXT.md": {
            "text": "# Long\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
            + template_tail(),
            "pad_to": 20,
        },
    }
    files.update(extra or {})
    return {
        "remote": True,
        "commits": [{"date": "2026-06-01T09:00:00+00:00", "message": "seed", "files": files}],
    }


def check(doctor: Doctor, *args: str) -> Run:
    return doctor("check", *args, "--today", TODAY, "--json")


def checks_run(run: Run) -> set[str]:
    return set(run.json["coverage"])


# -- where the configuration comes from ---------------------------------------------------


def test_defaults_without_a_config(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus())
    run = check(doctor, str(root))
    assert run.exit_code == 1
    assert [f["check"] for f in run.json["findings"]] == ["status-vocabulary"]
    assert {"status-vocabulary", "context-budget", "status-agreement"} <= checks_run(run)


def test_context_doctor_toml_at_the_source_root(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus({"context-doctor.toml": 'ignore = ["status-vocabulary"]\n'}))
    run = check(doctor, str(root))
    assert run.exit_code == 0, run.stdout
    assert "status-vocabulary" not in checks_run(run)
    assert "status-agreement" in checks_run(run)
    assert run.json["findings"] == []


def test_pyproject_tool_table_at_the_source_root(make_repo: MakeRepo, doctor: Doctor) -> None:
    pyproject = '[project]\nname = "kb"\n\n[tool.context-doctor]\nselect = ["status-agreement"]\n'
    root = make_repo(corpus({"pyproject.toml": pyproject}))
    run = check(doctor, str(root))
    assert run.exit_code == 0, run.stdout
    assert checks_run(run) == {"status-agreement"}


def test_pyproject_without_the_table_is_not_a_config(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus({"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}))
    run = doctor("check", str(root), "--show-settings")
    assert run.exit_code == 0
    assert "config file: (none found; defaults)" in run.stdout


def test_context_doctor_toml_wins_over_pyproject(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        corpus(
            {
                "context-doctor.toml": 'select = ["context-budget"]\n',
                "pyproject.toml": '[tool.context-doctor]\nselect = ["status-agreement"]\n',
            }
        )
    )
    run = check(doctor, str(root))
    assert checks_run(run) == {"context-budget"}


def test_config_option_file(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    root = make_repo(corpus({"context-doctor.toml": 'select = ["context-budget"]\n'}))
    config = tmp_path / "elsewhere.toml"
    config.write_text('[severity]\nstatus-vocabulary = "warning"\n', encoding="utf-8")
    run = check(doctor, str(root), "--config", str(config))
    # --config replaces the root's file entirely: every check runs again.
    assert "status-agreement" in checks_run(run)
    finding = run.findings("status-vocabulary", "mystery")[0]
    assert finding["severity"] == "warning"
    assert run.exit_code == 0


def test_config_option_pointing_at_a_pyproject(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(corpus())
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.context-doctor]\nignore = ["status-vocabulary"]\n', encoding="utf-8")
    run = check(doctor, str(root), "--config", str(config))
    assert run.exit_code == 0
    assert "status-vocabulary" not in checks_run(run)


def test_a_source_root_with_a_config_applies_to_that_source(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    plain = make_repo(corpus())
    configured = make_repo(corpus({"context-doctor.toml": 'select = ["context-budget"]\n'}))
    run = check(doctor, "--source", str(plain), "--source", str(configured))
    assert {f["source"] for f in run.findings("status-vocabulary")} == {plain.name}
    assert run.json["coverage"]["context-budget"]["examined"] == 6
    assert run.json["coverage"]["status-vocabulary"]["examined"] == 3  # `plain` alone
    shown = doctor("check", "--source", str(plain), "--source", str(configured), "--show-settings")
    assert f"config: {configured.resolve() / 'context-doctor.toml'})" in shown.stdout
    assert "config: defaults)" in shown.stdout


def test_show_settings_prints_every_configuration_group(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    plain = make_repo(corpus())
    configured = make_repo(
        corpus(
            {"context-doctor.toml": 'select = ["context-budget"]\n[budgets]\ncontext_lines = 10\n'}
        )
    )
    toml = configured.resolve() / "context-doctor.toml"
    run = doctor("check", "--source", str(plain), "--source", str(configured), "--show-settings")
    assert run.exit_code == 0, run.stderr
    first, second = run.stdout.split("\n\n")
    # Each group is headed by its file and lists the sources it governs, and only those.
    assert first.startswith("config file: (none found; defaults)\nsources:\n")
    assert f"  {plain.name}: {plain.resolve()} " in first and configured.name not in first
    assert "'status-vocabulary'" in first and "budgets.context_lines = 150  # default" in first
    assert second.startswith(f"config file: {toml}\nsources:\n")
    assert f"  {configured.name}: {configured.resolve()} " in second and plain.name not in second
    assert f"select = ['context-budget']  # {toml}" in second.splitlines()
    assert f"budgets.context_lines = 10  # {toml}" in second.splitlines()


# -- what the settings do ---------------------------------------------------------------------


def test_severity_override_softens_a_defect(make_repo: MakeRepo, doctor: Doctor) -> None:
    toml = '[budgets]\ncontext_lines = 10\n[severity]\ncontext-budget = "warning"\n'
    root = make_repo(corpus({"context-doctor.toml": toml}))
    run = check(doctor, str(root), "--ignore", "status-vocabulary")
    finding = run.findings("context-budget", "long")[0]
    assert finding["severity"] == "warning"
    assert run.exit_code == 0


def test_budget_numbers_take_effect(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus({"context-doctor.toml": "[budgets]\ncontext_lines = 18\n"}))
    run = check(doctor, str(root))
    found = run.findings("context-budget")
    assert [f["project"] for f in found] == ["long"]
    assert found[0]["severity"] == "defect"
    assert "20 lines, over the 18-line budget" in found[0]["message"]


def test_completed_budget_number_takes_effect(make_repo: MakeRepo, doctor: Doctor) -> None:
    index = INDEX.replace(
        "id: long\n    status: active",
        "id: long\n    status: completed\n    completed_date: 2026-05-30",
    )
    scenario = corpus(
        {
            "projects/index.yaml": index,
            "projects/long/CONTEXT.md": {"text": "# Long\n\n**Status:** Completed\n", "pad_to": 20},
            "context-doctor.toml": "[budgets]\ncompleted_context_lines = 15\n",
        }
    )
    run = check(doctor, str(make_repo(scenario)))
    found = run.findings("context-budget", "long")
    assert len(found) == 1
    assert "over the 15-line completed-project budget" in found[0]["message"]


def test_cli_select_replaces_and_cli_ignore_adds(make_repo: MakeRepo, doctor: Doctor) -> None:
    toml = 'select = ["context-budget"]\nignore = ["completed-date"]\n'
    root = make_repo(corpus({"context-doctor.toml": toml}))
    run = check(
        doctor,
        str(root),
        "--select",
        "status-agreement,status-vocabulary,completed-date",
        "--ignore",
        "status-vocabulary",
    )
    assert checks_run(run) == {"status-agreement"}


# -- exit 2 on a bad configuration --------------------------------------------------------------


def assert_config_error(run_human: Run, run_json: Run, *needles: str) -> None:
    assert run_human.exit_code == 2, run_human.stdout + run_human.stderr
    lines = run_human.stderr.splitlines()
    assert len(lines) == 1, run_human.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert run_json.exit_code == 2
    payload = json.loads(run_json.stdout)
    assert payload["ok"] is False
    for needle in needles:
        assert needle in payload["error"], (needle, payload["error"])


@pytest.mark.parametrize(
    ("toml", "needles"),
    [
        ('colour = "red"\n', ("`colour`", "'red'", "unknown key")),
        ("[budgets]\ncontext_lines = 0\n", ("`budgets.context_lines`", "= 0")),
        ('[budgets]\ncontext_lines = "ten"\n', ("`budgets.context_lines`", "'ten'")),
        ("[budgets]\nlines = 3\n", ("`budgets.lines`", "= 3", "unknown key")),
        ('[severity]\ncontext-budget = "fatal"\n', ("`severity.context-budget`", "'fatal'")),
        ('select = "status-agreement"\n', ("`select`", "'status-agreement'")),
        ('select = ["status-agreement", "no-such-check"]\n', ("`select`", "`no-such-check`")),
        ('ignore = ["no-such-check"]\n', ("`ignore`", "`no-such-check`")),
        (
            '[severity]\nno-such-check = "warning"\n',
            ("`severity.no-such-check`", "`no-such-check`"),
        ),
        ("select = [\n", ("not valid TOML",)),
        # #23 item 4: nesting that exhausts the parser's recursion, or merely goes deep.
        ("select = " + "[" * 3000 + "]" * 3000 + "\n", ("too deeply",)),
        ("[budgets]\nx = " + "[" * 40 + "]" * 40 + "\n", ("more than 32 levels",)),
        ("x = " + "{a = " * 40 + "1" + "}" * 40 + "\n", ("more than 32 levels",)),
    ],
)
def test_bad_context_doctor_toml(
    make_repo: MakeRepo, doctor: Doctor, toml: str, needles: tuple[str, ...]
) -> None:
    root = make_repo(corpus({"context-doctor.toml": toml}))
    path = str(root.resolve() / "context-doctor.toml")
    assert_config_error(
        doctor("check", str(root)), doctor("check", str(root), "--json"), path, *needles
    )


def test_bad_pyproject_table(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus({"pyproject.toml": "[tool.context-doctor]\nverbose = true\n"}))
    path = str(root.resolve() / "pyproject.toml")
    assert_config_error(
        doctor("check", str(root)),
        doctor("check", str(root), "--json"),
        path,
        "`verbose`",
        "True",
        "unknown key",
    )


def test_bad_config_option_file(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    root = make_repo(corpus())
    config = tmp_path / "ci.toml"
    config.write_text("[budgets]\nreference_lines = -5\n", encoding="utf-8")
    assert_config_error(
        doctor("check", str(root), "--config", str(config)),
        doctor("check", str(root), "--config", str(config), "--json"),
        str(config),
        "`budgets.reference_lines`",
        "-5",
    )


def test_missing_config_option_file(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    root = make_repo(corpus())
    missing = tmp_path / "nope.toml"
    assert_config_error(
        doctor("check", str(root), "--config", str(missing)),
        doctor("check", str(root), "--config", str(missing), "--json"),
        str(missing),
        "does not exist",
    )


# -- --show-settings -------------------------------------------------------------------------------


def test_show_settings_names_where_each_setting_came_from(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    toml = (
        'ignore = ["completed-date"]\n'
        '[severity]\nstatus-vocabulary = "warning"\n'
        "[budgets]\ncontext_lines = 10\n"
    )
    root = make_repo(corpus({"context-doctor.toml": toml}))
    config = str(root.resolve() / "context-doctor.toml")
    run = doctor(
        "check",
        str(root),
        "--show-settings",
        "--ignore",
        "record-unreadable",
        "--select",
        "status-agreement,context-budget,completed-date,record-unreadable",
    )
    assert run.exit_code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert f"config file: {config}" in lines
    assert (
        f"  {root.name}: {root.resolve()} (projects_dir: projects; layout projects/*/CONTEXT.md, "
        f"detected; config: {config})"
    ) in lines
    assert "select = ['context-budget', 'status-agreement']  # --select" in lines
    assert f"ignore = ['completed-date', 'record-unreadable']  # {config} + --ignore" in lines
    assert f"severity.status-vocabulary = 'warning'  # {config}" in lines
    assert f"budgets.context_lines = 10  # {config}" in lines
    assert "budgets.completed_context_lines = 80  # default" in lines
    assert "budgets.reference_lines = 300  # default" in lines
    assert "budgets.stale_session_days = 7  # default" in lines
    # Settings only: no audit output.
    assert "DEFECTS" not in run.stdout and "HEALTHY" not in run.stdout


def test_show_settings_without_a_config(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(corpus())
    run = doctor("check", str(root), "--show-settings")
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert "config file: (none found; defaults)" in lines
    settings = [line for line in lines if " = " in line]
    assert settings and all(line.endswith("# default") for line in settings), settings
    assert any(line.startswith("select = [") and "'status-agreement'" in line for line in settings)
    assert "ignore = []  # default" in lines


# -- per source ------------------------------------------------------------


def test_each_source_is_audited_under_its_own_config(make_repo: MakeRepo, doctor: Doctor) -> None:
    """Two repositories in one run: each one's `context-doctor.toml` applies to it alone."""
    quiet = make_repo(corpus({"context-doctor.toml": 'ignore = ["status-vocabulary"]\n'}))
    strict = make_repo(
        corpus({"context-doctor.toml": '[severity]\nstatus-vocabulary = "warning"\n'})
    )
    plain = make_repo(corpus())
    run = check(doctor, str(quiet), str(strict), str(plain))
    by_source = {
        source: [(f["check"], f["severity"]) for f in run.json["findings"] if f["source"] == source]
        for source in (quiet.name, strict.name, plain.name)
    }
    assert by_source == {
        quiet.name: [],
        strict.name: [("status-vocabulary", "warning")],
        plain.name: [("status-vocabulary", "defect")],
    }
    assert run.exit_code == 1  # the plain source's defect
    assert run.json["projects_audited"] == 9
    assert run.json["coverage"]["status-agreement"]["examined"] == 9
    assert run.json["coverage"]["status-vocabulary"]["examined"] == 6  # ignored in `quiet`
    assert [s["name"] for s in run.json["source_details"]] == [quiet.name, strict.name, plain.name]


def test_an_explicit_config_applies_to_every_source(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    first = make_repo(corpus({"context-doctor.toml": 'ignore = ["status-vocabulary"]\n'}))
    second = make_repo(corpus())
    explicit = tmp_path / "all.toml"
    explicit.write_text('[severity]\nstatus-vocabulary = "warning"\n', encoding="utf-8")
    run = check(doctor, str(first), str(second), "--config", str(explicit))
    assert {(f["source"], f["severity"]) for f in run.json["findings"]} == {
        (first.name, "warning"),
        (second.name, "warning"),
    }


def test_config_option_naming_a_fifo_or_a_directory_says_what_it_is(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(corpus())
    fifo = tmp_path / "ci.toml"
    os.mkfifo(fifo)
    run = doctor("check", str(root), "--config", str(fifo))
    assert run.exit_code == 2
    assert "not a regular file" in run.stderr and "does not exist" not in run.stderr
    run = doctor("check", str(root), "--config", str(tmp_path))
    assert run.exit_code == 2
    assert "is a directory" in run.stderr
