"""``context-doctor check``: audit a corpus (docs/output.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import click

from context_doctor.cache.report_file import (
    REPORT_CACHE_NAME,
    write_json,
    write_repository_report,
)
from context_doctor.commands.common import guarded, output_options, split_names
from context_doctor.commands.help_format import SectionedCommand
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.model.collector import release_audit
from context_doctor.render.formats import FORMATS
from context_doctor.render.jsonout import report_json_bytes
from context_doctor.render.output import emit, write_step_summary, write_whole
from context_doctor.render.terminal import progress, wants_progress
from context_doctor.report.report import Report, plural
from context_doctor.write import USER_NAMED, WriteRefused

if TYPE_CHECKING:
    from context_doctor.cache.keys import Invocation
    from context_doctor.checks.registry import CheckSpec
    from context_doctor.config.settings import Settings
    from context_doctor.model.source import Corpus


def print_settings(
    settings: Settings, checks: list[CheckSpec], corpus: Corpus, explicit: Path | None = None
) -> None:
    """One configuration group's resolved settings, headed by its file and the sources it governs."""
    click.echo(escape_text(f"config file: {settings.config_file or '(none found; defaults)'}"))
    click.echo("sources:")
    from context_doctor.pipeline.audit import source_config  # the pipeline: only when asked

    for source in corpus.sources:
        found = explicit or source_config(corpus, source)
        click.echo(
            escape_text(
                f"  {source.name}: {source.root} (projects_dir: {source.projects_dir or '-'}; "
                f"{source.layout.describe()}; config: {found or 'defaults'})"
            )
        )
    click.echo(f"select = {[spec.name for spec in checks]}  # {settings.origin('select')}")
    click.echo(f"ignore = {sorted(settings.ignore)}  # {settings.origin('ignore')}")
    for name, level in sorted(settings.severity.items()):
        click.echo(f"severity.{name} = {level.value!r}  # {settings.origin(f'severity.{name}')}")
    for name, number in sorted(settings.budgets.items()):
        click.echo(f"budgets.{name} = {number}  # {settings.origin(f'budgets.{name}')}")
    for check_name, options in sorted(settings.check_options.items()):
        for name, number in sorted(options.items()):
            key = f"checks.{check_name}.{name}"
            click.echo(f"{key} = {number}  # {settings.origin(key)}")
    if settings.baseline is not None:
        missing = "" if settings.baseline.exists() else " (not written yet: --write-baseline)"
        click.echo(
            f"baseline = {str(settings.baseline)!r}  # {settings.origin('baseline')}{missing}"
        )
    for key, table in (
        ("per-project-ignores", settings.per_project_ignores),
        ("per-path-ignores", settings.per_path_ignores),
    ):
        for name, names in sorted(table.items()):
            click.echo(f"{key}.{name!r} = {names}  # {settings.origin(f'{key}.{name}')}")
    for slug, days in sorted(settings.freshness_thresholds.items()):
        origin = settings.origin("freshness.thresholds")
        click.echo(f"freshness.thresholds.{slug} = {days}  # {origin}")
    if settings.freshness_cache is not None:
        origin = settings.origin("freshness.cache")
        click.echo(f"freshness.cache = {str(settings.freshness_cache)!r}  # {origin}")
    if settings.docs_url is not None:
        origin = settings.origin("output.docs_url")
        click.echo(escape_text(f"output.docs_url = {settings.docs_url!r}  # {origin}"))


# From this many projects the model is let go before its report is written: below it, the
# collection that frees it (a pass over every object) costs more than the memory is worth.
RELEASE_MODEL_PROJECTS = 500


OUTPUT_OPTIONS = (
    *("output_format", "as_json", "quiet", "statistics", "show_coverage", "output_file"),
    *("color", "show_settings"),
)
CHECK_SECTIONS = (
    ("Sources", ("sources", "projects", "vaults", "floors", "config", "pre_push")),
    ("Selection", ("select", "ignore", "baseline", "write_baseline")),
    ("Output", OUTPUT_OPTIONS),
    ("Fixes", ("apply_fixes", "unsafe_fixes", "show_diff")),
    ("Caches", ("no_cache", "report_cache", "no_report_cache")),
    ("Readiness", ("readiness", "today", "allow_shallow", "warnings_as_defects", "exit_zero")),
    ("Other", ("jobs", "debug", "help")),
)
"""``check --help`` in sections, as ruff groups its options; the last takes any other."""


@click.command("check", cls=SectionedCommand, sections=CHECK_SECTIONS)
@click.argument("paths", nargs=-1, type=str)
@click.option(
    "--source",
    "sources",
    multiple=True,
    metavar="PATH",
    help="A knowledge repository root holding projects/ (repeatable).",
)
@click.option("--project", "projects", multiple=True, metavar="PATH", help="One project directory.")
@click.option(
    "--vault",
    "vaults",
    multiple=True,
    metavar="PATH",
    help="A Bastra Recall memory vault (a directory holding .bastra/) to audit (repeatable).",
)
@click.option(
    "--floors",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Bastra's floors file (default $BASTRA_FLOORS_PATH, else ~/.bastra/floors.json); its "
    "act log is read from $BASTRA_FLOOR_ACTS_PATH, else floor-acts.jsonl beside it.",
)
@click.option(
    "--allow-shallow",
    is_flag=True,
    help="Audit a shallow clone; history-dependent checks report what they cannot verify.",
)
@click.option("--show-settings", is_flag=True, help="Print the resolved settings and exit.")
@click.option(
    "--pre-push",
    is_flag=True,
    help="Run as a pre-push hook: audit the tree of each commit being pushed (git's hook "
    "input on stdin, or pre-commit's PRE_COMMIT_* variables) and refuse only defects in the "
    "projects the pushed commits change.",
)
@click.option(
    "--no-report-cache",
    is_flag=True,
    help="Do not save the report cache (the last report, what status and report read) of a "
    "console.yaml run.",
)
@click.option(
    "--report-cache",
    "report_cache",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Save the report cache here (any run), instead of $SYNTHESIS_HOME/context-doctor/.",
)
@click.option(
    "--baseline",
    "baseline",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Report only findings not in this baseline (default file: "
    "context-doctor-baseline.json at the source root; overrides the config's baseline).",
)
@click.option(
    "--write-baseline",
    "write_baseline",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Record every current finding's fingerprint in FILE (default: "
    "context-doctor-baseline.json at the source root) and exit 0.",
)
@click.option(
    "--show-coverage", is_flag=True, help="Print every check's coverage line with its reasons."
)
@click.option(
    "-o",
    "--output-file",
    "output_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write the output to FILE (atomically) instead of stdout.",
)
@click.option(
    "--fix", "apply_fixes", is_flag=True, help="Apply the safe fixes, then report what remains."
)
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff: the unsafe fixes too.")
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff and write nothing (exit 1 when there is one).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache (parsed files, history, unchanged runs).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    metavar="N",
    help="Parse with at most N worker processes (default: one per CPU).",
)
@output_options
def check_command(
    paths: tuple[str, ...],
    sources: tuple[str, ...],
    projects: tuple[str, ...],
    vaults: tuple[str, ...],
    floors: Path | None,
    allow_shallow: bool,
    show_settings: bool,
    pre_push: bool,
    no_report_cache: bool,
    report_cache: Path | None,
    baseline: str | None,
    write_baseline: str | None,
    show_coverage: bool,
    output_file: Path | None,
    apply_fixes: bool,
    unsafe_fixes: bool,
    show_diff: bool,
    no_cache: bool,
    jobs: int | None,
    today: date,
    readiness: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    output_format: str,
    as_json: bool,
    quiet: bool,
    statistics: bool,
    warnings_as_defects: bool,
    exit_zero: bool,
    config: Path | None,
    debug: bool,
) -> None:
    """Audit a repository's working memory against its git history.

    Exit 0 healthy, 1 defects, 2 ground truth not established."""
    output_format = "json" if as_json else output_format
    with (
        guarded(
            output_format == "json", debug, output_format=output_format, output_file=output_file
        ),
        _finishing() as tail,
    ):
        if unsafe_fixes and not (apply_fixes or show_diff):
            raise click.UsageError(
                "--unsafe-fixes widens --fix or --diff; add one of them (e.g. `--diff "
                "--unsafe-fixes` to see what it would change)"
            )

        Where = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
        # The pushing repository's identity, in the hook's checkout: asked only when a
        # single project's id needs it (one git process less for every other push).
        identity: Callable[[], str | None] | None = None
        invocation: Invocation | None = None  # set below for a run named by paths

        def find(where: Where, pushing: tuple[str, ...], *, audited: bool) -> Corpus:
            floor_files = None
            if floors is not None:
                from context_doctor.vault.floors import floors_beside

                floor_files = floors_beside(floors)
            from context_doctor.pipeline.discover import discover

            return discover(
                *where,
                allow_shallow=allow_shallow,
                pushing=pushing,
                ci=in_ci(),
                # A pushed tree is a temporary checkout: nothing in it is worth keeping.
                cache=not (no_cache or pushing),
                audit=audited,
                vaults=vaults,
                floors=floor_files,
                config=config,
                identity=identity if pushing else None,
            )

        def audit_once(
            where: Where = (paths, sources, projects), pushing: tuple[str, ...] = ()
        ) -> tuple[Corpus, Report, Settings, Sequence[CheckSpec]]:
            corpus = find(where, pushing, audited=True)
            from context_doctor.pipeline.audit import audit

            report, settings, checks = audit(
                corpus,
                today=today,
                readiness=readiness,
                select=split_names(select),
                ignore=split_names(ignore),
                config=config,
                baseline=baseline_path(baseline, corpus),
                config_baseline=write_baseline is None,
                jobs=jobs,
                # --fix and --diff plan from the model, --write-baseline records it fresh
                replayable=not (apply_fixes or show_diff or write_baseline is not None),
                direct=None if pushing else invocation,
                tail=None if pushing else tail,
            )
            return corpus, report, settings, checks

        if pre_push:
            if (
                output_format != "human"
                or apply_fixes
                or show_diff
                or show_settings
                or (write_baseline is not None)
            ):
                raise click.UsageError(
                    "--pre-push prints its own verdict: it takes no --output-format/--json, "
                    "--fix, --diff, --show-settings or --write-baseline"
                )

            def audit_tree(
                tree_paths: tuple[str, ...],
                tree_sources: tuple[str, ...],
                tree_projects: tuple[str, ...],
                pushing: tuple[str, ...],
            ) -> tuple[Corpus, Report]:
                corpus, report, _settings, _checks = audit_once(
                    (tree_paths, tree_sources, tree_projects), pushing
                )
                from context_doctor.pipeline.audit import require_something

                require_something(corpus, report)
                return corpus, report

            from context_doctor.commands.pre_push import pushing_identity, run_pre_push

            given = (*paths, *sources, *projects)
            anchor = Path(given[0]) if given else Path.cwd()
            identity = cache(lambda: pushing_identity(anchor))
            code = run_pre_push(
                paths, sources, projects, audit_tree, warnings_block=warnings_as_defects
            )
            sys.exit(0 if exit_zero else code)

        if show_settings:
            # Settings only, nothing audited: every configuration group, never just the first.
            corpus = find((paths, sources, projects), (), audited=False)
            from context_doctor.pipeline.audit import settings_by_group

            groups = settings_by_group(
                corpus, select=split_names(select), ignore=split_names(ignore), config=config
            )
            for number, (group, settings, group_checks) in enumerate(groups):
                if number:
                    click.echo("")
                print_settings(settings, group_checks, group, config)
            return
        # A run named by paths alone may get its stored report back before the corpus is
        # even discovered (keys.Invocation); anything else discovers, then keys.
        invocation = direct_invocation(
            paths, sources, projects, today=today, readiness=readiness, select=select,
            ignore=ignore, config=config, baseline=baseline, allow_shallow=allow_shallow,
        ) if not (
            apply_fixes or show_diff or write_baseline is not None or no_cache or vaults
            or floors is not None or output_format == "sarif"
        ) else None  # fmt: skip
        hit = None
        if invocation is not None:
            from context_doctor.cache.replay import recall_direct

            hit = recall_direct(invocation)
        fixed: int | None = None
        if hit is not None:
            report, whole = hit
            checks: Sequence[CheckSpec] = ()  # no SARIF here: nothing asks for them
            docs_url = None
            cache_path = None if no_report_cache else report_cache
        else:
            # A person at a terminal sees a progress line once the audit takes two seconds.
            watched = wants_progress(output_format, quiet) and output_file is None
            with progress("context-doctor: auditing…", enabled=watched):
                corpus, report, settings, checks = audit_once()
            docs_url = settings.docs_url
            from context_doctor.pipeline.audit import require_something

            require_something(corpus, report)
            if write_baseline is not None:
                from context_doctor.pipeline.suppress import findings_for_baseline

                written = baseline_path(write_baseline, corpus)
                assert written is not None
                # The bare flag's default lies in the first source's repository; a named FILE is
                # the user's choice.
                default = write_baseline == ""
                write_baseline_file(
                    written,
                    report,
                    within=corpus.sources[0].repository.toplevel if default else USER_NAMED,
                    corpus=corpus,
                )
                click.echo(
                    f"wrote {written}: {plural(len(findings_for_baseline(report)), 'finding')} "
                    "recorded; `check --baseline` now reports only new ones",
                    err=True,
                )
                sys.exit(0)
            if show_diff or apply_fixes:
                from context_doctor.editor.fixes import apply_plan, plan_fixes

                plan = plan_fixes(report.findings, corpus, unsafe=unsafe_fixes)
                for finding, why in plan.skipped:
                    click.echo(
                        escape_text(
                            f"context-doctor: not fixed: [{finding.check}] {finding.path}: {why}"
                        ),
                        err=True,
                    )
                if show_diff:
                    if not plan.files:
                        click.echo(
                            "context-doctor: nothing to fix: --fix would change no file", err=True
                        )
                        sys.exit(0)
                    # The diff quotes the files around each fix: a secret there is shown only
                    # redacted, as in every other output (SECURITY.md "A secret is never spread").
                    from context_doctor.guards.redact import scrub
                    from context_doctor.pipeline.audit import secrets_of

                    click.echo(scrub(plan.diff(), secrets_of(corpus)), nl=False)
                    sys.exit(1)
                try:
                    apply_plan(plan)
                except WriteRefused as refused:
                    click.echo(
                        escape_text(
                            f"context-doctor: fix refused [{refused.rule}]: {refused.message}"
                        ),
                        err=True,
                    )
                    sys.exit(1)
                fixed = plan.fixed
                corpus, report, settings, checks = audit_once()  # the pipeline re-audits
            cache_path = report_cache_path(corpus, report_cache, no_report_cache)
            whole = whole_repository(corpus)
            if len(corpus.projects) >= RELEASE_MODEL_PROJECTS:
                # The model is not needed to print or cache its report: let it go before
                # the JSON is built, so that the one reuses the other's memory.
                del corpus
                release_audit()
            _run_steps(tail)  # the audit's last steps, once the model is let go
        if output_format == "github":
            # Before the cache: a summary that cannot be written is exit 2, and an exit-2
            # run must leave the report cache as it was.
            write_step_summary(report)
        # The JSON says how the process ends (`exit`, and `ok` from it): the console checks.
        report.exit = report.exit_code(warnings_as_defects=warnings_as_defects, exit_zero=exit_zero)
        if cache_path is not None and (select or ignore):
            # A partial result must not masquerade as corpus state (docs/output.md).
            click.echo(
                escape_text(
                    f"context-doctor: report cache {cache_path} not written: --select/--ignore "
                    "narrowed this run, and only a full run describes the corpus"
                ),
                err=True,
            )
            cache_path = None
        repository_cache = whole is not None and not (no_report_cache or select or ignore)
        # The JSON report is built once, for the caches and the output alike (at
        # 8,000 projects each building held another copy of a ~14 MB report).
        document = (
            report_json_bytes(report)
            if cache_path is not None or repository_cache or output_format == "json"
            else None
        )
        if cache_path is not None:
            assert document is not None
            write_json(cache_path, document)
        if repository_cache:
            assert whole is not None and document is not None
            write_repository_cache(whole, document)
        if fixed is not None:
            click.echo(
                f"Fixed {plural(fixed, 'finding')} ({len(report.findings)} remaining).",
                err=FORMATS[output_format].machine or output_file is not None,
            )
        emit(
            report,
            output_format,
            quiet,
            statistics,
            checks,
            summary_written=True,
            show_coverage=show_coverage,
            output_file=output_file,
            rendered=document if output_format == "json" else None,
            docs_url=docs_url,
        )
        unreachable = report.unreachable_error()
        if unreachable is not None:  # the rest was audited and reported; this was not
            problem, remedy = unreachable
            click.echo(
                escape_text(f"context-doctor: error: {problem} (remedy: {remedy})"), err=True
            )
    code = report.exit_code(warnings_as_defects=warnings_as_defects, exit_zero=exit_zero)
    sys.exit(code)


def direct_invocation(
    paths: tuple[str, ...],
    sources: tuple[str, ...],
    projects: tuple[str, ...],
    *,
    today: date,
    readiness: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    config: Path | None,
    baseline: str | None,
    allow_shallow: bool,
) -> Invocation | None:
    """A run named by paths (not the console's sources, the current directory or a vault),
    as the replay keys it before discovery; None for any other run."""
    if not (paths or sources or projects):
        return None  # discovery would read console.yaml and what lies above the directory
    from context_doctor.cache.keys import Invocation

    asked = (paths, sources, projects, select, ignore, config, baseline, allow_shallow)
    return Invocation(
        (repr(asked), today.isoformat(), readiness),
        tuple(Path(raw) for raw in (*sources, *projects, *paths)),
    )


@contextmanager
def _finishing() -> Iterator[list[Callable[[], None]]]:
    """A list for the audit's last steps (:func:`context_doctor.pipeline.audit.audit`'s ``tail``),
    run where the command lets its model go, and on any way out before that (an exit 2,
    a usage error), so that no step the audit left is skipped."""
    steps: list[Callable[[], None]] = []
    try:
        yield steps
    finally:
        _run_steps(steps)


def _run_steps(steps: list[Callable[[], None]]) -> None:
    while steps:
        steps.pop(0)()


def whole_repository(corpus: Corpus) -> Path | None:
    """The top of the one repository this run audited whole (no ``--project``, no file),
    whose report cache it writes (docs/surfaces.md); None for any other run."""
    return corpus.whole_repository()


def write_repository_cache(toplevel: Path, document: bytes | bytearray) -> None:
    """The repository's report cache (``document``: the report's JSON), beside the audit: a
    cache that cannot be written there (a symlink or a FIFO planted in the git directory) is
    one line on stderr, and the run's verdict stands, since the audit it reports on is
    complete."""
    try:
        write_repository_report(toplevel, document)
    except (DoctorError, WriteRefused) as refused:
        why = refused.problem if isinstance(refused, DoctorError) else refused.message
        click.echo(
            escape_text(f"context-doctor: repository report cache not written: {why}"),
            err=True,
        )


def in_ci() -> bool:
    """``CI=true`` (GitHub Actions, GitLab CI, CircleCI, Travis... all set it), any case."""
    return os.environ.get("CI", "").strip().lower() == "true"


def baseline_path(raw: str | None, corpus: Corpus) -> Path | None:
    """``--baseline``/``--write-baseline``: None when absent, the default file when given bare."""
    if raw is None:
        return None
    if raw == "":
        from context_doctor.pipeline.suppress import default_baseline_path

        return default_baseline_path(corpus)
    return Path(raw)


def write_baseline_file(
    path: Path, report: Report, *, within: Path | None, corpus: Corpus | None = None
) -> None:
    """Write the baseline via write.py; exit 2 (nothing written) when it cannot be. With the
    run's ``corpus``, the ids of its single projects are recorded too (docs/layouts.md)."""
    if path.is_dir():
        raise DoctorError(f"baseline {path} is a directory", "name a file for the baseline")
    if not path.parent.is_dir():
        raise DoctorError(
            f"baseline {path}: directory {path.parent} does not exist",
            "create the directory first, or name a file in an existing one",
        )
    from context_doctor.pipeline.ids import recorded_ids
    from context_doctor.pipeline.suppress import baseline_bytes, findings_for_baseline

    ids = recorded_ids(corpus) if corpus is not None else None
    write_whole(path, baseline_bytes(findings_for_baseline(report), ids), "baseline", within=within)


def report_cache_path(corpus: Corpus, explicit: Path | None, disabled: bool) -> Path | None:
    """Where this run's report is cached, if anywhere.

    Only a run over the console.yaml sources describes the corpus, so only it
    writes the default cache; ``--report-cache PATH`` is an explicit request
    and is honoured for any run.
    """
    if disabled:
        return None
    if explicit is not None:
        return explicit
    if corpus.from_console:
        from context_doctor.pipeline.discover import synthesis_home

        return synthesis_home() / "context-doctor" / REPORT_CACHE_NAME
    return None
