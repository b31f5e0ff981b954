"""The ``context-doctor`` command line (docs/output.md): the click group and nothing else.

Each subcommand lives in its own module under :mod:`context_doctor.commands`;
this module only names them in :data:`COMMANDS`, and :func:`main` is the
console script. Nothing is imported before a command needs it: a
command's module when that command runs, click itself only when the command
line goes through it. ``--version`` and a plain ``status`` (a session-start
hook) are answered without click; ``--help`` lists the commands from
:data:`SHORT_HELP` without importing them.
"""

from __future__ import annotations

import functools
import os
import sys

# typing, contextlib, importlib and signal are left out of the import (typing alone costs
# about what --version does): a plain status or --version needs none of them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    import click

COMMANDS: dict[str, str] = {
    "check": "context_doctor.commands.check:check_command",
    "explain": "context_doctor.commands.explain:explain_command",
    "layout": "context_doctor.commands.layout:layout_command",
    "demo": "context_doctor.commands.demo:demo_command",
    "freshness": "context_doctor.commands.freshness:freshness_group",
    "hook": "context_doctor.commands.hook:hook_group",
    "report": "context_doctor.commands.report:report_command",
    "status": "context_doctor.commands.status:status_command",
    "sweep": "context_doctor.commands.sweep:sweep_command",
    "state": "context_doctor.commands.state:state_group",
    "edit": "context_doctor.commands.edit:edit_group",
    "log": "context_doctor.commands.log:log_group",
    "mcp": "context_doctor.commands.mcp:mcp_group",
    "console": "context_doctor.commands.console:console_group",
}
"""Every subcommand: name -> ``module:attribute`` of its click command."""

SHORT_HELP: dict[str, str] = {
    "check": "Audit a repository's working memory against its git history.",
    "explain": "Explain a check: what it finds, why, and how to fix it.",
    "layout": "Print the [layout] table the doctor would use here.",
    "demo": "Build the demo knowledge base and audit it.",
    "freshness": "Grade pai-freshness-v1 files by review age (A-F).",
    "hook": "Install git hooks that run the doctor.",
    "report": "Summarise the cached last report, without auditing.",
    "status": "One line from the cached last report, for hooks.",
    "sweep": "Audit the console.yaml corpus and save the report cache.",
    "state": "Structured state: CURRENT_STATE.json and its CONTEXT.md block.",
    "edit": "Fail-closed edits of context files: refuse, never guess.",
    "log": "Log a session, through the fail-closed editor.",
    "mcp": "Serve the doctor over the Model Context Protocol on stdio.",
    "console": "Connect the doctor to the Synthesis Console (1.x and 2.x).",
}
"""Each command's one-line help as ``--help`` lists it (its docstring's first sentence,
whole: at most 63 characters, so that it fits its line at 80 columns).

``--help`` reads it here instead of importing all the command modules;
``tests/test_cli.py`` compares it with the commands' own. A command missing here is
imported to list it (correct, only slower).
"""

LIGHT_COMMANDS = frozenset({"status"})
"""Commands that never audit: the console script does not set up the audit's collector."""


def _load(name: str) -> click.Command:
    import importlib

    import click

    module, _, attribute = COMMANDS[name].partition(":")
    command = getattr(importlib.import_module(module), attribute)
    assert isinstance(command, click.Command)
    return command


@functools.cache
def _group() -> click.Group:
    """The click group, built on first use (importing click costs more than ``status`` itself)."""
    import click

    from context_doctor.commands.help_format import DoctorGroup, command_path, doctor_usage_error

    class LazyGroup(DoctorGroup):
        """A group whose subcommands are imported on first use (``--help`` imports none).

        Every usage error, this group's or a subcommand's, leaves it in the doctor's words
        (``commands/help_format.py``): one line, with "did you mean" for a mistyped name.
        """

        def list_commands(self, ctx: click.Context) -> list[str]:
            return sorted(set(COMMANDS) | set(super().list_commands(ctx)))

        def make_context(
            self,
            info_name: str | None,
            args: list[str],
            parent: click.Context | None = None,
            **extra: Any,
        ) -> click.Context:
            # --help wraps to the terminal's width, and only between words (render/terminal.py).
            from context_doctor.render.terminal import keep_words_whole_in_help

            keep_words_whole_in_help()
            try:
                return super().make_context(info_name, args, parent, **extra)
            except click.UsageError as error:
                raise doctor_usage_error(error) from None

        def invoke(self, ctx: click.Context) -> object:
            # What the command line named, before click consumes it: a parse error names no
            # command of its own.
            given = [*getattr(ctx, "_protected_args", ()), *ctx.args]
            from context_doctor.guards.escape import inert_streams

            try:
                # Every line any command prints is inert in a CI log (guards/escape.py).
                with inert_streams():
                    return super().invoke(ctx)
            except BrokenPipeError:  # before click's own handler, which would exit 1 ("defects")
                _closed_pipe()
            except click.UsageError as error:
                raise doctor_usage_error(error, command_path(ctx, given)) from None

        def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
            if cmd_name in COMMANDS and cmd_name not in self.commands:
                self.add_command(_load(cmd_name), cmd_name)
            return super().get_command(ctx, cmd_name)

        def command_row(self, ctx: click.Context, name: str) -> tuple[str, str] | None:
            # Every summary whole, as DoctorGroup lists them, but a command not imported
            # yet is listed from SHORT_HELP.
            if name in SHORT_HELP and name not in self.commands:
                return (name, SHORT_HELP[name])
            return super().command_row(ctx, name)

    def print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if not value or ctx.resilient_parsing:
            return
        click.echo(_version_line())
        ctx.exit()

    @click.group(
        "context-doctor",
        cls=LazyGroup,
        help=GROUP_HELP,
        # click caps help at 80 columns; the terminal's width (COLUMNS) is the cap instead.
        context_settings={
            "help_option_names": ["-h", "--help"],
            "max_content_width": MAX_HELP_WIDTH,
        },
    )
    @click.option(
        "--version",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=print_version,
        help=VERSION_HELP,
    )
    def cli() -> None:
        """Audit the durable context layer AI agents resume long-running work from."""

    return cli


GROUP_HELP = (
    "Audit the durable context layer AI agents resume long-running work from. Every "
    "command, check and setting is documented in docs/ beside the doctor's source "
    "(README.md links each page; docs/output.md is the command line)."
)
VERSION_HELP = "Show the version and exit."
HELP_OPTIONS = (("--version", VERSION_HELP), ("-h, --help", "Show this message and exit."))
"""The group's options as ``--help`` lists them (the second is click's own help option)."""
MAX_HELP_WIDTH = 10_000
"""click caps help at 80 columns; the terminal's width (COLUMNS) is the cap instead."""


def _help_width() -> int:
    """The width click formats ``--help`` to: the terminal's columns as ``shutil`` reads
    them (``COLUMNS``, else stdout's terminal, else 80), less 2, at least 50."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = (os.get_terminal_size(stdout.fileno()).columns if stdout else 0) or 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(min(columns, MAX_HELP_WIDTH) - 2, 50)


def _fill(text: str, width: int, indent: str = "", subsequent: str | None = None) -> str:
    # click's wrapper with render.terminal's words kept whole.
    import textwrap

    return textwrap.fill(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent if subsequent is None else subsequent,
        replace_whitespace=False,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _definitions(rows: list[tuple[str, str]], width: int, indent: int = 2) -> str:
    """click's two-column list of ``rows`` (terms no wider than 30 columns)."""
    column = min(max(len(term) for term, _ in rows), 30) + 2
    lines: list[str] = []
    for term, text in rows:
        wrapped = _fill(text, max(width - column - 2, 10)).splitlines() or [""]
        lines.append(" " * indent + term.ljust(column) + wrapped[0])
        lines.extend(" " * (column + indent) + line for line in wrapped[1:])
    return "\n".join(lines)


def plain_help(width: int) -> str:
    """``context-doctor --help`` as click prints it at ``width``, without importing click
    or a command: each command's line is its :data:`SHORT_HELP`, whole and wrapped.

    ``tests/test_cli.py`` compares it with click's own page at every width; the layout is
    click 8.5's (an older click, which the dependency allows, words the ``--help`` it
    prints itself, after a mistake, in its own way).
    """
    prefix = "Usage: context-doctor "
    usage = _fill("[OPTIONS] COMMAND [ARGS]...", width, prefix, " " * len(prefix))
    summary = _fill(GROUP_HELP, width, "  ")
    commands = [(name, SHORT_HELP[name]) for name in sorted(SHORT_HELP)]
    return (
        f"{usage}\n\n{summary}\n\nOptions:\n{_definitions(list(HELP_OPTIONS), width)}\n\n"
        f"Commands:\n{_definitions(commands, width)}\n"
    )


def __getattr__(name: str) -> click.Group:
    # ``from context_doctor.cli import cli``: the group, built (and click imported) on demand.
    if name == "cli":
        return _group()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _version_line() -> str:
    from context_doctor.version import __version__

    return f"context-doctor, version {__version__}"


def _option_value(args: list[str], *names: str) -> str | None:
    """The last value given to one of ``names`` (``--name VALUE`` or ``--name=VALUE``)."""
    found: str | None = None
    for position, arg in enumerate(args):
        for name in names:
            if arg == name and position + 1 < len(args):
                found = args[position + 1]
            elif arg.startswith(f"{name}="):
                found = arg.split("=", 1)[1]
    return found


def _wanted_format(args: list[str]) -> str | None:
    """The output format a failed command line asked for, as far as it can be read."""
    if "--json" in args:
        return "json"
    return _option_value(args, "--output-format")


def _exit_on_termination() -> None:
    """SIGTERM and SIGHUP (a CI job's timeout, a closed terminal) unwind like Ctrl-C.

    Python's default for them ends the process at once, and a git the doctor started
    (in a process group of its own) would be left running; unwinding kills it first
    (``git/run.py``) and runs the exit handlers that stop a history pass.
    """

    import contextlib
    import signal

    def terminate(number: int, _frame: object) -> None:
        raise SystemExit(128 + number)

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            with contextlib.suppress(ValueError):  # not the main thread: left as it is
                signal.signal(number, terminate)


BROKEN_PIPE_STATUS = 128 + 13
"""A reader that closed the pipe (``… | head -1``): the status of a command ended by SIGPIPE."""


def _closed_pipe() -> NoReturn:
    """End quietly when the reader went away: no error line, no flush error at exit.

    Decision: exit with 141, what a shell reports for a command SIGPIPE ended (so `set -o
    pipefail` sees the pipe, as it would for `yes | head -1`), never "internal error".
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    os._exit(BROKEN_PIPE_STATUS)


def main(args: list[str] | None = None) -> None:
    """The console script: like click's standalone mode, but a usage error under --json is JSON too."""
    argv = list(sys.argv[1:] if args is None else args)
    try:
        quick = _without_click(argv)
    except BrokenPipeError:
        _closed_pipe()
    if quick is not None:
        sys.exit(quick)
    from context_doctor.guards.escape import inert_streams

    with inert_streams():  # every line printed is inert in a CI log (guards/escape.py)
        _through_click(argv)


def _through_click(argv: list[str]) -> NoReturn:
    # After the quick answers, which start no process a signal would have to stop.
    _exit_on_termination()
    if argv[:1] and argv[0] not in LIGHT_COMMANDS and argv[0] not in ("-h", "--help"):
        from context_doctor.model.collector import freeze_after_pauses

        # The process ends after this one command: an audit's objects are frozen, not
        # walked by the collector again before exit (collector.freeze_after_pauses).
        freeze_after_pauses()
    import click

    try:
        code = _group().main(args=argv, prog_name="context-doctor", standalone_mode=False)
    except BrokenPipeError:
        _closed_pipe()
    except click.ClickException as error:
        # A bad option is exit 2 too: the machine formats still get a valid document
        # (SARIF log, one ::error::, the JSON error object), to -o FILE when given.
        wanted = _wanted_format(argv)
        from context_doctor.render.formats import FORMATS

        if wanted in FORMATS and FORMATS[wanted].render_error is not None:
            import contextlib
            from pathlib import Path

            from context_doctor.errors import DoctorError
            from context_doctor.render.output import emit_error

            output = _option_value(argv, "-o", "--output-file")
            remedy = getattr(error, "remedy", "see `context-doctor --help`")
            problem = DoctorError(error.format_message(), remedy)
            with contextlib.suppress(DoctorError):  # the usage error below is what matters
                emit_error(problem, wanted, Path(output) if output else None)
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _without_click(argv: list[str]) -> int | None:
    """The exit status of a command line answered without click, or None to go through it.

    Only those that run on every session start or in a prompt: ``--version`` or
    ``--help`` alone, and ``status`` with options it can read plainly (anything else, a
    command's ``--help`` or a mistake included, goes through click, which words its help
    and its errors).
    """
    if argv == ["--version"]:
        sys.stdout.write(_version_line() + "\n")
        sys.stdout.flush()
        return 0
    if argv in (["--help"], ["-h"]):
        sys.stdout.write(plain_help(_help_width()))
        sys.stdout.flush()
        return 0
    if argv[:1] == ["status"]:
        from context_doctor.commands.status import run_plain
        from context_doctor.guards.escape import inert_streams

        with inert_streams():  # the line names projects (guards/escape.py)
            return run_plain(argv[1:])
    return None
