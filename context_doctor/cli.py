"""The ``context-doctor`` command line (SPEC §3): the click group and nothing else.

Each subcommand lives in its own module under :mod:`context_doctor.commands`;
this module only registers them, and :func:`main` is the console script.
"""

from __future__ import annotations

import sys

import click

from context_doctor import __version__
from context_doctor.commands.check import check_command
from context_doctor.commands.demo import demo_command
from context_doctor.commands.explain import explain_command
from context_doctor.commands.freshness import freshness_group
from context_doctor.commands.hook import hook_group
from context_doctor.commands.report import report_command
from context_doctor.commands.sweep import sweep_command
from context_doctor.render.jsonout import error_json


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
):
    cli.add_command(_command)


def _wants_json(args: list[str]) -> bool:
    for position, arg in enumerate(args):
        if arg in ("--json", "--output-format=json"):
            return True
        if arg == "--output-format" and args[position + 1 : position + 2] == ["json"]:
            return True
    return False


def main(args: list[str] | None = None) -> None:
    """The console script: like click's standalone mode, but a usage error under --json is JSON too."""
    argv = list(sys.argv[1:] if args is None else args)
    try:
        code = cli.main(args=argv, prog_name="context-doctor", standalone_mode=False)
    except click.ClickException as error:
        if _wants_json(argv):
            click.echo(error_json(error.format_message(), "see `context-doctor --help`"), nl=False)
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
