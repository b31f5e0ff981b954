"""``context-doctor mcp install CLIENT``: register the doctor's MCP server in a client's config.

Each client keeps its servers under a top-level ``mcpServers`` object of a JSON
file (Claude Code: ``~/.claude.json``, user scope; Claude Desktop:
``claude_desktop_config.json`` in its application-support directory; Cursor:
``~/.cursor/mcp.json``). The installer behaves the way careful installers do:

* it owns one key, ``mcpServers["context-doctor"]``, and keeps every other key
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
from context_doctor.interpreter import isolation_flags
from context_doctor.write import WriteRefused, update_file, write_file

SERVER_NAME = "context-doctor"
CLIENTS = ("claude-code", "claude-desktop", "cursor")
MAX_CONFIG_BYTES = 64 * 1024 * 1024  # Claude Code's file grows with its history; far below this


def config_path(client: str, *, home: Path | None = None, platform: str = sys.platform) -> Path:
    """Where ``client`` keeps its user-level MCP servers on this platform."""
    base = home or Path.home()
    if client == "claude-code":
        return base / ".claude.json"
    if client == "cursor":
        return base / ".cursor" / "mcp.json"
    if client == "claude-desktop":
        if platform == "darwin":
            return (
                base / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
            )
        if platform.startswith("win"):
            appdata = os.environ.get("APPDATA")
            root = Path(appdata) if appdata else base / "AppData" / "Roaming"
            return root / "Claude" / "claude_desktop_config.json"
        xdg = os.environ.get("XDG_CONFIG_HOME")
        return (Path(xdg) if xdg else base / ".config") / "Claude" / "claude_desktop_config.json"
    raise ValueError(client)


def server_entry(
    client: str, *, allow_writes: bool, python: str = sys.executable
) -> dict[str, Any]:
    """The entry that starts the server: the interpreter the doctor is installed in, so no
    virtualenv need be active where the client runs it."""
    # Isolated: a client may start servers in the project folder, whose own
    # `context_doctor/` package must not be what `-m` imports (SPEC §8, round three).
    args = [*isolation_flags(), "-m", "context_doctor", "mcp"] + (
        ["--allow-writes"] if allow_writes else []
    )
    entry: dict[str, Any] = {"command": python, "args": args}
    home = os.environ.get("SYNTHESIS_HOME")
    if home:
        # A client starts servers with its own environment: pass the corpus the user meant.
        entry["env"] = {"SYNTHESIS_HOME": home}
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    return entry


@dataclass(frozen=True)
class Installed:
    path: Path
    changed: bool  # False: the entry was already there, nothing written
    created: bool  # the config file did not exist
    backup: Path | None


def _parse(path: Path, data: bytes) -> dict[str, Any]:
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
    servers = loaded.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise WriteRefused(
            "config-unparsable",
            f"{path}: `mcpServers` is not an object; nothing was written",
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


def install(client: str, path: Path, entry: dict[str, Any]) -> Installed:
    """Put ``entry`` under ``mcpServers["context-doctor"]`` in ``path``."""
    directory = path.parent
    if not directory.is_dir():
        raise DoctorError(
            f"{directory} does not exist: is {client} installed for this user?",
            f"start {client} once so it creates its configuration, or pass --config FILE",
        )
    if not _refuse_link_or_odd(path):
        config = {"mcpServers": {SERVER_NAME: entry}}
        write_file(path, _render(config), exclusive=True, within=directory)
        return Installed(path, changed=True, created=True, backup=None)
    backups: list[Path] = []

    def transform(current: bytes) -> bytes:
        config = _parse(path, current)
        servers = config.get("mcpServers")
        if isinstance(servers, dict) and servers.get(SERVER_NAME) == entry:
            return current
        updated = dict(config)
        updated["mcpServers"] = {**(servers or {}), SERVER_NAME: entry}
        if not backups:
            backup = path.with_name(f"{path.name}.backup-{_stamp()}")
            write_file(backup, current, exclusive=True, within=directory, mode=0o600)
            backups.append(backup)
        return _render(updated)

    changed = update_file(path, transform, within=directory)
    return Installed(path, changed=changed, created=False, backup=backups[0] if changed else None)
