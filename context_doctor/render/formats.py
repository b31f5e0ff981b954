"""The output formats, in one table: the CLI's choices, its help, the renderers, the exit-2 renderers.

Every renderer has one signature, ``render(report, options, stream)``: it writes the
whole rendering of ``report`` on ``stream``. A format with an error renderer also
says what happened on exit 2 (``render_error(problem, remedy) -> str``: a SARIF log
with ``executionSuccessful: false``, one ``::error::``, the JSON error object, GitLab's
``[]``); a
format without one leaves an exit 2 to the one line on stderr.

A new format is one entry here and a module beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from context_doctor.render.github import render_github, render_github_error
from context_doctor.render.gitlab import render_gitlab, render_gitlab_error
from context_doctor.render.jsonout import error_json, report_json
from context_doctor.render.sarif import render_sarif, render_sarif_error
from context_doctor.render.text import (
    console_for,
    render_concise,
    render_human,
    render_quiet,
    render_statistics,
)
from context_doctor.report import Report

if TYPE_CHECKING:
    from context_doctor.registry import CheckSpec


@dataclass(frozen=True)
class RenderOptions:
    """What a run asked of its rendering besides the format (the human formats read them)."""

    checks: list[CheckSpec]
    quiet: bool = False
    statistics: bool = False
    show_coverage: bool = False


Renderer = Callable[[Report, RenderOptions, IO[str]], None]
ErrorRenderer = Callable[[str, str], str]


@dataclass(frozen=True)
class OutputFormat:
    name: str
    help: str
    render: Renderer
    render_error: ErrorRenderer | None = None
    machine: bool = True  # a document for a program (stdout holds nothing else), not for a person


def _human(report: Report, options: RenderOptions, stream: IO[str]) -> None:
    # Only the human renderings build a rich console: a machine format never imports rich
    # (start-up time, #13).
    console = console_for(stream)
    if options.quiet:
        render_quiet(report, console)
    elif options.statistics:
        render_statistics(report, console)
    else:
        render_human(report, console, show_coverage=options.show_coverage)


def _concise(report: Report, options: RenderOptions, stream: IO[str]) -> None:
    console = console_for(stream)
    if options.quiet:
        render_quiet(report, console)
    elif options.statistics:
        render_statistics(report, console)
    else:
        render_concise(report, console)


def _document(text_of: Callable[[Report, RenderOptions], str]) -> Renderer:
    def render(report: Report, options: RenderOptions, stream: IO[str]) -> None:
        stream.write(text_of(report, options))

    return render


FORMATS: dict[str, OutputFormat] = {
    entry.name: entry
    for entry in (
        OutputFormat(
            "human", "findings grouped by project, coverage, verdict", _human, machine=False
        ),
        OutputFormat("concise", "one line per finding, then the verdict", _concise, machine=False),
        OutputFormat(
            "json",
            "the report (schemas/report.schema.json)",
            _document(lambda report, options: report_json(report)),
            error_json,
        ),
        OutputFormat(
            "sarif",
            "SARIF 2.1.0 for code scanning",
            _document(lambda report, options: render_sarif(report, options.checks)),
            render_sarif_error,
        ),
        OutputFormat(
            "github",
            "GitHub Actions annotations and job summary",
            _document(lambda report, options: render_github(report)),
            render_github_error,
        ),
        OutputFormat(
            "gitlab",
            "GitLab code quality (Code Climate JSON)",
            _document(lambda report, options: render_gitlab(report)),
            render_gitlab_error,
        ),
    )
}


def formats_help() -> str:
    """The ``--output-format`` help: every format with what it prints."""
    return "; ".join(f"{entry.name}: {entry.help}" for entry in FORMATS.values()) + "."
