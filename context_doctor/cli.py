"""The ``context-doctor`` command line (SPEC §3): the click group and nothing else.

Each subcommand lives in its own module under :mod:`context_doctor.commands`;
this module only registers them, and :func:`main` is the console script.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from context_doctor import __version__
from context_doctor.audit import emit_error
from context_doctor.commands.check import check_command
from context_doctor.commands.demo import demo_command
from context_doctor.commands.edit import edit_group
from context_doctor.commands.explain import explain_command
from context_doctor.commands.freshness import freshness_group
from context_doctor.commands.hook import hook_group
from context_doctor.commands.log import log_group
from context_doctor.commands.report import report_command
from context_doctor.commands.state import state_group
from context_doctor.commands.sweep import sweep_command
from context_doctor.errors import DoctorError
from context_doctor.prepare import freeze_after_pauses


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="context-doctor")
def cli() -> None:
    """Audit the durable context layer AI agents resume long-running work from."""


for _command in (
    check_command,
    explain_command,
    demo_command,
    freshness_group,
    hook_group,
    report_command,
    sweep_command,
    state_group,
    edit_group,
    log_group,
):
    cli.add_command(_command)


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


def _wants_json(args: list[str]) -> bool:
    return _wanted_format(args) == "json"


def main(args: list[str] | None = None) -> None:
    """The console script: like click's standalone mode, but a usage error under --json is JSON too."""
    argv = list(sys.argv[1:] if args is None else args)
    # The process ends after this one command: an audit's objects are frozen, not
    # walked by the collector again before exit (prepare.freeze_after_pauses).
    freeze_after_pauses()
    try:
        code = cli.main(args=argv, prog_name="context-doctor", standalone_mode=False)
    except click.ClickException as error:
        # A bad option is exit 2 too: the machine formats still get a valid document
        # (SARIF log, one ::error::, the JSON error object), to -o FILE when given.
        wanted = _wanted_format(argv)
        if wanted in ("json", "sarif", "github"):
            output = _option_value(argv, "-o", "--output-file")
            problem = DoctorError(error.format_message(), "see `context-doctor --help`")
            with contextlib.suppress(DoctorError):  # the usage error below is what matters
                emit_error(problem, wanted, Path(output) if output else None)
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
