"""Human, concise, statistics and quiet renderings (docs/output.md).

Colour comes from rich and only when the stream is a terminal; every piece of
user text (messages quote file contents) is added as plain ``Text`` so no
``[bracket]`` in a CONTEXT.md can be read as rich markup, and goes through
:func:`~context_doctor.render.escape.escape_text` so no control character in
it reaches the terminal.

Locations are ``path:line:col`` (column 1: no check reports a column yet);
paths are relative to the current directory when the file lies below it, else
repository-relative.  The verdict line is always the last line.

Width: on a terminal every line of a human rendering (a finding, its remedy, coverage, the
verdict) wraps to the terminal's width with a hanging indent, between words and never
inside a backticked span (:mod:`context_doctor.render.wrapping`); into a pipe or a file
(``width`` None) each keeps one line, so ``grep`` finds a finding whole. ``concise`` keeps
one line a finding everywhere (editors' problem matchers read it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import groupby
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

from context_doctor.guards.escape import escape_text
from context_doctor.render.wrapping import break_line
from context_doctor.report.findings import Applicability, Finding, Severity
from context_doctor.report.report import Report, plural

_LABEL = {Severity.DEFECT: ("FAIL", "bold red"), Severity.WARNING: ("warn", "yellow")}
_CONCISE_LABEL = {Severity.DEFECT: "defect", Severity.WARNING: "warning"}
FINDING_INDENT = "      "  # a finding's continuation lines, under its check name's bracket
REMEDY_LEAD = "      → "
REMEDY_INDENT = "        "  # a remedy's continuation lines, under its first word
VERDICT_INDENT = "  "


# rich is imported on first use, not at import time: a JSON, SARIF, GitHub or GitLab
# run never needs it, and the import costs about 12 ms of start-up (the pre-push case).


def console_for(stream: IO[str]) -> Console:
    """A rich console on ``stream`` honouring ``--color``, ``NO_COLOR`` and a closed pipe."""
    from context_doctor.render.terminal import console_for as terminal_console

    return terminal_console(stream)


def _text(content: str = "", style: str = "") -> Text:
    """A rich ``Text`` holding ``content`` as plain text (never read as markup)."""
    from rich.text import Text  # a third-party import deferred for start-up time

    return Text(content, style=style)


def display_path(report: Report, finding: Finding, cwd: Path | None = None) -> str:
    """Relative to the current directory when the file lies below it, else repository-relative."""
    toplevel = report.toplevels.get(finding.source)
    if toplevel is None:
        return escape_text(finding.path)
    absolute = Path(toplevel) / finding.path
    here = cwd or Path.cwd()
    try:
        return escape_text(absolute.relative_to(here).as_posix() or ".")
    except ValueError:
        return escape_text(finding.path)


def location(report: Report, finding: Finding, *, whole_file_line: bool = False) -> str:
    """``path:line:col``; a whole-file finding is ``path`` (or ``path:1:1`` for matchers)."""
    path = display_path(report, finding)
    if finding.line is not None:
        return f"{path}:{finding.line}:1"
    return f"{path}:1:1" if whole_file_line else path


def verdict_text(report: Report) -> str:
    """The one-line verdict: counts, what was suppressed and which checks produced defects."""
    vaults = {s.name: s.memories for s in report.sources if s.memories is not None}
    if vaults:
        return _with_suppressions(report, _vault_verdict(report, vaults))
    where = (
        f"({plural(len(report.sources), 'source')}{_layout_clause(report)}; "
        f"readiness {report.readiness}; today {report.today})"
    )
    # One format, whatever the verdict: what was audited first, then the counts (never
    # "in 0 of 10 projects"; which projects have findings, the findings say).
    text = (
        f"{report.verdict()}: {plural(report.projects_audited, 'project')} audited, "
        f"{plural(report.defects, 'defect')}, {plural(report.warnings, 'warning')} {where}"
    )
    return _with_suppressions(report, text)


def _layout_clause(report: Report) -> str:
    """``; layout docs/STATUS.md, detected; 4 commits set aside by work_ignore`` for the one
    source of a run in a layout other than the seed's projects/ (docs/layouts.md)."""
    layouts = [s for s in report.sources if s.layout is not None]
    if len(report.sources) != 1 or not layouts:
        return ""
    source = layouts[0]
    clause = f"; layout {source.layout}"
    if source.set_aside:
        clause += (
            f"; {plural(source.set_aside, 'commit')} set aside as generated "
            "(work_ignore, bot authors)"
        )
    return clause


def _vault_verdict(report: Report, vaults: dict[str, int]) -> str:
    """The verdict's counts when memory vaults were audited: projects and memories apart."""
    in_vault = {(f.source, f.project) for f in report.findings if f.project and f.source in vaults}
    memories = sum(vaults.values())
    audited = []
    if report.projects_audited or len(report.sources) > len(vaults):
        audited.append(plural(report.projects_audited, "project"))
    audited.append(f"{memories} {'memory' if memories == 1 else 'memories'}")
    sources = len(report.sources) - len(vaults)
    where = ", ".join(
        ([plural(sources, "source")] if sources else []) + [plural(len(vaults), "vault")]
    )
    return (
        f"{report.verdict()}: {' and '.join(audited)} audited, "
        f"{plural(report.defects, 'defect')}, {plural(report.warnings, 'warning')} "
        f"({plural(len(in_vault), 'vault id')} with findings; {where}; readiness "
        f"{report.readiness}; today {report.today})"
    )


def _with_suppressions(report: Report, text: str) -> str:
    if report.suppressed_total:
        ways = ", ".join(f"{count} {way}" for way, count in report.suppressed.items() if count)
        text += f"; {report.suppressed_total} suppressed ({ways})"
    text += fixable_clause(report)
    defect_checks = report.defect_checks()
    if defect_checks:
        text += f"; defects from {', '.join(defect_checks)}"
    return text


def fixable_clause(report: Report) -> str:
    """How many findings ``--fix`` (and ``--unsafe-fixes``) would repair, for the verdict line."""
    safe = sum(1 for f in report.findings if f.fix and f.fix.applicability is Applicability.SAFE)
    unsafe = sum(
        1 for f in report.findings if f.fix and f.fix.applicability is Applicability.UNSAFE
    )
    if not safe and not unsafe:
        return ""
    if not safe:
        return f"; {unsafe} fixable with --fix --unsafe-fixes"
    more = f" ({unsafe} more with --unsafe-fixes)" if unsafe else ""
    return f"; [*] {safe} fixable with --fix{more}"


def verdict_line(report: Report) -> Text:
    verdict = report.verdict()
    style = {
        "HEALTHY": "bold green",
        "WARNINGS": "bold yellow",
        "INCOMPLETE": "bold red",
        "DEFECTS": "bold red",
    }[verdict]
    line = _text(f"{verdict}:", style=style)
    line.append(_after_verdict(report, verdict))
    return line


def _after_verdict(report: Report, verdict: str) -> str:
    return escape_text(verdict_text(report))[len(verdict) + 1 :]


def plain_verdict_line(report: Report) -> str:
    """:func:`verdict_line` as the text rich writes on a stream with no escapes."""
    verdict = report.verdict()
    return f"{verdict}:{_after_verdict(report, verdict)}\n"


def compact_coverage(report: Report, *, one_line: bool = False) -> list[str]:
    """Every check that skipped anything, grouped by identical counts and reasons (docs/output.md).

    Checks with the same examined/skipped counts and reasons share one line
    (``coverage item-currency, sessions-present: examined 41, skipped 31 (31 dormant)``);
    the checks that skipped nothing are summed in one line. Every skip is accounted for
    without a flag: never "and N more". ``one_line`` (a run with no finding): all of it in
    one line, the checks that skipped nothing first
    (``coverage: 27 checks skipped nothing; branch-not-ready: examined 0, …``), so that a
    healthy repository reads as its verdict and one line of what stood behind it.
    """
    groups: dict[str, list[str]] = {}
    skipped: dict[str, int] = {}
    complete = 0
    for name, cov in sorted(report.coverage.items()):
        if not cov.listed:  # nothing to examine, or shapes only (see --show-coverage)
            continue
        if not cov.skipped:
            complete += 1
            continue
        described = cov.describe()
        groups.setdefault(described, []).append(name)
        skipped[described] = cov.skipped
    # The most-skipped first: the checks that saw least of the corpus lead.
    ordered = sorted(groups.items(), key=lambda item: (-skipped[item[0]], item[1][0]))
    if one_line:
        parts = [f"{plural(complete, 'check')} skipped nothing"] if complete else []
        parts += [f"{', '.join(names)}: {described}" for described, names in ordered]
        return [f"coverage: {'; '.join(parts)}"] if parts else []
    lines = [f"coverage {', '.join(names)}: {described}" for described, names in ordered]
    if complete:
        others = plural(complete, "other check" if groups else "check")
        lines.append(f"coverage: {others} skipped nothing")
    return lines


def _fix_marker(finding: Finding) -> str:
    """``[*]`` on a finding ``check --fix`` repairs (ruff's marker); unsafe fixes are not marked."""
    fix = finding.fix
    return "[*] " if fix is not None and fix.applicability is Applicability.SAFE else ""


def full_coverage(report: Report) -> list[str]:
    """``--show-coverage``: one line per check that ran, with the reasons it skipped, then
    one line per check some projects are not the shape for (docs/checks.md: counted, shown
    here only). A check with nothing at all to examine has no line."""
    lines = [
        f"coverage {name}: {cov.describe()}"
        for name, cov in sorted(report.coverage.items())
        if cov.listed
    ]
    return lines + [
        f"not applicable {name}: {cov.describe_not_applicable()}"
        for name, cov in sorted(report.coverage.items())
        if cov.not_applicable
    ]


def coverage_lines(
    report: Report, *, show_all: bool = False, width: int | None = None
) -> list[Text]:
    """The coverage lines as printed: wrapped to ``width`` (None: one line each)."""
    if show_all:
        lines = full_coverage(report)
    else:
        lines = compact_coverage(report, one_line=not report.findings)
    return [
        part
        for line in lines
        for part in fitted(_text(escape_text(line), style="dim"), width, COVERAGE_INDENT)
    ]


COVERAGE_INDENT = "  "


def fitted(line: Text, width: int | None, subsequent: str) -> list[Text]:
    """``line`` as the lines it takes at ``width`` (render/wrapping.py), styles kept."""
    pieces = break_line(line.plain, width, subsequent)
    if len(pieces) == 1 and not pieces[0].indent and not pieces[0].suffix:
        return [line[pieces[0].start : pieces[0].end]] if pieces[0].end < len(line) else [line]
    parts = []
    for piece in pieces:
        part = _text(piece.indent)
        part.append_text(line[piece.start : piece.end])
        if piece.suffix:
            part.append(piece.suffix)
        parts.append(part)
    return parts


def _print(console: Console, line: Text, width: int | None, subsequent: str) -> None:
    for part in fitted(line, width, subsequent):
        console.print(part)


def heading(source: str, project: str) -> str:
    """A group's heading: the project once when it is its own repository (a single-project
    layout names its one project after the source), ``(source-wide)`` for the source."""
    if not project:
        return f"{source} (source-wide)"
    return source if project == source else f"{source} / {project}"


LATER_FAMILIES = frozenset({"freshness-grades", "suppression", "memory-vault"})
"""Check groups after the working-memory family when findings go most important first."""


def _by_importance(
    blocks: list[tuple[tuple[str, str], list[Finding]]], groups: Mapping[str, str]
) -> list[tuple[tuple[str, str], list[Finding]]]:
    """Defects first, then the working-memory family, then the rest: the blocks with a
    defect lead, those of the later families (the grades, the baseline) come last, and
    inside a block defects precede warnings (each kept in path order)."""

    def family(finding: Finding) -> int:
        return 1 if groups.get(finding.check, "") in LATER_FAMILIES else 0

    def rank(finding: Finding) -> tuple[int, int]:
        return (0 if finding.severity is Severity.DEFECT else 1, family(finding))

    ranked = [(key, sorted(block, key=rank)) for key, block in blocks]
    return sorted(ranked, key=lambda item: (min(map(rank, item[1])), item[0]))


def render_human(
    report: Report,
    console: Console,
    *,
    show_coverage: bool = False,
    width: int | None = None,
    groups: Mapping[str, str] | None = None,
) -> None:
    """Findings by project, the unaudited sources, coverage, the verdict; wrapped to
    ``width`` (None: into a pipe, one line each). With ``groups`` (each check's group) the
    findings go most important first (:func:`_by_importance`: the demo), else by path."""

    def project_key(finding: Finding) -> tuple[str, str]:
        return finding.source, finding.project or ""

    ordered = sorted(report.findings, key=lambda f: (project_key(f), f.sort_key()))
    blocks = [(key, list(block)) for key, block in groupby(ordered, key=project_key)]
    if groups is not None:
        blocks = _by_importance(blocks, groups)
    for (source, project), group in blocks:
        _print(console, _text(escape_text(heading(source, project)), style="bold"), width, "  ")
        for finding in group:
            label, style = _LABEL[finding.severity]
            line = _text("  ")
            line.append(location(report, finding), style="cyan")
            line.append("  ")
            line.append(label, style=style)
            line.append(f"  [{finding.check}] ", style="magenta")
            line.append(_fix_marker(finding))
            line.append(escape_text(finding.message))
            _print(console, line, width, FINDING_INDENT)
            remedy = _text(f"{REMEDY_LEAD}{escape_text(finding.remedy)}", style="dim")
            _print(console, remedy, width, REMEDY_INDENT)
        console.print()
    for summary in report.sources:
        if summary.unaudited_reason is not None:  # listed by console.yaml, never silently dropped
            note = f"source {summary.name}: not audited ({summary.unaudited_reason})"
            _print(console, _text(escape_text(note), style="dim"), width, "  ")
    for text in coverage_lines(report, show_all=show_coverage, width=width):
        console.print(text)
    _print(console, verdict_line(report), width, VERDICT_INDENT)


def render_concise(report: Report, console: Console, *, width: int | None = None) -> None:
    """ruff-style: ``path:line:col: SEVERITY check message``, one line a finding (at any
    width: an editor's problem matcher reads it), then the verdict (wrapped)."""
    for finding in report.findings:
        _, style = _LABEL[finding.severity]
        line = _text()
        line.append(location(report, finding, whole_file_line=True), style="cyan")
        line.append(": ")
        line.append(_CONCISE_LABEL[finding.severity], style=style)
        line.append(f" {finding.check} ", style="magenta")
        line.append(_fix_marker(finding))
        line.append(escape_text(finding.message))
        console.print(line)
    _print(console, verdict_line(report), width, VERDICT_INDENT)


def render_statistics(report: Report, console: Console, *, width: int | None = None) -> None:
    counts = Counter((finding.check, finding.severity) for finding in report.findings)
    for (check, severity), count in sorted(counts.items(), key=lambda item: (-item[1], item[0][0])):
        label, style = _LABEL[severity]
        line = _text(f"{count:>5}  ")
        line.append(label, style=style)
        line.append(f"  {check}")
        console.print(line)
    _print(console, verdict_line(report), width, VERDICT_INDENT)


def render_quiet(report: Report, console: Console, *, width: int | None = None) -> None:
    _print(console, verdict_line(report), width, VERDICT_INDENT)
