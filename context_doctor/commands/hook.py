"""``context-doctor hook install``: a plain git pre-push hook, for people without pre-commit."""

from __future__ import annotations

from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.errors import DoctorError
from context_doctor.hooks import install_hook


@click.group("hook")
def hook_group() -> None:
    """Install git hooks that run the doctor."""


@hook_group.command("install")
@click.option(
    "--repo",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="The repository to install the pre-push hook into.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a pre-push hook that is not context-doctor's (it is kept as a backup).",
)
def hook_install_command(repo: Path, force: bool) -> None:
    """Install a plain git pre-push hook (for people without pre-commit)."""
    with guarded(False, False):
        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        target, backup = install_hook(repo, force=force)
        click.echo(f"installed {target}")
        if backup is not None:
            click.echo(f"kept the previous hook as {backup}")
