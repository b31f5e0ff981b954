"""The writers refuse what would make a record unreadable.

A NUL written into a session log makes the next check read the file as binary; a code
fence or an ``<!--`` the text opens and never closes turns every entry after it into
code or a comment; a table header written before a paragraph absorbs it as a row. Each
writer is attacked as a user (or an agent) would: the CLI with real files, the MCP tools
over the real SDK on stdio. Each must refuse with its rule before a byte moves, and the
same writer must still take text that closes what it opens.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, template_tail

from context_doctor.guards.line_kinds import line_kinds
from context_doctor.write.readable import judge_record

TODAY = "2026-06-10"
CONTEXT = (
    "# Fine\n\n**Status:** Active\n**Phase:** build\n**Last session:** 2026-06-05\n"
    "**Controlling plan:** [PLAN.md](PLAN.md)\n\n"
    "History: [sessions](sessions/)\n" + template_tail("2026-06-05")
)
LOG = "# Sessions\n\n## 2026-06-01\nStarted.\n\n## 2026-06-05\nLater.\n"
NUL = "a line\x00with a NUL\n"
FENCE = "Some code:\n\n```python\nprint('unclosed')\n"
COMMENT = "A note.\n\n<!-- to do: tidy\n"
TABLE = "| step | done |\n|---|---|\n"
CLOSED = "Some code:\n\n```python\nprint('closed')\n```\n\n<!-- a closed note -->\n\tA tab.\n"


def corpus() -> dict[str, Any]:
    files = {
        "projects/index.yaml": "- id: fine\n  status: active\n  last_session: 2026-06-05\n",
        "projects/fine/CONTEXT.md": CONTEXT,
        "projects/fine/PLAN.md": "# Plan\n",
        "projects/fine/sessions/2026-06.md": LOG,
    }
    return {"remote": True, "commits": [{"date": "2026-06-05T10:00:00+00:00", "files": files}]}


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


@pytest.fixture(name="root")
def root_fixture(make_repo: MakeRepo) -> Path:
    return make_repo(corpus())


def given(tmp_path: Path, text: str, name: str = "text.md") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def refused(doctor: Doctor, root: Path, rule: str, *args: str, dry_run: bool = True) -> None:
    """``args`` is refused with ``rule``, exit 1, nothing written (and so is its dry run)."""
    before = tree(root)
    for extra in (["--dry-run"], []) if dry_run else ([],):
        run = doctor(*args, *extra)
        assert run.exit_code == 1, (args, extra, run.stdout, run.stderr)
        assert f"refused [{rule}]" in run.stderr, run.stderr
        assert run.stderr.count("\n") == 1, run.stderr
        assert tree(root) == before


def test_log_add_refuses_a_nul_an_unclosed_fence_and_an_unclosed_comment(
    root: Path, doctor: Doctor, tmp_path: Path
) -> None:
    project = str(root / "projects/fine")
    for text, rule in ((NUL, "control-character"), (FENCE, "unclosed-block"),
                       (COMMENT, "unclosed-block")):  # fmt: skip
        for day in ("2026-06-03", "2026-06-09"):  # between two entries, and newest
            refused(
                doctor, root, rule, "log", "add", project, "--date", day, "--title", "t",
                "--text-file", given(tmp_path, text), "--today", TODAY,
            )  # fmt: skip
    written = doctor(
        "log", "add", project, "--date", "2026-06-03", "--title", "t",
        "--text-file", given(tmp_path, CLOSED), "--today", TODAY,
    )  # fmt: skip
    assert written.exit_code == 0, written.stderr
    assert "print('closed')" in (root / "projects/fine/sessions/2026-06.md").read_text()


def test_the_editor_verbs_and_apply_refuse_them(root: Path, doctor: Doctor, tmp_path: Path) -> None:
    context = str(root / "projects/fine/CONTEXT.md")
    log = str(root / "projects/fine/sessions/2026-06.md")
    refused(
        doctor, root, "control-character", "edit", "set-field", context, "--field", "Phase",
        "--value-file", given(tmp_path, "build\x1b[2J"),
    )  # fmt: skip
    refused(
        doctor, root, "control-character", "edit", "replace", log, "--anchor", "Later.",
        "--replacement-file", given(tmp_path, "Later\x00."),
    )  # fmt: skip
    refused(
        doctor, root, "unclosed-block", "edit", "insert-before", log, "--anchor", "## 2026-06-05",
        "--text-file", given(tmp_path, "```\n"),
    )  # fmt: skip
    refused(  # a table header before a paragraph line: the line would become a row
        doctor, root, "unclosed-block", "edit", "insert-before", log, "--anchor", "Later.",
        "--text-file", given(tmp_path, TABLE),
    )  # fmt: skip
    refused(
        doctor, root, "unclosed-block", "edit", "replace", log, "--anchor", "Later.",
        "--replacement-file", given(tmp_path, "<!-- Later."),
    )  # fmt: skip
    for replacement, rule in (("x\x00", "control-character"), ("```", "unclosed-block")):
        edits = [
            {"op": "replace", "file": log, "anchor": "Started.", "replacement": "Began."},
            {"op": "set-field", "file": context, "field": "Phase",
             "value": f"build {replacement}" if rule == "control-character" else "ship"},
            {"op": "insert-before", "file": log, "anchor": "Later.",
             "text": f"{replacement}\n"},
        ]  # fmt: skip
        refused(
            doctor, root, rule, "edit", "apply", "--edits",
            given(tmp_path, json.dumps(edits), "edits.json"),
        )  # fmt: skip
    table = doctor("edit", "insert-before", log, "--anchor", "Later.", "--text-file",
                   given(tmp_path, TABLE + "| one | yes |\n\n"))  # fmt: skip
    assert table.exit_code == 0, table.stderr  # a table that ends at a blank line


def test_state_refuses_a_control_character(root: Path, doctor: Doctor, tmp_path: Path) -> None:
    project = str(root / "projects/fine")
    now = "2026-06-10T10:00:00+00:00"
    assert doctor("state", "init", project, "--now", now).exit_code == 0
    assert doctor("state", "compile", project, "--now", now).exit_code == 0
    for field, value in (("phase", "ship\x01"), ("next_actions", "one\ntwo\x00\n")):
        refused(
            doctor, root, "control-character", "state", "set", project, "--field", field,
            "--value-file", given(tmp_path, value), "--now", now, dry_run=False,
        )  # fmt: skip


def test_the_mcp_writers_refuse_them(root: Path, tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    project = str(root / "projects/fine")
    log = str(root / "projects/fine/sessions/2026-06.md")
    calls = [
        ("log_add", {"project": project, "date": "2026-06-03", "title": "t", "text": NUL,
                     "today": TODAY}, "control-character"),
        ("log_add", {"project": project, "date": "2026-06-03", "title": "t", "text": FENCE,
                     "today": TODAY}, "unclosed-block"),
        ("edit", {"edits": [{"op": "replace", "file": log, "anchor": "Later.",
                             "replacement": "Later.\x07"}]}, "control-character"),
        ("edit", {"edits": [{"op": "insert-before", "file": log, "anchor": "Later.",
                             "text": COMMENT}], "dry_run": True}, "unclosed-block"),
    ]  # fmt: skip
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "context_doctor", "mcp", "--allow-writes"],
        env=dict(os.environ),
        cwd=tmp_path,
    )

    async def run() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments, _ in calls]

    before = tree(root)
    results = asyncio.run(asyncio.wait_for(run(), timeout=120))
    for (name, _, rule), result in zip(calls, results, strict=True):
        text = "\n".join(getattr(part, "text", "") for part in result.content)
        assert result.is_error is True, (name, text)
        assert f"refused [{rule}]" in text, text
    assert tree(root) == before


def test_the_gate_judges_only_what_the_write_changes(tmp_path: Path) -> None:
    """A record that already holds a NUL or an open fence can still be edited elsewhere;
    the doctor's own files and the files the user named are not records."""
    record = tmp_path / "notes.md"
    odd = b"# N\n\nA\x00B\n\n## Log\n\n```\nopen to the end\n"
    assert judge_record(record, odd, odd.replace(b"# N", b"# Notes"), within=tmp_path) is None
    assert judge_record(record, odd, odd + b"more\n", within=tmp_path) is None  # inside it
    assert judge_record(record, b"x\n", b"x\n```\n", within=tmp_path) is not None
    assert judge_record(record, b"x\n", b"x\x00\n", within=None) is None  # user named
    assert judge_record(tmp_path / "cache.bin", b"", b"\x00\x01", within=tmp_path) is None
    refusal = judge_record(tmp_path / "index.yaml", b"", b"- id: a\x00\n", within=tmp_path)
    assert refusal is not None and refusal[0] == "control-character"
    assert judge_record(record, b"a\r\nb\r\n", b"a\r\nc\r\nb\r\n", within=tmp_path) is None
    assert judge_record(record, b"a\n", b"a\rb\n", within=tmp_path) is None  # CR: a break
    assert judge_record(record, b"a\n", b"a\x0cb\n", within=tmp_path) is not None


def test_line_kinds_read_as_the_documents_do() -> None:
    assert line_kinds("# a\n\n```\ncode\n") == (["text", "text", "code", "code", "code"], "code")
    assert line_kinds("<!-- x\n## b\n")[1] == "html"
    assert line_kinds("| a | b |\n|---|---|\nrow\n\n## h\n")[0][:4] == [
        "table", "table", "table", "text"
    ]  # fmt: skip
    assert line_kinds("a\n```\nx\n```\nb") == (["text", "code", "code", "code", "text"], "text")
