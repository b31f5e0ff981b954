"""The terminal as a surface: a closed pipe, colour, progress, and the small
things a ruff user notices at once. The console script runs as a real process where the
terminal or the pipe matters (a pseudo-terminal stands in for a person's terminal)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path

import pytest
from support import Doctor

from context_doctor.render import terminal

TODAY = "2026-06-20"
ESCAPE = "\x1b["


def environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env.update(extra)
    return env


def console_script(*args: str) -> list[str]:
    return [sys.executable, "-c", "from context_doctor.cli import main; main()", *args]


def run_on_terminal(args: list[str], env: Mapping[str, str], cwd: Path | None = None) -> str:
    """Run with stdout and stderr on a pseudo-terminal; everything it printed."""
    leader, follower = os.openpty()
    process = subprocess.Popen(args, stdout=follower, stderr=follower, env=dict(env), cwd=cwd)
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done writing
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.fixture
def demo(scenario_repo: Callable[[str], Path]) -> Path:
    return scenario_repo("demo")


# -- a closed pipe ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("explain", "--all"),
        ("check", "--today", TODAY, "--no-report-cache"),
        ("check", "--today", TODAY, "--no-report-cache", "--output-format", "sarif"),
    ],
)
def test_a_closed_pipe_ends_quietly_with_the_pipe_status(demo: Path, args: tuple[str, ...]) -> None:
    process = subprocess.Popen(
        console_script(*args),
        cwd=demo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(),
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader went away before the first byte (`| head -0`)
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""


# -- colour ---------------------------------------------------------------------


def test_no_color_removes_every_escape_on_a_terminal(demo: Path) -> None:
    args = console_script("check", "--source", str(demo), "--today", TODAY, "--no-report-cache")
    assert ESCAPE in run_on_terminal(args, environment())  # colour on a terminal...
    assert ESCAPE not in run_on_terminal(args, environment(NO_COLOR="1"))  # ...bold and dim too
    assert ESCAPE not in run_on_terminal([*args, "--color", "never"], environment())


def test_color_always_colours_a_pipe_and_wins_over_no_color(demo: Path, doctor: Doctor) -> None:
    base = ("check", "--source", str(demo), "--today", TODAY, "--no-report-cache")
    assert ESCAPE not in doctor(*base).stdout  # a pipe: no colour by default
    always = doctor(*base, "--color", "always", env={"NO_COLOR": "1"})
    assert ESCAPE in always.stdout
    assert "--color WHEN" in doctor("check", "--help").stdout


# -- progress -------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_shown_once_the_wait_passes_and_cleared() -> None:
    stream = _Terminal()
    with terminal.progress("auditing…", enabled=True, after=0.0, stream=stream) as shown:
        assert shown.wait(timeout=30)
    assert "auditing…" in stream.getvalue()


def test_no_progress_line_when_disabled_or_not_watched(demo: Path, doctor: Doctor) -> None:
    stream = _Terminal()
    with terminal.progress("auditing…", enabled=False, after=0.0, stream=stream) as shown:
        pass
    assert not shown.is_set() and stream.getvalue() == ""
    assert not terminal.wants_progress("json", quiet=False)
    assert not terminal.wants_progress("human", quiet=True)
    run = doctor("check", "--source", str(demo), "--today", TODAY, "--no-report-cache")
    assert "auditing" not in run.stderr  # not a terminal: never


@pytest.mark.parametrize(("no_color", "mode"), [("1", "auto"), ("", "never")])
def test_no_progress_line_when_escapes_are_off(
    monkeypatch: pytest.MonkeyPatch, no_color: str, mode: str
) -> None:
    """A transient line needs cursor escapes: with every escape off there is none, however
    long the audit takes (a slow machine must not put escapes back under NO_COLOR)."""
    monkeypatch.setenv("NO_COLOR", no_color)
    monkeypatch.setattr(terminal._Preference, "color", mode)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert not terminal.wants_progress("human", quiet=False)
    monkeypatch.setattr(terminal._Preference, "color", "always")
    assert terminal.wants_progress("human", quiet=False)


# -- small things -----------------------------------------------------------------


def test_unsafe_fixes_alone_is_a_usage_error(demo: Path, doctor: Doctor) -> None:
    run = doctor("check", "--source", str(demo), "--today", TODAY, "--unsafe-fixes")
    assert run.exit_code == 2
    assert "--unsafe-fixes widens --fix or --diff" in run.stderr


def test_show_settings_names_a_configured_baseline_not_written_yet(
    demo: Path, doctor: Doctor, tmp_path: Path
) -> None:
    config = tmp_path / "context-doctor.toml"
    config.write_text('baseline = "never-written.json"\n')
    run = doctor(
        "check", "--source", str(demo), "--show-settings", "--config", str(config), "--today", TODAY
    )
    assert run.exit_code == 0, run.stderr
    assert "never-written.json" in run.stdout
    assert "not written yet" in run.stdout


def test_diff_with_nothing_to_fix_says_so_in_one_line(demo: Path, doctor: Doctor) -> None:
    run = doctor(
        "check", "--source", str(demo), "--today", TODAY, "--diff", "--select", "context-budget"
    )
    assert run.exit_code == 0
    assert run.stdout == ""  # stdout stays an (empty) diff
    assert run.stderr.strip().splitlines() == [
        "context-doctor: nothing to fix: --fix would change no file"
    ]


# -- width: every text the doctor wraps follows the terminal ----------------


def assert_wrapped(text: str, width: int, unwrapped: str) -> None:
    """Every line fits (or is one word), and the words are exactly the unwrapped text's:
    wrapping moved only whitespace, so no word was broken, mid-word or at a hyphen."""
    for line in text.splitlines():
        assert len(line) <= width or " " not in line.strip(), (width, line)
    assert text.split() == unwrapped.split()


@pytest.mark.parametrize("width", [80, 120])
def test_help_and_explain_wrap_to_the_terminal(doctor: Doctor, width: int) -> None:
    env = {"COLUMNS": str(width)}
    for args in (
        ("--help",),
        ("log", "add", "--help"),
        ("check", "--help"),
        ("edit", "--help"),
        ("explain", "context-header-freshness"),
        ("explain", "--all"),
    ):
        run = doctor(*args, env=env)
        assert run.exit_code == 0, (args, run.stderr)
        assert_wrapped(run.stdout, width, doctor(*args, env={"COLUMNS": "2000"}).stdout)
    helped = doctor("log", "add", "--help", env=env).stdout
    assert "--set-header" in helped and "--allow-header-lag" in helped
    wide = doctor("explain", "context-header-freshness", env={"COLUMNS": "120"}).stdout
    narrow = doctor("explain", "context-header-freshness", env={"COLUMNS": "80"}).stdout
    assert max(map(len, wide.splitlines())) > 100 >= 80 >= max(map(len, narrow.splitlines()))


def test_help_wraps_on_a_real_terminal(tmp_path: Path) -> None:
    env = environment()
    env.pop("COLUMNS", None)
    env["COLUMNS"] = "80"  # a pseudo-terminal reports no size of its own: COLUMNS sets it
    output = run_on_terminal(console_script("log", "add", "--help"), env)
    wide = run_on_terminal(console_script("log", "add", "--help"), {**env, "COLUMNS": "2000"})
    assert_wrapped(output.replace("\r\n", "\n"), 80, wide)
    assert "--set-header" in output


def test_wrap_never_breaks_a_word_or_at_a_hyphen() -> None:
    text = "run `context-doctor log add projects/atlas --set-header` " * 4
    for width in (20, 40, 80):
        lines = terminal.wrap(text, width, indent="  ")
        assert " ".join(" ".join(lines).split()) == " ".join(text.split())
        for line in lines:
            assert len(line) <= width or " " not in line.strip()
            assert not line.endswith("-")


def test_width_is_columns_else_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal.terminal_width(88) == 132
    monkeypatch.setenv("COLUMNS", "10")
    assert terminal.terminal_width(88) == terminal.MIN_WIDTH
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # a pipe: the output it always had
    assert terminal.terminal_width(88) == 88


# -- shell completion ----------------------------------------------------------------


def complete(words: str, position: int) -> list[str]:
    env = environment(
        _CONTEXT_DOCTOR_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(position)
    )
    done = subprocess.run(console_script(), env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_check_names_complete() -> None:
    assert "plain,context-budget" in complete("context-doctor check --select context-b", 3)
    assert complete("context-doctor check --ignore structure,secret-in-c", 3) == [
        "plain,structure,secret-in-context"
    ]
    explained = complete("context-doctor explain fresh", 2)
    assert "plain,freshness" in explained and "plain,freshness-grades" in explained


@pytest.mark.parametrize("color", ["auto", "never", "always"])
@pytest.mark.parametrize(
    "variables",
    [
        {},
        {"FORCE_COLOR": "1"},
        {"FORCE_COLOR": ""},
        {"TTY_COMPATIBLE": "0"},
        {"TTY_COMPATIBLE": "1"},
    ],
)
@pytest.mark.parametrize("verdict", ["HEALTHY", "DEFECTS"])
def test_the_quiet_line_without_rich_is_what_rich_writes(
    color: str, variables: dict[str, str], verdict: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#27: the one --quiet line goes out without rich only where rich would write it
    without an escape, and then byte for byte as rich writes it."""
    from context_doctor.render.formats import FORMATS, RenderOptions
    from context_doctor.render.text import console_for, render_quiet
    from context_doctor.report.findings import Finding, Severity
    from context_doctor.report.report import Report

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(terminal._Preference, "color", color)
    findings = (
        [
            Finding(
                "structure",
                Severity.DEFECT,
                "kb",
                "atlas",
                "projects/atlas/CONTEXT.md",
                1,
                "m",
                "r",
            )
        ]
        if verdict == "DEFECTS"
        else []
    )
    report = Report(date(2026, 6, 20), "local", "now", [], 1, findings, {})
    through_rich = io.StringIO()
    render_quiet(report, console_for(through_rich))
    written = io.StringIO()
    FORMATS["human"].render(report, RenderOptions((), quiet=True), written)
    assert written.getvalue() == through_rich.getvalue()
    # A pipe with nothing forcing escapes takes the path without rich; anything else not.
    plain = color != "always" and variables in ({}, {"FORCE_COLOR": ""}, {"TTY_COMPATIBLE": "0"})
    assert terminal.is_plain(written) is plain
    if plain:
        assert ESCAPE not in written.getvalue()
