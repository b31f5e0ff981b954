"""``context-doctor mcp``: the doctor's tools over the Model Context Protocol (stdio).

Built on the official Python SDK (the optional extra ``context-doctor[mcp]``).
Tools: ``check`` (the structured §3 report), ``explain``, ``status``; with
``--allow-writes`` also ``edit`` (the fail-closed editor) and ``log_add``.
Every failure is a tool error with one line (an edit refusal names its rule),
never a crash, and a call with an argument the tool does not take is refused,
not silently dropped: an agent that misspells ``dry_run`` must not get a write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict  # pydantic reads TypedDicts from here before 3.12

from context_doctor import __version__
from context_doctor.mcp import tools
from context_doctor.mcp.tools import ToolFailure

_T = TypeVar("_T")

INSTRUCTIONS = (
    "context-doctor audits the durable context files agents resume from (CONTEXT.md, "
    "REFERENCE.md, sessions/, projects/index.yaml). `status` gives the cached corpus "
    "verdict without auditing; `check` audits a path and returns the structured report; "
    "`explain` says what a finding's check means and how to fix it."
)


def _answer(call: Callable[[], _T]) -> _T:
    try:
        return call()
    except ToolFailure as failure:
        raise ToolError(str(failure)) from None


def check(
    path: str | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
    readiness: Literal["local", "remote"] = "local",
    today: str | None = None,
) -> dict[str, Any]:
    """Audit a knowledge repository or project and return the structured report.

    path: a knowledge repository (holding projects/), a project directory or a
    single-project repository; omitted: the console.yaml sources, else the server's
    working directory. select/ignore: check or group names. readiness `remote` makes
    uncommitted and unpushed context defects. today: YYYY-MM-DD (default: today).
    """
    return _answer(lambda: tools.check(path, select or (), ignore or (), readiness, today))


def explain(name: str) -> str:
    """What a check (or a group of checks) means, why it matters and how to fix it."""
    return _answer(lambda: tools.explain(name))


def status() -> dict[str, Any]:
    """The cached corpus verdict (defects, warnings, projects, age), without auditing."""
    return _answer(tools.status)


@with_config(ConfigDict(extra="forbid"))
class Overrides(TypedDict, total=False):
    """The editor's gates (SPEC §4): each an explicit claim a person or agent makes, never a
    default. Omitted ones stay closed."""

    max_lines: int
    allow_header_lag: bool
    allow_stale_body: bool
    state_reviewed: bool
    allow_header_ahead: bool


def edit(
    edits: list[dict[str, Any]], overrides: Overrides | None = None, dry_run: bool = False
) -> dict[str, Any]:
    """Edit CONTEXT.md, REFERENCE.md or session logs through the fail-closed editor.

    edits: a list of {"op", "file", ...} objects, as in `context-doctor edit apply`:
    set-field (field, value, whole_value), replace (anchor, replacement, count),
    insert-before (anchor, text, count), delete-line (anchor, count). All are applied
    in memory, gated once, and every file is written or none. A refusal is an error
    naming its rule and the override that exists, if any; dry_run returns the diff.
    """
    return _answer(lambda: tools.edit(edits, dry_run=dry_run, **(overrides or {})))


def log_add(
    project: str,
    date: str,
    title: str,
    text: str = "",
    set_header: bool = False,
    today: str | None = None,
    overrides: Overrides | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Log a session: an entry `## DATE — TITLE` in PROJECT/sessions/YYYY-MM.md, in date order.

    set_header also moves CONTEXT.md's Last session and the index's last_session to
    DATE, in the same write. Refused: a date after today, a heading the file has.
    """
    return _answer(
        lambda: tools.log_add(
            project,
            date,
            title,
            text=text,
            set_header=set_header,
            today=today,
            dry_run=dry_run,
            **(overrides or {}),
        )
    )


READ_TOOLS: tuple[Callable[..., Any], ...] = (check, explain, status)
WRITE_TOOLS: tuple[Callable[..., Any], ...] = (edit, log_add)


class DoctorServer(MCPServer[Any]):
    """An MCPServer that refuses unknown arguments (the SDK drops them silently)."""

    def __init__(self, tool_list: list[Tool]) -> None:
        super().__init__(
            "context-doctor",
            instructions=INSTRUCTIONS,
            version=__version__,
            tools=tool_list,
            log_level="WARNING",  # a refused call is an answer, not news for the client's log
        )
        self._known = {tool.name: set(tool.parameters.get("properties", {})) for tool in tool_list}

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        known = self._known.get(name)
        if known is not None:
            unknown = sorted(set(arguments) - known)
            if unknown:
                raise ToolError(
                    f"tool `{name}` takes no argument {', '.join(map(repr, unknown))}; "
                    f"its arguments: {', '.join(sorted(known)) or 'none'}"
                )
        return await super().call_tool(name, arguments, context)


def build(*, allow_writes: bool) -> DoctorServer:
    tool_list: list[Tool] = []
    for function in READ_TOOLS + (WRITE_TOOLS if allow_writes else ()):
        tool = Tool.from_function(function, structured_output=function is not explain)
        tool.parameters["additionalProperties"] = False  # the schema says it too
        tool_list.append(tool)
    return DoctorServer(tool_list)


def serve(*, allow_writes: bool) -> None:
    build(allow_writes=allow_writes).run("stdio")
