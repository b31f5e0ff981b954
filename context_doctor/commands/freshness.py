"""``context-doctor freshness``: the grades summary, and the marker writers
``review``, ``touch``, ``review-section`` and ``migrate``.

Every body runs under :func:`~context_doctor.commands.common.guarded`, so a
refusal prints ``context-doctor: error: <problem> (remedy: <remedy>)`` and exits 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click

from context_doctor.commands.common import guarded, parse_now, parse_today
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.errors import DoctorError
from context_doctor.freshness.frontmatter import section_slug
from context_doctor.freshness.grades import GradedFile, summarize
from context_doctor.freshness.summary import (
    DEFECT_CHECKS,
    StatuslineCache,
    configured_statusline,
    grade_paths,
    refresh_statusline,
    write_statusline,
)
from context_doctor.freshness.writers import (
    MIGRATION_AUTHOR,
    WOULD_MIGRATE,
    backup_directory,
    marker_text,
    migrate_file,
    review_file,
    review_section,
    timestamp_text,
    touch_file,
)
from context_doctor.guards.escape import clean_json, escape_text
from context_doctor.write import USER_NAMED


class FreshnessGroup(DoctorGroup):
    """``freshness [PATH ...]`` runs the summary; ``freshness review FILE`` and friends write."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["summary", *args]
        return super().parse_args(ctx, args)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the summary's own options too: `freshness [PATH ...]` takes them (docs/output.md)."""
        super().format_options(ctx, formatter)
        summary = self.commands.get("summary")
        if summary is None:
            return
        with click.Context(summary, info_name="freshness", parent=ctx.parent) as inner:
            rows = [
                record
                for param in summary.get_params(inner)
                if isinstance(param, click.Option)
                and (record := param.get_help_record(inner)) is not None
                and "--help" not in record[0]
            ]
        if rows:
            with formatter.section("Options of `freshness [PATH ...]` (the grades summary)"):
                formatter.write_dl(rows)


@click.group("freshness", cls=FreshnessGroup, invoke_without_command=False)
def freshness_group() -> None:
    """Grade pai-freshness-v1 files by review age (A-F).

    No projects needed; the subcommands are the grades' writers.

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
    callback=parse_today,
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
        now = datetime.fromisoformat(now_text) if now_text else datetime.now(UTC)
        code = run_summary(paths, as_json, write_cache, today, config, now)
    sys.exit(code)


def run_summary(
    paths: tuple[str, ...],
    as_json: bool,
    write_cache: Path | None,
    today: date,
    config: Path | None,
    now: datetime,
) -> int:
    files = grade_paths([Path(p) for p in paths or (".",)], today, config)
    summary = summarize(files)
    if write_cache is not None:
        # --write-cache is the user's flag: it may name any place.
        write_statusline(
            write_cache, summary, files, now.isoformat(timespec="seconds"), within=USER_NAMED
        )
    findings = _findings(files)
    if as_json:
        payload = {**summary, "findings": findings}
        click.echo(json.dumps(clean_json(payload), indent=2, ensure_ascii=False))
    else:
        _human(summary, files)
        # The same findings `check` reports for these files, in its layout (docs/checks.md).
        for finding in findings:
            where = f"{finding['path']}:{finding['line'] or 1}:1"
            label = "FAIL" if finding["severity"] == "defect" else "warn"
            click.echo(
                escape_text(f"{where}  {label}  [{finding['check']}] {finding['message']}"),
                err=True,
            )
            click.echo(escape_text(f"    \u2192 {finding['remedy']}"), err=True)
    return 1 if any(finding["severity"] == "defect" for finding in findings) else 0


def _findings(files: list[GradedFile]) -> list[dict[str, Any]]:
    """Each problem of the graded files as ``check`` words it: severity and remedy included."""
    from context_doctor.checks.registry import load_checks  # the checks' words, only when needed

    checks = load_checks()
    found: list[dict[str, Any]] = []
    for item in files:
        for problem in item.problems:
            spec = checks.get(problem.check)
            found.append(
                {
                    "check": problem.check,
                    "severity": "defect" if problem.check in DEFECT_CHECKS else "warning",
                    "path": item.rel_path,
                    "line": problem.line,
                    "message": problem.message,
                    "remedy": problem.remedy or (spec.remedy if spec else ""),
                }
            )
    return found


def _human(summary: dict[str, Any], files: list[GradedFile]) -> None:
    click.echo(f"{'grade':<6}{'reviewed':>10}{'threshold':>11}  {'why':<16}file")
    for item in sorted((item for item in files if item.graded), key=GradedFile.staleness):
        reviewed = "never" if item.reviewed_age_days is None else f"{item.reviewed_age_days} d"
        click.echo(
            f"{item.grade:<6}{reviewed:>10}{item.threshold_days:>9} d  {item.why or '-':<16}"
            f"{escape_text(item.rel_path)}"
        )
    most = summary["most_stale"]
    click.echo(
        f"overall {summary['overall_grade']} ({summary['overall_pct']}%): {summary['fresh_count']} fresh, "
        f"{summary['stale_count']} stale of {summary['total']}"
        + (f"; most stale: {escape_text(most['path'])}" if most else "")
    )


def _default_by() -> str:
    return os.environ.get("USER") or "unknown"


def _now_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--now",
        metavar="ISO-8601",
        hidden=True,
        callback=parse_now,
        help="The current time, with its offset (for reproducible tests).",
    )(function)


def _by_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--by",
        default=_default_by,
        show_default="$USER",
        metavar="NAME",
        help=f"Who {what}.",
    )


_FILE = click.argument("file", type=click.Path(path_type=Path, dir_okay=True))
_CONFIG = click.option(
    "--config",
    type=click.Path(path_type=Path),
    help="Configuration file (default: the nearest one from the file's directory up to its "
    "repository's root); its `[freshness] cache` is rewritten after the write.",
)


def _refresh(cache: StatuslineCache | None, now: datetime, config: Path | None) -> None:
    """docs/editor.md: a bump is visible at once in the configured statusline cache."""
    if cache is not None:
        written = refresh_statusline(cache, now, config)
        click.echo(escape_text(f"rewrote the statusline cache {written}"))


@freshness_group.command("review")
@_FILE
@_by_option("reviewed the file (last_reviewed_by)")
@_now_option
@_CONFIG
def review_command(file: Path, by: str, now: datetime, config: Path | None) -> None:
    """Set last_reviewed: a person vouched for the content (the only grade reset).

    A derived file (derived_from) is refused: review its source instead.
    """
    with guarded(False, False):
        stamp = timestamp_text(now)
        cache = configured_statusline(file, config)  # refused before any write
        if review_file(file, by, now):
            click.echo(escape_text(f"reviewed {file}: last_reviewed {stamp} by {by}"))
        else:
            click.echo(
                escape_text(f"{file} already reads last_reviewed {stamp} by {by}; nothing written")
            )
        _refresh(cache, now, config)


@freshness_group.command("touch")
@_FILE
@_by_option("wrote the file (last_updated_by)")
@_now_option
@_CONFIG
def touch_command(file: Path, by: str, now: datetime, config: Path | None) -> None:
    """Set last_updated only (generators, migrations); the grade does not move."""
    with guarded(False, False):
        stamp = timestamp_text(now)
        cache = configured_statusline(file, config)  # refused before any write
        if touch_file(file, by, now):
            click.echo(escape_text(f"touched {file}: last_updated {stamp} by {by}"))
        else:
            click.echo(
                escape_text(f"{file} already reads last_updated {stamp} by {by}; nothing written")
            )
        _refresh(cache, now, config)


@freshness_group.command("review-section")
@_FILE
@click.argument("slug")
@_by_option("reviewed the section")
@_now_option
@_CONFIG
def review_section_command(
    file: Path, slug: str, by: str, now: datetime, config: Path | None
) -> None:
    """Update a `##` section's `<!-- updated: DATE -->` marker and the file's last_updated."""
    with guarded(False, False):
        marker = marker_text(now.date().isoformat(), by)
        cache = configured_statusline(file, config)  # refused before any write
        if review_section(file, slug, by, now):
            click.echo(escape_text(f"updated section {section_slug(slug)} of {file}: {marker}"))
        else:
            click.echo(
                escape_text(
                    f"section {section_slug(slug)} of {file} already reads {marker}; nothing written"
                )
            )
        _refresh(cache, now, config)


@freshness_group.command("migrate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@_now_option
@_CONFIG
def migrate_command(
    paths: tuple[Path, ...], dry_run: bool, now: datetime, config: Path | None
) -> None:
    """Add pai-freshness-v1 frontmatter (never last_reviewed), keeping a backup first.

    The backup goes under the repository's git directory
    (<git-common-dir>/context-doctor/backups/), never into the work tree;
    outside a repository, under Backups/ beside the file.

    Every file is checked before any is written: one refusal writes nothing.
    """
    with guarded(False, False):
        files = _unique(paths)
        plans = [migrate_file(path, MIGRATION_AUTHOR, now, dry_run=True) for path in files]
        migrated: list[Path] = []
        # Every configured statusline cache is judged before any write (docs/caches.md).
        caches = {path: configured_statusline(path, config) for path in files}
        for path, plan in zip(files, plans, strict=True):
            if plan.action == WOULD_MIGRATE:
                backup_directory(path)  # a symlinked .git/context-doctor refuses before any write
        for path, plan in zip(files, plans, strict=True):
            if dry_run:
                if plan.action == WOULD_MIGRATE:
                    where = "into its frontmatter" if plan.injected else "as a new block on top"
                    click.echo(
                        f"would migrate {path}: add {', '.join(plan.keys)} {where} "
                        f"(backup under {backup_directory(path)}/)"
                    )
                else:
                    click.echo(escape_text(f"already migrated {path}"))
                continue
            result = migrate_file(path, MIGRATION_AUTHOR, now)
            if result.changed:
                click.echo(escape_text(f"migrated {path} (backup: {result.backup})"))
                migrated.append(path)
            else:
                click.echo(escape_text(f"already migrated {path}"))
        # Like every other writer (docs/editor.md): the statusline shows the new files at once.
        refreshed: set[Path] = set()
        for path in migrated:
            cache = caches[path]
            if cache is not None and cache.target not in refreshed:
                refreshed.add(cache.target)
                _refresh(cache, now, config)


def _unique(paths: tuple[Path, ...]) -> list[Path]:
    files: dict[Path, Path] = {}
    for path in paths:
        if path.is_dir():
            raise DoctorError(
                f"{path} is a directory",
                "name the files to migrate (migrate adds frontmatter to every file it is given)",
            )
        # Not resolved: a symlink named beside its target is refused, not folded into it.
        files.setdefault(Path(os.path.abspath(path)), path)
    return list(files.values())
