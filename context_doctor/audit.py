"""The one pipeline ``check``, ``demo`` and ``sweep`` share: audit a corpus, then emit the report."""

from __future__ import annotations

import io
import os
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import IO

import click

from context_doctor import suppress
from context_doctor.cache import replay
from context_doctor.collector import paused_collection
from context_doctor.config import Settings, find_config, resolve_settings
from context_doctor.errors import DoctorError
from context_doctor.escape import escape_text
from context_doctor.findings import Finding
from context_doctor.freshness import summarize
from context_doctor.model.source import Corpus, Source
from context_doctor.registry import CheckSpec, Context, load_checks, resolve_names
from context_doctor.render.formats import FORMATS, RenderOptions
from context_doctor.render.github import step_summary
from context_doctor.report import Coverage, Report, redacted
from context_doctor.write import USER_NAMED, WriteRefused, append_file, write_file


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
) -> tuple[Report, Settings, list[CheckSpec]]:
    """Run the selected checks, then the suppressions (SPEC §5).

    ``baseline`` is an explicit baseline file; else the config's ``baseline``
    applies unless ``config_baseline`` is False (``--write-baseline`` records
    every finding, so it must not be filtered by the baseline it replaces).
    ``replayable``: a run whose every input is unchanged since a stored run gets
    that run's report back (:mod:`context_doctor.replay`); only for a run that
    needs the report alone, not the model (never ``--fix``, ``--diff``).
    """
    registry = load_checks()
    resolve_names(select, registry, "--select")
    resolve_names(ignore, registry, "--ignore")
    groups = config_groups(corpus) if config is None else [corpus]
    if len(groups) > 1:
        # Each source under its own configuration: one audit per configuration, one report.
        audits = [
            audit(
                group,
                today=today,
                readiness=readiness,
                select=select,
                ignore=ignore,
                config=None,
                baseline=baseline,
                config_baseline=config_baseline,
                jobs=jobs,
                replayable=replayable,
            )
            for group in groups
        ]
        merged = merge_reports([report for report, _, _ in audits], corpus, today)
        specs = {spec.name: spec for _, _, checks in audits for spec in checks}
        return merged, audits[0][1], [specs[name] for name in sorted(specs)]
    settings, checks, ignores = _configured(corpus, registry, config, select, ignore)
    chosen = baseline or (settings.baseline if config_baseline else None)
    loaded = suppress.read_baseline(chosen) if chosen is not None else None
    corpus.assign_registry(settings.freshness_registry, settings.freshness_thresholds)
    ctx = Context(today=today, readiness=readiness, settings=settings)
    key = (
        replay.run_key(corpus, settings=settings, checks=checks, ctx=ctx, baseline=chosen)
        if replayable
        else None
    )
    if key is not None:
        replayed = replay.recall(key)
        if replayed is not None:
            return replayed, settings, checks
    # The pipeline itself (the parsers' pool, the vault's model, the engine) is imported
    # only now: a replayed run never needs it (#32).
    from context_doctor.engine import run
    from context_doctor.prepare import prepare_corpus

    with paused_collection():
        preparation = prepare_corpus(corpus, jobs=jobs)
        report = run(corpus, checks, ctx)
        preparation.finish()
        report = suppress.apply(
            report, corpus, checks, registry, ignores, loaded, settings.severity
        )
        secrets = secrets_of(corpus)
        report = redacted(report, secrets)
    if key is not None:
        replay.keep(key, report)
    if secrets:
        # The caches keep file names in clear (the replay store too, for the inputs it
        # keys): none may keep a detected secret (#30). Last, after every cache write.
        from context_doctor.cache.store import forget_files_holding

        forget_files_holding(secrets)
    return report, settings, checks


def _configured(
    corpus: Corpus,
    registry: dict[str, CheckSpec],
    config: Path | None,
    select: list[str],
    ignore: list[str],
) -> tuple[Settings, list[CheckSpec], suppress.ConfigIgnores]:
    """The settings ``corpus`` resolves, its checks and its ignores (exit 2 on a bad name)."""
    settings = resolve_settings(config_directories(corpus), config, select or None, ignore or None)
    checks = select_checks(registry, settings)
    ignores = suppress.config_ignores(
        settings.per_project_ignores,
        settings.per_path_ignores,
        lambda names, key: resolve_names(names, registry, f"{key} ({settings.config_file})"),
    )
    return settings, checks, ignores


def settings_by_group(
    corpus: Corpus, *, select: list[str], ignore: list[str], config: Path | None
) -> list[tuple[Corpus, Settings, list[CheckSpec]]]:
    """Each configuration group's settings and checks, as :func:`audit` would resolve them.

    For ``check --show-settings``: every group is shown, none is audited.
    """
    registry = load_checks()
    resolve_names(select, registry, "--select")
    resolve_names(ignore, registry, "--ignore")
    groups = config_groups(corpus) if config is None else [corpus]
    resolved = []
    for group in groups:
        settings, checks, _ignores = _configured(group, registry, config, select, ignore)
        resolved.append((group, settings, checks))
    return resolved


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


def source_config(corpus: Corpus, source: Source) -> Path | None:
    """The configuration file ``source`` finds (nearest at or above its root), if any."""
    found = find_config(config_directories(replace(corpus, sources=[source], vaults=[])), None)
    return found[0] if found else None


def config_groups(corpus: Corpus) -> list[Corpus]:
    """The corpus split by the configuration file each source finds (SPEC §1: per source).

    One group (the corpus itself) when every source finds the same file or none; the
    unaudited sources and the vaults go with the first group.
    """
    by_file: dict[Path | None, list[Source]] = {}
    for source in corpus.sources:
        by_file.setdefault(source_config(corpus, source), []).append(source)
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
    graded = [item for source in corpus.sources for item in source.graded_files(today)]
    return replace(
        first,
        sources=[summary for report in reports for summary in report.sources],
        projects_audited=sum(report.projects_audited for report in reports),
        findings=sorted(
            (finding for report in reports for finding in report.findings), key=Finding.sort_key
        ),
        coverage=coverage,
        projects_with_findings=sum(report.projects_with_findings for report in reports),
        freshness=summarize(graded) if graded else None,
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
    if not corpus.projects and report.freshness is None and not _vault_content(corpus):
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


def write_step_summary(report: Report) -> None:
    """Append the job summary to ``$GITHUB_STEP_SUMMARY``, when GitHub names one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # GitHub reads the file after the step; other steps append to it too.
        try:
            append_file(Path(summary), step_summary(report).encode("utf-8"), within=USER_NAMED)
        except (DoctorError, WriteRefused) as error:
            problem = error.message if isinstance(error, WriteRefused) else error.problem
            raise DoctorError(
                f"cannot append the job summary to $GITHUB_STEP_SUMMARY ({summary}): {problem}",
                "point GITHUB_STEP_SUMMARY at a writable file, or unset it",
            ) from error


def render_report(
    report: Report,
    output_format: str,
    checks: list[CheckSpec],
    stream: IO[str],
    *,
    quiet: bool = False,
    statistics: bool = False,
    show_coverage: bool = False,
) -> None:
    """Print ``report`` in ``output_format`` (a key of :data:`FORMATS`) on ``stream``."""
    options = RenderOptions(checks, quiet, statistics, show_coverage)
    FORMATS[output_format].render(report, options, stream)


def emit(
    report: Report,
    output_format: str,
    quiet: bool,
    statistics: bool,
    checks: list[CheckSpec],
    *,
    summary_written: bool = False,
    show_coverage: bool = False,
    output_file: Path | None = None,
) -> None:
    """Print the report, or with ``output_file`` write it there (atomically, via write.py)."""
    if output_format == "github" and not summary_written:
        write_step_summary(report)
    options = {"quiet": quiet, "statistics": statistics, "show_coverage": show_coverage}
    if output_file is None:
        render_report(report, output_format, checks, sys.stdout, **options)
        return
    buffer = io.StringIO()
    render_report(report, output_format, checks, buffer, **options)
    write_output(output_file, buffer.getvalue())


def write_output(path: Path, text: str) -> None:
    """``-o FILE``: the whole output or nothing (exit 2 naming why), never a half-written file."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise DoctorError(f"--output-file {path} is a directory", "name a file to write")
    if not parent.is_dir():
        raise DoctorError(
            f"--output-file {path}: directory {parent} does not exist",
            "create the directory first, or name a file in an existing one",
        )
    write_whole(path, text.encode("utf-8"), "--output-file", within=USER_NAMED)


def write_whole(path: Path, data: bytes, what: str, *, within: Path | None) -> None:
    """The whole file or nothing, through write.py; exit 2 naming why not.

    A refusal (a symlinked target) is exit 2 here, not 1: the output the run
    was asked for does not exist, so the run cannot be judged by it.
    """
    try:
        write_file(path, data, within=within)
    except WriteRefused as refused:
        raise DoctorError(
            f"{what} {path} was not written: {refused.message}",
            "name a regular file that is not a symlink",
        ) from refused


def emit_error(error: DoctorError, output_format: str, output_file: Path | None) -> None:
    """On exit 2, the machine formats still say what happened (SPEC §6).

    SARIF is a valid log with ``executionSuccessful: false``; ``github`` is one
    ``::error::``; JSON is the error object. Human formats leave it to stderr.
    """
    renderer = FORMATS[output_format].render_error if output_format in FORMATS else None
    if renderer is None:
        return
    text = renderer(error.problem, error.remedy)
    if output_file is None:
        click.echo(text, nl=False)
        return
    try:
        write_output(output_file, text)
    except DoctorError as unwritable:
        # The caller prints ``error`` itself: a second line only when it says something else
        # (the run failed for another reason and -o cannot take the error document either).
        if unwritable.one_line() != error.one_line():
            click.echo(f"context-doctor: error: {escape_text(unwritable.one_line())}", err=True)
