"""The check registry: a decorator for authors, entry points for discovery.

A check is metadata plus one function ``(project, ctx) -> Iterable[Issue]``.
It never reads files or runs git; everything it needs is on the project
model.  Modules are found through the ``context_doctor.checks`` entry-point
group, so a third-party package adds checks exactly the way the built-ins do.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from context_doctor.errors import DoctorError
from context_doctor.findings import Issue, Severity

if TYPE_CHECKING:
    from context_doctor.config import Settings
    from context_doctor.model.project import Project
    from context_doctor.model.source import Source

ENTRY_POINT_GROUP = "context_doctor.checks"
BUILTIN_MODULES = (
    "context_doctor.checks.structure",
    "context_doctor.checks.budgets",
    "context_doctor.checks.reference_shard",
    "context_doctor.checks.cross_tier",
    "context_doctor.checks.status_vocabulary",
    "context_doctor.checks.session_freshness",
    "context_doctor.checks.currency",
    "context_doctor.checks.terminal",
    "context_doctor.checks.durability",
    "context_doctor.checks.conflict_markers",
    "context_doctor.checks.freshness_grades",
    "context_doctor.checks.current_state",
    "context_doctor.checks.artifacts",
    "context_doctor.checks.suppressions",
    "context_doctor.checks.hygiene",
    "context_doctor.checks.provenance",
    "context_doctor.checks.secrets",
)


# Groups are the headings of SPEC §2; `--select`/`--ignore` accept them as names.
GROUPS: dict[str, str] = {
    "structure": "tier structure and budgets",
    "lifecycle": "cross-tier agreement and lifecycle",
    "freshness": "session freshness",
    "currency": "header, body and item currency",
    "terminal": "terminal projects",
    "durability": "durability and readiness",
    "state": "structured state and artifacts",
    "hygiene": "hygiene, provenance and secrets",
    "grades": "freshness grades (pai-freshness-v1)",
    "suppression": "suppressions and the baseline",
}
# A check's group, by the built-in module that defines it (a check may also name its own).
MODULE_GROUPS = {
    "structure": "structure",
    "budgets": "structure",
    "reference_shard": "structure",
    "cross_tier": "lifecycle",
    "status_vocabulary": "lifecycle",
    "session_freshness": "freshness",
    "currency": "currency",
    "terminal": "terminal",
    "durability": "durability",
    "current_state": "state",
    "artifacts": "state",
    "hygiene": "hygiene",
    "conflict_markers": "hygiene",
    "provenance": "hygiene",
    "secrets": "hygiene",
    "freshness_grades": "grades",
    "suppressions": "suppression",
}
PLUGIN_GROUP = "plugin"


def group_of_module(module: str) -> str:
    """The group of a check defined in ``module`` (third-party checks: ``plugin``)."""
    if not module.startswith("context_doctor.checks."):
        return PLUGIN_GROUP
    return MODULE_GROUPS.get(module.rsplit(".", 1)[-1], PLUGIN_GROUP)


@dataclass(frozen=True)
class Context:
    """What a check may know besides the project: the date and the settings."""

    today: date
    readiness: str
    settings: Settings


@dataclass(frozen=True)
class SkipRule:
    """A reason a check does not apply to a project, counted in coverage."""

    reason: str
    description: str
    matches: Callable[[Project], bool]
    # Also asked once per source before a source- or repository-wide part runs.
    source_matches: Callable[[Source], bool] | None = None


DORMANT = SkipRule(
    "dormant", "the project is paused, completed or archived", lambda p: p.is_dormant
)
NO_INDEX = SkipRule(
    "no index",
    "single-project repository: there is no index.yaml",
    lambda p: p.source.is_single_project,
)
NOT_REGISTERED = SkipRule(
    "not registered", "the project has no index.yaml entry", lambda p: p.entry is None
)
SHARDED = SkipRule("sharded", "the project has a reference/ directory", lambda p: p.is_sharded)
NOT_SHARDED = SkipRule(
    "not sharded", "the project has no reference/ directory", lambda p: not p.is_sharded
)
STANDING = SkipRule(
    "standing", "the project is standing (`bounded: false`)", lambda p: p.is_standing
)
BOUNDED = SkipRule(
    "bounded", "the project is bounded (no `bounded: false`)", lambda p: not p.is_standing
)
NOT_TERMINAL = SkipRule(
    "not terminal", "the project is not completed or archived", lambda p: not p.is_terminal
)

# Reasons the engine itself records before asking a check anything.
ENGINE_REASONS = {
    "no CONTEXT.md": "the project has no CONTEXT.md (context-present reports it)",
    "empty CONTEXT.md": "CONTEXT.md is empty (context-present reports it)",
    "unreadable": "a file the check needs cannot be read (record-unreadable reports it)",
}

ProjectCheck = Callable[["Project", Context], Iterable[Issue]]
SourceCheck = Callable[["Source", Context], Iterable[Issue]]
RepositoryCheck = Callable[["Source", Context], Iterable[Issue]]


@dataclass
class CheckSpec:
    name: str
    severity: Severity
    summary: str
    remedy: str
    explanation: str
    function: ProjectCheck
    skips: tuple[SkipRule, ...] = ()
    needs_context: bool = True
    source_function: SourceCheck | None = None
    module: str = ""
    aliases: tuple[str, ...] = field(default_factory=tuple)
    scope: str = "project"  # "project", "source" (once per source) or "repository"
    scoped_function: RepositoryCheck | None = None
    units: Callable[[Source, Context], int] | None = None  # coverage units of a source-scope check
    group: str = ""  # SPEC §2 heading (see GROUPS); "" until registered

    def skip_reason(self, project: Project) -> str | None:
        for rule in self.skips:
            if rule.matches(project):
                return rule.reason
        return None

    def source_skip_reason(self, source: Source) -> str | None:
        for rule in self.skips:
            if rule.source_matches is not None and rule.source_matches(source):
                return rule.reason
        return None

    def for_source(self, function: SourceCheck) -> SourceCheck:
        """Also run ``function`` once per source, for problems no project owns."""
        self.source_function = function
        return function


REGISTRY: dict[str, CheckSpec] = {}


def check(
    name: str,
    *,
    severity: Severity,
    summary: str,
    remedy: str,
    explanation: str,
    skips: tuple[SkipRule, ...] = (),
    needs_context: bool = True,
    group: str | None = None,
) -> Callable[[ProjectCheck], CheckSpec]:
    """Register a project check. ``needs_context=False`` lets it run without a CONTEXT.md."""

    def register(function: ProjectCheck) -> CheckSpec:
        if name in REGISTRY and REGISTRY[name].module != function.__module__:
            raise DoctorError(
                f"check `{name}` is registered twice ({REGISTRY[name].module} and {function.__module__})",
                "uninstall one of the plugins that define it",
            )
        spec = CheckSpec(
            name=name,
            severity=severity,
            summary=summary,
            remedy=remedy,
            explanation=" ".join(explanation.split()),
            function=function,
            skips=skips,
            needs_context=needs_context,
            module=function.__module__,
            group=group or group_of_module(function.__module__),
        )
        REGISTRY[name] = spec
        return spec

    return register


def _import(module: str, origin: str) -> None:
    try:
        importlib.import_module(module)
    except Exception as error:
        raise DoctorError(
            f"check module {module} ({origin}) failed to import: {error.__class__.__name__}: {error}",
            "reinstall or uninstall the plugin that provides it",
        ) from error


def load_checks() -> dict[str, CheckSpec]:
    """Import every module of the entry-point group; the registry fills as they import."""
    discovered: list[Any] = list(entry_points(group=ENTRY_POINT_GROUP))
    if discovered:
        for point in sorted(discovered, key=lambda p: (p.value, p.name)):
            _import(point.value, f"entry point `{point.name}`")
    else:  # a source tree that was never installed has no entry-point metadata
        for module in BUILTIN_MODULES:
            _import(module, "built-in")
    return dict(sorted(REGISTRY.items()))


def resolve_names(names: Iterable[str], known: dict[str, CheckSpec], origin: str) -> list[str]:
    """Check names as given (a group name stands for its checks), or exit 2 naming the first
    unknown or empty one, with "did you mean" when a known name is close."""
    aliases = {alias: spec.name for spec in known.values() for alias in spec.aliases}
    groups: dict[str, list[str]] = {}
    for spec in known.values():
        groups.setdefault(spec.group, []).append(spec.name)
    resolved: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            raise DoctorError(
                f"empty check name in {origin}",
                "remove the stray comma or quote; name checks or groups, e.g. `structure,item-currency`",
            )
        if name in known:
            resolved.append(name)
        elif name in aliases:
            resolved.append(aliases[name])
        elif name in groups or name in GROUPS:
            resolved.extend(sorted(groups.get(name, [])))
        else:
            raise DoctorError(
                f"unknown check or group name `{name}` in {origin}{did_you_mean(name, known)}",
                "run `context-doctor explain --all` for the checks; groups: "
                + ", ".join(sorted(set(GROUPS) | set(groups))),
            )
    return resolved


def did_you_mean(name: str, known: dict[str, CheckSpec]) -> str:
    """`` (did you mean `x`?)`` when a check, alias or group name is close to ``name``."""
    candidates = {*known, *GROUPS, *(alias for spec in known.values() for alias in spec.aliases)}
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def scoped_check(
    name: str,
    *,
    scope: str,
    severity: Severity,
    summary: str,
    remedy: str,
    explanation: str,
    units: Callable[[Source, Context], int] | None = None,
    skips: tuple[SkipRule, ...] = (),
) -> Callable[[RepositoryCheck], CheckSpec]:
    """Register a check asked once per source, or once per repository (its first source).

    Its coverage counts repositories, or for a source check ``units(source)``
    (e.g. graded files), never projects: a source-wide fact reported once per
    project would only repeat itself.
    """

    def register(function: RepositoryCheck) -> CheckSpec:
        spec = check(
            name,
            severity=severity,
            summary=summary,
            remedy=remedy,
            explanation=explanation,
            skips=skips,
            needs_context=False,
        )(_no_project_part)
        spec.module = function.__module__
        spec.group = group_of_module(function.__module__)
        spec.scope = scope
        spec.scoped_function = function
        spec.units = units
        return spec

    return register


def repository_check(
    name: str,
    *,
    severity: Severity,
    summary: str,
    remedy: str,
    explanation: str,
    skips: tuple[SkipRule, ...] = (),
) -> Callable[[RepositoryCheck], CheckSpec]:
    """A repository-wide check; only the ``source_matches`` half of ``skips`` applies."""
    return scoped_check(
        name,
        scope="repository",
        severity=severity,
        summary=summary,
        remedy=remedy,
        explanation=explanation,
        skips=skips,
    )


def report_check(
    name: str, *, severity: Severity, summary: str, remedy: str, explanation: str, module: str
) -> CheckSpec:
    """Register a check whose findings the suppression layer (suppress.py) produces.

    The engine never runs it (scope ``report``); it exists so that it can be
    selected, ignored, explained and listed as a SARIF rule like any other.
    """

    def produced_by_the_suppression_layer(source: Source, ctx: Context) -> Iterable[Issue]:
        return ()

    produced_by_the_suppression_layer.__module__ = module
    return scoped_check(
        name,
        scope="report",
        severity=severity,
        summary=summary,
        remedy=remedy,
        explanation=explanation,
    )(produced_by_the_suppression_layer)


def _no_project_part(project: Project, ctx: Context) -> Iterable[Issue]:
    return ()
