"""What the MCP tools do, without the MCP SDK: plain functions of plain arguments.

:mod:`context_doctor.mcp.server` publishes them over the protocol. Each returns
JSON-ready data or raises :class:`ToolFailure` with one line naming what went
wrong (an exit-2 condition, an unknown check, an edit refusal with its rule):
the server turns that into a tool error the agent reads, never a crash.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.guards.text import LINE_BREAK
from context_doctor.mcp.paths import PathRefused, resolve, writable_file, writable_project
from context_doctor.mcp.schemas import shown
from context_doctor.write import WriteRefused

# The doctor's run state (module caches, the collector pause) is per process: one tool
# call audits or writes at a time, whatever the client sends concurrently.
_ONE_AT_A_TIME = threading.Lock()


class ToolFailure(Exception):
    """A tool call that cannot answer; the message is the one line the agent sees."""


# The editor's and the writers' words for the CLI's flags, as an agent calls them: a refusal
# names the MCP parameter that would make it pass, never a flag the agent cannot give.
_PARAMETERS = {
    "--allow-header-lag": "overrides.allow_header_lag=true",
    "--allow-stale-body": "overrides.allow_stale_body=true",
    "--state-reviewed": "overrides.state_reviewed=true",
    "--allow-header-ahead": "overrides.allow_header_ahead=true",
    "--max-lines": "overrides.max_lines=",
    "--whole-value": "edits[].whole_value=true",
    "--count": "edits[].count=",
    "--field": "edits[].field=",
    "--value": "edits[].value=",
    "--anchor": "edits[].anchor=",
    "--replacement": "edits[].replacement=",
    "--text": "text=",
    "--title": "title=",
    "--set-header": "set_header=true",
    "--dry-run": "dry_run=true",
    "--today": "today=",
}
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)(?:(?: |=)(?=\S))?")
_KEYWORD = re.compile(
    r"\b(allow_header_lag|allow_stale_body|state_reviewed|allow_header_ahead)=True\b"
)
_EDIT_COMMAND = re.compile(r"context-doctor edit (set-field|replace|insert-before|delete-line) ")


def for_agent(text: str) -> str:
    """``text`` with the CLI's flags and edit commands named as the MCP tools take them."""

    def parameter(match: re.Match[str]) -> str:
        name = _PARAMETERS.get(match.group(1))
        if name is None:
            return match.group(0)
        separator = match.group(0)[len(match.group(1)) :]
        return name if name.endswith("=") else name + separator

    text = _EDIT_COMMAND.sub(lambda match: f"edit op={match.group(1)} file=", text)
    text = text.replace("context-doctor log add ", "log_add project=")
    text = _KEYWORD.sub(lambda match: f"overrides.{match.group(1)}=true", text)
    return _FLAG.sub(parameter, text)


def _one_line(text: str) -> str:
    return " ".join(text.split())


@contextmanager
def _answering() -> Iterator[None]:
    """One call at a time; every kind of failure as one line naming MCP parameters."""
    with _ONE_AT_A_TIME:
        try:
            yield
        except PathRefused as refused:
            raise ToolFailure(_one_line(str(refused))) from refused
        except DoctorError as error:
            raise ToolFailure(
                _one_line(for_agent(f"{error.problem} (remedy: {error.remedy})"))
            ) from error
        except WriteRefused as refused:
            line = getattr(refused, "one_line", None)
            text = line() if callable(line) else f"refused [{refused.rule}]: {refused.message}"
            raise ToolFailure(_one_line(f"context-doctor: {for_agent(text)}")) from refused
        except OSError as error:  # an over-long or unreachable path the checks above let by
            where = f" ({error.filename})" if error.filename else ""
            raise ToolFailure(
                _one_line(f"cannot use a path{where}: {error.strerror or error}")
            ) from error


def _day(value: str | None, name: str) -> date:
    if value is None:
        return date.today()
    try:
        if len(value) != 10:
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        raise ToolFailure(f"`{name}` must be a YYYY-MM-DD date, not {shown(value)}") from None


SEVERITIES = ("warning", "defect")  # min_severity: a defect is at least a warning
DEFAULT_MAX_FINDINGS = 50


def check(
    path: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    readiness: str = "local",
    today: str | None = None,
    *,
    min_severity: str = "warning",
    max_findings: int = DEFAULT_MAX_FINDINGS,
    include_coverage: bool = False,
    roots: Sequence[Path] = (),
) -> dict[str, Any]:
    """The docs/output.md JSON report of ``path``, cut to what the agent asked for (see :func:`trim`).

    ``path`` relative or missing: against the client's ``roots`` (a missing path with
    roots audits every root); without roots, as ``check`` does (the console.yaml sources,
    else the working directory). Never writes the report cache: an MCP call is not the
    corpus sweep.
    """
    from context_doctor.pipeline.audit import audit, require_something
    from context_doctor.pipeline.discover import discover

    if readiness not in ("local", "remote"):
        raise ToolFailure(f"`readiness` must be one of local, remote, not {shown(readiness)}")
    if min_severity not in SEVERITIES:
        raise ToolFailure(
            f"`min_severity` must be one of warning, defect, not {shown(min_severity)}"
        )
    if isinstance(max_findings, bool) or not isinstance(max_findings, int) or max_findings < 0:
        raise ToolFailure(
            f"`max_findings` must be a whole number, 0 or more, not {shown(max_findings)}"
        )
    day = _day(today, "today")
    with _answering():
        if path:
            sources: tuple[str, ...] = (str(resolve(path, roots, "path")),)
        else:
            sources = tuple(str(root) for root in roots)
        corpus = discover(sources, cache=True, audit=True)
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
    return trim(
        data,
        min_severity=min_severity,
        max_findings=max_findings,
        include_coverage=include_coverage,
    )


def trim(
    data: dict[str, Any], *, min_severity: str, max_findings: int, include_coverage: bool
) -> dict[str, Any]:
    """The report with only the findings and coverage the agent asked for, and an
    ``omitted`` object saying what was left out and how to ask for it.

    The counts (``defects``, ``warnings``, ``ok``, ``exit``) stay those of the whole
    audit: leaving a finding out of the answer never changes the verdict. Defects come
    before warnings when ``max_findings`` cuts, each in the report's order.
    """
    findings: list[dict[str, Any]] = data.get("findings", [])
    floor = SEVERITIES.index(min_severity)
    kept = [one for one in findings if SEVERITIES.index(_severity(one)) >= floor]
    below = len(findings) - len(kept)
    kept.sort(key=lambda one: -SEVERITIES.index(_severity(one)))  # stable: report order within
    over = max(0, len(kept) - max_findings)
    kept = kept[:max_findings]
    order = {id(one): index for index, one in enumerate(findings)}
    kept.sort(key=lambda one: order[id(one)])
    coverage: dict[str, Any] = data.get("coverage", {})
    trimmed = {**data, "findings": kept}
    left_coverage = 0 if include_coverage else len(coverage)
    if not include_coverage:
        trimmed["coverage"] = {}
    if below or over or left_coverage:
        why = []
        if below:
            why.append(f"{below} warning{'s' * (below != 1)} below min_severity={min_severity}")
        if over:
            why.append(
                f"{over} finding{'s' * (over != 1)} past max_findings={max_findings} "
                "(warnings first)"
            )
        if left_coverage:
            why.append(f"coverage of {left_coverage} checks (include_coverage=true shows it)")
        trimmed["omitted"] = {
            "findings": below + over,
            "coverage": left_coverage,
            "why": "left out: " + "; ".join(why),
        }
    return trimmed


def _severity(finding: Mapping[str, Any]) -> str:
    severity = finding.get("severity")
    return severity if severity in SEVERITIES else "defect"


def explain(name: str) -> str:
    """What check (or group) ``name`` means, why it matters, how to fix it, what skips it."""
    from context_doctor.checks.registry import load_checks, resolve_names
    from context_doctor.commands.explain import EXPLAIN_WIDTH, explain_text

    with _answering():
        registry = load_checks()
        names = resolve_names([name], registry, "the `name` argument")
    return "\n\n".join(explain_text(registry[item], width=EXPLAIN_WIDTH) for item in names)


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
    roots: Sequence[Path] = (),
    **gates: Any,
) -> dict[str, Any]:
    """Apply EDITS.json-shaped edits through the fail-closed editor: all files or none.

    Every ``file`` must be one the editor owns inside the repository it names
    (:mod:`context_doctor.mcp.paths`); a relative one resolves against the client's roots.
    ``gates``: ``max_lines``, ``allow_header_lag``, ``allow_stale_body``,
    ``state_reviewed``, ``allow_header_ahead`` (each an explicit claim).
    """
    from context_doctor import edit as editor

    with _answering():
        placed = []
        for number, one in enumerate(edits):
            raw = one.get("file")
            if not isinstance(raw, str):
                raise ToolFailure(f"`edits[{number}].file` must be a path (a string)")
            target = writable_file(raw, roots, f"edits[{number}].file")
            placed.append({**one, "file": str(target)})
        result = editor.apply(placed, dry_run=dry_run, **gates)
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
    roots: Sequence[Path] = (),
    **gates: Any,
) -> dict[str, Any]:
    """``log add``: a session entry in ``project``'s own log, in date order.

    The log is the project's layout's, as ``log add`` finds it (``commands/log.py``): the
    seed's ``sessions/YYYY-MM.md``, a layout's log folder or file, or the dated entries
    inside its context file. ``project`` must be a project inside the repository it
    names, and every file the call writes must resolve inside that repository
    (:mod:`context_doctor.mcp.paths`).
    """
    from context_doctor import edit as editor
    from context_doctor.commands.log import layout_place
    from context_doctor.editor.log import log_file, log_path
    from context_doctor.mcp.paths import project_directory, writable_log_files

    when = _day(day, "date")
    on = _day(today, "today")
    if LINE_BREAK.search(title) or not title.strip():
        raise ToolFailure("`title` must be one non-empty line")
    with _answering():
        directory, repository = project_directory(project, roots, "project")
        place = layout_place(directory) if directory.is_dir() else None
        if place is None:  # the seed's layout: the month file of sessions/
            month = log_path(Path("."), when).as_posix()
            directory = writable_project(project, roots, "project", month)
        else:
            written = [log_file(place, when), *([place.context] if set_header else [])]
            writable_log_files(project, "project", written, repository)
        entry = editor.LogEntry(directory, when, title, text, place)
        result = editor.add_entry(
            entry,
            today=on,
            set_header=set_header,
            gates=editor.Gates(**gates),
            dry_run=dry_run,
        )
    return _written(result, dry_run)
