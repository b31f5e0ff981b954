"""GitHub Actions: workflow-command annotations and a job-summary table.

GitHub shows at most 10 annotations of a kind (error, warning) per step and drops
the rest without a word. So the defects come first (``::error``), then the
warnings, each in the report's order, at most :data:`ANNOTATIONS_PER_KIND` of
each; past that one ``::notice::`` says how many more there are and that the step
summary (``$GITHUB_STEP_SUMMARY``, which lists every finding) holds them.
"""

from __future__ import annotations

import re
from typing import IO

from context_doctor.guards.escape import escape_text, write_command
from context_doctor.render.text import verdict_text
from context_doctor.report.findings import Finding, Severity
from context_doctor.report.report import Report, plural

_COMMAND = {Severity.DEFECT: "error", Severity.WARNING: "warning"}
ANNOTATIONS_PER_KIND = 10  # GitHub's limit per step for error and for warning annotations


def _escape_data(text: str) -> str:
    """A workflow-command value: GitHub's escapes for line breaks, every other control inert."""
    return escape_text(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding) -> str:
    properties = [f"file={_escape_property(finding.path)}"]
    if finding.line is not None:
        properties.append(f"line={finding.line}")
    properties.append(f"title={_escape_property(f'context-doctor {finding.check}')}")
    body = _escape_data(f"{finding.message} (remedy: {finding.remedy})")
    return f"::{_COMMAND[finding.severity]} {','.join(properties)}::{body}"


def _error_command(problem: str, remedy: str) -> str:
    return f"::error::{_escape_data(f'context-doctor: {problem} (remedy: {remedy})')}"


def render_github(report: Report) -> str:
    return "".join(line for _, line in github_lines(report))


def write_github(report: Report, stream: IO[str]) -> None:
    """The GitHub format on ``stream``: its annotations as the doctor's own commands."""
    for command, line in github_lines(report):
        if command:
            write_command(stream, line)
        else:
            stream.write(line)


def github_lines(report: Report) -> list[tuple[bool, str]]:
    """Each line of the GitHub format (with its newline), and whether it is a command."""
    lines: list[str] = []
    left: dict[Severity, int] = {}
    for severity in (Severity.DEFECT, Severity.WARNING):
        found = [finding for finding in report.findings if finding.severity is severity]
        lines += [annotation(finding) for finding in found[:ANNOTATIONS_PER_KIND]]
        left[severity] = max(0, len(found) - ANNOTATIONS_PER_KIND)
    if any(left.values()):
        more = " and ".join(
            plural(count, "more " + ("defect" if severity is Severity.DEFECT else "warning"))
            for severity, count in left.items()
            if count
        )
        lines.append(
            f"::notice title=context-doctor::{more} (GitHub shows "
            f"{ANNOTATIONS_PER_KIND} annotations of a kind per step): every finding is in "
            "the step summary"
        )
    unreachable = report.unreachable_error()
    if unreachable is not None:
        # A partial sweep exits 2: the job log says which sources went unaudited (docs/output.md).
        lines.append(_error_command(*unreachable))
    return [(True, f"{line}\n") for line in lines] + [(False, f"{verdict_text(report)}\n")]


def render_github_error(problem: str, remedy: str) -> str:
    """A run that exits 2: one ``::error::`` workflow command (docs/output.md)."""
    return _error_command(problem, remedy) + "\n"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|~])")


def _cell(text: str) -> str:
    """User text as inert Markdown: no control character, and no link, image, HTML or span."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escape_text(text))


def _code(text: str) -> str:
    """User text as one code span whatever backticks it holds (fenced by a longer run)."""
    shown = escape_text(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", shown)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {shown} {fence}" if longest else f"`{shown}`"


def step_summary(report: Report) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``."""
    out = [
        "## context-doctor",
        "",
        f"**{report.verdict()}**: {plural(report.projects_audited, 'project')} audited, "
        f"{plural(report.defects, 'defect')}, {plural(report.warnings, 'warning')} "
        f"(readiness `{report.readiness}`, today {report.today}).",
        "",
    ]
    if report.unreachable:
        out += ["**Not audited** (the run exits 2; the rest was audited):", ""]
        out += [
            f"- source {_code(source.name)}: {_cell(source.error or source.root)}"
            for source in report.unreachable
        ]
        out.append("")
    if report.findings:
        out += ["| severity | check | location | message |", "|---|---|---|---|"]
        for finding in report.findings:
            where = finding.path if finding.line is None else f"{finding.path}:{finding.line}"
            out.append(
                f"| {finding.severity.value} | `{finding.check}` | {_code(where)} | "
                f"{_cell(finding.message)} |"
            )
        out.append("")
    skipped = [(name, cov) for name, cov in sorted(report.coverage.items()) if cov.skipped]
    if skipped:
        out += ["<details><summary>Coverage</summary>", ""]
        out += [f"- `{name}`: {cov.describe()}" for name, cov in skipped]
        out += ["", "</details>", ""]
    return "\n".join(out)
