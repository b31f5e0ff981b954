"""``context-doctor mcp [--allow-writes]`` and ``mcp install CLIENT`` (docs/surfaces.md).

Thin: the server is :mod:`context_doctor.mcp.server` (it needs the optional
extra ``[mcp]``), the installer :mod:`context_doctor.mcp.clients`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.mcp.clients import (
    CLIENTS,
    SCOPES,
    SERVER_NAME,
    SERVERS_KEY,
    config_path,
    install,
    project_config_path,
    server_entry,
)
from context_doctor.write import repository_root

EXTRA = "pip install 'context-doctor[mcp]'"


def _require_sdk() -> None:
    if importlib.util.find_spec("mcp") is None:
        raise DoctorError(
            "the MCP server needs the official MCP Python SDK, which is not installed here",
            f"install the optional extra: {EXTRA}",
        )


@click.group("mcp", invoke_without_command=True)
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Also serve the writing tools: edit (the fail-closed editor) and log_add.",
)
@click.pass_context
def mcp_group(ctx: click.Context, allow_writes: bool) -> None:
    """Serve the doctor over the Model Context Protocol on stdio.

    Tools: check (the structured report), explain, status; with --allow-writes also
    edit and log_add. `mcp install CLIENT` registers the server in a client's config.
    Needs the optional extra: pip install 'context-doctor[mcp]'.
    """
    if ctx.invoked_subcommand is not None:
        return
    with guarded(False, False):
        _require_sdk()
        from context_doctor.mcp.server import serve

        serve(allow_writes=allow_writes)


@mcp_group.command("install")
@click.argument("client", type=click.Choice(CLIENTS))
@click.option(
    "--allow-writes", is_flag=True, help="Register the server with its writing tools too."
)
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="user",
    show_default=True,
    help="user: your own config, starting this installation's interpreter. project: the "
    "repository's shared file (.mcp.json, .cursor/mcp.json, .vscode/mcp.json) with the "
    "portable command `context-doctor`, to commit.",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The client's config file (default: where CLIENT keeps its user-level servers).",
)
@click.option(
    "--print",
    "print_entry",
    is_flag=True,
    help="Print the JSON to add by hand and write nothing.",
)
def install_command(
    client: str, allow_writes: bool, scope: str, config_file: Path | None, print_entry: bool
) -> None:
    """Register the doctor's MCP server in CLIENT's config (claude-code, claude-desktop,
    cursor, vscode).

    Idempotent; keeps a timestamped backup of a file it changes; keeps every key it does
    not own; refuses (exit 1, nothing written) a file that is not a JSON object or is a
    symlink. Exit 2 when the client's config directory does not exist, when --scope
    project runs outside a git repository or names claude-desktop (it has no project
    file), or when the MCP SDK is not installed.
    """
    with guarded(False, False):
        project = scope == "project"
        entry = server_entry(client, allow_writes=allow_writes, portable=project)
        repository = None
        path = config_file or config_path(client)
        if project and config_file is None:
            project_config_path(client, Path.cwd())  # DoctorError: the client has no project file
            repository = _repository()
            path = project_config_path(client, repository)
        if print_entry:
            click.echo(json.dumps({SERVERS_KEY[client]: {SERVER_NAME: entry}}, indent=2))
            return
        _require_sdk()
        done = install(client, path, entry, repository=repository)
        if not done.changed:
            click.echo(escape_text(f"{client}: {SERVER_NAME} is already registered in {done.path}"))
            return
        verb = "created" if done.created else "updated"
        click.echo(escape_text(f"{client}: registered {SERVER_NAME} ({verb} {done.path})"))
        if done.backup is not None:
            click.echo(escape_text(f"kept the previous file as {done.backup}"))
        if project:
            click.echo(
                "commit it so everyone who opens the repository gets the server; it runs "
                f"`{entry['command']}` from PATH"
            )
        click.echo(f"restart {client} to start the server")


def _repository() -> Path:
    """The top of the git repository the current directory is in (project scope)."""
    top = repository_root(Path.cwd() / SERVER_NAME)
    if top is None:
        raise DoctorError(
            f"{Path.cwd()} is not inside a git repository; --scope project writes the "
            "repository's shared MCP file",
            "run it inside the repository, or use --scope user",
        )
    return top
