"""``context-doctor console install``: the Synthesis Console's way to run this doctor (SPEC §7)."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.console_launcher import default_directory, install_launcher
from context_doctor.escape import escape_text


@click.group("console")
def console_group() -> None:
    """Connect the doctor to the Synthesis Console."""


@console_group.command("install")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Where to write scripts/context_doctor.py "
    "(default: $SYNTHESIS_HOME/context-doctor/skill).",
)
def console_install_command(directory: Path | None) -> None:
    """Write the launcher the Synthesis Console runs as its context doctor.

    The console runs DIR/scripts/context_doctor.py with a bare python3; the launcher
    re-executes the Python this doctor is installed in and takes the upstream doctor's
    flags. Point the console at it with the printed `export` line. Exit 0 written (or
    already up to date); 1 refused (DIR is someone else's skill directory); 2 usage.
    """
    with guarded(False, False):
        target = (directory or default_directory()).expanduser().absolute()
        script, changed = install_launcher(target)
        state = "wrote" if changed else "up to date:"
        click.echo(escape_text(f"{state} {script}"))
        click.echo(
            "Add this line where the Synthesis Console's environment is set (e.g. ~/.profile):"
        )
        click.echo(
            escape_text(f"export SYNTHESIS_CONTEXT_LIFECYCLE_DIR={shlex.quote(str(target))}")
        )
