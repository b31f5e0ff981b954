"""``context-doctor mcp [--allow-writes]`` and ``mcp install CLIENT`` (docs/surfaces.md).

Thin: the server is :mod:`context_doctor.mcp.server` (it needs the optional
extra ``[mcp]``), the installer :mod:`context_doctor.mcp.clients`.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text, plain_streams
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

PACKAGE = "context-doctor"


def install_extra_command() -> str:
    """The command that installs the ``[mcp]`` extra where this doctor runs.

    The project is not on PyPI, so ``pip install 'context-doctor[mcp]'`` finds nothing:
    the extra comes from where the doctor itself was installed from, as pip recorded it
    (``direct_url.json``: a checkout, or a git URL), else from this package's own checkout,
    into this interpreter (``python -m pip``: the environment that runs the doctor, a
    pipx one included).
    """
    python = shlex.quote(sys.executable or "python3")
    origin = _installed_from()
    if origin is not None and origin.startswith("git+"):
        requirement = f"{PACKAGE}[mcp] @ {origin}"
    else:
        requirement = f"{origin or '/path/to/your/context-doctor/checkout'}[mcp]"
    return f"{python} -m pip install {shlex.quote(requirement)}"


def _installed_from() -> str | None:
    """The checkout (a folder) or ``git+URL`` this package was installed from, if known."""
    from importlib import metadata

    try:
        recorded = metadata.distribution(PACKAGE).read_text("direct_url.json")
        direct = json.loads(recorded) if recorded else {}
    except (metadata.PackageNotFoundError, ValueError, OSError):
        direct = {}
    url = direct.get("url") if isinstance(direct, dict) else None
    if isinstance(url, str):
        parsed = urlparse(url)
        vcs = direct.get("vcs_info")
        if isinstance(vcs, dict) and vcs.get("vcs") == "git":
            return f"git+{url}"
        if parsed.scheme == "file" and Path(unquote(parsed.path)).is_dir():
            return unquote(parsed.path)
    checkout = Path(__file__).resolve().parent.parent.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "context_doctor").is_dir():
        return str(checkout)
    return None


def _require_sdk() -> None:
    """Exit 2 unless the MCP SDK imports (present is not enough: a broken install raises)."""
    try:
        import mcp.server  # noqa: F401
        import mcp_types  # noqa: F401
    except ImportError:
        raise DoctorError(
            "the MCP server needs the official MCP Python SDK, which does not import here",
            f"install the optional extra `[mcp]` from the checkout: `{install_extra_command()}`",
        ) from None


@click.group("mcp", cls=DoctorGroup, invoke_without_command=True)
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
    Needs the optional extra `[mcp]` (the project is not on PyPI: install it from
    your checkout, `pip install '/path/to/checkout[mcp]'`).
    """
    if ctx.invoked_subcommand is not None:
        return
    with guarded(False, False):
        _require_sdk()
        from context_doctor.mcp.server import serve

        with plain_streams():  # stdout is the protocol's: JSON-RPC, never a CI log's lines
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
    file), or when the MCP SDK does not import (--print included).
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
        # The entry starts a server this installation must be able to run, printed or not.
        _require_sdk()
        if print_entry:
            click.echo(json.dumps({SERVERS_KEY[client]: {SERVER_NAME: entry}}, indent=2))
            return
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
