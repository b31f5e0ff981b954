"""``context-doctor hook install``: a plain git pre-push hook, for people without pre-commit."""

from __future__ import annotations

from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.hook_install import install_hook, uninstall_hook
from context_doctor.errors import DoctorError
from context_doctor.escape import escape_text


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
    help="Replace a pre-push hook that is not context-doctor's (it is kept as a backup), "
    "or install into a core.hooksPath shared by every repository.",
)
def hook_install_command(repo: Path, force: bool) -> None:
    """Install a plain git pre-push hook (for people without pre-commit)."""
    with guarded(False, False):
        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        target, backup = install_hook(repo, force=force)
        click.echo(escape_text(f"installed {target} (`context-doctor hook uninstall` removes it)"))
        if backup is not None:
            click.echo(escape_text(f"kept the previous hook as {backup}"))


@hook_group.command("uninstall")
@click.option(
    "--repo",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="The repository to remove the pre-push hook from.",
)
def hook_uninstall_command(repo: Path) -> None:
    """Remove the pre-push hook context-doctor wrote and restore the newest backup.

    Exit 0 removed; 1 refused (no hook, or a hook the doctor did not write:
    nothing is changed); 2 not a repository.
    """
    with guarded(False, False):
        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        target, restored = uninstall_hook(repo)
        click.echo(escape_text(f"removed {target}"))
        if restored is not None:
            click.echo(escape_text(f"restored the previous hook from {restored}"))
