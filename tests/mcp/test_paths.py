"""An agent is not the user (docs/caches.md round three): MCP writes stay contained.

Each attack is planted for real and sent by the SDK's client over stdio to
``context-doctor mcp --allow-writes``: the write tools must answer with one line
naming the parameter, and the planted target must be byte-for-byte unchanged.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support import MakeRepo
from test_mcp_server import TODAY, corpus, text_of

BASHRC = "export PATH=$HOME/bin:$PATH\n"
TODO = "- call the plumber\n"


def serve(cwd: Path, home: Path, calls: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "context_doctor", "mcp", "--allow-writes"],
        env={**os.environ, "HOME": str(home)},
        cwd=cwd,
    )

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            return {name: await client.call_tool(*call) for name, call in calls.items()}

    return asyncio.run(asyncio.wait_for(run(), timeout=180))


def insert(file: str) -> dict[str, Any]:
    return {"edits": [{"op": "insert-before", "file": file, "anchor": "a", "text": "x\n"}]}


def test_writes_land_only_in_files_the_editor_owns(make_repo: MakeRepo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / ".bashrc").write_text(BASHRC)
    (home / "notes/todo.txt").write_text(TODO)
    dotfiles = tmp_path / "dotfiles"  # a git repository, but no project's file
    dotfiles.mkdir()
    subprocess.run(["git", "init", "-q", str(dotfiles)], check=True)
    (dotfiles / ".bashrc").write_text(BASHRC)
    root = make_repo(
        corpus(
            {
                "projects/leaky/CONTEXT.md": "# Leaky\n\n**Status:** Active\n",
                "projects/linked/CONTEXT.md": "# Linked\n\n**Status:** Active\n",
            }
        )
    )
    outside = root.parent / "outside"
    (outside / "sessions").mkdir(parents=True)
    (root / "projects/leaky/sessions").symlink_to(outside / "sessions")
    linked = root / "projects/linked/CONTEXT.md"
    linked.unlink()
    linked.symlink_to(home / ".bashrc")
    context = root / "projects/fine/CONTEXT.md"
    before = context.read_bytes()
    bashrc = str(home / ".bashrc")

    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "bashrc": (
            "edit",
            {"edits": [{"op": "insert-before", "file": bashrc, "anchor": "export", "text": "x\n"}]},
        ),
        "todo": (
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": str(home / "notes/todo.txt"),
                        "anchor": "plumber",
                        "replacement": "locksmith",
                    }
                ]
            },
        ),
        "dotfiles": (
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": str(dotfiles / ".bashrc"),
                        "anchor": "bin",
                        "replacement": "evil",
                    }
                ]
            },
        ),
        "relative-escape": (
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": "../home/.bashrc",
                        "anchor": "bin",
                        "replacement": "evil",
                    }
                ]
            },
        ),
        "context-linked-out": (
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": str(linked),
                        "anchor": "bin",
                        "replacement": "evil",
                    }
                ]
            },
        ),
        "log-in-home": (
            "log_add",
            {"project": str(home), "date": TODAY, "title": "owned", "today": TODAY},
        ),
        "log-outside": (
            "log_add",
            {"project": "../outside", "date": TODAY, "title": "owned", "today": TODAY},
        ),
        "log-sessions-linked-out": (
            "log_add",
            {"project": "projects/leaky", "date": TODAY, "title": "owned", "today": TODAY},
        ),
        "long-name-check": ("check", {"path": "a" * 300, "today": TODAY}),
        "deep-path-check": ("check", {"path": "a/" * 3000, "today": TODAY}),
        "long-name-edit": ("edit", insert("n" * 300 + ".md")),
        "long-name-log": ("log_add", {"project": "p" * 300, "date": TODAY, "title": "t"}),
        "control": (
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": "projects/fine/CONTEXT.md",
                        "anchor": "# Fine",
                        "replacement": "# Fine project",
                    }
                ],
                "dry_run": True,
            },
        ),
    }
    results = serve(root, home, calls)

    control = results.pop("control")
    assert control.is_error is False, text_of(control)
    for name, result in results.items():
        said = text_of(result)
        assert result.is_error is True, name
        assert "\n" not in said, (name, said)
        assert "Error executing tool" not in said, (name, said)
        assert "Traceback" not in said and " --" not in said, (name, said)
    assert "`edits[0].file`" in text_of(results["bashrc"])
    assert "not inside a git repository" in text_of(results["bashrc"])
    assert "not a file the editor owns" in text_of(results["dotfiles"])
    assert "leads outside" in text_of(results["context-linked-out"])
    assert "`project`" in text_of(results["log-in-home"])
    assert "leads outside" in text_of(results["log-sessions-linked-out"])
    assert "255 bytes" in text_of(results["long-name-check"])
    assert "at most 4095" in text_of(results["deep-path-check"])
    assert "`edits[0].file`" in text_of(results["long-name-edit"])

    assert (home / ".bashrc").read_text() == BASHRC
    assert (dotfiles / ".bashrc").read_text() == BASHRC
    assert (home / "notes/todo.txt").read_text() == TODO
    assert not (home / "sessions").exists()
    assert list((outside / "sessions").iterdir()) == []
    assert context.read_bytes() == before
    assert sorted(path.name for path in home.iterdir()) == [".bashrc", "notes"]


def test_the_files_the_editor_owns(make_repo: MakeRepo) -> None:
    import pytest

    from context_doctor.mcp.paths import PathRefused, writable_file, writable_project

    root = make_repo(corpus({"projects/fine/reference/api.md": "# API\n"}))
    for owned in (
        "projects/fine/CONTEXT.md",
        "projects/fine/REFERENCE.md",
        "projects/fine/reference/api.md",
        "projects/fine/sessions/2026-06.md",
        "projects/fine/CURRENT_STATE.json",
        "projects/index.yaml",
    ):
        assert writable_file(owned, [root], "file") == root / owned
    for foreign in (
        "projects/fine/notes.md",
        "projects/fine/sessions/README.md",
        "projects/fine/sessions/deep/x.md",
        "README.md",
        ".git/config",
    ):
        with pytest.raises(PathRefused, match="not a file the editor owns"):
            writable_file(foreign, [root], "file")
    assert writable_project("projects/fine", [root], "project", "sessions/2026-07.md") == (
        root / "projects/fine"
    )
    with pytest.raises(PathRefused, match="not a project directory"):
        writable_project("projects", [root], "project", "sessions/2026-07.md")
