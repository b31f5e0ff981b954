"""``context-doctor mcp``: the doctor's tools over the Model Context Protocol (stdio).

Built on the official Python SDK (the optional extra ``[mcp]``).
Tools: ``check`` (the structured docs/output.md report), ``explain``, ``status``; with
``--allow-writes`` also ``edit`` (the fail-closed editor) and ``log_add``.

The tools follow the protocol's conventions (docs/surfaces.md): every parameter has a
description, dates a pattern, closed sets an enum (readiness, check and group
names, severities, edit ops, each op's own keys); every tool a ``title`` and
annotations (``readOnlyHint`` on the readers, ``destructiveHint`` on the
writers); ``check``'s ``outputSchema`` is ``schemas/report.schema.json``.
The input schemas are written here, not derived from the Python signatures, and
every call is validated against them before the tool runs, so a bad argument is
one line naming the MCP parameter and the values it allows (never a pydantic
dump, never a CLI flag). A call with an argument the tool does not take is
refused, not silently dropped: an agent that misspells ``dry_run`` must not get
a write. A relative or missing path resolves against the client's roots
(``roots/list``, asked only when a call needs it).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.server.mcpserver.tools import Tool
from mcp_types import ListRootsResult, ToolAnnotations

from context_doctor.mcp import tools
from context_doctor.mcp.paths import roots_of
from context_doctor.mcp.schemas import (
    TOOL_SCHEMAS,
    ArgumentProblem,
    bounded_line,
    check_output_schema,
    first_problem,
)
from context_doctor.mcp.tools import ToolFailure
from context_doctor.version import __version__

INSTRUCTIONS = (
    "context-doctor audits the durable context files agents resume from (CONTEXT.md, "
    "REFERENCE.md, sessions/, projects/index.yaml). `status` gives the cached corpus "
    "verdict without auditing; `check` audits a path and returns the structured report "
    "(ask for less with min_severity, max_findings, include_coverage); `explain` says what "
    "a finding's check means and how to fix it."
)


def _asks_roots(ctx: Context[Any, Any], needed: bool) -> ListRootsResult | ListRoots:
    """Ask the client for its roots (``roots/list``) only when a path needs them and the
    client declares it has roots; otherwise there are none."""
    capabilities = ctx.client_capabilities
    if not needed or capabilities is None or capabilities.roots is None:
        return ListRootsResult(roots=[])
    return ListRoots()


def _roots_for_path(ctx: Context[Any, Any], path: str | None = None) -> ListRootsResult | ListRoots:
    return _asks_roots(ctx, _relative(path))


def _roots_for_project(ctx: Context[Any, Any], project: str = "") -> ListRootsResult | ListRoots:
    return _asks_roots(ctx, _relative(project))


def _roots_for_edits(
    ctx: Context[Any, Any], edits: list[dict[str, Any]] | None = None
) -> ListRootsResult | ListRoots:
    files = [one.get("file") for one in edits or () if isinstance(one, dict)]
    return _asks_roots(ctx, any(_relative(file) for file in files))


def _local(listed: ListRootsResult) -> list[Path]:
    return roots_of([str(root.uri) for root in listed.roots])


def _relative(value: object) -> bool:
    return not isinstance(value, str) or not Path(value).is_absolute()


async def _off_the_loop(call: Callable[[], Any]) -> Any:
    """Run a tool's blocking work on a worker thread; its failures as one-line tool errors."""
    try:
        return await anyio.to_thread.run_sync(call)
    except ToolFailure as failure:
        raise ToolError(str(failure)) from None


async def check(
    roots: Annotated[ListRootsResult, Resolve(_roots_for_path)],
    path: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    readiness: str = "local",
    today: str | None = None,
    min_severity: str = "warning",
    max_findings: int = tools.DEFAULT_MAX_FINDINGS,
    include_coverage: bool = False,
) -> dict[str, Any]:
    """Audit a knowledge repository or project and return the structured report (the JSON
    `context-doctor check --json` prints). Findings are cut to `max_findings` (defects
    first) at or above `min_severity`, and coverage is left out unless `include_coverage`;
    `omitted` says what was left out. `defects`, `warnings` and `ok` always count the whole
    audit."""
    return await _off_the_loop(  # type: ignore[no-any-return]
        partial(
            tools.check,
            path,
            select or (),
            ignore or (),
            readiness,
            today,
            min_severity=min_severity,
            max_findings=max_findings,
            include_coverage=include_coverage,
            roots=_local(roots),
        )
    )


async def explain(name: str) -> str:
    """What a check (or a group of checks) means, why it matters, how to fix it and what
    skips it."""
    return await _off_the_loop(partial(tools.explain, name))  # type: ignore[no-any-return]


async def status() -> dict[str, Any]:
    """The cached corpus verdict (defects, warnings, projects, age) from the last sweep or
    whole-repository check, without auditing."""
    return await _off_the_loop(tools.status)  # type: ignore[no-any-return]


async def edit(
    roots: Annotated[ListRootsResult, Resolve(_roots_for_edits)],
    edits: list[dict[str, Any]],
    overrides: dict[str, Any] | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Edit a project's context files through the fail-closed editor: CONTEXT.md,
    REFERENCE.md, reference/*.md, sessions/*.md, CURRENT_STATE.json or the index.yaml beside
    the project, inside the git repository the path names, nothing else. All edits are
    applied in memory, gated once, and every file is written or none; a refusal is an error
    naming its rule and the override that exists, if any. dry_run returns the diff and
    writes nothing."""
    return await _off_the_loop(  # type: ignore[no-any-return]
        partial(tools.edit, edits, dry_run=dry_run, roots=_local(roots), **(overrides or {}))
    )


async def log_add(
    roots: Annotated[ListRootsResult, Resolve(_roots_for_project)],
    project: str,
    date: str,
    title: str,
    text: str = "",
    set_header: bool = False,
    today: str | None = None,
    overrides: dict[str, Any] | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Log a session: an entry `DATE — TITLE` in the project's own log, in date order, as
    `context-doctor log add` writes it (the seed's PROJECT/sessions/YYYY-MM.md, or the log
    of the project's layout), inside the git repository the project lies in. set_header also
    moves the record's Last session (and the seed's index last_session) to DATE, in the same
    write. Refused: a date after today, a heading the log has."""
    return await _off_the_loop(  # type: ignore[no-any-return]
        partial(
            tools.log_add,
            project,
            date,
            title,
            text=text,
            set_header=set_header,
            today=today,
            dry_run=dry_run,
            roots=_local(roots),
            **(overrides or {}),
        )
    )


_READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)
READ_TOOLS: tuple[tuple[Callable[..., Awaitable[Any]], str], ...] = (
    (check, "Audit context files"),
    (explain, "Explain a check"),
    (status, "Cached corpus verdict"),
)
WRITE_TOOLS: tuple[tuple[Callable[..., Awaitable[Any]], str], ...] = (
    (edit, "Edit context files (fail-closed)"),
    (log_add, "Log a session"),
)


class DoctorServer(MCPServer[Any]):
    """An MCPServer whose calls are validated against the published input schemas first."""

    def __init__(self, tool_list: list[Tool]) -> None:
        super().__init__(
            "context-doctor",
            instructions=INSTRUCTIONS,
            version=__version__,
            tools=tool_list,
            log_level="WARNING",  # a refused call is an answer, not news for the client's log
        )
        self._schemas = {tool.name: tool.parameters for tool in tool_list}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The tool's answer; every error as one line of at most 300 characters (an
        argument is never echoed back whole)."""
        try:
            return await self._call_tool(name, arguments, context)
        except ToolError as error:
            raise ToolError(bounded_line(str(error))) from None

    async def _call_tool(self, name: str, arguments: dict[str, Any], context: Any) -> Any:
        schema = self._schemas.get(name)
        if schema is not None:
            problem = first_problem(name, schema, arguments)
            if problem is not None:
                raise ToolError(problem)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ToolError | ArgumentProblem | ToolFailure):
                # The SDK prefixes "Error executing tool NAME: "; the one line is ours.
                raise ToolError(" ".join(str(cause).split())) from None
            if type(error) is ToolError:
                raise ToolError(" ".join(str(error).split())) from None
            # An unexpected failure: one line that names it, never a bare "Error executing tool".
            detail = f"{type(cause).__name__}: {cause}" if cause is not None else str(error)
            raise ToolError(
                " ".join(f"`{name}` failed: internal error ({detail})".split())
            ) from None


def prose(docstring: str) -> str:
    """A docstring as a client shows it: each paragraph one line, its source indentation and
    line breaks gone (a description is text, not the layout of this file)."""
    paragraphs = (" ".join(block.split()) for block in re.split(r"\n\s*\n", docstring))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def build(*, allow_writes: bool) -> DoctorServer:
    tool_list: list[Tool] = []
    chosen: Sequence[tuple[Callable[..., Awaitable[Any]], str]] = READ_TOOLS + (
        WRITE_TOOLS if allow_writes else ()
    )
    for function, title in chosen:
        name = function.__name__
        tool = Tool.from_function(
            function,
            title=title,
            description=prose(function.__doc__ or ""),
            annotations=_WRITES if (function, title) in WRITE_TOOLS else _READS,
            structured_output=function is not explain,
        )
        tool.parameters = TOOL_SCHEMAS[name]()
        if name == "check":
            tool.fn_metadata.output_schema = check_output_schema()
        tool_list.append(tool)
    return DoctorServer(tool_list)


def serve(*, allow_writes: bool) -> None:
    build(allow_writes=allow_writes).run("stdio")
