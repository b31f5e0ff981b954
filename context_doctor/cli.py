"""The ``context-doctor`` command line (SPEC §3)."""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NoReturn

import click

from context_doctor import __version__
from context_doctor.cache import REPORT_CACHE_NAME, read_cached_report, report_age_hours, write_json
from context_doctor.config import Settings, resolve_settings
from context_doctor.corpus import Corpus, discover, synthesis_home
from context_doctor.engine import run
from context_doctor.errors import DoctorError
from context_doctor.freshness_cli import FreshnessGroup, now_or, run_summary
from context_doctor.registry import CheckSpec, Context, load_checks, resolve_names
from context_doctor.render.github import render_github, step_summary
from context_doctor.render.jsonout import error_json, report_json
from context_doctor.render.sarif import render_sarif
from context_doctor.render.text import (
    console_for,
    render_concise,
    render_human,
    render_quiet,
    render_statistics,
)
from context_doctor.report import Report, plural

FORMATS = ("human", "concise", "json", "sarif", "github")


def _fail(error: DoctorError, as_json: bool) -> NoReturn:
    if as_json:
        click.echo(error_json(error.problem, error.remedy), nl=False)
    click.echo(f"context-doctor: error: {error.one_line()}", err=True)
    sys.exit(2)


@contextmanager
def guarded(as_json: bool, debug: bool) -> Iterator[None]:
    """Exit 2 for anything that stops the doctor establishing ground truth, never a traceback."""
    try:
        yield
    except DoctorError as error:
        _fail(error, as_json)
    except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
        raise
    except Exception as error:
        if debug:
            traceback.print_exc()
        _fail(
            DoctorError(
                f"internal error: {error.__class__.__name__}: {error}",
                "rerun with --debug for the traceback and report it",
            ),
            as_json,
        )


def _parse_today(_ctx: click.Context, _param: click.Parameter, value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError(value)  # fromisoformat would also take 20260111 and 2026-W02-1
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a YYYY-MM-DD date") from None


def _split_names(values: tuple[str, ...]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


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


def print_settings(settings: Settings, checks: list[CheckSpec], corpus: Corpus) -> None:
    click.echo(f"config file: {settings.config_file or '(none found; defaults)'}")
    click.echo("sources:")
    for source in corpus.sources:
        click.echo(f"  {source.name}: {source.root} (projects_dir: {source.projects_dir or '-'})")
    click.echo(f"select = {[spec.name for spec in checks]}  # {settings.origin('select')}")
    click.echo(f"ignore = {sorted(settings.ignore)}  # {settings.origin('ignore')}")
    for name, level in sorted(settings.severity.items()):
        click.echo(f"severity.{name} = {level.value!r}  # {settings.origin(f'severity.{name}')}")
    for name, number in sorted(settings.budgets.items()):
        click.echo(f"budgets.{name} = {number}  # {settings.origin(f'budgets.{name}')}")


def write_step_summary(report: Report) -> None:
    """Append the job summary to ``$GITHUB_STEP_SUMMARY``, when GitHub names one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # GitHub reads the file after the step; other steps append to it too.
        try:
            with open(summary, "a", encoding="utf-8") as stream:
                stream.write(step_summary(report))
        except OSError as error:
            raise DoctorError(
                f"cannot append the job summary to $GITHUB_STEP_SUMMARY ({summary}): "
                f"{error.strerror or error}",
                "point GITHUB_STEP_SUMMARY at a writable file, or unset it",
            ) from error


def emit(
    report: Report,
    output_format: str,
    quiet: bool,
    statistics: bool,
    checks: list[CheckSpec],
    *,
    summary_written: bool = False,
) -> None:
    if output_format == "json":
        click.echo(report_json(report), nl=False)
        return
    if output_format == "sarif":
        click.echo(render_sarif(report, checks), nl=False)
        return
    if output_format == "github":
        click.echo(render_github(report), nl=False)
        if not summary_written:
            write_step_summary(report)
        return
    console = console_for(sys.stdout)
    renderer: Callable[..., None]
    if quiet:
        renderer = render_quiet
    elif statistics:
        renderer = render_statistics
    elif output_format == "concise":
        renderer = render_concise
    else:
        renderer = render_human
    renderer(report, console)


def audit(
    corpus: Corpus,
    *,
    today: date,
    readiness: str,
    select: list[str],
    ignore: list[str],
    config: Path | None,
) -> tuple[Report, Settings, list[CheckSpec]]:
    registry = load_checks()
    resolve_names(select, registry, "--select")
    resolve_names(ignore, registry, "--ignore")
    roots = [source.root for source in corpus.sources]
    settings = resolve_settings(roots, config, select or None, ignore or None)
    checks = select_checks(registry, settings)
    corpus.assign_registry(settings.freshness_registry)
    ctx = Context(today=today, readiness=readiness, settings=settings)
    return run(corpus, checks, ctx), settings, checks


def output_options(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--today",
            callback=_parse_today,
            metavar="YYYY-MM-DD",
            help="The date to judge freshness against (default: the local date).",
        ),
        click.option(
            "--readiness",
            type=click.Choice(["local", "remote"]),
            default="local",
            show_default=True,
            help="remote: durability problems are defects.",
        ),
        click.option(
            "--select",
            multiple=True,
            metavar="NAMES",
            help="Run only these checks (comma-separated; replaces the config's select).",
        ),
        click.option(
            "--ignore",
            multiple=True,
            metavar="NAMES",
            help="Skip these checks (comma-separated; adds to the config's ignore).",
        ),
        click.option(
            "--output-format", type=click.Choice(FORMATS), default="human", show_default=True
        ),
        click.option("--json", "as_json", is_flag=True, help="Alias of --output-format json."),
        click.option("--quiet", "-q", is_flag=True, help="Print only the verdict line."),
        click.option(
            "--statistics", is_flag=True, help="Print counts per check instead of findings."
        ),
        click.option("--warnings-as-defects", is_flag=True, help="Exit 1 on warnings too."),
        click.option(
            "--exit-zero", is_flag=True, help="Exit 0 even with defects (2 still means 2)."
        ),
        click.option(
            "--config", type=click.Path(path_type=Path), help="Configuration file to use."
        ),
        click.option("--debug", is_flag=True, help="Show tracebacks of internal errors."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="context-doctor")
def cli() -> None:
    """Audit the durable context layer AI agents resume long-running work from."""


@cli.command("check")
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
    "--allow-shallow",
    is_flag=True,
    help="Audit a shallow clone; history-dependent checks report what they cannot verify.",
)
@click.option("--show-settings", is_flag=True, help="Print the resolved settings and exit.")
@click.option(
    "--pre-push",
    is_flag=True,
    help="Run as a pre-push hook: the commits being pushed (git's hook input on stdin, or "
    "pre-commit's PRE_COMMIT_TO_REF) count as published.",
)
@click.option(
    "--no-report-cache", is_flag=True, help="Do not write the report cache of a console.yaml run."
)
@click.option(
    "--report-cache",
    "report_cache",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the JSON report here (any run), instead of $SYNTHESIS_HOME/context-doctor/.",
)
@output_options
def check_command(
    paths: tuple[str, ...],
    sources: tuple[str, ...],
    projects: tuple[str, ...],
    allow_shallow: bool,
    show_settings: bool,
    pre_push: bool,
    no_report_cache: bool,
    report_cache: Path | None,
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
    """Audit a corpus. Exit 0 healthy, 1 defects, 2 ground truth not established."""
    output_format = "json" if as_json else output_format
    with guarded(output_format == "json", debug):
        corpus = discover(
            paths,
            sources,
            projects,
            allow_shallow=allow_shallow,
            pushing=pushed_commits() if pre_push else (),
        )
        report, settings, checks = audit(
            corpus,
            today=today,
            readiness=readiness,
            select=_split_names(select),
            ignore=_split_names(ignore),
            config=config,
        )
        if show_settings:
            print_settings(settings, checks, corpus)
            return
        if not corpus.projects and report.freshness is None:
            where = ", ".join(str(source.projects_path) for source in corpus.sources)
            raise DoctorError(
                f"nothing to audit: no projects found in {where}",
                "a scan of nothing is not a clean scan; point the doctor at a directory with projects",
            )
        if output_format == "github":
            # Before the cache: a summary that cannot be written is exit 2, and an exit-2
            # run must leave the report cache as it was.
            write_step_summary(report)
        cache_path = report_cache_path(corpus, report_cache, no_report_cache)
        if cache_path is not None:
            write_json(cache_path, report.to_json())
        emit(report, output_format, quiet, statistics, checks, summary_written=True)
    sys.exit(report.exit_code(warnings_as_defects=warnings_as_defects, exit_zero=exit_zero))


ZERO_SHA = "0" * 40


def pushed_commits() -> tuple[str, ...]:
    """The local shas a push is sending.

    git gives a pre-push hook one line per ref on stdin: ``<local ref> <local
    sha> <remote ref> <remote sha>`` (an all-zero local sha is a deletion);
    pre-commit's pre-push stage gives ``PRE_COMMIT_TO_REF`` instead.
    """
    to_ref = os.environ.get("PRE_COMMIT_TO_REF")
    if to_ref:
        return (to_ref,)
    if sys.stdin is None or sys.stdin.isatty():
        return ()
    shas: list[str] = []
    for line in sys.stdin.read().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[1].strip("0"):
            shas.append(parts[1])
    return tuple(shas)


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
        return synthesis_home() / "context-doctor" / REPORT_CACHE_NAME
    return None


@cli.command("explain")
@click.argument("name", required=False)
@click.option("--all", "show_all", is_flag=True, help="Explain every check.")
def explain_command(name: str | None, show_all: bool) -> None:
    """What a check means, why it matters, how to fix it and what skips it."""
    with guarded(False, False):
        registry = load_checks()
        if show_all:
            names = list(registry)
        elif name:
            names = resolve_names([name], registry, "the command line")
        else:
            raise DoctorError(
                "explain needs a check NAME or --all", "run `context-doctor explain --all`"
            )
        from context_doctor.explain import explain_text

        click.echo("\n\n".join(explain_text(registry[item]) for item in names))


@cli.command("demo")
@click.option("--today", metavar="YYYY-MM-DD", help="Audit date (default: the demo story's date).")
@click.option("--output-format", type=click.Choice(FORMATS), default="human", show_default=True)
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    help="Build the demo corpus here and keep it, instead of a temporary directory.",
)
def demo_command(today: str | None, output_format: str, keep: Path | None) -> None:
    """Build the bundled demo knowledge base in a temporary directory and audit it."""
    with guarded(output_format == "json", False):
        from context_doctor.demo import run_demo

        code = run_demo(today=today, output_format=output_format, keep=keep)
    sys.exit(code)


@cli.group("freshness", cls=FreshnessGroup, invoke_without_command=False)
def freshness_group() -> None:
    """A-F review-age grades of pai-freshness-v1 files (no projects needed), and their writers.

    `context-doctor freshness [PATH ...]` prints the grades; `review`, `touch`,
    `review-section` and `migrate` change markers, never content.
    """


@freshness_group.command("summary", hidden=True)
@click.argument("paths", nargs=-1, type=str)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option(
    "--write-cache",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the statusline cache (summary + generated_at, under 4 KiB) here.",
)
@click.option(
    "--today",
    callback=_parse_today,
    metavar="YYYY-MM-DD",
    help="The date to grade against (default: the local date).",
)
@click.option("--config", type=click.Path(path_type=Path), help="Configuration file to use.")
@click.option(
    "--now", "now_text", metavar="ISO-8601", hidden=True, help="generated_at (for tests)."
)
def freshness_summary_command(
    paths: tuple[str, ...],
    as_json: bool,
    write_cache: Path | None,
    today: date,
    config: Path | None,
    now_text: str | None,
) -> None:
    """Grades of the graded files under PATHs (default: the current directory)."""
    with guarded(as_json, False):
        code = run_summary(paths, as_json, write_cache, today, config, now_or(now_text))
    sys.exit(code)


def _register_writers() -> None:
    """The writer commands (review, touch, review-section, migrate) live in their own module."""
    from context_doctor.freshness_write_commands import WRITE_COMMANDS

    for command in WRITE_COMMANDS:
        freshness_group.add_command(command)


_register_writers()


@cli.group("hook")
def hook_group() -> None:
    """Install git hooks that run the doctor."""


@hook_group.command("install")
@click.option(
    "--repo",
    type=click.Path(path_type=Path, file_okay=False),
    default=".",
    show_default=True,
    help="The repository to install the pre-push hook into.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a pre-push hook that is not context-doctor's (it is kept as a backup).",
)
def hook_install_command(repo: Path, force: bool) -> None:
    """Install a plain git pre-push hook (for people without pre-commit)."""
    with guarded(False, False):
        from context_doctor.hooks import install_hook

        if not repo.is_dir():
            raise DoctorError(f"{repo} is not a directory", "pass --repo PATH of a git repository")
        target, backup = install_hook(repo, force=force)
        click.echo(f"installed {target}")
        if backup is not None:
            click.echo(f"kept the previous hook as {backup}")


@cli.command("report")
@click.option(
    "--max-age",
    type=click.FloatRange(min=0),
    metavar="HOURS",
    help="Exit 2 when the cached report is older than this.",
)
@click.option(
    "--cache",
    "cache",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read this cache file instead of $SYNTHESIS_HOME/context-doctor/last-report.json.",
)
@click.option(
    "--now",
    "now_text",
    metavar="ISO-8601",
    hidden=True,
    help="The current time (for reproducible tests).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the cached report itself.")
def report_command(
    max_age: float | None, cache: Path | None, now_text: str | None, as_json: bool
) -> None:
    """Summary of the cached last report, for fast surfaces such as a session-start hook.

    Exits like `check` would have (0 healthy, 1 defects) and 2 when the cache is
    missing, unreadable or older than --max-age.
    """
    with guarded(as_json, False):
        path = cache or synthesis_home() / "context-doctor" / REPORT_CACHE_NAME
        cached = read_cached_report(path)
        try:
            now = datetime.fromisoformat(now_text) if now_text else datetime.now(UTC)
        except ValueError:
            raise DoctorError(
                f"--now {now_text!r} is not an ISO-8601 time", "pass e.g. 2026-06-20T09:00:00+00:00"
            ) from None
        if now.tzinfo is None:
            now = now.replace(tzinfo=UTC)  # a time without an offset is read as UTC
        age = report_age_hours(cached, now)
        if max_age is not None and age > max_age:
            raise DoctorError(
                f"the cached report {path} is {age:.1f} hours old, older than --max-age {max_age:g}",
                "run `context-doctor check` to refresh it",
            )
        if as_json:
            click.echo(json.dumps(cached, indent=2, ensure_ascii=False))
        else:
            verdict = (
                "DEFECTS" if cached["defects"] else "WARNINGS" if cached["warnings"] else "HEALTHY"
            )
            click.echo(
                f"{verdict}: {plural(cached['defects'], 'defect')}, "
                f"{plural(cached['warnings'], 'warning')} in "
                f"{plural(cached['projects_audited'], 'project')} (readiness {cached['readiness']}; "
                f"generated {cached['generated_at']}, {age:.1f} h ago)"
            )
            counts: dict[str, int] = {}
            for finding in cached["findings"]:
                counts[finding["check"]] = counts.get(finding["check"], 0) + 1
            for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                click.echo(f"{count:>5}  {name}")
    sys.exit(1 if cached["defects"] else 0)


def _wants_json(args: list[str]) -> bool:
    for position, arg in enumerate(args):
        if arg in ("--json", "--output-format=json"):
            return True
        if arg == "--output-format" and args[position + 1 : position + 2] == ["json"]:
            return True
    return False


def main(args: list[str] | None = None) -> None:
    """The console script: like click's standalone mode, but a usage error under --json is JSON too."""
    argv = list(sys.argv[1:] if args is None else args)
    try:
        code = cli.main(args=argv, prog_name="context-doctor", standalone_mode=False)
    except click.ClickException as error:
        if _wants_json(argv):
            click.echo(error_json(error.format_message(), "see `context-doctor --help`"), nl=False)
        error.show()
        sys.exit(2 if isinstance(error, click.UsageError) else error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
