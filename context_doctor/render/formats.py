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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from context_doctor.render.jsonout import error_json, report_json
from context_doctor.render.terminal import is_plain, stream_width
from context_doctor.render.text import (
    console_for,
    plain_verdict_line,
    render_concise,
    render_human,
    render_quiet,
    render_statistics,
)
from context_doctor.report.report import Report

if TYPE_CHECKING:
    from context_doctor.checks.registry import CheckSpec


@dataclass(frozen=True)
class RenderOptions:
    """What a run asked of its rendering besides the format (the human formats read them)."""

    checks: Sequence[CheckSpec]
    quiet: bool = False
    statistics: bool = False
    show_coverage: bool = False
    docs_url: str | None = None  # `[output] docs_url`: where SARIF's links lead (none unset)
    importance: bool = False  # human output: defects and the working-memory checks first


Renderer = Callable[[Report, RenderOptions, IO[str]], None]
ErrorRenderer = Callable[[str, str], str]


@dataclass(frozen=True)
class OutputFormat:
    name: str
    help: str
    render: Renderer
    render_error: ErrorRenderer | None = None
    machine: bool = True  # a document for a program (stdout holds nothing else), not for a person
    # Its exit-2 document is one of the doctor's own CI workflow commands (guards/escape.py).
    error_is_command: bool = False


def _human(report: Report, options: RenderOptions, stream: IO[str]) -> None:
    # Only the human renderings build a rich console: a machine format never imports rich
    # (start-up time), nor does the one plain line of --quiet on a pipe.
    if options.quiet and is_plain(stream):
        stream.write(plain_verdict_line(report))
        return
    console = console_for(stream)
    width = stream_width(stream)  # a terminal's; None into a pipe or a file: one line each
    if options.quiet:
        render_quiet(report, console, width=width)
    elif options.statistics:
        render_statistics(report, console, width=width)
    else:
        groups = {spec.name: spec.group for spec in options.checks} if options.importance else None
        render_human(
            report, console, show_coverage=options.show_coverage, width=width, groups=groups
        )


def _concise(report: Report, options: RenderOptions, stream: IO[str]) -> None:
    if options.quiet and is_plain(stream):
        stream.write(plain_verdict_line(report))
        return
    console = console_for(stream)
    width = stream_width(stream)
    if options.quiet:
        render_quiet(report, console, width=width)
    elif options.statistics:
        render_statistics(report, console, width=width)
    else:
        render_concise(report, console, width=width)


def _document(text_of: Callable[[Report, RenderOptions], str]) -> Renderer:
    def render(report: Report, options: RenderOptions, stream: IO[str]) -> None:
        stream.write(text_of(report, options))

    return render


# The CI formats' modules are imported when one is asked for: SARIF's rules need the
# check registry, which a replayed run otherwise never imports.
def _sarif(report: Report, options: RenderOptions) -> str:
    from context_doctor.render.sarif import render_sarif

    return render_sarif(report, options.checks, options.docs_url)


def _sarif_error(problem: str, remedy: str) -> str:
    from context_doctor.render.sarif import render_sarif_error

    return render_sarif_error(problem, remedy)


def _github(report: Report, options: RenderOptions, stream: IO[str]) -> None:
    from context_doctor.render.github import write_github

    write_github(report, stream)


def _github_error(problem: str, remedy: str) -> str:
    from context_doctor.render.github import render_github_error

    return render_github_error(problem, remedy)


def _gitlab(report: Report, options: RenderOptions) -> str:
    from context_doctor.render.gitlab import render_gitlab

    return render_gitlab(report)


def _gitlab_error(problem: str, remedy: str) -> str:
    from context_doctor.render.gitlab import render_gitlab_error

    return render_gitlab_error(problem, remedy)


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
            _document(_sarif),
            _sarif_error,
        ),
        OutputFormat(
            "github",
            "GitHub Actions annotations and job summary",
            _github,
            _github_error,
            error_is_command=True,
        ),
        OutputFormat(
            "gitlab",
            "GitLab code quality (Code Climate JSON)",
            _document(_gitlab),
            _gitlab_error,
        ),
    )
}


def formats_help() -> str:
    """The ``--output-format`` help: every format with what it prints."""
    return "; ".join(f"{entry.name}: {entry.help}" for entry in FORMATS.values()) + "."
