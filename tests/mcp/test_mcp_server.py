"""``context-doctor mcp``: a real MCP client session over stdio (docs/surfaces.md).

The official SDK's client starts ``python -m context_doctor mcp`` as a subprocess,
initializes, lists the tools and calls them; the corpus is a real git repository.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from support import Doctor, MakeRepo, template_tail

TODAY = "2026-06-02"
CONTEXT = (
    "# Fine\n\n**Status:** Active\n**Last session:** 2026-06-01\n\n"
    "History: [sessions](sessions/)\n" + template_tail()
)
LOG = "# Sessions\n\n## 2026-06-01\nStarted.\n"


def corpus(extra: dict[str, str] | None = None) -> dict[str, Any]:
    files = {
        "projects/index.yaml": "- id: fine\n  status: active\n  last_session: 2026-06-01\n",
        "projects/fine/CONTEXT.md": CONTEXT,
        "projects/fine/sessions/2026-06.md": LOG,
        **(extra or {}),
    }
    return {"remote": True, "commits": [{"date": "2026-06-01T10:00:00+00:00", "files": files}]}


Session = Callable[[Client], Awaitable[Any]]


def session(cwd: Path, *args: str, body: Session) -> Any:
    """Run ``body`` in a client session with ``context-doctor mcp ARGS`` (bounded in time)."""
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "context_doctor", "mcp", *args],
        env=dict(os.environ),  # the test's SYNTHESIS_HOME and cache home, not the SDK's minimum
        cwd=cwd,
    )

    async def run() -> Any:
        async with Client(server) as client:
            return await body(client)

    return asyncio.run(asyncio.wait_for(run(), timeout=120))


def text_of(result: Any) -> str:
    return "\n".join(getattr(part, "text", "") for part in result.content)


def test_initialize_list_and_check(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    over = CONTEXT + "".join(f"Line {n}.\n" for n in range(160))
    root = make_repo(corpus({"projects/fine/CONTEXT.md": over}))
    cli = doctor("check", "--source", str(root), "--today", TODAY, "--json")

    async def body(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        checked = await client.call_tool("check", {"path": str(root), "today": TODAY})
        return {"tools": listed.tools, "check": checked}

    found = session(tmp_path, body=body)
    tools = {tool.name: tool for tool in found["tools"]}
    assert set(tools) == {"check", "explain", "status"}  # nothing that writes by default
    assert tools["check"].input_schema["additionalProperties"] is False
    result = found["check"]
    assert result.is_error is False
    report = result.structured_content
    assert report["ok"] is False
    assert report["exit"] == 1
    assert report["defects"] == cli.json["defects"] == 1
    assert [f["check"] for f in report["findings"]] == [f["check"] for f in cli.json["findings"]]
    assert "context-budget" in {f["check"] for f in report["findings"]}


def test_bad_requests_are_tool_errors(make_repo: MakeRepo, tmp_path: Path) -> None:
    root = make_repo(corpus())
    outside = tmp_path / "not-a-repo"
    (outside / "projects").mkdir(parents=True)  # shaped like a knowledge base, outside git

    async def body(client: Client) -> dict[str, Any]:
        calls = {
            "unknown-argument": ("check", {"path": str(root), "dry_run": True}),
            "not-a-repository": ("check", {"path": str(outside)}),
            "bad-date": ("check", {"path": str(root), "today": "June 2"}),
            "bad-readiness": ("check", {"path": str(root), "readiness": "everywhere"}),
            "unknown-check": ("explain", {"name": "context-budgett"}),
            "write-without-permission": ("edit", {"edits": []}),
        }
        return {name: await client.call_tool(*call) for name, call in calls.items()}

    results = session(tmp_path, body=body)
    for name, result in results.items():
        assert result.is_error is True, name
        assert "Traceback" not in text_of(result), name
    assert "takes no argument 'dry_run'" in text_of(results["unknown-argument"])
    assert "not inside a git repository" in text_of(results["not-a-repository"])
    assert "YYYY-MM-DD" in text_of(results["bad-date"])
    assert "did you mean" in text_of(results["unknown-check"])
    assert "edit" in text_of(results["write-without-permission"])


def test_explain_and_status(tmp_path: Path) -> None:
    async def body(client: Client) -> dict[str, Any]:
        return {
            "explain": await client.call_tool("explain", {"name": "context-budget"}),
            "status": await client.call_tool("status", {}),
        }

    results = session(tmp_path, body=body)
    assert results["explain"].is_error is False
    assert text_of(results["explain"]).startswith("context-budget (defect)")
    status = results["status"].structured_content
    assert status["available"] is False
    assert status["line"].startswith("context: no report yet")


def test_writes_only_with_allow_writes(make_repo: MakeRepo, tmp_path: Path) -> None:
    root = make_repo(corpus())
    context = root / "projects/fine/CONTEXT.md"
    log = root / "projects/fine/sessions/2026-06.md"

    async def body(client: Client) -> dict[str, Any]:
        listed = await client.list_tools()
        refused = await client.call_tool(
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": str(context),
                        "anchor": "no such words",
                        "replacement": "x",
                    }
                ]
            },
        )
        unknown_key = await client.call_tool(
            "edit", {"edits": [{"op": "replace", "file": str(context), "anchr": "Working."}]}
        )
        bad_override = await client.call_tool(
            "edit",
            {
                "edits": [
                    {"op": "set-field", "file": str(context), "field": "Status", "value": "x"}
                ],
                "overrides": {"allow_everything": True},
            },
        )
        dry = await client.call_tool(
            "edit",
            {
                "edits": [
                    {
                        "op": "replace",
                        "file": str(context),
                        "anchor": "Working.",
                        "replacement": "Busy.",
                    }
                ],
                "overrides": {"max_lines": 100},
                "dry_run": True,
            },
        )
        logged = await client.call_tool(
            "log_add",
            {
                "project": str(root / "projects/fine"),
                "date": TODAY,
                "title": "second session",
                "text": "Worked.\n",
                "today": TODAY,
            },
        )
        return {
            "tools": {tool.name for tool in listed.tools},
            "refused": refused,
            "unknown_key": unknown_key,
            "bad_override": bad_override,
            "dry": dry,
            "logged": logged,
        }

    before = context.read_bytes()
    results = session(tmp_path, "--allow-writes", body=body)
    assert results["tools"] == {"check", "explain", "status", "edit", "log_add"}
    assert results["refused"].is_error is True
    assert "refused [anchor-absent]" in text_of(results["refused"])
    assert context.read_bytes() == before  # a refusal writes nothing
    assert results["unknown_key"].is_error is True
    assert "unknown key `anchr`" in text_of(results["unknown_key"])
    assert results["bad_override"].is_error is True
    assert "allow_everything" in text_of(results["bad_override"])
    dry = results["dry"]
    assert dry.is_error is False, text_of(dry)
    assert dry.structured_content["written"] is False
    assert "+Busy." in dry.structured_content["diff"]
    assert context.read_bytes() == before  # a dry run writes nothing
    logged = results["logged"]
    assert logged.is_error is False, text_of(logged)
    assert logged.structured_content["written"] is True
    assert f"## {TODAY} — second session" in log.read_text()


def _sdk_unimportable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK as a broken installation leaves it: ``import mcp`` raises ImportError."""
    for name in [m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "mcp_types"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)


@pytest.mark.parametrize(
    "args", [("mcp",), ("mcp", "install", "claude-code", "--print")], ids=["serve", "print"]
)
def test_without_the_sdk_the_doctor_says_how_to_install_it_from_the_checkout(
    doctor: Doctor, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """The project is not on PyPI: the remedy installs the extra from where the doctor came
    from (here the editable checkout the suite runs), into the interpreter that runs it."""
    from conftest import REPO_ROOT

    _sdk_unimportable(monkeypatch)
    run = doctor(*args)
    assert run.exit_code == 2, run.stdout
    assert run.stdout == ""
    assert f"-m pip install '{REPO_ROOT}[mcp]'" in run.stderr
    assert "'context-doctor[mcp]'" not in run.stderr
    assert run.stderr.count("\n") == 1


def test_print_with_the_sdk_prints_the_entry(doctor: Doctor) -> None:
    import json

    run = doctor("mcp", "install", "claude-code", "--print")
    assert run.exit_code == 0, run.stderr
    assert "context-doctor" in json.loads(run.stdout)["mcpServers"]


def test_tool_descriptions_reach_the_client_as_prose(tmp_path: Path) -> None:
    """A docstring's indentation is source layout, not text a client should show."""

    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    for tool in session(tmp_path, "--allow-writes", body=body):
        assert tool.description, tool.name
        assert "\n " not in tool.description, (tool.name, tool.description)
        assert tool.description == tool.description.strip()


def test_tools_follow_the_protocols_conventions(tmp_path: Path) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    listed = {tool.name: tool for tool in session(tmp_path, "--allow-writes", body=body)}
    for name, tool in listed.items():
        assert tool.title, name
        assert tool.annotations is not None, name
        writer = name in ("edit", "log_add")
        assert tool.annotations.read_only_hint is not writer, name
        assert tool.annotations.destructive_hint is writer, name
        for parameter, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{parameter}"
    check = listed["check"]
    assert check.output_schema is not None
    assert check.output_schema["$id"].endswith("report.schema.json")
    assert check.input_schema["properties"]["today"]["pattern"] == r"^\d{4}-\d{2}-\d{2}$"
    assert "context-budget" in check.input_schema["properties"]["select"]["items"]["enum"]
    assert {"min_severity", "max_findings", "include_coverage"} <= set(
        check.input_schema["properties"]
    )


def test_check_returns_what_the_agent_asked_for(make_repo: MakeRepo, tmp_path: Path) -> None:
    over = CONTEXT + "".join(f"Line {n}.\n" for n in range(160))
    root = make_repo(
        corpus({"projects/fine/CONTEXT.md": over, "projects/fine/notes.md": "stray\n"})
    )

    async def body(client: Client) -> dict[str, Any]:
        whole = {"path": str(root), "today": TODAY, "include_coverage": True}
        return {
            "whole": await client.call_tool("check", {**whole, "max_findings": 1000}),
            "defects": await client.call_tool(
                "check", {"path": str(root), "today": TODAY, "min_severity": "defect"}
            ),
            "none": await client.call_tool(
                "check", {"path": str(root), "today": TODAY, "max_findings": 0}
            ),
        }

    results = session(tmp_path, body=body)
    whole = results["whole"].structured_content
    assert "omitted" not in whole
    assert whole["coverage"]
    assert whole["warnings"] >= 1 and whole["defects"] >= 1
    defects = results["defects"].structured_content
    assert {f["severity"] for f in defects["findings"]} == {"defect"}
    assert defects["omitted"]["findings"] == whole["warnings"]
    assert f"{whole['warnings']} warning" in defects["omitted"]["why"]
    assert defects["coverage"] == {}
    assert "include_coverage=true" in defects["omitted"]["why"]
    none = results["none"].structured_content
    assert none["findings"] == []
    assert none["omitted"]["findings"] == len(whole["findings"])
    assert (none["defects"], none["warnings"], none["ok"]) == (
        whole["defects"],
        whole["warnings"],
        whole["ok"],
    )  # the verdict counts the whole audit


def test_a_relative_path_resolves_against_the_clients_roots(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    from mcp_types import ListRootsResult, Root

    root = make_repo(corpus())
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "context_doctor", "mcp"],
        env=dict(os.environ),
        cwd=tmp_path,  # not the repository: only the roots lead there
    )

    async def roots(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=root.as_uri(), name="kb")])

    async def run() -> dict[str, Any]:
        async with Client(server, list_roots_callback=roots) as client:
            return {
                "relative": await client.call_tool(
                    "check", {"path": "projects/fine", "today": TODAY}
                ),
                "missing": await client.call_tool("check", {"today": TODAY}),
            }

    results = asyncio.run(asyncio.wait_for(run(), timeout=120))
    for name, result in results.items():
        assert result.is_error is False, (name, text_of(result))
        report = result.structured_content
        assert report["projects_audited"] == 1, name
        assert report["source_details"][0]["root"].startswith(str(root)), name  # under the roots
