"""``context-doctor mcp install CLIENT``: register the doctor's MCP server in a client's config.

Each client keeps its servers in a JSON file, under a top-level object each
documents (:data:`SERVERS_KEY`):

=============== ======================================== ===================== ============
client          user scope                               project scope         key
=============== ======================================== ===================== ============
claude-code     ``~/.claude.json``                       ``.mcp.json``         mcpServers
claude-desktop  ``claude_desktop_config.json`` (app dir) (none)                mcpServers
cursor          ``~/.cursor/mcp.json``                   ``.cursor/mcp.json``  mcpServers
vscode          ``Code/User/mcp.json`` (app dir)         ``.vscode/mcp.json``  servers
=============== ======================================== ===================== ============

The project-scope files sit at the top of the repository the command runs in and
are meant to be committed, so their entry is portable: the command
``context-doctor`` found on ``PATH`` (no absolute interpreter path, no
``SYNTHESIS_HOME`` of this machine). The user-scope entry starts the interpreter
the doctor is installed in, so no virtualenv need be active where the client runs it.
The installer behaves the way careful installers do:

* it owns one key, ``<servers key>["context-doctor"]``, and keeps every other key
  and value as they were (the file is re-serialised, so whitespace may change);
* a second run with the same entry writes nothing (idempotent);
* before changing an existing file it keeps a timestamped copy beside it
  (``NAME.backup-YYYYmmddTHHMMSSffffffZ``);
* it refuses, writing nothing, a file it cannot parse as a JSON object (or whose
  ``mcpServers`` is not an object) and a file that is a symlink: the client's
  config may be someone's dotfile, and editing its target is not ours to do;
* every byte goes through the one write path, re-read under its lock, so an
  update the client makes meanwhile is not lost.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.guards.interpreter import isolation_flags
from context_doctor.write import WriteRefused, ensure_directory, update_file, write_file

SERVER_NAME = "context-doctor"
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode")
SCOPES = ("user", "project")
SERVERS_KEY = {
    "claude-code": "mcpServers",
    "claude-desktop": "mcpServers",
    "cursor": "mcpServers",
    "vscode": "servers",  # VS Code's own format (code.visualstudio.com, MCP configuration)
}
PROJECT_FILES = {
    "claude-code": ".mcp.json",
    "cursor": ".cursor/mcp.json",
    "vscode": ".vscode/mcp.json",
}
PORTABLE_COMMAND = "context-doctor"
MAX_CONFIG_BYTES = 64 * 1024 * 1024  # Claude Code's file grows with its history; far below this


def config_path(client: str, *, home: Path | None = None, platform: str = sys.platform) -> Path:
    """Where ``client`` keeps its user-level MCP servers on this platform."""
    base = home or Path.home()
    if client == "claude-code":
        return base / ".claude.json"
    if client == "cursor":
        return base / ".cursor" / "mcp.json"
    if client == "vscode":
        return _application_directory(base, platform, "Code") / "User" / "mcp.json"
    if client == "claude-desktop":
        return _application_directory(base, platform, "Claude") / "claude_desktop_config.json"
    raise ValueError(client)


def _application_directory(base: Path, platform: str, name: str) -> Path:
    """Where an Electron application keeps its settings on this platform."""
    if platform == "darwin":
        return base / "Library" / "Application Support" / name
    if platform.startswith("win"):
        appdata = os.environ.get("APPDATA")
        return (Path(appdata) if appdata else base / "AppData" / "Roaming") / name
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return (Path(xdg) if xdg else base / ".config") / name


def project_config_path(client: str, repository: Path) -> Path:
    """Where ``client`` reads a repository's shared MCP servers (DoctorError: it has none)."""
    relative = PROJECT_FILES.get(client)
    if relative is None:
        raise DoctorError(
            f"{client} has no project-level MCP configuration",
            f"use `context-doctor mcp install {client}` (user scope), or a client with a "
            f"project scope: {', '.join(PROJECT_FILES)}",
        )
    return repository / relative


def server_entry(
    client: str, *, allow_writes: bool, python: str = sys.executable, portable: bool = False
) -> dict[str, Any]:
    """The entry that starts the server.

    User scope: the interpreter the doctor is installed in, so no virtualenv need be
    active where the client runs it. ``portable`` (project scope, a committed file):
    ``context-doctor`` on ``PATH``, and nothing of this machine (no interpreter path,
    no ``SYNTHESIS_HOME``).
    """
    serve = ["mcp"] + (["--allow-writes"] if allow_writes else [])
    entry: dict[str, Any]
    if portable:
        entry = {"command": PORTABLE_COMMAND, "args": serve}
    else:
        # Isolated: a client may start servers in the project folder, whose own
        # `context_doctor/` package must not be what `-m` imports (docs/caches.md, round three).
        entry = {"command": python, "args": [*isolation_flags(), "-m", "context_doctor", *serve]}
        home = os.environ.get("SYNTHESIS_HOME")
        if home:
            # A client starts servers with its own environment: pass the corpus the user meant.
            entry["env"] = {"SYNTHESIS_HOME": home}
    if client in ("claude-code", "vscode"):  # both document `type` for a stdio server
        entry = {"type": "stdio", **entry}
    return entry


@dataclass(frozen=True)
class Installed:
    path: Path
    changed: bool  # False: the entry was already there, nothing written
    created: bool  # the config file did not exist
    backup: Path | None


def _parse(path: Path, data: bytes, key: str = "mcpServers") -> dict[str, Any]:
    """The config as a JSON object; refuses (exit 1, nothing written) anything else."""
    if not data.strip():
        return {}
    try:
        loaded = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        where = f" (line {error.lineno})" if isinstance(error, json.JSONDecodeError) else ""
        raise WriteRefused(
            "config-unparsable",
            f"{path} is not valid JSON{where}; the doctor edits only a file it can read back "
            "whole. Fix or move it, then run `context-doctor mcp install` again",
        ) from None
    if not isinstance(loaded, dict):
        raise WriteRefused(
            "config-unparsable",
            f"{path} holds JSON that is not an object; nothing was written",
        )
    servers = loaded.get(key)
    if servers is not None and not isinstance(servers, dict):
        raise WriteRefused(
            "config-unparsable",
            f"{path}: `{key}` is not an object; nothing was written",
        )
    return loaded


def _render(config: dict[str, Any]) -> bytes:
    return (json.dumps(config, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def _refuse_link_or_odd(path: Path) -> bool:
    """True when ``path`` exists; refuses a symlink and anything but a regular file."""
    try:
        status = path.lstat()
    except FileNotFoundError:
        return False
    except OSError as error:
        raise DoctorError(
            f"cannot read {path}: {error.strerror or error}", "check its permissions"
        ) from error
    if path.is_symlink():
        raise WriteRefused(
            "symlink",
            f"{path} is a symlink; the doctor never edits a config through a link. Add the "
            "entry printed by `context-doctor mcp install --print` to the file it points at",
        )
    import stat

    if not stat.S_ISREG(status.st_mode):
        raise DoctorError(f"{path} is not a regular file", "move it aside and run again")
    if status.st_size > MAX_CONFIG_BYTES:
        raise WriteRefused(
            "config-too-large", f"{path} is over {MAX_CONFIG_BYTES} bytes; nothing was written"
        )
    return True


def install(
    client: str, path: Path, entry: dict[str, Any], *, repository: Path | None = None
) -> Installed:
    """Put ``entry`` under ``<servers key>["context-doctor"]`` in ``path``.

    ``repository``: a project-scope file, written within that repository (its folder,
    ``.cursor/`` or ``.vscode/``, made when missing); else the client's own directory
    must exist (the client is installed for this user).
    """
    key = SERVERS_KEY[client]
    directory = path.parent
    within = repository if repository is not None else directory
    if repository is not None:
        ensure_directory(directory, within=repository)
    elif not directory.is_dir():
        raise DoctorError(
            f"{directory} does not exist: is {client} installed for this user?",
            f"start {client} once so it creates its configuration, or pass --config FILE",
        )
    if not _refuse_link_or_odd(path):
        config = {key: {SERVER_NAME: entry}}
        write_file(path, _render(config), exclusive=True, within=within)
        return Installed(path, changed=True, created=True, backup=None)
    backups: list[Path] = []

    def transform(current: bytes) -> bytes:
        config = _parse(path, current, key)
        servers = config.get(key)
        if isinstance(servers, dict) and servers.get(SERVER_NAME) == entry:
            return current
        updated = dict(config)
        updated[key] = {**(servers or {}), SERVER_NAME: entry}
        if not backups:
            backup = path.with_name(f"{path.name}.backup-{_stamp()}")
            write_file(backup, current, exclusive=True, within=within, mode=0o600)
            backups.append(backup)
        return _render(updated)

    changed = update_file(path, transform, within=within)
    return Installed(path, changed=changed, created=False, backup=backups[0] if changed else None)
