"""``context-doctor demo``: build the bundled demo knowledge base and audit it."""

from __future__ import annotations

import sys
import tempfile
from datetime import date
from pathlib import Path

import click

from context_doctor.commands.common import color_option, guarded
from context_doctor.pipeline.audit import audit
from context_doctor.pipeline.discover import discover
from context_doctor.render.formats import FORMATS, formats_help
from context_doctor.render.output import emit
from context_doctor.scenarios import build_scenario, remote_path, scenario_today, write_floors
from context_doctor.vault.floors import floors_beside

DEMO = "demo"
# Beside the seed's corpus, a repository in another layout (docs/layouts.md): docs/STATUS.md with
# its session log inside it and a nightly data bot set aside by `work_ignore`.
DEMO_LAYOUT = "demo-status"
VAULT_DEMO = "vault-demo"


def run_demo(
    *, today: str | None, output_format: str, keep: Path | None, vault: bool = False
) -> int:
    scenario = VAULT_DEMO if vault else DEMO
    audit_day = date.fromisoformat(today) if today else scenario_today(scenario) or date.today()
    with tempfile.TemporaryDirectory(prefix="context-doctor-demo-") as scratch:
        # Absolute before anything is built: git runs inside the corpus, so a relative
        # path handed to it would put the bare remote inside the corpus it serves.
        root = (keep or Path(scratch)).absolute() / ("demo-vault" if vault else "demo-kb")
        beside = root.parent / DEMO_LAYOUT
        built = (root,) if vault else (root, beside)
        for taken in (*built, *(remote_path(path) for path in built)):
            if taken.exists():
                raise click.UsageError(f"{taken} already exists; choose another --keep directory")
        build_scenario(scenario, root)
        if not vault:
            build_scenario(DEMO_LAYOUT, beside)
        what = (
            "vault (its README.md names the planted faults)"
            if vault
            else f"knowledge base, and a repository in another layout at {beside},"
        )
        if output_format != "json":
            kept = "kept" if keep else "temporary; --keep DIR keeps it"
            click.echo(f"Demo {what} built at {root} ({kept}); audit date {audit_day}.", err=True)
        if vault:
            # The floors are machine state: beside the vault, never in it (docs/vaults.md).
            floors = write_floors(scenario, root.parent / "demo-vault-machine")
            corpus = discover(
                vaults=(str(root),),
                floors=floors_beside(floors, {}) if floors is not None else None,
            )
        else:
            corpus = discover(sources=(str(root), str(beside)))
        report, _, checks = audit(
            corpus, today=audit_day, readiness="local", select=[], ignore=[], config=None
        )
        emit(report, output_format, quiet=False, statistics=False, checks=checks)
        return report.exit_code()


@click.command("demo")
@click.option("--today", metavar="YYYY-MM-DD", help="Audit date (default: the demo story's date).")
@click.option(
    "--output-format",
    type=click.Choice(list(FORMATS)),
    default="human",
    show_default=True,
    metavar="FORMAT",
    help=formats_help(),
)
@color_option
@click.option(
    "--keep",
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="Build the demo corpus here and keep it, instead of a temporary directory.",
)
@click.option(
    "--vault",
    is_flag=True,
    help="Build and audit the demo Bastra Recall memory vault instead (faults named in its "
    "README.md).",
)
def demo_command(today: str | None, output_format: str, keep: Path | None, vault: bool) -> None:
    """Build the demo knowledge base and audit it.

    Or the demo memory vault, with --vault. Exit 1 is expected: the demo's records carry
    planted faults.
    """
    with guarded(output_format == "json", False):
        code = run_demo(today=today, output_format=output_format, keep=keep, vault=vault)
    sys.exit(code)
