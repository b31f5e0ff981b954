"""``context-doctor demo``: build the bundled demo knowledge base and audit it."""

from __future__ import annotations

import sys
import tempfile
from datetime import date
from pathlib import Path

import click

from context_doctor.audit import FORMATS, audit, emit
from context_doctor.commands.common import guarded
from context_doctor.discover import discover
from context_doctor.scenarios import build_scenario, scenario_today

DEMO = "demo"


def run_demo(*, today: str | None, output_format: str, keep: Path | None) -> int:
    audit_day = date.fromisoformat(today) if today else scenario_today(DEMO) or date.today()
    with tempfile.TemporaryDirectory(prefix="context-doctor-demo-") as scratch:
        root = (keep or Path(scratch)) / "demo-kb"
        if root.exists():
            raise click.UsageError(f"{root} already exists; choose another --keep directory")
        build_scenario(DEMO, root)
        if output_format != "json":
            kept = "kept" if keep else "temporary; --keep DIR keeps it"
            click.echo(
                f"Demo knowledge base built at {root} ({kept}); audit date {audit_day}.", err=True
            )
        corpus = discover(sources=(str(root),))
        report, _, checks = audit(
            corpus, today=audit_day, readiness="local", select=[], ignore=[], config=None
        )
        emit(report, output_format, quiet=False, statistics=False, checks=checks)
        return report.exit_code()


@click.command("demo")
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
        code = run_demo(today=today, output_format=output_format, keep=keep)
    sys.exit(code)
