"""The check registry: a decorator for authors; the checks package and entry points for discovery.

A check is metadata plus one function ``(project, ctx) -> Iterable[Issue]``.
It never reads files or runs git; everything it needs is on the project
model. Built-in checks are the modules of ``context_doctor/checks/`` (walked,
each declaring its ``GROUP``); third-party packages add modules through the
``context_doctor.checks`` entry-point group and register with the same decorator.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import TYPE_CHECKING, Any, Protocol

from context_doctor.config.plugins import BUILTIN_PACKAGE, entry_point_modules, plugins_enabled
from context_doctor.config.plugins import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP  # re-exported
from context_doctor.config.plugins import PLUGINS_OFF as PLUGINS_OFF
from context_doctor.errors import DoctorError
from context_doctor.layouts import ANOTHER_LAYOUT, EVERY_KIND, NOT_WORKING_MEMORY, SEED_KINDS
from context_doctor.report.findings import Issue, Severity, Unverified

if TYPE_CHECKING:
    from context_doctor.config.settings import Settings
    from context_doctor.model.project import Project
    from context_doctor.model.source import Source
    from context_doctor.vault.model import Vault

# Groups are the headings of docs/checks.md; `--select`/`--ignore` accept them as names. Each
# built-in check module names its group in a module-level ``GROUP``.
GROUPS: dict[str, str] = {
    "structure": "tier structure and budgets",
    "lifecycle": "cross-tier agreement and lifecycle",
    "session-freshness": "session freshness (logs, headers, unlogged sessions)",
    "currency": "header, body and item currency",
    "terminal": "terminal projects",
    "durability": "durability and readiness",
    "state": "structured state and artifacts",
    "hygiene": "hygiene, provenance and secrets",
    "freshness-grades": "freshness grades (pai-freshness-v1)",
    "suppression": "suppressions and the baseline",
    "memory-vault": "memory vaults (Bastra Recall)",
    "procedural": "instruction files and the references records make (the procedural tier)",
}
GROUP_ALIASES = {"freshness": "session-freshness", "grades": "freshness-grades"}
"""Earlier group names, still accepted by ``--select``/``--ignore`` and the config."""
PLUGIN_GROUP = "plugin"


def group_of_module(module: str) -> str:
    """The group a check defined in ``module`` belongs to: the module's ``GROUP``.

    A third-party module without one is ``plugin``; a built-in module without one is a
    programming error, raised at once so that no check lands without a group.
    """
    declared = getattr(sys.modules.get(module), "GROUP", None)
    if isinstance(declared, str) and declared:
        return declared
    if module.startswith(f"{BUILTIN_PACKAGE}."):
        raise DoctorError(
            f"built-in check module {module} declares no GROUP",
            f'add `GROUP = "..."` (one of {", ".join(GROUPS)}) at the top of the module',
        )
    return PLUGIN_GROUP


@dataclass(frozen=True)
class Context:
    """What a check may know besides the project: the date and the settings."""

    today: date
    readiness: str
    settings: Settings


def _never(project: Project) -> bool:
    return False


@dataclass(frozen=True)
class SkipRule:
    """A reason a check does not look at a project: a gate (a skip) or a shape (not applicable).

    A *gate* (``shape=False``) is a lifecycle or ground-truth reason that holds a check
    back from a project it would otherwise judge (``dormant``, ``paused``, ``live``,
    ``readiness local``, ``not registered``, ``structured state``, ``no log``): counted as
    skipped in coverage, printed, and shown on the Synthesis Console. A *shape*
    (``shape=True``) says the check is about something the project does not have
    (``not sharded``, ``no artifacts``, ``no review recorded``, ``no ordinals``, another
    layout): counted in the report's ``not_applicable`` and printed only with
    ``--show-coverage`` (docs/checks.md), so coverage lists what a reader could act on.

    A reason may be a fact of the project (``matches``), of a source (``source_matches``,
    asked before a source- or repository-wide part runs) or of the run itself
    (``run_matches``: how the doctor was asked, e.g. the readiness mode), which then
    skips every project and source of the run: a check never returns nothing unasked.
    """

    reason: str
    description: str
    matches: Callable[[Project], bool] = _never
    source_matches: Callable[[Source], bool] | None = None
    run_matches: Callable[[Context], bool] | None = None
    shape: bool = False

    def applies(self, project: Project, ctx: Context) -> bool:
        return (self.run_matches is not None and self.run_matches(ctx)) or self.matches(project)

    def applies_to_source(self, source: Source, ctx: Context) -> bool:
        if self.run_matches is not None and self.run_matches(ctx):
            return True
        return self.source_matches is not None and self.source_matches(source)


DORMANT = SkipRule(
    "dormant", "the project is paused, completed or archived", lambda p: p.is_dormant
)
NO_INDEX = SkipRule(
    "no index",
    "single-project repository: there is no index.yaml",
    lambda p: p.source.is_single_project,
    shape=True,
)
NOT_REGISTERED = SkipRule(
    "not registered", "the project has no index.yaml entry", lambda p: p.entry is None
)
NO_DIRECTORY = SkipRule(
    "no project directory",
    "the project is registered but has no directory: there is nothing to read "
    "(context-present reports it)",
    lambda p: not p.directory_exists,
)


def shape_and_opposite(
    shape: tuple[str, str], opposite: tuple[str, str], matches: Callable[[Project], bool]
) -> tuple[SkipRule, SkipRule]:
    """Two shapes, ``(reason, description)`` each, that split every project in two: the one
    ``matches`` holds for, and its opposite (a check is about one side or the other)."""
    return (
        SkipRule(*shape, matches, shape=True),
        SkipRule(*opposite, lambda p: not matches(p), shape=True),
    )


SHARDED, NOT_SHARDED = shape_and_opposite(
    ("sharded", "the project has a reference/ directory"),
    ("not sharded", "the project has no reference/ directory"),
    lambda p: p.is_sharded,
)
STANDING, BOUNDED = shape_and_opposite(
    ("standing", "the project is standing (`bounded: false`)"),
    ("bounded", "the project is bounded (no `bounded: false`)"),
    lambda p: p.is_standing,
)
NOT_TERMINAL = SkipRule(
    "not terminal", "the project is not completed or archived", lambda p: not p.is_terminal
)

NOT_MEMORY = SkipRule(
    NOT_WORKING_MEMORY,
    "the file found by the seed's name (a root CONTEXT.md) holds no field and no dated entry: "
    "a glossary or an architecture note, not working memory (docs/layouts.md)",
    lambda p: not p.layout.working_memory,
    # A single project's source whose file is not working memory: no finding at all, the
    # repository's durability included (docs/layouts.md).
    lambda s: s.is_single_project and not s.layout.working_memory,
    shape=True,
)
_OTHER_LAYOUT_RULES: dict[frozenset[str], SkipRule] = {}


def other_layout_rule(kinds: frozenset[str]) -> SkipRule:
    """The not-applicable rule of a check declared for the layout kinds ``kinds`` (one rule
    object per set, so the engine asks it once per project)."""
    rule = _OTHER_LAYOUT_RULES.get(kinds)
    if rule is None:
        rule = _OTHER_LAYOUT_RULES[kinds] = SkipRule(
            ANOTHER_LAYOUT,
            "the check belongs to another layout (it applies to: " + ", ".join(sorted(kinds)) + ")",
            lambda p: p.layout.kind not in kinds,
            lambda s: s.layout.kind not in kinds,
            shape=True,
        )
    return rule


def layout_rules(kinds: frozenset[str]) -> tuple[SkipRule, ...]:
    """What every project check skips first: a file that is not working memory, then a
    layout the check does not apply to."""
    return (NOT_MEMORY,) if kinds >= EVERY_KIND else (NOT_MEMORY, other_layout_rule(kinds))


SEED_LAYOUTS = SEED_KINDS
"""``@check(layouts=SEED_LAYOUTS)``: the seed's template, sharding, index and structured-state
checks, which mean nothing in another layout (docs/layouts.md)."""


# Reasons the engine itself records before asking a check anything.
ENGINE_REASONS = {
    "no CONTEXT.md": "the project has no CONTEXT.md (context-present reports it)",
    "empty CONTEXT.md": "CONTEXT.md is empty (context-present reports it)",
    "unreadable": "a file the check needs cannot be read (record-unreadable reports it)",
}


@dataclass(frozen=True)
class VaultSkipRule:
    """A reason a vault check does not look at a whole vault: a gate or a shape, as for
    :class:`SkipRule` (docs/checks.md).

    Gates hold back a check from something it would judge and are shown in coverage: a
    floors file or audit log that cannot be read, a shallow clone, trashed files with no log
    to account for them. Shapes say the vault has nothing the check is about (no floors on
    this machine, no git, no committed audit log) and are counted in ``not_applicable``.
    """

    reason: str
    description: str
    matches: Callable[[Vault], bool]
    shape: bool = False


class _VaultFile(Protocol):
    @property
    def problem(self) -> str | None: ...


def absent_and_unreadable(
    read: Callable[[Vault], _VaultFile | None],
    absent: tuple[str, str],
    unreadable: tuple[str, str],
) -> tuple[VaultSkipRule, VaultSkipRule]:
    """The two reasons, ``(reason, description)`` each, a vault check cannot judge one of the
    vault's files (``read``): it is not there (a shape: there is nothing to judge), or it is
    there and cannot be read (a gate, shown: one check reports the file itself)."""

    def broken(vault: Vault) -> bool:
        found = read(vault)
        return found is not None and found.problem is not None

    return (
        VaultSkipRule(*absent, lambda v: read(v) is None, shape=True),
        VaultSkipRule(*unreadable, broken),
    )


ProjectCheck = Callable[["Project", Context], Iterable[Issue]]
VaultCheck = Callable[["Vault", Context], Iterable[Issue | Unverified]]
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
    group: str = ""  # docs/checks.md heading (see GROUPS); "" until registered
    # A vault check (scope "vault", docs/vaults.md): asked once per vault, its coverage counted
    # in ``vault_units`` (memories, floors, log entries), skipped whole by ``vault_skips``.
    vault_function: VaultCheck | None = None
    vault_units: Callable[[Vault], int] | None = None
    vault_skips: tuple[VaultSkipRule, ...] = ()
    layouts: frozenset[str] = EVERY_KIND  # the layout kinds it applies to (docs/layouts.md)

    @property
    def own_skips(self) -> tuple[SkipRule, ...]:
        """The check's declared skip rules, without the layout rules every check shares."""
        shared = set(map(id, layout_rules(self.layouts)))
        return tuple(rule for rule in self.skips if id(rule) not in shared)

    # When a finding's severity is not ``severity`` (docs/checks.md): ``(severity, when)`` pairs,
    # the default's own case first; empty when every finding has the default severity.
    severities: tuple[tuple[Severity, str], ...] = ()

    @property
    def possible_severities(self) -> frozenset[Severity]:
        """Every severity a finding of this check can have (a config override aside)."""
        return frozenset({self.severity, *(severity for severity, _ in self.severities)})

    def vault_skip_rule(self, vault: Vault) -> VaultSkipRule | None:
        for rule in self.vault_skips:
            if rule.matches(vault):
                return rule
        return None

    def skip_reason(self, project: Project, ctx: Context) -> str | None:
        for rule in self.skips:
            if rule.applies(project, ctx):
                return rule.reason
        return None

    def source_skip_rule(self, source: Source, ctx: Context) -> SkipRule | None:
        for rule in self.skips:
            if rule.applies_to_source(source, ctx):
                return rule
        return None

    def for_source(self, function: SourceCheck) -> SourceCheck:
        """Also run ``function`` once per source, for problems no project owns."""
        self.source_function = function
        return function


REGISTRY: dict[str, CheckSpec] = {}


SCOPES = ("project", "source", "repository", "vault", "report")
"""What a check's function is asked about (see :func:`check`)."""
AnyCheck = Callable[[Any, Context], Iterable[Any]]


def check(
    name: str,
    *,
    severity: Severity,
    summary: str,
    remedy: str,
    explanation: str,
    scope: str = "project",
    skips: tuple[SkipRule | VaultSkipRule, ...] = (),
    needs_context: bool = True,
    units: Callable[..., int] | None = None,
    group: str | None = None,
    layouts: frozenset[str] = EVERY_KIND,
    severities: tuple[tuple[Severity, str], ...] = (),
) -> Callable[[AnyCheck], CheckSpec]:
    """Register the decorated function as the check ``name``; ``scope`` says what it is asked:

    * ``project`` (default): ``function(project, ctx)`` for every project; coverage counts
      projects. ``needs_context=False`` lets it run on a project without a CONTEXT.md.
    * ``source``: ``function(source, ctx)`` once per source, for facts no project owns;
      coverage counts ``units(source, ctx)`` (e.g. graded files), else 1 per source.
    * ``repository``: ``function(source, ctx)`` once per repository (its first source);
      coverage counts repositories.
    * ``vault``: ``function(vault, ctx)`` once per memory vault (docs/vaults.md), yielding issues
      and :class:`Unverified` counts; coverage counts ``units(vault)``; ``skips`` are
      :class:`VaultSkipRule` s, each skipping the whole vault.
    * ``report``: never run by the engine; the suppression layer produces its findings.
      Registered so it can be selected, ignored, explained and listed as a SARIF rule.

    ``layouts``: the layout kinds (``context_doctor.layouts``) the check applies to; on a
    project of another kind it is not applicable (``another layout``), and no check speaks
    about a file that is not working memory (docs/layouts.md, docs/checks.md).
    For ``source`` and ``repository`` only the ``source_matches`` and ``run_matches`` parts
    of ``skips`` apply.
    The group is ``group``, else the defining module's ``GROUP``, else ``plugin``.
    ``severities`` says when a finding has another severity than ``severity`` (and when the
    default applies): ``((Severity.DEFECT, "a file cannot be read"), (Severity.WARNING,
    "the header gives no verdict"))``; ``explain`` prints it, so the words agree (docs/checks.md).
    """
    if scope not in SCOPES:
        raise ValueError(f"check `{name}`: scope must be one of {', '.join(SCOPES)}, not {scope!r}")

    def register(function: AnyCheck) -> CheckSpec:
        module = function.__module__
        if name in REGISTRY and REGISTRY[name].module != module:
            raise DoctorError(
                f"check `{name}` is registered twice ({REGISTRY[name].module} and {module})",
                "uninstall one of the plugins that define it",
            )
        per_project, per_vault = scope == "project", scope == "vault"
        spec = CheckSpec(
            name=name,
            severity=severity,
            summary=summary,
            remedy=remedy,
            explanation=" ".join(explanation.split()),
            function=function if per_project else _no_project_part,
            skips=(
                *layout_rules(frozenset(layouts)),
                *(rule for rule in skips if isinstance(rule, SkipRule)),
            ),
            needs_context=needs_context and per_project,
            module=module,
            scope=scope,
            scoped_function=None if per_project or per_vault else function,
            units=None if per_vault else units,
            group=group or group_of_module(module),
            layouts=frozenset(layouts),
            severities=severities,
        )
        if per_vault:
            if units is None:
                raise ValueError(f"vault check `{name}`: units (memories, floors...) are required")
            spec.vault_function = function
            spec.vault_units = units
            spec.vault_skips = tuple(rule for rule in skips if isinstance(rule, VaultSkipRule))
        REGISTRY[name] = spec
        return spec

    return register


@dataclass(frozen=True)
class CheckFamily:
    """What a family of checks shares, said once: what they are asked about (``scope``), the
    layout kinds they apply to, the gates and shapes that hold every one of them back
    (``skips``, asked before a member's own), whether they need a CONTEXT.md, and how their
    coverage is counted (``units``).

    ``@FAMILY.check(name, ...)`` registers a member (see :func:`check`) that states only what
    is its own: its severity, its words, and any skips, units or context need of its own;
    ``FAMILY.within(...)`` is a narrower family inside it, its skips after the family's.
    """

    scope: str = "project"
    layouts: frozenset[str] = EVERY_KIND
    skips: tuple[SkipRule | VaultSkipRule, ...] = ()
    needs_context: bool = True
    units: Callable[..., int] | None = None

    def within(
        self,
        *,
        layouts: frozenset[str] = EVERY_KIND,
        skips: tuple[SkipRule | VaultSkipRule, ...] = (),
        needs_context: bool | None = None,
        units: Callable[..., int] | None = None,
    ) -> CheckFamily:
        """A family inside this one: of the layout kinds both apply to, its gates and shapes
        after this family's."""
        return replace(
            self,
            layouts=self.layouts & layouts,
            skips=(*self.skips, *skips),
            needs_context=self.needs_context if needs_context is None else needs_context,
            units=units or self.units,
        )

    def check(
        self,
        name: str,
        *,
        severity: Severity,
        summary: str,
        remedy: str,
        explanation: str,
        skips: tuple[SkipRule | VaultSkipRule, ...] = (),
        needs_context: bool | None = None,
        units: Callable[..., int] | None = None,
        group: str | None = None,
        severities: tuple[tuple[Severity, str], ...] = (),
    ) -> Callable[[AnyCheck], CheckSpec]:
        """Register a member of the family (see :func:`check`)."""
        family = self.within(skips=skips, needs_context=needs_context, units=units)
        return check(
            name,
            severity=severity,
            summary=summary,
            remedy=remedy,
            explanation=explanation,
            scope=family.scope,
            skips=family.skips,
            needs_context=family.needs_context,
            units=family.units,
            group=group,
            layouts=family.layouts,
            severities=severities,
        )


SEED_CHECKS = CheckFamily(layouts=SEED_LAYOUTS)
"""The checks of the seed's own records (its template, sharding, index and structured state),
which mean nothing in another layout (docs/layouts.md)."""
ACTIVE_CHECKS = CheckFamily(skips=(DORMANT,))
"""Checks about a record that still grows: a paused, completed or archived project is skipped
(``dormant``)."""
ACTIVE_SEED_CHECKS = ACTIVE_CHECKS.within(layouts=SEED_LAYOUTS)
"""Seed checks about a record that still grows."""
INDEX_ENTRY_CHECKS = SEED_CHECKS.within(needs_context=False, skips=(NO_INDEX,))
"""Seed checks of a project's index.yaml entry: asked with or without a CONTEXT.md, and not
about a single-project repository, which has no index."""
PROJECT_FILE_CHECKS = CheckFamily(needs_context=False, skips=(NO_DIRECTORY,))
"""Checks of every file in a project's directory, CONTEXT.md or not: a registered project
without a directory has none."""
VAULT_CHECKS = CheckFamily(scope="vault")
"""Checks of a memory vault, asked once per vault (docs/vaults.md)."""


def _import(module: str, origin: str) -> None:
    try:
        importlib.import_module(module)
    except DoctorError:
        raise
    except Exception as error:
        raise DoctorError(
            f"check module {module} ({origin}) failed to import: {error.__class__.__name__}: {error}",
            "reinstall or uninstall the plugin that provides it",
        ) from error


def builtin_modules() -> list[str]:
    """The built-in check modules: every public module of :data:`BUILTIN_PACKAGE` but
    this one (the registry lives beside the checks it registers, and holds none)."""
    package = importlib.import_module(BUILTIN_PACKAGE)
    return sorted(
        f"{BUILTIN_PACKAGE}.{info.name}"
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_") and f"{BUILTIN_PACKAGE}.{info.name}" != __name__
    )


# The checks a third-party module registered when it was imported: an import happens once
# per process, so a later load_checks() learns a module's checks from here.
_REGISTERED_BY: dict[str, set[str]] = {}


def _load_plugin(module: str, origin: str) -> set[str]:
    if module not in _REGISTERED_BY:
        before = set(REGISTRY)
        _import(module, origin)
        _REGISTERED_BY[module] = set(REGISTRY) - before
    return _REGISTERED_BY[module]


def _defined_in(spec: CheckSpec, module: str) -> bool:
    return spec.module == module or spec.module.startswith(f"{module}.")


def load_checks(*, plugins: bool | None = None) -> dict[str, CheckSpec]:
    """The built-in checks, then those of the entry-point group's modules (third parties).

    ``plugins=None`` follows :data:`PLUGINS_OFF`. Only checks of modules loaded by this
    call are returned: a plugin imported earlier in the process does not linger.
    """
    for module in builtin_modules():
        _import(module, "built-in")
    names = {name for name, spec in REGISTRY.items() if _defined_in(spec, BUILTIN_PACKAGE)}
    if plugins_enabled() if plugins is None else plugins:
        for module, name in entry_point_modules():
            names |= _load_plugin(module, f"entry point `{name}`")
            names |= {n for n, spec in REGISTRY.items() if _defined_in(spec, module)}
    return {name: REGISTRY[name] for name in sorted(names)}


def skip_reasons(spec: CheckSpec) -> list[tuple[str, str]]:
    """Why ``spec`` may skip a unit (its gates), as (reason, description): what ``explain``
    and the check's docs page list under "skipped"."""
    if spec.scope == "vault":
        reasons = [(rule.reason, rule.description) for rule in spec.vault_skips if not rule.shape]
        reasons.append(
            (
                "",
                "a unit of a shape the doctor does not know (an unreadable note, an unknown "
                "log entry or floor): counted as unverifiable, never judged",
            )
        )
        return reasons
    reasons = [(rule.reason, rule.description) for rule in spec.own_skips if not rule.shape]
    if spec.needs_context:
        return reasons + list(ENGINE_REASONS.items())
    return [*reasons, ("unreadable", ENGINE_REASONS["unreadable"])]


def severity_words(spec: CheckSpec) -> str:
    """``defect``, or ``defect or warning`` when its findings can have either."""
    found = [spec.severity.value] + [
        severity.value for severity, _ in spec.severities if severity is not spec.severity
    ]
    return " or ".join(dict.fromkeys(found))


def severity_lines(spec: CheckSpec) -> list[str]:
    """The severity each finding can have, and when (the same word JSON and SARIF carry)."""
    if not spec.severities:
        return [f"Severity: {spec.severity.value}, for every finding."]
    return ["Severity:"] + [f"  - {severity.value}: {when}" for severity, when in spec.severities]


def shape_reasons(spec: CheckSpec) -> list[tuple[str, str]]:
    """When ``spec`` does not apply to a unit's shape (docs/checks.md: counted as not applicable,
    shown with ``--show-coverage``), as (reason, description)."""
    rules: tuple[SkipRule | VaultSkipRule, ...] = (
        spec.vault_skips if spec.scope == "vault" else spec.own_skips
    )
    return [(rule.reason, rule.description) for rule in rules if rule.shape]


def selectable_names(known: dict[str, CheckSpec]) -> list[str]:
    """Every name ``--select``/``--ignore`` (and ``explain``) accept: checks, their aliases,
    groups and group aliases, sorted (MCP enums and shell completion offer these)."""
    names = set(known) | {alias for spec in known.values() for alias in spec.aliases}
    names |= {spec.group for spec in known.values() if spec.group}
    return sorted(names | set(GROUPS) | set(GROUP_ALIASES))


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
        elif name in groups or name in GROUPS or name in GROUP_ALIASES:
            resolved.extend(sorted(groups.get(GROUP_ALIASES.get(name, name), [])))
        else:
            raise DoctorError(
                f"unknown check or group name `{name}` in {origin}{did_you_mean(name, known)}",
                "`context-doctor explain` lists the checks by group; groups: "
                + ", ".join(sorted(set(GROUPS) | set(groups))),
            )
    return resolved


def did_you_mean(name: str, known: dict[str, CheckSpec]) -> str:
    """`` (did you mean `x`?)`` when a check, alias or group name is close to ``name``."""
    import difflib  # only to word a name not known (a cold start)

    candidates = {*known, *GROUPS, *(alias for spec in known.values() for alias in spec.aliases)}
    close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.6)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _no_project_part(project: Project, ctx: Context) -> Iterable[Issue]:
    return ()
