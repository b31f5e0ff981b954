"""The one pipeline ``check``, ``demo`` and ``sweep`` share: audit a corpus, then emit the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from context_doctor.cache import keys, replay
from context_doctor.checks.registry import CheckSpec, Context, load_checks, resolve_names
from context_doctor.config.plugins import plugin_modules
from context_doctor.config.settings import Settings, config_reader, find_config, settings_of
from context_doctor.errors import DoctorError
from context_doctor.model.collector import paused_collection
from context_doctor.report.findings import Finding
from context_doctor.report.report import Coverage, Report, redacted

if TYPE_CHECKING:
    from context_doctor.model.source import Corpus, Source
    from context_doctor.pipeline.suppress import ConfigIgnores


def select_checks(registry: dict[str, CheckSpec], settings: Settings) -> list[CheckSpec]:
    # Each origin names the key as well as the file, so a config typo is found at once.
    chosen = (
        resolve_names(settings.select, registry, f"`select` ({settings.origin('select')})")
        if settings.select is not None
        else list(registry)
    )
    ignored = set(
        resolve_names(settings.ignore, registry, f"`ignore` ({settings.origin('ignore')})")
    )
    for name in settings.severity:
        key = f"severity.{name}"
        resolve_names([name], registry, f"`{key}` ({settings.origin(key)})")
    return [registry[name] for name in sorted(set(chosen)) if name not in ignored]


def audit(
    corpus: Corpus,
    *,
    today: date,
    readiness: str,
    select: list[str],
    ignore: list[str],
    config: Path | None,
    baseline: Path | None = None,
    config_baseline: bool = True,
    jobs: int | None = None,
    replayable: bool = False,
    direct: keys.Invocation | None = None,
    tail: list[Callable[[], None]] | None = None,
) -> tuple[Report, Settings, Sequence[CheckSpec]]:
    """Run the selected checks, then the suppressions (docs/suppressions.md).

    ``baseline`` is an explicit baseline file; else the config's ``baseline``
    applies unless ``config_baseline`` is False (``--write-baseline`` records
    every finding, so it must not be filtered by the baseline it replaces).
    ``replayable``: a run whose every input is unchanged since a stored run gets
    that run's report back (:mod:`context_doctor.replay`); only for a run that
    needs the report alone, not the model (never ``--fix``, ``--diff``); ``direct``: the
    run was named by paths alone, and is keyed by that (:class:`keys.Invocation`).
    ``tail``: the last steps (storing the report for replay, then forgetting cache entries
    that name a file holding a secret) are appended there for the caller to run once it
    has let the model go, instead of being run here while the model is still held
    (at 8,000 projects storing the report beside the model was the warm run's peak).
    """
    run = resolve_run(corpus, config=config, select=select, ignore=ignore)
    audit_group = partial(
        _audit_group,
        today=today,
        readiness=readiness,
        select=select,
        ignore=ignore,
        baseline=baseline,
        config_baseline=config_baseline,
        jobs=jobs,
        replayable=replayable,
        tail=tail,
    )
    if len(run) > 1:
        # Each source under its own configuration: one audit per configuration, one report.
        audits = [audit_group(group.corpus, group.settings) for group in run]
        merged = merge_reports([report for report, _, _ in audits], corpus, today)
        specs = {spec.name: spec for _, _, checks in audits for spec in checks}
        return merged, audits[0][1], [specs[name] for name in sorted(specs)]
    return audit_group(corpus, run[0].settings, direct=direct)


def _audit_group(
    corpus: Corpus,
    settings: Settings,
    *,
    today: date,
    readiness: str,
    select: list[str],
    ignore: list[str],
    baseline: Path | None,
    config_baseline: bool,
    jobs: int | None,
    replayable: bool,
    direct: keys.Invocation | None = None,
    tail: list[Callable[[], None]] | None,
) -> tuple[Report, Settings, Sequence[CheckSpec]]:
    """:func:`audit` of sources that share one configuration, its ``settings`` resolved."""
    chosen = baseline or (settings.baseline if config_baseline else None)
    # An id the baseline recorded holds when a remote is added or renamed (docs/layouts.md):
    # read before anything keys on the ids (the replay, the suppressions), even by a
    # --write-baseline run, which then records it again.
    recorded = chosen or settings.baseline
    if recorded is not None and recorded.is_file():
        from context_doctor.pipeline.ids import keep_recorded_ids

        keep_recorded_ids(corpus, recorded)
    corpus.assign_registry(settings.freshness_registry, settings.freshness_thresholds)
    corpus.assign_instructions(settings.instructions)
    ctx = Context(today=today, readiness=readiness, settings=settings)
    key = None
    plugins = replayable and bool(plugin_modules())
    if replayable and not plugins:
        # Without plugins the checks are the package's own, which the key covers by its
        # code digest, and the settings name the selection: the key is taken, and a
        # stored report replayed, before any check module is imported.
        key = keys.run_key(
            run_inputs(corpus),
            settings=settings,
            checks=None,
            ctx=ctx,
            baseline=chosen,
            direct=direct,
        )
        replayed = None if key is None else replay.recall(key)
        if replayed is not None:
            return replayed, settings, SelectedChecks(settings, select, ignore)
    registry = load_checks()
    resolve_names(select, registry, "--select")
    resolve_names(ignore, registry, "--ignore")
    checks, ignores = _selected(settings, registry)
    # The pipeline itself (suppressions, the parsers' pool, the vault's model, the engine)
    # is imported only now: a replayed run never needs it.
    from context_doctor.pipeline import suppress

    loaded = suppress.read_baseline(chosen) if chosen is not None else None
    if plugins:
        key = keys.run_key(
            run_inputs(corpus), settings=settings, checks=checks, ctx=ctx, baseline=chosen
        )
        replayed = None if key is None else replay.recall(key)
        if replayed is not None:
            return replayed, settings, checks
    from context_doctor.pipeline.engine import run
    from context_doctor.pipeline.prepare import prepare_corpus

    with paused_collection():
        procedural = any(spec.group == "procedural" for spec in checks)
        preparation = prepare_corpus(corpus, jobs=jobs, procedural=procedural)
        report = run(corpus, checks, ctx)
        preparation.finish()
        report = suppress.apply(
            report, corpus, checks, registry, ignores, loaded, settings.severity
        )
        secrets = secrets_of(corpus)
        report = redacted(report, secrets)

    def finish() -> None:
        if key is not None:
            replay.keep(key, report)
        if secrets:
            # The caches keep file names in clear (the replay store too, for the inputs it
            # keys): none may keep a detected secret. Last, after every cache write.
            from context_doctor.cache.store import forget_files_holding

            forget_files_holding(secrets)

    if tail is None:
        finish()
    else:
        tail.append(finish)
    return report, settings, checks


def run_inputs(corpus: Corpus) -> keys.RunInputs:
    """The corpus as the run key reads it (:class:`keys.RunInputs`), taken once."""
    sources = []
    for source in corpus.sources:
        facts = source.repository_facts()
        sources.append(
            keys.SourceInputs(
                name=source.name,
                root=source.root,
                projects_dir=source.projects_dir,
                only=repr(sorted(source.only)) if source.only is not None else None,
                toplevel=source.repository.toplevel,
                allow_shallow=facts.allow_shallow,
                ci=facts.ci,
                pushing=tuple(facts.pushing),
                store=facts.store,
                projects=tuple(project.id for project in source.projects),
                registry=tuple(repr(entry) for entry in source.registry),
                registered=tuple(source.root / entry.path for entry in source.registry),
            )
        )
    return keys.RunInputs(
        has_vaults=bool(corpus.vaults),
        has_projects=bool(corpus.projects),
        sources=tuple(sources),
        console_path=corpus.console_path,
        from_console=corpus.from_console,
        unaudited=repr(corpus.unaudited),
        whole=corpus.whole_repository(),
    )


def _selected(
    settings: Settings, registry: dict[str, CheckSpec]
) -> tuple[list[CheckSpec], ConfigIgnores]:
    """The checks ``settings`` select and its ignores (exit 2 on a bad name)."""
    from context_doctor.pipeline import suppress

    checks = select_checks(registry, settings)
    ignores = suppress.config_ignores(
        settings.per_project_ignores,
        settings.per_path_ignores,
        lambda names, key: resolve_names(names, registry, f"{key} ({settings.config_file})"),
    )
    return checks, ignores


class SelectedChecks(Sequence[CheckSpec]):
    """The checks of a replayed run, resolved only when something asks for them.

    A replayed report needs no check to print it, except for SARIF's rules, so the check
    modules are imported only then; the selection resolves as the audit resolved it.
    """

    def __init__(self, settings: Settings, select: list[str], ignore: list[str]) -> None:
        self._settings, self._select, self._ignore = settings, select, ignore

    @cached_property
    def _checks(self) -> list[CheckSpec]:
        registry = load_checks()
        resolve_names(self._select, registry, "--select")
        resolve_names(self._ignore, registry, "--ignore")
        return select_checks(registry, self._settings)

    @overload
    def __getitem__(self, index: int) -> CheckSpec: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[CheckSpec]: ...
    def __getitem__(self, index: int | slice) -> CheckSpec | Sequence[CheckSpec]:
        return self._checks[index]

    def __len__(self) -> int:
        return len(self._checks)


def settings_by_group(
    corpus: Corpus, *, select: list[str], ignore: list[str], config: Path | None
) -> list[tuple[Corpus, Settings, list[CheckSpec]]]:
    """Each configuration group's settings and checks, as :func:`audit` would resolve them.

    For ``check --show-settings``: every group is shown, none is audited.
    """
    registry = load_checks()
    resolve_names(select, registry, "--select")
    resolve_names(ignore, registry, "--ignore")
    resolved = []
    for group in resolve_run(corpus, config=config, select=select, ignore=ignore):
        checks, _ignores = _selected(group.settings, registry)
        resolved.append((group.corpus, group.settings, checks))
    return resolved


@dataclass(frozen=True)
class ConfigGroup:
    """Sources that find one configuration, and the settings it resolves to."""

    corpus: Corpus
    settings: Settings


def resolve_run(
    corpus: Corpus, *, config: Path | None, select: list[str], ignore: list[str]
) -> tuple[ConfigGroup, ...]:
    """The run's configuration, resolved once, before the audit: the sources grouped by
    the file each finds (docs/layouts.md: per source), each file read and validated once,
    each group's settings built once (a frozen :class:`Settings` the audit and the run key
    read)."""
    read = config_reader()
    groups = config_groups(corpus, read) if config is None else [corpus]
    return tuple(
        ConfigGroup(
            group,
            settings_of(
                find_config(config_directories(group), config, read),
                config,
                select or None,
                ignore or None,
            ),
        )
        for group in groups
    )


def secrets_of(corpus: Corpus) -> set[str]:
    """Every secret the corpus holds (in memory only), for :func:`redacted`."""
    found = {
        value
        for project in corpus.projects
        if project.directory_exists
        for value in project.secret_values
    }
    for vault in corpus.vaults:
        found |= vault.secret_values
    return found


def source_config(
    corpus: Corpus, source: Source, read: Callable[[Path], dict[str, Any]] | None = None
) -> Path | None:
    """The configuration file ``source`` finds (nearest at or above its root), if any."""
    directories = config_directories(replace(corpus, sources=[source], vaults=[]))
    found = find_config(directories, None, read or config_reader())
    return found[0] if found else None


def config_groups(
    corpus: Corpus, read: Callable[[Path], dict[str, Any]] | None = None
) -> list[Corpus]:
    """The corpus split by the configuration file each source finds (docs/layouts.md: per source).

    One group (the corpus itself) when every source finds the same file or none; the
    unaudited sources and the vaults go with the first group.
    """
    by_file: dict[Path | None, list[Source]] = {}
    for source in corpus.sources:
        by_file.setdefault(source_config(corpus, source, read), []).append(source)
    if len(by_file) <= 1:
        return [corpus]
    return [
        replace(
            corpus,
            sources=sources,
            unaudited=corpus.unaudited if number == 0 else [],
            vaults=corpus.vaults if number == 0 else [],
        )
        for number, sources in enumerate(by_file.values())
    ]


def merge_reports(reports: list[Report], corpus: Corpus, today: date) -> Report:
    """One report of the per-configuration audits of ``corpus``, as one audit would make it."""
    first = reports[0]
    coverage: dict[str, Coverage] = {}
    for report in reports:
        for name, counted in report.coverage.items():
            coverage.setdefault(name, Coverage()).add(counted)
    from context_doctor import freshness
    from context_doctor.freshness.grades import graded_files

    graded = [item for source in corpus.sources for item in graded_files(source, today)]
    return replace(
        first,
        sources=[summary for report in reports for summary in report.sources],
        projects_audited=sum(report.projects_audited for report in reports),
        findings=sorted(
            (finding for report in reports for finding in report.findings), key=Finding.sort_key
        ),
        coverage=coverage,
        projects_with_findings=sum(report.projects_with_findings for report in reports),
        freshness=freshness.summarize(graded) if graded else None,
        suppressed={
            way: sum(report.suppressed.get(way, 0) for report in reports)
            for way in first.suppressed
        },
        toplevels={name: top for report in reports for name, top in report.toplevels.items()},
    )


def config_directories(corpus: Corpus) -> list[Path]:
    """Where the configuration is looked for: each source's root, then its parents up to
    the root of its repository (the nearest file wins, as ruff finds its own)."""
    directories: list[Path] = []
    for root, repository in [(s.root, s.repository) for s in corpus.sources] + [
        (v.root, v.repository) for v in corpus.vaults
    ]:
        top = repository.toplevel if repository is not None else root
        for directory in [root, *root.parents]:
            if not directory.is_relative_to(top):
                break
            if directory not in directories:
                directories.append(directory)
    return directories


def require_something(corpus: Corpus, report: Report) -> None:
    """A scan of nothing is not a clean scan: exit 2 when there was nothing to audit."""
    instructions = any(source.instructions_only for source in corpus.sources)
    if (
        not corpus.projects
        and report.freshness is None
        and not _vault_content(corpus)
        and not instructions
    ):
        where = ", ".join(
            [str(source.projects_path) for source in corpus.sources]
            + [
                f"console source `{u.name}` ({u.reason}{f': {u.error}' if u.error else ''})"
                for u in corpus.unaudited
            ]
        )
        raise DoctorError(
            f"nothing to audit: no projects found in {where}",
            "a scan of nothing is not a clean scan; point the doctor at a directory with projects",
        )


def _vault_content(corpus: Corpus) -> bool:
    """Any vault holding something to judge: notes, a trash, an audit log."""
    return any(
        vault.notes or vault.trash.files or vault.audit_log is not None for vault in corpus.vaults
    )
