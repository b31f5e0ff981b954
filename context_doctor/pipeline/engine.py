"""The engine: every selected check on every project, examined or skipped with a reason.

Coverage is recorded here and only here, so no check can forget it: before a
check sees a project the engine asks its own gate (is there a readable
CONTEXT.md at all?) and then the check's skip rules; a check that trips over
an unreadable file mid-way is counted as skipped (``unreadable``) and its
partial findings are dropped, because ``record-unreadable`` reports the file.
A skip rule that is a shape (``SkipRule.shape``) counts the project as not
applicable instead of skipped (docs/checks.md): coverage shows gates, not shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from context_doctor.checks.registry import CheckSpec, Context
from context_doctor.errors import HistoryUnavailable, Unreadable, Unverifiable
from context_doctor.freshness import summarize
from context_doctor.freshness.grades import graded_files
from context_doctor.layouts import SEED
from context_doctor.model.project import Project
from context_doctor.model.source import Corpus, Source
from context_doctor.report.findings import Finding, Issue, Severity, Unverified
from context_doctor.report.report import Coverage, Report, SourceSummary

if TYPE_CHECKING:  # the vault modules load only when a vault is audited
    from context_doctor.vault.model import Vault

_CONTEXT_GATE = -1  # the memo's key for the engine's own gate (rules are keyed by id)
_UNASKED = object()


def _context_gate(project: Project) -> str | None:
    """Is there a readable, non-empty CONTEXT.md at all? (asked before any check needing it)"""
    if not project.directory_exists or not project.context.exists:
        return "no CONTEXT.md"
    if project.context.problem is not None:
        return "unreadable"
    if project.context.is_blank:
        return "empty CONTEXT.md"
    return None


def _gate(
    spec: CheckSpec, project: Project, ctx: Context, memo: dict[int, str | bool | None]
) -> tuple[str, bool] | None:
    """The engine's gate, then the check's skip rules in order: the first reason that applies.

    ``memo`` holds what was already asked of this project (the gate and each skip rule,
    by identity): 38 checks share a handful of rules, and a rule's answer is a property
    of the project, so it is asked once per project, in the order the checks first ask
    it.  An answer that raised is not kept: the next check asks again and gets
    the same exception, as before.
    """
    if spec.needs_context:
        reason = memo.get(_CONTEXT_GATE, _UNASKED)
        if reason is _UNASKED:
            reason = memo[_CONTEXT_GATE] = _context_gate(project)
        if isinstance(reason, str):
            return reason, False
    for rule in spec.skips:
        matches = memo.get(id(rule), _UNASKED)
        if matches is _UNASKED:
            matches = memo[id(rule)] = rule.applies(project, ctx)
        if matches:
            return rule.reason, rule.shape
    return None


def _stamp(
    spec: CheckSpec, issues: Iterable[Issue], source: str, project: str | None, ctx: Context
) -> list[Finding]:
    override = ctx.settings.severity.get(spec.name)
    return [
        Finding(
            check=spec.name,
            severity=override or issue.severity or spec.severity,
            source=source,
            # A source-wide part may name the project a file lies in (an instruction file
            # inside a project's folder): the finding is that project's.
            project=project if project is not None else issue.unit,
            path=issue.path,
            line=issue.line,
            message=issue.message,
            remedy=issue.remedy or spec.remedy,
            fix=issue.fix,
        )
        for issue in issues
    ]


UNVERIFIABLE = "freshness-unverifiable"
SHALLOW_REMEDY = "Fetch full history (`git fetch --unshallow`, or `fetch-depth: 0` in CI)."


def _run_one(
    spec: CheckSpec,
    project: Project,
    ctx: Context,
    coverage: Coverage,
    selected: set[str],
    memo: dict[int, str | bool | None],
) -> list[Finding]:
    try:
        held = _gate(spec, project, ctx, memo)
        if held is not None:
            reason, shape = held
            coverage.skip(reason, shape=shape)
            return []
        issues = list(spec.function(project, ctx))
    except Unreadable:
        coverage.skip("unreadable")
        return []
    except HistoryUnavailable as gap:
        # The check was not answered: count it as skipped and say so as a finding.
        coverage.skip("history unavailable")
        if UNVERIFIABLE not in selected or spec.name == UNVERIFIABLE:
            return []
        return [
            Finding(
                check=UNVERIFIABLE,
                severity=ctx.settings.severity.get(UNVERIFIABLE, Severity.WARNING),
                source=project.source.name,
                project=project.id,
                path=project.context.rel_path,
                line=None,
                message=f"{spec.name} could not be verified: {gap.reason}",
                remedy=SHALLOW_REMEDY,
            )
        ]
    except Unverifiable as gap:
        issues = [
            Issue(
                f"could not be verified: {gap.reason}",
                gap.path or project.context.rel_path,
                gap.line,
                severity=Severity.WARNING,
            )
        ]
    coverage.examined += 1
    if not issues:  # most checks find nothing on most projects
        return []
    return _stamp(spec, issues, project.source.name, project.id, ctx)


def _run_source_part(
    spec: CheckSpec,
    function: Callable[[Source, Context], Iterable[Issue]],
    source: Source,
    ctx: Context,
    coverage: Coverage | None,
) -> list[Finding]:
    """A check's source- or repository-wide part, accounted like a project check.

    ``coverage`` is None for the source part of a project check (its projects
    are counted by the project part).
    """
    units = 1
    if coverage is not None and spec.units is not None:
        units = spec.units(source, ctx)
    rule = spec.source_skip_rule(source, ctx)
    if rule is not None:
        if coverage is not None:
            coverage.skip(rule.reason, units, shape=rule.shape)
        return []
    try:
        issues = list(function(source, ctx))
    except (Unreadable, HistoryUnavailable) as gap:
        if coverage is not None:
            reason = "unreadable" if isinstance(gap, Unreadable) else "history unavailable"
            coverage.skip(reason, units)
        return []
    except Unverifiable as gap:
        issues = [
            Issue(
                f"could not be verified: {gap.reason}",
                gap.path or source.index_rel_path,
                gap.line,
                severity=Severity.WARNING,
            )
        ]
    if coverage is not None:
        coverage.examined += units
    return _stamp(spec, issues, source.name, None, ctx)


def _run_vault_check(
    spec: CheckSpec, vault: Vault, ctx: Context, coverage: Coverage
) -> list[Finding]:
    """A memory-vault check over one vault (docs/vaults.md): its units examined, or skipped by reason.

    A whole-vault skip (no git, no log, no floors) counts every unit under its reason;
    the units a check could not answer (a shape the doctor does not know) come back as
    :class:`Unverified` and are counted the same way, never as findings.
    """
    assert spec.vault_function is not None and spec.vault_units is not None
    units = spec.vault_units(vault)
    rule = spec.vault_skip_rule(vault)
    if rule is not None:
        coverage.skip(rule.reason, units, shape=rule.shape)
        return []
    issues: list[Issue] = []
    unanswered = 0
    for result in spec.vault_function(vault, ctx):
        if isinstance(result, Unverified):
            coverage.skip(result.reason, result.count)
            unanswered += result.count
        else:
            issues.append(result)
    coverage.examined += max(0, units - unanswered)
    override = ctx.settings.severity.get(spec.name)
    return [
        Finding(
            check=spec.name,
            severity=override or issue.severity or spec.severity,
            source=vault.name,
            project=issue.unit,
            path=issue.path,
            line=issue.line,
            message=issue.message,
            remedy=issue.remedy or spec.remedy,
        )
        for issue in issues
    ]


def run(
    corpus: Corpus, checks: list[CheckSpec], ctx: Context, *, now: datetime | None = None
) -> Report:
    coverage = {spec.name: Coverage() for spec in checks}
    selected = {spec.name for spec in checks}
    findings: list[Finding] = []
    project_checks = [spec for spec in checks if spec.scope == "project"]
    repositories_seen: set[object] = set()
    for source in corpus.sources:
        first_in_repository = source.repository.toplevel not in repositories_seen
        repositories_seen.add(source.repository.toplevel)
        for spec in checks:
            if spec.source_function is not None and spec.units is None:
                findings += _run_source_part(spec, spec.source_function, source, ctx, None)
            elif spec.source_function is not None and first_in_repository:
                # A project check whose repository-wide part counts units of its own (the
                # instruction files reference-missing reads, docs/references.md): asked once
                # per repository, and counted in its coverage.
                findings += _run_source_part(
                    spec, spec.source_function, source, ctx, coverage[spec.name]
                )
            if spec.scoped_function is None:
                continue
            if (spec.scope == "repository" and first_in_repository) or spec.scope == "source":
                findings += _run_source_part(
                    spec, spec.scoped_function, source, ctx, coverage[spec.name]
                )
        for project in source.projects:
            memo: dict[
                int, str | bool | None
            ] = {}  # the gate's and the skip rules' answers, per project
            for spec in project_checks:
                findings += _run_one(spec, project, ctx, coverage[spec.name], selected, memo)
            # Its documents' decoded facts go: one project's at a time, not the corpus's.
            for document in project.tier_documents():
                document.release()
            project.release()
    vault_checks = [spec for spec in checks if spec.scope == "vault"]
    for vault in corpus.vaults:
        for spec in vault_checks:
            findings += _run_vault_check(spec, vault, ctx, coverage[spec.name])
    findings.sort(key=Finding.sort_key)
    graded = [item for source in corpus.sources for item in graded_files(source, ctx.today)]
    stamped = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    return Report(
        today=ctx.today,
        readiness=ctx.readiness,
        generated_at=stamped,
        sources=[
            SourceSummary(
                s.name,
                str(s.root),
                s.projects_dir,
                len(s.projects),
                layout=None if s.layout.kind == SEED else f"{s.layout.context}, {s.layout.how}",
                set_aside=sum(project.set_aside for project in s.projects),
            )
            for s in corpus.sources
        ]
        + [
            SourceSummary(u.name, u.root, None, 0, u.reason, error=u.error)
            for u in corpus.unaudited
        ]
        + [
            SourceSummary(v.name, str(v.root), None, 0, memories=len(v.memories))
            for v in corpus.vaults
        ],
        projects_audited=len(corpus.projects),
        findings=findings,
        coverage=coverage,
        projects_with_findings=len({(f.source, f.project) for f in findings if f.project}),
        freshness=summarize(graded) if graded else None,
        toplevels={
            **{v.name: str(v.base) for v in corpus.vaults},
            **{s.name: str(s.repository.toplevel) for s in corpus.sources},
        },
    )
