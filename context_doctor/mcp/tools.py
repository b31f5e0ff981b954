"""What the MCP tools do, without the MCP SDK: plain functions of plain arguments.

:mod:`context_doctor.mcp.server` publishes them over the protocol. Each returns
JSON-ready data or raises :class:`ToolFailure` with one line naming what went
wrong (an exit-2 condition, an unknown check, an edit refusal with its rule):
the server turns that into a tool error the agent reads, never a crash.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.write import WriteRefused

# The doctor's run state (module caches, the collector pause) is per process: one tool
# call audits or writes at a time, whatever the client sends concurrently.
_ONE_AT_A_TIME = threading.Lock()


class ToolFailure(Exception):
    """A tool call that cannot answer; the message is the one line the agent sees."""


@contextmanager
def _answering() -> Iterator[None]:
    """One call at a time; the doctor's two kinds of failure as one line each."""
    with _ONE_AT_A_TIME:
        try:
            yield
        except DoctorError as error:
            raise ToolFailure(f"{error.problem} (remedy: {error.remedy})") from error
        except WriteRefused as refused:
            line = getattr(refused, "one_line", None)
            text = line() if callable(line) else f"refused [{refused.rule}]: {refused.message}"
            raise ToolFailure(f"context-doctor: {text}") from refused


def _day(value: str | None, name: str) -> date:
    if value is None:
        return date.today()
    try:
        if len(value) != 10:
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        raise ToolFailure(f"`{name}` must be a YYYY-MM-DD date, not {value!r}") from None


def check(
    path: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    readiness: str = "local",
    today: str | None = None,
) -> dict[str, Any]:
    """The §3 JSON report of ``path`` (default: the console.yaml sources, else the working
    directory). Never writes the report cache: an MCP call is not the corpus sweep."""
    from context_doctor.audit import audit, require_something
    from context_doctor.discover import discover

    if readiness not in ("local", "remote"):
        raise ToolFailure(f"`readiness` must be `local` or `remote`, not {readiness!r}")
    day = _day(today, "today")
    with _answering():
        corpus = discover((path,) if path else (), cache=True, audit=True)
        report, _settings, _checks = audit(
            corpus,
            today=day,
            readiness=readiness,
            select=list(select),
            ignore=list(ignore),
            config=None,
            jobs=1,  # no worker processes forked from a threaded server
            replayable=True,
        )
        require_something(corpus, report)
    data: dict[str, Any] = report.to_json()
    data.setdefault("exit", 0 if data.get("ok") else 1)
    return data


def explain(name: str) -> str:
    """What check (or group) ``name`` means, why it matters, how to fix it, what skips it."""
    from context_doctor.commands.explain import explain_text
    from context_doctor.registry import load_checks, resolve_names

    with _answering():
        registry = load_checks()
        names = resolve_names([name], registry, "the `name` argument")
    return "\n\n".join(explain_text(registry[item]) for item in names)


def status(cache: str | None = None) -> dict[str, Any]:
    """The cached corpus report's counts and age, as ``context-doctor status --json``."""
    from context_doctor.commands.status import read_status

    return read_status(Path(cache) if cache else None).to_json()


def _written(result: Any, dry_run: bool) -> dict[str, Any]:
    return {
        "written": bool(result.written) and not dry_run,
        "dry_run": dry_run,
        "files": [
            {"path": str(one.path), "written": one.written, "body_state": one.body_state}
            for one in result.files
        ],
        "diff": result.diff(),
    }


def edit(
    edits: Sequence[Mapping[str, Any]],
    *,
    dry_run: bool = False,
    **gates: Any,
) -> dict[str, Any]:
    """Apply EDITS.json-shaped edits through the fail-closed editor: all files or none.

    ``gates``: ``max_lines``, ``allow_header_lag``, ``allow_stale_body``,
    ``state_reviewed``, ``allow_header_ahead`` (each an explicit claim).
    """
    from context_doctor import edit as editor

    with _answering():
        result = editor.apply(list(edits), dry_run=dry_run, **gates)
    return _written(result, dry_run)


def log_add(
    project: str,
    day: str,
    title: str,
    *,
    text: str = "",
    set_header: bool = False,
    today: str | None = None,
    dry_run: bool = False,
    **gates: Any,
) -> dict[str, Any]:
    """``log add``: a session entry in ``project``'s ``sessions/YYYY-MM.md``, in date order."""
    from context_doctor import edit as editor

    entry = editor.LogEntry(Path(project), _day(day, "date"), title, text)
    with _answering():
        result = editor.add_entry(
            entry,
            today=_day(today, "today"),
            set_header=set_header,
            gates=editor.Gates(**gates),
            dry_run=dry_run,
        )
    return _written(result, dry_run)
