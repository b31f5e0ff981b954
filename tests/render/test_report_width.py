"""Output that fits: findings, remedies, coverage and the verdict wrap at the
terminal's width between words, with a hanging indent, never inside a path, a check name, an
option or a backticked span; into a pipe each keeps one line. One verdict format; a healthy
repository prints one coverage line and the verdict; a project heading appears once."""

from __future__ import annotations

import io
import re
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, template_tail
from test_terminal_surface import console_script, environment, run_on_terminal

from context_doctor.render.terminal import console_for
from context_doctor.render.text import render_human, verdict_text
from context_doctor.render.wrapping import break_line, units
from context_doctor.report.report import Report

TODAY = "2026-06-20"
CONTINUED = re.compile(r" \\\n *")


def laid_out(text: str, width: int | None, subsequent: str = "    ") -> list[str]:
    return [
        piece.indent + text[piece.start : piece.end] + piece.suffix
        for piece in break_line(text, width, subsequent)
    ]


def one_unit(line: str) -> bool:
    """Whether ``line`` holds one unit no wrap may cut: a backticked span, or one shell word
    of a command cut at its spaces (then the line ends in a continuation)."""
    content = line.strip()
    if content.endswith(" \\"):
        try:
            return len(shlex.split(content.removesuffix(" \\"))) == 1
        except ValueError:
            return False
    return len(units(content)) == 1


def words(text: str) -> list[str]:
    """The words of ``text`` with every shell line continuation joined back."""
    return CONTINUED.sub(" ", text).split()


# -- the line breaker ------------------------------------------------------------------


def test_a_backticked_span_is_never_broken_as_prose() -> None:
    text = "  → end the file with `*This file follows the Tiered Context Architecture.*` (the template)."
    for width in (40, 60, 80):
        lines = laid_out(text, width)
        assert any(
            "`*This file follows the Tiered Context Architecture.*`" in line for line in lines
        )
        assert words("\n".join(lines)) == text.split()


def test_the_hanging_indent_and_whole_words() -> None:
    text = "  " + " ".join(["projects/atlas/sessions/2026-06.md", "--set-header", "word"] * 8)
    lines = laid_out(text, 50, subsequent="      ")
    assert len(lines) > 1
    assert all(len(line) <= 50 for line in lines)
    assert all(line.startswith("      ") and line[6] != " " for line in lines[1:])
    assert words("\n".join(lines)) == text.split()


def test_a_long_command_is_cut_only_where_the_shell_cuts_it() -> None:
    command = (
        "context-doctor edit set-field projects/compass/CONTEXT.md --field 'Last session' "
        "--value '2026-06-19 (round 5)' --whole-value"
    )
    text = f"      → Move the header: `{command}`."
    lines = laid_out(text, 60, subsequent="        ")
    assert all(len(line) <= 60 for line in lines)
    assert [line for line in lines[:-1] if "`" in line or "'" in line]  # cut inside the span
    assert all(line.endswith(" \\") for line in lines[1:-1])
    rejoined = CONTINUED.sub(" ", "\n".join(lines))
    assert f"`{command}`." in rejoined  # the quoted words survive whole
    assert "'Last session'" in "\n".join(lines) and "'2026-06-19 (round 5)'" in "\n".join(lines)


def test_a_word_longer_than_the_line_stands_alone() -> None:
    text = "  → run `" + "x" * 90 + "` now"
    lines = laid_out(text, 40)
    assert lines[1].strip() == "`" + "x" * 90 + "`"
    assert words("\n".join(lines)) == text.split()


def test_no_width_is_one_line() -> None:
    text = "  → " + "word " * 100
    assert laid_out(text, None) == [text]


# -- the human report at a width --------------------------------------------------------


@pytest.fixture(scope="module")
def demo_report(scenario_repo: Callable[[str], Path]) -> tuple[Report, str]:
    from click.testing import CliRunner

    from context_doctor.cli import cli

    root = scenario_repo("demo")
    args = ["check", "--source", str(root), "--today", TODAY]
    document = CliRunner().invoke(cli, [*args, "--json"]).stdout
    import json

    plain = CliRunner().invoke(cli, args).stdout
    return Report.from_json(json.loads(document)), plain


def rendered(report: Report, width: int | None) -> str:
    stream = io.StringIO()
    render_human(report, console_for(stream), width=width)
    return stream.getvalue()


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_demo_fits_the_width_and_loses_no_word(
    demo_report: tuple[Report, str], width: int
) -> None:
    report, _ = demo_report
    text = rendered(report, width)
    too_long = [line for line in text.splitlines() if len(line) > width]
    # Only one unit longer than the line may not fit (a backticked line to add, at 60).
    assert [line for line in too_long if not one_unit(line)] == []
    if width >= 80:
        assert too_long == []
    assert words(text) == words(rendered(report, None))


def test_into_a_pipe_every_finding_keeps_one_line(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", TODAY, env={"COLUMNS": "80"})
    findings = doctor("check", "--source", str(root), "--today", TODAY, "--json").json["findings"]
    lines = run.stdout.splitlines()
    assert sum(line.startswith("      → ") for line in lines) == len(findings)
    assert not [line for line in lines if line.startswith("        ")]  # no continuation
    assert sum(line.startswith("coverage") for line in lines) == len(
        [line for line in lines if "coverage" in line]
    )
    assert max(map(len, lines)) > 200  # the long remedies stay whole


def test_a_terminal_at_80_columns_gets_no_longer_line(
    scenario_repo: Callable[[str], Path],
) -> None:
    args = console_script("check", "--source", str(scenario_repo("demo")), "--today", TODAY)
    output = run_on_terminal([*args, "--color", "never"], environment(COLUMNS="80"))
    lines = output.replace("\r\n", "\n").splitlines()
    assert len(lines) > 60
    assert max(map(len, lines)) <= 80, max(lines, key=len)


# -- one verdict format -------------------------------------------------------------

VERDICT = re.compile(
    r"^(HEALTHY|WARNINGS|DEFECTS|INCOMPLETE): \d+ projects? audited, \d+ defects?, \d+ warnings?"
)


def test_one_verdict_format(
    scenario_repo: Callable[[str], Path], doctor: Doctor, demo_report: tuple[Report, str]
) -> None:
    report, plain = demo_report
    assert VERDICT.match(verdict_text(report)), verdict_text(report)
    assert verdict_text(report).startswith("DEFECTS: 10 projects audited, 8 defects, 20 warnings")
    assert VERDICT.match(plain.splitlines()[-1])
    root = scenario_repo("demo")
    quiet = doctor("check", "--source", str(root), "--today", TODAY, "-q").stdout
    statistics = doctor("check", "--source", str(root), "--today", TODAY, "--statistics").stdout
    assert quiet.splitlines()[-1] == statistics.splitlines()[-1] == plain.splitlines()[-1]


def healthy(make_repo: MakeRepo, extra: dict[str, str] | None = None) -> Path:
    context = (
        "# Fine\n\n**Status:** Active\n**Last session:** 2026-06-01\n\n"
        "History: [sessions](sessions/)\n" + template_tail()
    )
    files: dict[str, Any] = {
        "CONTEXT.md": context,
        "sessions/2026-06.md": "# Sessions\n\n## 2026-06-01\nStarted.\n",
        **(extra or {}),
    }
    commits = [{"date": "2026-06-01T10:00:00+00:00", "files": files}]
    return make_repo({"remote": True, "commits": commits})


def test_a_healthy_repository_prints_one_coverage_line_and_the_verdict(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = healthy(make_repo)
    run = doctor("check", str(root), "--today", "2026-06-02")
    assert run.exit_code == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("coverage: ") and "skipped nothing" in lines[0]
    assert "readiness local" in lines[0]  # every skip still accounted for, in that one line
    assert lines[1].startswith("HEALTHY: 1 project audited, 0 defects, 0 warnings")


def test_a_single_project_repository_has_one_heading(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = healthy(make_repo)
    (root / "CONTEXT.md").write_text(
        (root / "CONTEXT.md").read_text() + "Unsaved.\n", encoding="utf-8"
    )
    run = doctor("check", str(root), "--today", "2026-06-02")
    assert run.exit_code == 0, run.stdout + run.stderr
    heading = run.stdout.splitlines()[0]
    assert " / " not in heading and "source-wide" not in heading, heading
    assert "[uncommitted-context]" in run.stdout.splitlines()[1]


@pytest.mark.parametrize("vault", [False, True], ids=["kb", "vault"])
def test_the_demo_at_80_columns_on_a_terminal(tmp_path: Path, vault: bool) -> None:
    """The newcomer's first command, as a person sees it: nothing over 80 columns, and the
    two closing lines (the expected exit, the next step) last."""
    args = [*console_script("demo"), "--color", "never", *(["--vault"] if vault else [])]
    output = run_on_terminal(args, environment(COLUMNS="80"), cwd=tmp_path)
    lines = output.replace("\r\n", "\n").splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert lines[-2].startswith("Exit 1 is expected")
    assert lines[-1].startswith("Next, ") and "`context-doctor check`" in lines[-1]
    audited = "10 memories audited" if vault else "11 projects audited"
    assert any(line.startswith(f"DEFECTS: {audited}") for line in lines)
