"""``context-doctor mcp install CLIENT``: registering the server the way careful installers do."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support import Doctor

from context_doctor.mcp.clients import config_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user = tmp_path / "home"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return user


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.backup-*"))


def test_install_creates_the_config(home: Path, doctor: Doctor) -> None:
    run = doctor("mcp", "install", "claude-code")
    assert run.exit_code == 0, run.stderr
    path = home / ".claude.json"
    assert f"registered context-doctor (created {path})" in run.stdout
    entry = json.loads(path.read_text())["mcpServers"]["context-doctor"]
    assert entry["type"] == "stdio"
    assert entry["command"] == sys.executable
    assert entry["args"] == ["-I", "-m", "context_doctor", "mcp"]
    assert backups(path) == []


def test_install_keeps_every_key_it_does_not_own(home: Path, doctor: Doctor) -> None:
    path = home / ".claude.json"
    original = {
        "numStartups": 34,
        "projects": {"/work/x": {"mcpServers": {"local": {"command": "x"}}}},
        "mcpServers": {"other": {"type": "stdio", "command": "other-server", "args": []}},
    }
    text = json.dumps(original, indent=4) + "\n"
    path.write_text(text)
    run = doctor("mcp", "install", "claude-code")
    assert run.exit_code == 0, run.stderr
    updated = json.loads(path.read_text())
    assert updated["numStartups"] == 34
    assert updated["projects"] == original["projects"]
    assert updated["mcpServers"]["other"] == original["mcpServers"]["other"]
    assert set(updated["mcpServers"]) == {"other", "context-doctor"}
    [backup] = backups(path)
    assert backup.read_text() == text  # the timestamped copy is the file as it was
    assert f"kept the previous file as {backup}" in run.stdout


def test_install_is_idempotent(home: Path, doctor: Doctor) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {}}\n')
    assert doctor("mcp", "install", "cursor").exit_code == 0
    first = path.read_bytes()
    [backup] = backups(path)
    again = doctor("mcp", "install", "cursor")
    assert again.exit_code == 0
    assert "already registered" in again.stdout
    assert path.read_bytes() == first
    assert backups(path) == [backup]
    # A changed entry (now with the writing tools) is an update, with its own backup.
    writes = doctor("mcp", "install", "cursor", "--allow-writes")
    assert writes.exit_code == 0
    entry = json.loads(path.read_text())["mcpServers"]["context-doctor"]
    assert entry["args"][-1] == "--allow-writes"
    assert "type" not in entry  # Cursor's entries are command + args
    assert len(backups(path)) == 2


@pytest.mark.parametrize(
    "content",
    ["{not json", "[]", '{"mcpServers": []}', "\ufeff{\n", '{"a": 1} trailing'],
    ids=["not-json", "array", "servers-not-object", "bom", "trailing"],
)
def test_a_config_it_cannot_parse_is_refused(home: Path, doctor: Doctor, content: str) -> None:
    path = home / ".claude.json"
    path.write_text(content)
    run = doctor("mcp", "install", "claude-code")
    assert run.exit_code == 1
    assert "[config-unparsable]" in run.stderr
    assert run.stderr.count("\n") == 1
    assert path.read_text() == content
    assert backups(path) == []


def test_a_symlinked_config_is_refused(home: Path, doctor: Doctor, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text("{}\n")
    (home / ".claude.json").symlink_to(dotfiles)
    run = doctor("mcp", "install", "claude-code")
    assert run.exit_code == 1
    assert "[symlink]" in run.stderr
    assert "--print" in run.stderr
    assert dotfiles.read_text() == "{}\n"
    assert (home / ".claude.json").is_symlink()


def test_a_client_that_is_not_there_is_exit_2(home: Path, doctor: Doctor) -> None:
    run = doctor("mcp", "install", "claude-desktop")
    assert run.exit_code == 2
    assert "is claude-desktop installed" in run.stderr
    assert not (home / ".config").exists()


def test_claude_desktop_paths() -> None:
    home = Path("/u")
    mac = config_path("claude-desktop", home=home, platform="darwin")
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    linux = config_path("claude-desktop", home=home, platform="linux")
    assert linux.name == "claude_desktop_config.json"
    assert linux.parent.name == "Claude"


def test_print_writes_nothing(home: Path, doctor: Doctor) -> None:
    run = doctor("mcp", "install", "claude-desktop", "--print")
    assert run.exit_code == 0
    entry = json.loads(run.stdout)["mcpServers"]["context-doctor"]
    assert entry["args"] == ["-I", "-m", "context_doctor", "mcp"]
    assert list(home.iterdir()) == []


def test_unknown_client_is_a_usage_error(home: Path, doctor: Doctor) -> None:
    run = doctor("mcp", "install", "vim")
    assert run.exit_code == 2
    assert "claude-code" in run.stderr


def test_the_registered_entry_starts_a_working_server(home: Path, doctor: Doctor) -> None:
    # What the client will run, run: the entry's command and args, the entry's env added.
    assert doctor("mcp", "install", "claude-code").exit_code == 0
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["context-doctor"]
    server = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**os.environ, **entry.get("env", {})},
        cwd=home,
    )

    async def names() -> set[str]:
        async with Client(server) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    assert asyncio.run(asyncio.wait_for(names(), timeout=120)) == {"check", "explain", "status"}


def test_the_registered_server_started_in_a_project_runs_none_of_its_code(
    home: Path, doctor: Doctor, tmp_path: Path
) -> None:
    # A client starts servers in the project folder: a `context_doctor/` package committed
    # there must not be what `-m context_doctor` imports (SPEC §8, round three).
    assert doctor("mcp", "install", "claude-code").exit_code == 0
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["context-doctor"]
    project = tmp_path / "cloned"
    (project / "context_doctor").mkdir(parents=True)
    marker = tmp_path / "planted-code-ran"
    (project / "context_doctor" / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    )
    (project / "context_doctor" / "__main__.py").write_text("")
    server = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**os.environ, **entry.get("env", {})},
        cwd=project,
    )

    async def names() -> set[str]:
        async with Client(server) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    try:
        tools = asyncio.run(asyncio.wait_for(names(), timeout=120))
    finally:
        assert not marker.exists()
    assert tools == {"check", "explain", "status"}
