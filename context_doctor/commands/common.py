"""What every subcommand shares: exit-2 guarding, the --today parser, the output options."""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    import logging

    from click.shell_completion import CompletionItem

from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.render.formats import FORMATS, formats_help
from context_doctor.render.jsonout import error_json
from context_doctor.render.output import emit_error
from context_doctor.write import WriteRefused


def _fail(
    error: DoctorError, as_json: bool, output_format: str | None, output_file: Path | None
) -> NoReturn:
    if output_format is not None:
        emit_error(error, output_format, output_file)
    elif as_json:
        click.echo(error_json(error.problem, error.remedy), nl=False)
    click.echo(f"context-doctor: error: {escape_text(error.one_line())}", err=True)
    sys.exit(2)


LOGGER = "context_doctor"
"""The doctor's loggers sit below this one; ``--debug`` shows their lines on stderr."""


def _show_debug_lines() -> logging.Handler:
    # logging only for --debug: a run without it shows no debug line (cache/debug.py).
    import logging

    class _DebugLines(logging.Handler):
        """``context-doctor: cache: ...`` on the stderr of the moment (a test swaps sys.stderr)."""

        def emit(self, record: logging.LogRecord) -> None:
            topic = record.name.removeprefix(f"{LOGGER}.")
            try:
                sys.stderr.write(f"context-doctor: {topic}: {record.getMessage()}\n")
            except Exception:
                self.handleError(record)

    handler = _DebugLines(logging.DEBUG)
    logger = logging.getLogger(LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def too_long(error: OSError) -> DoctorError:
    """The one line for a path the system refuses as too long (a 300-byte name, 3,000 parts)."""
    name = os.fsdecode(error.filename) if isinstance(error.filename, str | bytes) else ""
    shown = name if len(name) <= 80 else f"{name[:60]}…({len(name)} characters)"
    return DoctorError(
        f"a path is too long for this system{f': {shown}' if shown else ''}",
        "name a shorter path (each name at most 255 bytes, the whole path at most 4,096)",
    )


@contextmanager
def guarded(
    as_json: bool,
    debug: bool,
    *,
    output_format: str | None = None,
    output_file: Path | None = None,
) -> Iterator[None]:
    """Exit 2 for anything that stops the doctor establishing ground truth, never a traceback.

    With ``output_format`` the error is also rendered in it (a valid SARIF log,
    one ``::error::``, the JSON error object), to ``output_file`` when given.
    """
    handler = _show_debug_lines() if debug else None
    try:
        yield
    except DoctorError as error:
        _fail(error, as_json, output_format, output_file)
    except WriteRefused as refusal:
        # docs/editor.md: a refused write is exit 1 - one line naming the rule; nothing was written.
        if as_json:
            click.echo(
                error_json(refusal.message, f"refused by rule `{refusal.rule}`", 1), nl=False
            )
        click.echo(
            escape_text(f"context-doctor: refused [{refusal.rule}]: {refusal.message}"), err=True
        )
        sys.exit(1)
    except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
        raise
    except BrokenPipeError:
        raise  # the reader closed the pipe: cli.main ends quietly, never "internal error"
    except Exception as error:
        if debug:
            import traceback

            traceback.print_exc()
        if isinstance(error, OSError) and error.errno == errno.ENAMETOOLONG:
            _fail(too_long(error), as_json, output_format, output_file)
        _fail(
            DoctorError(
                f"internal error: {error.__class__.__name__}: {error}",
                "rerun with --debug for the traceback and report it",
            ),
            as_json,
            output_format,
            output_file,
        )
    finally:
        if handler is not None:  # an in-process caller (a test) runs the next command quiet
            import logging

            logging.getLogger(LOGGER).removeHandler(handler)
            logging.getLogger(LOGGER).setLevel(logging.NOTSET)


def parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError(value)  # fromisoformat would also take 20260111 and 2026-W02-1
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a YYYY-MM-DD date") from None


def complete_check_names(
    _ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Shell completion of check and group names; after a comma, of the next name."""
    from click.shell_completion import CompletionItem

    from context_doctor.checks.registry import load_checks, selectable_names

    head, comma, last = incomplete.rpartition(",")
    try:
        names = selectable_names(load_checks())
    except Exception:  # a broken plugin must not break the user's shell
        return []
    return [CompletionItem(f"{head}{comma}{name}") for name in names if name.startswith(last)]


def split_names(values: tuple[str, ...]) -> list[str]:
    """Comma-separated names; an empty one (``--select ''``, ``a,,b``) is kept so that it is
    refused (exit 2) instead of silently widening the selection."""
    return [name.strip() for value in values for name in value.split(",")]


def _set_color(_ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    from context_doctor.render.terminal import set_color

    set_color(value or "auto")


color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_set_color,
    metavar="WHEN",
    help="Colour in the human outputs: auto (a terminal, unless NO_COLOR is set), always, never.",
)
# One metavar style: a placeholder is one upper-case word (`--color WHEN`, `--output-format
# FORMAT`), a choice's values are said in its help, never `[auto|always|never]`.


def output_options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        color_option,
        click.option(
            "--today",
            callback=parse_today,
            metavar="YYYY-MM-DD",
            help="The date to judge freshness against (default: the local date).",
        ),
        click.option(
            "--readiness",
            type=click.Choice(["local", "remote"]),
            default="local",
            show_default=True,
            metavar="LEVEL",
            help="local or remote (before switching machines: durability problems are defects).",
        ),
        click.option(
            "--select",
            multiple=True,
            metavar="NAMES",
            shell_complete=complete_check_names,
            help="Run only these checks (comma-separated; replaces the config's select).",
        ),
        click.option(
            "--ignore",
            multiple=True,
            metavar="NAMES",
            shell_complete=complete_check_names,
            help="Skip these checks (comma-separated; adds to the config's ignore).",
        ),
        click.option(
            "--output-format",
            type=click.Choice(list(FORMATS)),
            default="human",
            show_default=True,
            metavar="FORMAT",
            help=formats_help(),
        ),
        click.option("--json", "as_json", is_flag=True, help="Alias of --output-format json."),
        click.option("--quiet", "-q", is_flag=True, help="Print only the verdict line."),
        click.option(
            "--statistics", is_flag=True, help="Print counts per check instead of findings."
        ),
        click.option("--warnings-as-defects", is_flag=True, help="Exit 1 on warnings too."),
        click.option(
            "--exit-zero", is_flag=True, help="Exit 0 even with defects (2 still means 2)."
        ),
        click.option(
            "--config",
            type=click.Path(path_type=Path),
            metavar="FILE",
            help="Configuration file to use.",
        ),
        click.option(
            "--debug",
            is_flag=True,
            help="Show tracebacks of internal errors, and why a cache was not used.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime:
    """The hidden ``--now`` of writing commands: an ISO-8601 datetime with its offset."""
    if value is None:
        return datetime.now().astimezone()
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO-8601 datetime") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise click.BadParameter(f"{value!r} has no UTC offset (e.g. 2026-05-04T03:00:00-07:00)")
    return parsed
