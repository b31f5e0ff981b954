"""``context-doctor freshness review|touch|review-section|migrate``: the marker writers' CLI.

Standalone :class:`click.Command` objects, registered on the ``freshness``
group by ``cli.py`` (``freshness_group.add_command(command)`` for each of
:data:`WRITE_COMMANDS`).  Every body runs under ``cli.guarded``, so a refusal
prints ``context-doctor: error: <problem> (remedy: <remedy>)`` and exits 2.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from context_doctor.errors import DoctorError
from context_doctor.freshness import slug_of
from context_doctor.freshness_writers import (
    BACKUP_DIRECTORY,
    MIGRATION_AUTHOR,
    WOULD_MIGRATE,
    marker_text,
    migrate_file,
    review_file,
    review_section,
    timestamp_text,
    touch_file,
)


@contextmanager
def _guarded() -> Iterator[None]:
    # Imported here, not at the top: cli.py imports this module to register the
    # commands, and a top-level import back into cli.py would be circular.
    from context_doctor.cli import guarded

    with guarded(False, False):
        yield


def _default_by() -> str:
    return os.environ.get("USER") or "unknown"


def _parse_now(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime:
    if value is None:
        return datetime.now().astimezone()
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not an ISO-8601 datetime") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise click.BadParameter(f"{value!r} has no UTC offset (e.g. 2026-05-04T03:00:00-07:00)")
    return parsed


def _now_option(function: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--now",
        metavar="ISO-8601",
        hidden=True,
        callback=_parse_now,
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


@click.command("review")
@_FILE
@_by_option("reviewed the file (last_reviewed_by)")
@_now_option
def review_command(file: Path, by: str, now: datetime) -> None:
    """Set last_reviewed: a person vouched for the content (the only grade reset).

    A derived file (derived_from) is refused: review its source instead.
    """
    with _guarded():
        stamp = timestamp_text(now)
        if review_file(file, by, now):
            click.echo(f"reviewed {file}: last_reviewed {stamp} by {by}")
        else:
            click.echo(f"{file} already reads last_reviewed {stamp} by {by}; nothing written")


@click.command("touch")
@_FILE
@_by_option("wrote the file (last_updated_by)")
@_now_option
def touch_command(file: Path, by: str, now: datetime) -> None:
    """Set last_updated only (generators, migrations); the grade does not move."""
    with _guarded():
        stamp = timestamp_text(now)
        if touch_file(file, by, now):
            click.echo(f"touched {file}: last_updated {stamp} by {by}")
        else:
            click.echo(f"{file} already reads last_updated {stamp} by {by}; nothing written")


@click.command("review-section")
@_FILE
@click.argument("slug")
@_by_option("reviewed the section")
@_now_option
def review_section_command(file: Path, slug: str, by: str, now: datetime) -> None:
    """Update a `##` section's `<!-- updated: ... -->` marker and the file's last_updated."""
    with _guarded():
        marker = marker_text(now.date().isoformat(), by)
        if review_section(file, slug, by, now):
            click.echo(f"updated section {slug_of(slug)} of {file}: {marker}")
        else:
            click.echo(f"section {slug_of(slug)} of {file} already reads {marker}; nothing written")


@click.command("migrate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@_now_option
def migrate_command(paths: tuple[Path, ...], dry_run: bool, now: datetime) -> None:
    """Add pai-freshness-v1 frontmatter (never last_reviewed), with a backup under Backups/.

    Every file is checked before any is written: one refusal writes nothing.
    """
    with _guarded():
        files = _unique(paths)
        plans = [migrate_file(path, MIGRATION_AUTHOR, now, dry_run=True) for path in files]
        for path, plan in zip(files, plans, strict=True):
            if dry_run:
                if plan.action == WOULD_MIGRATE:
                    where = "into its frontmatter" if plan.injected else "as a new block on top"
                    click.echo(
                        f"would migrate {path}: add {', '.join(plan.keys)} {where} "
                        f"(backup under {plan.path.parent / BACKUP_DIRECTORY}/)"
                    )
                else:
                    click.echo(f"already migrated {path}")
                continue
            result = migrate_file(path, MIGRATION_AUTHOR, now)
            if result.changed:
                click.echo(f"migrated {path} (backup: {result.backup})")
            else:
                click.echo(f"already migrated {path}")


def _unique(paths: tuple[Path, ...]) -> list[Path]:
    files: dict[Path, Path] = {}
    for path in paths:
        if path.is_dir():
            raise DoctorError(
                f"{path} is a directory",
                "name the files to migrate (migrate adds frontmatter to every file it is given)",
            )
        files.setdefault(path.resolve(), path)
    return list(files.values())


WRITE_COMMANDS: tuple[click.Command, ...] = (
    review_command,
    touch_command,
    review_section_command,
    migrate_command,
)
