"""The one pipeline ``check``, ``demo`` and ``sweep`` share: audit a corpus, then emit the report."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

import click

from context_doctor.config import Settings, resolve_settings
from context_doctor.corpus import Corpus
from context_doctor.engine import run
from context_doctor.errors import DoctorError
from context_doctor.registry import CheckSpec, Context, load_checks, resolve_names
from context_doctor.render.github import render_github, step_summary
from context_doctor.render.jsonout import report_json
from context_doctor.render.sarif import render_sarif
from context_doctor.render.text import (
    console_for,
    render_concise,
    render_human,
    render_quiet,
    render_statistics,
)
from context_doctor.report import Report
from context_doctor.write import WriteRefused, append_file

FORMATS = ("human", "concise", "json", "sarif", "github")


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


def write_step_summary(report: Report) -> None:
    """Append the job summary to ``$GITHUB_STEP_SUMMARY``, when GitHub names one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # GitHub reads the file after the step; other steps append to it too.
        try:
            append_file(Path(summary), step_summary(report).encode("utf-8"))
        except (DoctorError, WriteRefused) as error:
            problem = error.message if isinstance(error, WriteRefused) else error.problem
            raise DoctorError(
                f"cannot append the job summary to $GITHUB_STEP_SUMMARY ({summary}): {problem}",
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
