"""Human and concise output (docs/output.md): order, ``path:line:col``, cwd-relative paths, coverage."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import click
from conftest import Run

from context_doctor.cli import cli

Doctor = Callable[..., Run]
TODAY = "2026-06-20"
CONCISE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>defect|warning) (?P<check>[a-z-]+) .+$"
)


def test_concise_is_one_line_a_finding_with_path_line_col(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--output-format", "concise")
    *lines, summary = run.stdout.splitlines()
    findings = doctor("check", "--source", str(root), "--today", TODAY, "--json").json["findings"]
    assert len(lines) == len(findings)
    parsed = [CONCISE.match(line) for line in lines]
    assert all(parsed), [line for line, match in zip(lines, parsed, strict=True) if not match]
    keys = [(m["path"], int(m["line"]), m["check"]) for m in parsed if m]
    assert keys == sorted(keys)  # by path, then line, then check
    # A whole-file finding is path:1:1, so editor problem matchers pick it up.
    budget = next(m for m in parsed if m and m["check"] == "context-budget")
    assert (budget["path"], budget["line"], budget["col"]) == (
        "projects/beacon/CONTEXT.md",
        "1",
        "1",
    )
    defects = sum(finding["severity"] == "defect" for finding in findings)
    assert summary.startswith(
        f"DEFECTS: 10 projects audited, {defects} defects, {len(findings) - defects} warnings"
    )


def test_paths_are_relative_to_the_current_directory_below_it(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    inside = doctor(
        "check",
        "--today",
        TODAY,
        "--output-format",
        "concise",
        str(root),
        cwd=root / "projects" / "beacon",
    )
    assert inside.stdout.startswith("../../context/PROJECTS.md:5:1: warning") is False
    assert "\nCONTEXT.md:1:1: defect context-budget" in "\n" + inside.stdout
    # Outside the directory the path stays repository-relative.
    assert "projects/compass/CONTEXT.md:5:1: defect" in inside.stdout


def test_human_output_has_compact_coverage_and_the_verdict_last(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", TODAY)
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("coverage "))
    coverage = lines[start:-1]
    # docs/output.md: every check that skipped anything is accounted for without a flag, checks
    # with the same counts and reasons share a line, and nothing is cut short.
    assert coverage
    assert all(line.startswith(("coverage", "  ")) for line in coverage)
    assert not any("more (--show-coverage)" in line for line in coverage)
    text = " ".join(line.strip() for line in coverage)
    assert "item-currency" in text and "examined 8, skipped 2 (2 dormant)" in text
    assert "completed-date: examined 1, skipped 9 (8 not terminal, 1 status disputed)" in text
    # docs/checks.md: shapes are not coverage; they are printed with --show-coverage only
    assert "post-close-review-unresolvable" not in text
    assert "not sharded" not in text and "no artifacts" not in text
    assert "not applicable" not in run.stdout
    assert coverage[-1].endswith("other checks skipped nothing")
    assert lines[-1].startswith("DEFECTS:")
    assert "defects from context-budget, context-header-freshness" in lines[-1]
    full = doctor("check", "--source", str(root), "--today", TODAY, "--show-coverage").stdout
    assert "coverage item-currency: examined 8, skipped 2 (2 dormant)" in full
    assert "coverage context-budget: examined" in full  # every check, with or without skips
    assert "not applicable post-close-review-unresolvable: 10 (10 no review recorded)" in full
    assert "not applicable reference-shard: 7 (6 bounded, 1 sharded)" in full
    assert "memory-link" not in full  # no vault: nothing to examine, no line


def test_every_subcommand_help_lists_its_options(doctor: Doctor) -> None:
    for command in (
        ["check"],
        ["freshness"],
        ["freshness", "review"],
        ["explain"],
        ["demo"],
        ["hook", "install"],
        ["hook", "uninstall"],
        ["report"],
        ["sweep"],
    ):
        run = doctor(*command, "--help")
        assert run.exit_code == 0, (command, run.stdout, run.stderr)
        assert "--help" in run.stdout, command
    freshness = doctor("freshness", "--help").stdout
    for option in ("--json", "--write-cache", "--today", "--config"):
        assert option in freshness
    check = doctor("check", "--help").stdout
    for option in ("--baseline", "--write-baseline", "--show-coverage", "--output-file", "gitlab"):
        assert option in check


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        if not command.hidden:
            found.append(path)
        if isinstance(command, click.Group):
            found += _commands(command, path)
    return found


def test_help_of_every_command_names_every_visible_option(doctor: Doctor) -> None:
    """docs/output.md: every subcommand's --help lists all its options (walks the whole CLI)."""
    for path in _commands(cli):
        command: click.Command = cli
        for name in path:
            assert isinstance(command, click.Group)
            command = command.commands[name]
        shown = doctor(*path, "--help").stdout
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                aliases = getattr(param, "hidden_aliases", ())  # old names, never shown
                assert [o for o in param.opts if o not in aliases][-1] in shown, (path, param.opts)
