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
from support import Doctor, MakeRepo

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
    # there must not be what `-m context_doctor` imports (docs/caches.md, round three).
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


def test_vscode_keeps_its_servers_under_servers(home: Path, doctor: Doctor) -> None:
    path = home / ".config/Code/User/mcp.json"
    assert doctor("mcp", "install", "vscode").exit_code == 2  # VS Code not set up for this user
    path.parent.mkdir(parents=True)
    path.write_text('{"servers": {"other": {"type": "stdio", "command": "x"}}, "inputs": []}\n')
    run = doctor("mcp", "install", "vscode")
    assert run.exit_code == 0, run.stderr
    config = json.loads(path.read_text())
    assert "mcpServers" not in config
    assert config["inputs"] == []
    assert config["servers"]["other"] == {"type": "stdio", "command": "x"}
    entry = config["servers"]["context-doctor"]
    assert entry["type"] == "stdio"  # VS Code requires the type of a stdio server
    assert entry["command"] == sys.executable
    assert len(backups(path)) == 1
    assert config_path("vscode", home=Path("/u"), platform="darwin") == Path(
        "/u/Library/Application Support/Code/User/mcp.json"
    )


@pytest.mark.parametrize(
    ("client", "relative", "key"),
    [
        ("claude-code", ".mcp.json", "mcpServers"),
        ("cursor", ".cursor/mcp.json", "mcpServers"),
        ("vscode", ".vscode/mcp.json", "servers"),
    ],
)
def test_project_scope_writes_the_repositorys_shared_file(
    home: Path, doctor: Doctor, make_repo: MakeRepo, client: str, relative: str, key: str
) -> None:
    root = make_repo(
        {"commits": [{"date": "2026-06-01T10:00:00+00:00", "files": {"README.md": "# kb\n"}}]}
    )
    (root / "sub").mkdir()
    run = doctor("mcp", "install", client, "--scope", "project", cwd=root / "sub")
    assert run.exit_code == 0, run.stderr
    path = root / relative
    entry = json.loads(path.read_text())[key]["context-doctor"]
    assert entry["command"] == "context-doctor"  # portable: found on PATH, no venv path
    assert entry["args"] == ["mcp"]
    assert "env" not in entry  # nothing of this machine in a committed file
    assert list(home.iterdir()) == []  # the user's own config is untouched
    again = doctor("mcp", "install", client, "--scope", "project", cwd=root)
    assert "already registered" in again.stdout
    assert backups(path) == []


def test_project_scope_refusals(home: Path, doctor: Doctor, tmp_path: Path) -> None:
    desktop = doctor("mcp", "install", "claude-desktop", "--scope", "project", cwd=tmp_path)
    assert desktop.exit_code == 2
    assert "no project-level MCP configuration" in desktop.stderr
    outside = doctor("mcp", "install", "cursor", "--scope", "project", cwd=tmp_path)
    assert outside.exit_code == 2
    assert "not inside a git repository" in outside.stderr
    assert not (tmp_path / ".cursor").exists()


def test_the_portable_entry_starts_a_working_server(
    home: Path, doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = make_repo(
        {"commits": [{"date": "2026-06-01T10:00:00+00:00", "files": {"README.md": "# kb\n"}}]}
    )
    assert doctor("mcp", "install", "claude-code", "--scope", "project", cwd=root).exit_code == 0
    entry = json.loads((root / ".mcp.json").read_text())["mcpServers"]["context-doctor"]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    server = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**os.environ, "PATH": path}, cwd=root
    )

    async def names() -> set[str]:
        async with Client(server) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    assert asyncio.run(asyncio.wait_for(names(), timeout=120)) == {"check", "explain", "status"}
