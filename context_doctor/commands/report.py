"""``context-doctor report``: the cached last report, for fast surfaces such as a session-start hook."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from context_doctor.cache.report_file import REPORT_CACHE_NAME, read_cached_report, report_age_hours
from context_doctor.commands.common import guarded
from context_doctor.commands.help_format import AliasedOption
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.pipeline.discover import synthesis_home
from context_doctor.render.text import verdict_text
from context_doctor.report.report import Report


@click.command("report")
@click.option(
    "--max-age",
    type=click.FloatRange(min=0),
    metavar="HOURS",
    help="Exit 2 when the cached report is older than this.",
)
@click.option(
    "--report-cache",
    "--cache",
    "cache",
    cls=AliasedOption,
    hidden_aliases=("--cache",),  # its name before the report cache had one word
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Read this report cache instead of $SYNTHESIS_HOME/context-doctor/last-report.json.",
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
    """Summarise the cached last report, without auditing.

    For fast surfaces such as a session-start hook.

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
        age = report_age_hours(cached, now, path)
        if max_age is not None and age > max_age:
            raise DoctorError(
                f"the cached report {path} is {age:.1f} hours old, older than --max-age {max_age:g}",
                "run `context-doctor check` to refresh it",
            )
        if as_json:
            click.echo(json.dumps(cached, indent=2, ensure_ascii=False))
        else:
            # The verdict in `check`'s own words (one renderer), then how old the cache is.
            click.echo(
                escape_text(
                    f"{verdict_text(Report.from_json(cached))}; cached "
                    f"{cached['generated_at']}, {age:.1f} h ago"
                )
            )
            counts: dict[str, int] = {}
            for finding in cached["findings"]:
                counts[finding["check"]] = counts.get(finding["check"], 0) + 1
            for name, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                click.echo(escape_text(f"{count:>5}  {name}"))
    sys.exit(1 if cached["defects"] else 0)
