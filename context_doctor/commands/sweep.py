"""``context-doctor sweep``: the day-start corpus sweep (docs/surfaces.md).

It audits the sources of ``$SYNTHESIS_HOME/console.yaml`` with ``--readiness
local``, writes the report cache (so ``context-doctor report`` and session
hooks read today's state without re-auditing), and prints a short summary:
counts per check, the compact coverage and the verdict.  Corpus-wide findings
are report-only, so it exits 0 whatever they are; 2 still means the doctor
could not establish ground truth (no console.yaml and no auto-detected source, a git
failure, nothing to audit), and then the cache is left as it was.  A listed source
that cannot be read (a missing root) does not stop the others: they are audited and
cached, the source is named `unreachable`, and the sweep exits 2.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import click

from context_doctor.cache.report_file import REPORT_CACHE_NAME, write_json
from context_doctor.commands.common import color_option, guarded, parse_today
from context_doctor.guards.escape import escape_text
from context_doctor.pipeline.audit import audit, require_something
from context_doctor.pipeline.discover import discover, synthesis_home
from context_doctor.render.jsonout import report_json
from context_doctor.render.terminal import stream_width
from context_doctor.render.text import console_for, coverage_lines, render_statistics


@click.command("sweep")
@click.option(
    "--today",
    callback=parse_today,
    metavar="YYYY-MM-DD",
    help="The date to judge freshness against (default: the local date).",
)
@click.option(
    "--config", type=click.Path(path_type=Path), metavar="FILE", help="Configuration file to use."
)
@click.option(
    "--report-cache",
    "report_cache",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Save the report cache here instead of $SYNTHESIS_HOME/context-doctor/last-report.json.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Neither read nor write the cache (parsed files, history, unchanged runs).",
)
@click.option(
    "--debug",
    is_flag=True,
    help="Show tracebacks of internal errors, and why a cache was not used.",
)
@color_option
def sweep_command(
    today: date, config: Path | None, report_cache: Path | None, no_cache: bool, debug: bool
) -> None:
    """Audit the console.yaml corpus and save the report cache.

    The day-start sweep: report-only.

    Exit 0 whatever the findings; 2 when ground truth could not be established.
    """
    with guarded(False, debug):
        home = synthesis_home()
        # The persistent cache, as for `check`: a morning whose corpus nothing touched
        # since yesterday's sweep replays its report (context_doctor/cache/replay.py).
        corpus = discover(home=home, require_console=True, cache=not no_cache, audit=True)
        report, _, _ = audit(
            corpus,
            today=today,
            readiness="local",
            select=[],
            ignore=[],
            config=config,
            replayable=True,
        )
        require_something(corpus, report)
        cache = report_cache or home / "context-doctor" / REPORT_CACHE_NAME
        # What was audited is cached even when a listed source was unreachable (it is
        # named there, `audited: false`): the rest of the corpus is real state.
        write_json(cache, report_json(report))
        click.echo(f"report cached at {cache} (`context-doctor report` reads it)")
        console = console_for(sys.stdout)
        width = stream_width(sys.stdout)  # a terminal's; into a pipe each line stays whole
        for line in coverage_lines(report, width=width):
            console.print(line)
        # Counts per check, then the verdict line last.
        render_statistics(report, console, width=width)
        unreachable = report.unreachable_error()
        if unreachable is not None:
            problem, remedy = unreachable
            click.echo(
                escape_text(f"context-doctor: error: {problem} (remedy: {remedy})"), err=True
            )
            sys.exit(2)
    sys.exit(0)
