"""explain, demo, the registry and the module entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from conftest import Run
from support import loaded_by

from context_doctor import cli as cli_module
from context_doctor.checks.registry import load_checks

ISSUE_2_CHECKS = {
    "context-present",
    "context-budget",
    "sessions-present",
    "reference-present",
    "reference-budget",
    "reference-shard",
    "reference-index-budget",
    "reference-topic-budget",
    "reference-index-orphan",
    "reference-index-missing",
    "completed-items-in-context",
    "stale-session-in-context",
    "status-agreement",
    "record-unreadable",
    "status-vocabulary",
    "completed-date",
}
# Every other check docs/checks.md names that the doctor implements: deleting one fails the registry test.
LATER_CHECKS = {
    "last-session-freshness", "context-header-freshness", "freshness-unverifiable",
    "unlogged-session", "header-currency", "header-lag", "body-currency", "item-currency",
    "terminal-project-active", "terminal-project-open-items", "post-close-review-unresolvable",
    "untracked-context", "uncommitted-context", "unpushed-context",
    "freshness-overdue", "freshness-never-reviewed", "freshness-malformed", "freshness-future",
    "freshness-source-missing", "freshness-derived-reviewed", "section-freshness-overdue",
    "semantic-current-state", "artifact-cites-missing-script",
}  # fmt: skip


def test_every_named_check_is_registered() -> None:
    registry = load_checks()
    assert set(registry) >= ISSUE_2_CHECKS | LATER_CHECKS
    for spec in registry.values():
        assert spec.summary and spec.remedy and spec.explanation


def test_explain_one_check(doctor: Callable[..., Run]) -> None:
    run = doctor("explain", "reference-shard")
    assert run.exit_code == 0
    assert run.stdout.startswith("reference-shard (warning)")
    assert "How to fix:" in run.stdout
    assert "`bounded`: the project is bounded" in run.stdout
    assert "`dormant`" in run.stdout


def test_explain_the_structured_state_checks(doctor: Callable[..., Run]) -> None:
    state = doctor("explain", "semantic-current-state").stdout
    assert state.startswith("semantic-current-state (defect or warning)")
    assert "content_hashes" in state and "released, shipped" in state and "History" in state
    artifacts = doctor("explain", "artifact-cites-missing-script").stdout
    assert artifacts.startswith("artifact-cites-missing-script (warning)")
    assert "`no artifacts`: the project has no Markdown file directly under" in artifacts


def test_explain_states_each_severity_and_when(doctor: Callable[..., Run]) -> None:
    """docs/checks.md: `explain` says which severity each finding can have; none is left out."""
    unreadable = doctor("explain", "record-unreadable").stdout
    assert unreadable.startswith("record-unreadable (defect or warning)")
    assert "  - defect: a tier file" in unreadable
    assert "  - warning: the CONTEXT.md header's Status and Phase give no completion verdict" in (
        unreadable
    )
    header = doctor("explain", "context-header-freshness").stdout
    assert header.startswith("context-header-freshness (defect or warning)")
    assert "  - warning: the header has no readable date" in header
    budget = doctor("explain", "context-budget").stdout
    assert "Severity: defect, for every finding." in budget


def test_every_finding_has_a_severity_its_check_declares(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    """Human, JSON, SARIF and explain never disagree: each finding's severity is one its
    check's `explain` names, and SARIF's level is that same severity (both readiness modes)."""
    checks = load_checks()
    root = scenario_repo("demo")
    for readiness in ("local", "remote"):
        args = ("check", "--source", str(root), "--today", "2026-06-20", "--readiness", readiness)
        report = doctor(*args, "--json").json
        for finding in report["findings"]:
            allowed = {severity.value for severity in checks[finding["check"]].possible_severities}
            assert finding["severity"] in allowed, finding
        sarif = json.loads(doctor(*args, "--output-format", "sarif").stdout)
        levels = [result["level"] for result in sarif["runs"][0]["results"]]
        expected = sorted(
            "error" if f["severity"] == "defect" else "warning" for f in report["findings"]
        )
        assert sorted(levels) == expected
        human = doctor(*args).stdout
        assert human.count("  FAIL  [") == report["defects"]
        assert human.count("  warn  [") == report["warnings"]


def test_explain_all_lists_every_check(doctor: Callable[..., Run]) -> None:
    run = doctor("explain", "--all")
    assert run.exit_code == 0
    for name in ISSUE_2_CHECKS | LATER_CHECKS:
        assert f"\n{name} (" in "\n" + run.stdout


def test_explain_unknown_check_is_exit_2(doctor: Callable[..., Run]) -> None:
    run = doctor("explain", "no-such-check")
    assert run.exit_code == 2
    assert "unknown check or group name `no-such-check`" in run.stderr
    assert run.stderr.count("\n") == 1


def test_demo_builds_and_audits_the_bundled_corpus(
    doctor: Callable[..., Run], tmp_path: Path
) -> None:
    run = doctor("demo", "--dir", str(tmp_path), "--output-format", "concise")
    assert run.exit_code == 1
    assert "warning reference-index-orphan vendors.md is not linked from REFERENCE.md" in run.stdout
    assert (tmp_path / "kb" / ".git").is_dir()


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "context_doctor", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("context-doctor, version ")


def test_bad_today_is_a_usage_error(doctor: Callable[..., Run], tmp_path: Path) -> None:
    run = doctor("check", "--today", "2026-02-30", str(tmp_path))
    assert run.exit_code == 2
    assert "is not a YYYY-MM-DD date" in run.stderr


# -- start-up: what each light command imports. Module sets, never timings. ----

_LOADED = """
import sys
sys.argv = ["context-doctor", *sys.argv[1:]]
from context_doctor.cli import main
try:
    main()
except SystemExit:
    pass
watched = ("context_doctor", "click", "importlib.metadata", "jsonschema", "ruamel", "yaml",
           "msgspec", "rich", "markdown_it", "detect_secrets", "requests", "urllib3", "ssl",
           "multiprocessing", "concurrent", "subprocess", *HEAVY_STANDARD_LIBRARY)
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in watched)), file=sys.stderr)
"""


def _loaded(*args: str) -> set[str]:
    return loaded_by(_LOADED, *args)


def test_version_loads_neither_click_nor_the_pipeline() -> None:
    assert _loaded("--version") == {
        "context_doctor",
        "context_doctor.cli",
        "context_doctor.version",
    }


def test_help_loads_neither_click_nor_a_command_module() -> None:
    # --help alone is written from cli.plain_help (compared with click's page below).
    assert _loaded("--help") == _loaded("-h") == {"context_doctor", "context_doctor.cli"}


def _clicks_page() -> str:
    from context_doctor.render.terminal import keep_words_whole_in_help

    keep_words_whole_in_help()
    group = cli_module.cli
    context = click.Context(group, info_name="context-doctor", **group.context_settings)
    return group.get_help(context) + "\n"


def test_plain_help_is_clicks_page_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page --help writes without click is the one click writes, byte for byte."""
    for columns in [1, 40, *range(50, 131), 200, 10_000, 20_000]:
        monkeypatch.setenv("COLUMNS", str(columns))
        assert cli_module.plain_help(cli_module._help_width()) == _clicks_page(), columns


@pytest.mark.parametrize("columns", [None, "", "0", "-5", "abc", " 72 ", "+90", "51", "30"])
def test_help_width_is_the_width_click_formats_to(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    expected = max(min(shutil.get_terminal_size().columns, cli_module.MAX_HELP_WIDTH) - 2, 50)
    assert cli_module._help_width() == expected


_HELP_ALL_LOADED = """
import click
from context_doctor import cli
for name in cli.COMMANDS:
    cli.cli.get_command(click.Context(cli.cli), name)
cli.cli.main(["--help"], prog_name="context-doctor")  # click's page, every command loaded
"""


def test_help_lists_each_command_as_the_command_itself_would() -> None:
    """SHORT_HELP (what --help lists without importing) says what each command's help says."""

    def help_text(*python: str) -> str:
        env = {**os.environ, "COLUMNS": "60"}
        done = subprocess.run([sys.executable, *python], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert set(cli_module.SHORT_HELP) == set(cli_module.COMMANDS), "add the command to SHORT_HELP"
    group = cli_module.cli
    for name, short in cli_module.SHORT_HELP.items():
        command = group.get_command(click.Context(group), name)
        assert command is not None
        assert command.get_short_help_str(10_000) == short, name
    lazy = help_text("-m", "context_doctor", "--help")
    assert "Commands:" in lazy
    assert help_text("-c", _HELP_ALL_LOADED) == lazy
