"""How the command line speaks for itself: help pages and usage errors, in ruff's manner.

* A group lists each command's whole one-line summary, wrapped like any help text, never
  cut short with ``...`` (:class:`DoctorGroup`).
* A command with many options shows them in named sections (:class:`SectionedCommand`:
  ``check`` has sources, selection, output, fixes, caches, readiness, other).
* A renamed option keeps its old name as a hidden alias (:class:`AliasedOption`): it still
  works, help shows only the new one, and no suggestion names the old one.
* A usage error (an unknown command or option, a bad value, a missing argument) is the
  doctor's one line, ``context-doctor: error: PROBLEM (remedy: REMEDY)``, as every other
  exit 2 is, with "did you mean" for a mistyped command or option
  (:func:`doctor_usage_error`), instead of click's usage block and ``Error:`` line.

Only click is imported here: the console script loads this module when click is loaded.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import IO, Any

import click

from context_doctor.guards.escape import escape_text

NO_SUCH_COMMAND = re.compile(r"No such command '(?P<name>.*)'\.$", re.DOTALL)


class AliasedOption(click.Option):
    """An option whose ``hidden_aliases`` (old names) work but are never shown."""

    def __init__(self, *args: Any, hidden_aliases: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_aliases = tuple(hidden_aliases)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = [name for name in self.opts if name not in self.hidden_aliases]
        saved = self.opts
        self.opts = shown
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = saved


def shown_options(command: click.Command, ctx: click.Context) -> list[str]:
    """Every option name ``command``'s help shows (hidden options and aliases left out)."""
    names: list[str] = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or param.hidden:
            continue
        hidden = getattr(param, "hidden_aliases", ())
        names += [name for name in (*param.opts, *param.secondary_opts) if name not in hidden]
    return names


class DoctorGroup(click.Group):
    """A group whose command list gives each summary whole (wrapped, never ``...``)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [row for name in self.list_commands(ctx) if (row := self.command_row(ctx, name))]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def command_row(self, ctx: click.Context, name: str) -> tuple[str, str] | None:
        """The command's line in the list (None: hidden, or no such command)."""
        command = self.get_command(ctx, name)
        if command is None or command.hidden:
            return None
        return (name, command.get_short_help_str(WHOLE))


WHOLE = 10_000
"""The limit that leaves a command's one-line summary whole (its first sentence)."""


class SectionedCommand(click.Command):
    """A command whose options ``--help`` shows in named sections, in the given order.

    ``sections``: ``(title, parameter names)``; an option in none of them is listed under
    the last title (``Other``), so none is ever left out of the page.
    """

    def __init__(
        self, *args: Any, sections: Sequence[tuple[str, Sequence[str]]] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.sections = tuple((title, tuple(names)) for title, names in sections)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        records = {
            param.name: record
            for param in self.get_params(ctx)
            if isinstance(param, click.Option)
            and param.name is not None
            and (record := param.get_help_record(ctx)) is not None
        }
        placed = {name for _, names in self.sections for name in names}
        for position, (title, names) in enumerate(self.sections):
            rows = [records[name] for name in names if name in records]
            if position == len(self.sections) - 1:
                rows += [record for name, record in records.items() if name not in placed]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _closest(word: str, candidates: Sequence[str]) -> list[str]:
    """The candidates close to ``word``, best first (those clearly behind the best dropped)."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, word, candidate).ratio(), candidate) for candidate in
         dict.fromkeys(candidates)),
        key=lambda pair: (-pair[0], pair[1]),
    )  # fmt: skip
    scored = [(score, name) for score, name in scored if score >= 0.6]
    if not scored:
        return []
    best = scored[0][0]
    return [name for score, name in scored if score >= best - 0.1][:3]


def _either(names: list[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


class DoctorUsageError(click.UsageError):
    """A usage error worded as the doctor words every exit 2: one line, problem and remedy."""

    def __init__(self, problem: str, remedy: str, ctx: click.Context | None = None) -> None:
        super().__init__(problem, ctx)
        self.problem = problem
        self.remedy = remedy

    def one_line(self) -> str:
        return f"{self.problem} (remedy: {self.remedy})"

    def format_message(self) -> str:
        return self.problem

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"context-doctor: error: {escape_text(self.one_line())}", err=True, file=file)


def command_path(ctx: click.Context, args: Sequence[str]) -> str:
    """The path of the command ``args`` name below ``ctx``'s group (``context-doctor edit
    replace``): for an error click raised without its context (a parse error)."""
    path, command = [ctx.command_path], ctx.command
    for arg in args:
        if not isinstance(command, click.Group):
            break
        found = command.get_command(ctx, arg)
        if found is None:
            break
        path.append(arg)
        command = found
    return " ".join(path)


def doctor_usage_error(error: click.UsageError, path: str | None = None) -> DoctorUsageError:
    """``error`` in the doctor's words (an error already in them is returned as it is);
    ``path`` names the command when the error carries no context of its own."""
    if isinstance(error, DoctorUsageError):
        return error
    ctx = error.ctx
    path = ctx.command_path if ctx is not None else path or "context-doctor"
    helped = f"`{path} --help`"
    if isinstance(error, click.NoSuchOption):
        shown = shown_options(ctx.command, ctx) if ctx is not None else []
        close = _closest(error.option_name, shown)
        lists = f"{helped} lists its options"
        return DoctorUsageError(
            f"no such option `{error.option_name}` for `{path}`",
            f"did you mean {_either(close)}? {lists}" if close else lists,
            ctx,
        )
    missing = NO_SUCH_COMMAND.match(error.message)
    if missing is not None and ctx is not None and isinstance(ctx.command, click.Group):
        group = ctx.command
        names = [
            name
            for name in group.list_commands(ctx)
            if (command := group.get_command(ctx, name)) is not None and not command.hidden
        ]
        close = [f"{path} {name}" for name in _closest(missing["name"], names)]
        lists = f"{helped} lists the commands"
        return DoctorUsageError(
            f"no such command `{missing['name']}`",
            f"did you mean {_either(close)}? {lists}" if close else lists,
            ctx,
        )
    message = " ".join(error.format_message().split()).rstrip(".")
    # The doctor's lines start in lower case, but a placeholder stays one (`FILE given twice`).
    first = message.split(" ", 1)[0]
    problem = message if first.isupper() else message[:1].lower() + message[1:]
    return DoctorUsageError(problem, f"see {helped}", ctx)
