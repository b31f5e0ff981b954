"""Human, concise, statistics and quiet renderings.

Colour comes from rich and only when the stream is a terminal; every piece of
user text (messages quote file contents) is added as plain ``Text`` so no
``[bracket]`` in a CONTEXT.md can be read as rich markup, and goes through
:func:`~context_doctor.render.escape.escape_text` so no control character in
it reaches the terminal.
"""

from __future__ import annotations

from collections import Counter
from itertools import groupby
from typing import IO

from rich.console import Console
from rich.text import Text

from context_doctor.findings import Finding, Severity
from context_doctor.render.escape import escape_text
from context_doctor.report import Report, plural

_LABEL = {Severity.DEFECT: ("FAIL", "bold red"), Severity.WARNING: ("warn", "yellow")}


def console_for(stream: IO[str]) -> Console:
    return Console(file=stream, highlight=False, soft_wrap=True, emoji=False)


def _location(finding: Finding) -> str:
    path = escape_text(finding.path)
    return path if finding.line is None else f"{path}:{finding.line}"


def verdict_line(report: Report) -> Text:
    verdict = report.verdict()
    style = {"HEALTHY": "bold green", "WARNINGS": "bold yellow", "DEFECTS": "bold red"}[verdict]
    line = Text(f"{verdict}:", style=style)
    line.append(
        f" {plural(report.defects, 'defect')}, {plural(report.warnings, 'warning')}"
        f" in {report.projects_with_findings} of {plural(report.projects_audited, 'project')} audited"
        f" ({plural(len(report.sources), 'source')}; readiness {report.readiness}; today {report.today})"
    )
    return line


def coverage_lines(report: Report) -> list[Text]:
    return [
        Text(escape_text(f"coverage {name}: {coverage.describe()}"), style="dim")
        for name, coverage in sorted(report.coverage.items())
        if coverage.skipped
    ]


def render_human(report: Report, console: Console) -> None:
    def project_key(finding: Finding) -> tuple[str, str]:
        return finding.source, finding.project or ""

    ordered = sorted(report.findings, key=lambda f: (project_key(f), f.sort_key()))
    for (source, project), group in groupby(ordered, key=project_key):
        console.print(
            Text(
                escape_text(f"{source} / {project}" if project else f"{source} (source-wide)"),
                style="bold",
            )
        )
        for finding in group:
            label, style = _LABEL[finding.severity]
            line = Text("  ")
            line.append(_location(finding), style="cyan")
            line.append("  ")
            line.append(label, style=style)
            line.append(f"  [{finding.check}] ", style="magenta")
            line.append(escape_text(finding.message))
            console.print(line)
            console.print(Text(f"      → {escape_text(finding.remedy)}", style="dim"))
        console.print()
    for summary in report.sources:
        if summary.unaudited_reason is not None:  # listed by console.yaml, never silently dropped
            note = f"source {summary.name}: not audited ({summary.unaudited_reason})"
            console.print(Text(escape_text(note), style="dim"))
    for line in coverage_lines(report):
        console.print(line)
    console.print(verdict_line(report))


def render_concise(report: Report, console: Console) -> None:
    for finding in report.findings:
        label, style = _LABEL[finding.severity]
        line = Text()
        line.append(_location(finding), style="cyan")
        line.append(": ")
        line.append(label, style=style)
        line.append(f" [{finding.check}] ", style="magenta")
        line.append(escape_text(finding.message))
        console.print(line)
    console.print(verdict_line(report))


def render_statistics(report: Report, console: Console) -> None:
    counts = Counter((finding.check, finding.severity) for finding in report.findings)
    for (check, severity), count in sorted(counts.items(), key=lambda item: (-item[1], item[0][0])):
        label, style = _LABEL[severity]
        line = Text(f"{count:>5}  ")
        line.append(label, style=style)
        line.append(f"  {check}")
        console.print(line)
    console.print(verdict_line(report))


def render_quiet(report: Report, console: Console) -> None:
    console.print(verdict_line(report))
