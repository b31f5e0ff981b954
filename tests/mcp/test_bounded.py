"""MCP answers are bounded, and ``log_add`` writes where ``log add`` does.

Over the official SDK's client on stdio, as an agent calls the server: an argument
100,000 items or characters long is answered with one line of at most 300 characters
naming the parameter, never echoed back (``select`` of 100,000 names answered with
400,000 characters); ``log_add`` in a project of another layout writes that layout's
log, byte for byte what ``context-doctor log add`` writes, not the seed's
``sessions/YYYY-MM.md``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from support import Doctor, commit_tree

TODAY = "2026-06-10"


def call_all(cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "context_doctor", "mcp", "--allow-writes"],
        env=dict(os.environ),
        cwd=cwd,
    )

    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(asyncio.wait_for(run(), timeout=180))


def text_of(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


def test_every_error_is_one_short_line_naming_the_parameter(tmp_path: Path) -> None:
    many = [f"check-{number}" for number in range(100_000)]
    project = str(tmp_path / "p")
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("check", {"select": many}, "select"),
        ("check", {"select": ["context-budget"] * 100_000}, "select"),
        ("check", {"ignore": ["context-budget", "context-budget"]}, "ignore"),
        ("check", {"select": ["x" * 100_000]}, "select[0]"),
        ("check", {"path": "p" * 100_000}, "path"),
        ("check", {"today": "9" * 10_000}, "today"),
        ("check", {"readiness": "r" * 10_000}, "readiness"),
        ("check", {"min_severity": "m" * 10_000}, "min_severity"),
        ("check", {"n" * 5_000: 1}, "check"),
        ("explain", {"name": "e" * 100_000}, "name"),
        ("log_add", {"project": project, "date": TODAY, "title": "t" * 100_000}, "title"),
        ("log_add", {"project": project, "date": TODAY, "title": "t",
                     "overrides": {"o" * 5_000: True}}, "overrides"),
        ("edit", {"edits": [{"op": "o" * 100_000, "file": project}]}, "edits[0].op"),
        ("edit", {"edits": [{"op": "replace", "file": project, "anchor": "a",
                             "replacement": "b", "k" * 5_000: 1}]}, "edits[0]"),
        ("edit", {"edits": [{"op": "replace", "file": "f" * 3_000, "anchor": "a",
                             "replacement": "b"}] * 2_000}, "edits"),
    ]  # fmt: skip
    results = call_all(tmp_path, [(name, arguments) for name, arguments, _ in calls])
    for (name, _, parameter), result in zip(calls, results, strict=True):
        text = text_of(result)
        assert result.is_error is True, (name, parameter, text[:300])
        assert "\n" not in text and len(text) <= 300, (parameter, len(text), text[:400])
        assert f"`{parameter}`" in text, (parameter, text)


def _layout_repositories(tmp_path: Path) -> list[Path]:
    """Two projects whose log is not the seed's: a STATUS.md keeping its dated entries
    inside it, and a declared layout whose log is one file."""
    status = tmp_path / "status"
    status.mkdir(parents=True)
    (status / "STATUS.md").write_text(
        "# Status\n\n**Status:** active\n**Last session:** 2026-06-01\n\n## Session Log\n\n"
        "### 2026-06-01 — start\n\nBegan.\n",
        encoding="utf-8",
    )
    declared = tmp_path / "declared"
    (declared / "docs").mkdir(parents=True)
    (declared / "context-doctor.toml").write_text(
        '[layout]\ncontext = "CONTEXT.md"\nsessions = "docs/log.md"\n', encoding="utf-8"
    )
    (declared / "CONTEXT.md").write_text(
        "# Declared\n\n**Status:** active\n**Last session:** 2026-06-01\n", encoding="utf-8"
    )
    (declared / "docs/log.md").write_text(
        "# Log\n\n## 2026-06-01 — start\n\nBegan.\n", encoding="utf-8"
    )
    for root in (status, declared):
        commit_tree(root)
    return [status, declared]


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def test_log_add_writes_the_projects_own_log(tmp_path: Path, doctor: Doctor) -> None:
    by_cli = _layout_repositories(tmp_path / "cli")
    by_mcp = _layout_repositories(tmp_path / "mcp")
    calls: list[tuple[str, dict[str, Any]]] = []
    for cli_root, mcp_root in zip(by_cli, by_mcp, strict=True):
        for day, title, header in (("2026-06-03", "more", False), ("2026-06-05", "last", True)):
            run = doctor(
                "log", "add", str(cli_root), "--date", day, "--title", title,
                "--text", "Did it.\n", "--today", TODAY, *(["--set-header"] if header else []),
            )  # fmt: skip
            assert run.exit_code == 0, run.stderr
            calls.append(
                ("log_add", {"project": str(mcp_root), "date": day, "title": title,
                             "text": "Did it.\n", "today": TODAY, "set_header": header})
            )  # fmt: skip
    results = call_all(tmp_path, calls)
    for result in results:
        assert result.is_error is False, text_of(result)
        assert result.structured_content["written"] is True
    for cli_root, mcp_root in zip(by_cli, by_mcp, strict=True):
        assert _files(mcp_root) == _files(cli_root)
        assert not (mcp_root / "sessions").exists()  # not the seed's month file
    assert "### 2026-06-05 — last" in (by_mcp[0] / "STATUS.md").read_text(encoding="utf-8")
    assert "## 2026-06-03 — more" in (by_mcp[1] / "docs/log.md").read_text(encoding="utf-8")


def test_log_add_in_a_layout_refuses_a_log_linked_out(tmp_path: Path, doctor: Doctor) -> None:
    """The layout's log is a write target like the seed's month file: a log linked out of
    the repository is refused (exit 2 naming the config, as for ``check``), never replaced
    by a new ``sessions/`` month file, by the CLI and over MCP alike."""
    _, declared = _layout_repositories(tmp_path)
    outside = tmp_path / "outside.md"
    outside.write_text("# Elsewhere\n", encoding="utf-8")
    (declared / "docs/log.md").unlink()
    (declared / "docs/log.md").symlink_to(outside)
    before = _files(declared), outside.read_bytes()
    run = doctor("log", "add", str(declared), "--date", "2026-06-03", "--title", "t",
                 "--today", TODAY)  # fmt: skip
    assert run.exit_code == 2, run.stdout + run.stderr
    assert "layout.sessions" in run.stderr and "outside" in run.stderr
    (result,) = call_all(
        tmp_path,
        [("log_add", {"project": str(declared), "date": "2026-06-03", "title": "t",
                      "today": TODAY})],
    )  # fmt: skip
    assert result.is_error is True
    assert "layout.sessions" in text_of(result) and "outside" in text_of(result)
    assert (_files(declared), outside.read_bytes()) == before
    assert not (declared / "sessions").exists()
