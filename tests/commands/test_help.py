"""Help like ruff's: whole summaries, grouped options, one metavar style, one
error style with "did you mean", an `explain` that lists the checks, one word per cache."""

from __future__ import annotations

import re

import click
import pytest
from support import Doctor

from context_doctor import cli as cli_module
from context_doctor.checks.registry import GROUPS, load_checks

GROUPS_WITH_COMMANDS = ("edit", "log", "state", "hook", "freshness", "mcp", "console")


def one_error_line(stderr: str) -> str:
    """The doctor's one error line: no click usage block, no `Error:`."""
    assert stderr.count("\n") == 1, stderr
    assert stderr.startswith("context-doctor: error: "), stderr
    assert "Usage:" not in stderr and "Error:" not in stderr and "Try '" not in stderr
    assert "(remedy: " in stderr
    return stderr.strip()


# -- summaries are whole ------------------------------------------------------------


@pytest.mark.parametrize("columns", ["60", "80", "120"])
def test_no_summary_is_cut_short(doctor: Doctor, columns: str) -> None:
    env = {"COLUMNS": columns}
    for args in [("--help",), *((group, "--help") for group in GROUPS_WITH_COMMANDS)]:
        run = doctor(*args, env=env)
        assert run.exit_code == 0, (args, run.stderr)
        commands = run.stdout.partition("Commands:\n")[2].partition("\n\n")[0]
        assert commands, args
        assert "..." not in commands, (args, commands)
    listed = " ".join(doctor("--help", env=env).stdout.partition("Commands:\n")[2].split())
    for summary in cli_module.SHORT_HELP.values():
        assert " ".join(summary.split()) in listed


def test_the_plain_help_lists_whole_summaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    page = cli_module.plain_help(cli_module._help_width())
    assert "..." not in page.partition("Commands:\n")[2]
    assert max(len(line) for line in page.splitlines()) <= 78
    # At 80 columns each command fits on its one line, as ruff lists its commands.
    assert len(page.partition("Commands:\n")[2].splitlines()) == len(cli_module.SHORT_HELP)


# -- check --help: grouped, one metavar style -----------------------------------------

SECTIONS = ["Sources", "Selection", "Output", "Fixes", "Caches", "Readiness", "Other"]


def test_check_help_is_grouped(doctor: Doctor) -> None:
    page = doctor("check", "--help", env={"COLUMNS": "100"}).stdout
    headings = re.findall(r"^(\w[\w ]*):$", page, flags=re.MULTILINE)
    assert headings == SECTIONS
    command = cli_module.cli.get_command(click.Context(cli_module.cli), "check")
    assert command is not None
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            shown = [name for name in param.opts if name.startswith("--")][:1] or param.opts
            assert len(re.findall(rf"^\s+(?:-\w, )?{re.escape(shown[0])}\b", page, re.M)) == 1, (
                shown
            )
    assert page.index("--source") < page.index("--select") < page.index("--output-format")
    assert page.index("--fix") < page.index("--no-cache") < page.index("--readiness")


def test_one_metavar_style(doctor: Doctor) -> None:
    for args in (("check",), ("demo",), ("sweep",), ("status",), ("report",)):
        page = doctor(*args, "--help", env={"COLUMNS": "200"}).stdout
        # A choice is named by a word (`--color WHEN`), its values said in the help.
        assert not re.search(r"\[[a-z]+\|", page), (args, page)
        options = page.partition("\nOptions:\n")[2] or page.partition("\nSources:\n")[2]
        for metavar in re.findall(r"^ {2}(?:-\w, )?--[\w-]+ (\S+)", options, re.MULTILINE):
            assert re.fullmatch(r"\[?[A-Z][A-Z0-9-]*\]?|YYYY-MM-DD|ISO-8601", metavar), (
                args,
                metavar,
            )


# -- one error style, with "did you mean" ---------------------------------------------


def test_a_mistyped_command_is_one_line_with_a_suggestion(doctor: Doctor) -> None:
    run = doctor("chek")
    assert run.exit_code == 2
    line = one_error_line(run.stderr)
    assert "no such command `chek`" in line
    assert "did you mean `context-doctor check`?" in line
    sub = doctor("edit", "set-fild")
    assert sub.exit_code == 2
    assert "did you mean `context-doctor edit set-field`?" in one_error_line(sub.stderr)
    far = doctor("zzzzzz")
    assert far.exit_code == 2
    assert "`context-doctor --help` lists the commands" in one_error_line(far.stderr)


def test_a_mistyped_option_is_one_line_with_a_suggestion(doctor: Doctor) -> None:
    run = doctor("check", "--fxi")
    assert run.exit_code == 2
    line = one_error_line(run.stderr)
    assert "no such option `--fxi` for `context-doctor check`" in line
    assert "did you mean `--fix`?" in line
    top = doctor("--versoin")
    assert top.exit_code == 2
    assert "did you mean `--version`?" in one_error_line(top.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--today", "yesterday"),
        ("check", "--select"),
        ("check", "--color", "purple"),
        ("explain", "a", "b"),
        ("edit", "replace", "--replacement", "x"),
    ],
)
def test_every_usage_error_is_the_doctors_one_line(doctor: Doctor, args: tuple[str, ...]) -> None:
    run = doctor(*args)
    assert run.exit_code == 2
    line = one_error_line(run.stderr)
    assert f"`context-doctor {args[0]}" in line  # the remedy names the command's help


def test_the_console_script_words_usage_errors_the_same(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        cli_module.main(["check", "--fxi"])
    assert ended.value.code == 2
    assert "did you mean `--fix`?" in one_error_line(capfd.readouterr().err)


# -- explain with no name ----------------------------------------------------------


def test_explain_alone_lists_the_checks_by_group_in_one_screen(doctor: Doctor) -> None:
    run = doctor("explain", env={"COLUMNS": "80"})
    assert run.exit_code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) <= 40
    assert max(map(len, lines)) <= 80
    words = run.stdout.replace(",", " ").split()
    for name in load_checks():
        assert name in words, name
    starts = [line.split(" ", 1)[0] for line in lines if line and not line.startswith(" ")]
    assert [group for group in starts if group in GROUPS] == list(GROUPS)
    assert "context-doctor explain NAME" in run.stdout


# -- one word per cache -------------------------------------------------------------


def test_each_cache_has_one_word(doctor: Doctor) -> None:
    """`cache` is the doctor's own store; `report cache` is the saved last report."""
    for args in (("status",), ("report",)):
        page = doctor(*args, "--help", env={"COLUMNS": "200"}).stdout
        assert "--report-cache FILE" in page, args
        assert not re.search(r"--cache\b", page), args
    check = doctor("check", "--help", env={"COLUMNS": "200"}).stdout
    assert "--no-cache" in check and "--report-cache" in check
    no_cache = next(line for line in check.splitlines() if "--no-cache" in line)
    assert "report" not in no_cache


def test_the_old_cache_flags_still_work(doctor: Doctor, tmp_path: pytest.TempPathFactory) -> None:
    missing = str(tmp_path) + "/none.json"
    old = doctor("status", "--cache", missing)
    new = doctor("status", "--report-cache", missing)
    assert old.exit_code == new.exit_code == 0
    assert old.stdout == new.stdout
    assert (
        doctor("report", "--cache", missing).stderr
        == doctor("report", "--report-cache", missing).stderr
    )
