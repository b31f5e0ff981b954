"""Provenance: agent attribution lines where the seed puts them, in the form it gives them."""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.hygiene import NO_LOG_FILES
from context_doctor.checks.registry import SEED_CHECKS, Context
from context_doctor.checks.structure import log_for
from context_doctor.model.attribution import REQUIRED_FIELDS
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "hygiene"

_FORMAT = "*Attribution — agent: … · model: … · effort: … · scope: … · verified: … · ref: …*"


@SEED_CHECKS.check(
    "attribution-placement",
    severity=Severity.WARNING,
    summary="a full attribution line sits in CONTEXT.md, REFERENCE.md or a reference topic",
    remedy="Move the attribution line to the session entry it belongs to in its month's log "
    "file in sessions/; CONTEXT.md may keep at most a short `(via Agent)` tag in its status line.",
    explanation="""
        Per-session agent provenance is episodic: its home is the session entry in
        `sessions/YYYY-MM.md`. A full `*Attribution — agent: …*` line in CONTEXT.md bloats
        working memory, and in REFERENCE.md or `reference/*.md` it turns stable facts into a
        log. CONTEXT.md may carry at most a short `(via Codex)`-style tag where agent identity
        changes how to read the state; that is never reported. Lines in code blocks are
        examples and are ignored. Applies to every project.""",
)
def attribution_placement(project: Project, ctx: Context) -> Iterator[Issue]:
    documents = [project.context, project.reference, *project.topics]
    for document in documents:
        if not document.exists or document.problem is not None:
            continue
        for attribution in project.attributions(document):
            if attribution.is_full:
                yield Issue(
                    f"full attribution line (agent: {attribution.fields['agent'][:40]}) in "
                    f"{document.path.name}: provenance belongs in sessions/",
                    document.rel_path,
                    attribution.line,
                    remedy="Move the line to the session entry it belongs to in "
                    f"{log_for(project, ctx.today)}; {document.path.name} may keep at most a "
                    "short `(via Agent)` tag.",
                )


@SEED_CHECKS.check(
    "attribution-format",
    severity=Severity.WARNING,
    skips=(NO_LOG_FILES,),
    summary="a session-log attribution line lacks a field, leaves one empty, or repeats one",
    remedy=f"Write the line as {_FORMAT}; write `unknown` (or `none` for verified) when a value "
    "is not known.",
    explanation="""
        An attribution line is a provenance claim a later reader may have to trust or
        re-check, so it carries all six fields: agent, model, effort, scope, verified, ref.
        `unknown` is the honest value for what was not explicitly known and is accepted (the
        seed demands it over a guess); an empty value, a missing field or a field given twice
        (which value is the claim?) is reported, one finding per line naming every problem.
        Lines in code blocks are examples and are ignored. Skipped for projects with no
        session-log file.""",
)
def attribution_format(project: Project, ctx: Context) -> Iterator[Issue]:
    for log in project.session_logs:
        if log.problem is not None:
            continue
        for attribution in project.attributions(log):
            problems: list[str] = []
            if attribution.missing:
                problems.append("missing " + ", ".join(attribution.missing))
            if attribution.empty:
                problems.append("empty " + ", ".join(attribution.empty))
            if attribution.duplicated:
                problems.append("repeated " + ", ".join(attribution.duplicated))
            if problems:
                yield Issue(
                    f"attribution line: {'; '.join(problems)} (fields: {', '.join(REQUIRED_FIELDS)})",
                    log.rel_path,
                    attribution.line,
                )
