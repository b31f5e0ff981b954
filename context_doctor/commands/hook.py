"""``context-doctor hook install``: a plain git pre-push hook, for people without pre-commit."""

from __future__ import annotations

from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.commands.hook_install import (
    audited_path,
    hook_block,
    install_hook,
    uninstall_hook,
)
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text


@click.group("hook", cls=DoctorGroup)
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
@click.option(
    "--print",
    "print_block",
    is_flag=True,
    help="Print the doctor's block (to paste into a hook of your own, first) and write nothing.",
)
def hook_install_command(repo: Path, force: bool, print_block: bool) -> None:
    """Install a plain git pre-push hook (for people without pre-commit).

    A hook of your own that holds the doctor's block gets the block updated in place.
    """
    with guarded(False, False):
        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        if print_block:
            click.echo(hook_block(target=audited_path(repo)), nl=False)
            return
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
    """Remove context-doctor's block from the pre-push hook, and nothing else.

    A hook that is only the doctor's is deleted and the newest backup restored;
    a hook with lines of your own keeps them. Exit 0 removed; 1 refused (no
    hook, or no block of the doctor's: nothing is changed); 2 not a repository.
    """
    with guarded(False, False):
        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        done = uninstall_hook(repo)
        if not done.removed_file:
            click.echo(
                escape_text(
                    f"removed context-doctor's block from {done.path}; kept your "
                    f"{done.kept_lines} other line{'' if done.kept_lines == 1 else 's'}"
                )
            )
            return
        click.echo(escape_text(f"removed {done.path}"))
        if done.restored is not None:
            click.echo(escape_text(f"restored the previous hook from {done.restored}"))
