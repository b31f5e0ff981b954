"""``context-doctor demo``: build the bundled demo knowledge base and audit it.

Decision: the demo keeps its folder (``./context-doctor-demo`` unless ``--dir`` names
another) rather than a temporary one deleted on exit, so every path the report prints can be
opened and every remedy tried; it refuses a folder that exists and holds anything (one line,
exit 2). For a person (not a machine format) it says where it built, and ends with two
lines: that its exit 1 is the point, and what to run on one's own repository.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import click

from context_doctor.commands.common import color_option, guarded
from context_doctor.commands.help_format import AliasedOption
from context_doctor.errors import DoctorError
from context_doctor.pipeline.audit import audit
from context_doctor.pipeline.discover import discover
from context_doctor.render.formats import FORMATS, formats_help
from context_doctor.render.output import emit
from context_doctor.render.terminal import stream_width, wrap
from context_doctor.scenarios import build_scenario, remote_path, scenario_today, write_floors
from context_doctor.vault.floors import floors_beside

DEMO = "demo"
# Beside the seed's corpus, a repository in another layout (docs/layouts.md): docs/STATUS.md with
# its session log inside it and a nightly data bot set aside by `work_ignore`.
DEMO_LAYOUT = "demo-status"
DEMO_KB = "kb"
DEMO_VAULT = "vault"
VAULT_DEMO = "vault-demo"


DEFAULT_FOLDER = Path("context-doctor-demo")


def _shown(path: Path) -> str:
    """``path`` as the user named it, a folder marked with its slash."""
    return f"{path.as_posix().rstrip('/')}/"


def _vacant(folder: Path) -> None:
    """The demo's folder must be new (or an empty directory): a demo never overwrites a path."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise DoctorError(
            f"{folder} already exists and is not a folder",
            "name a new folder for the demo with `--dir DIR`",
        )
    if folder.is_dir() and any(folder.iterdir()):
        raise DoctorError(
            f"{_shown(folder)} already exists",
            "remove it, or build the demo in another folder with `--dir DIR`",
        )


def _say(lines: list[str]) -> None:
    """Lines for the person watching, on stderr (stdout is the report), each wrapped to
    stderr's terminal, after the report already written to stdout."""
    sys.stdout.flush()
    width = stream_width(sys.stderr)
    for line in lines:
        for part in wrap(line, width) if width else [line]:
            click.echo(part, err=True)


def next_step() -> str:
    """What to run on one's own repository once the demo is understood."""
    from context_doctor.cli import COMMANDS

    # One line at 80 columns, with init or without it.
    start = " (or `context-doctor init`)" if "init" in COMMANDS else ""
    return f"Next, in your own repository: `context-doctor check`{start}."


def run_demo(
    *, today: str | None, output_format: str, folder: Path | None, vault: bool = False
) -> int:
    """Build the demo in ``folder`` (default ``./context-doctor-demo``, which must not exist
    yet, or be empty) and audit it there, where it stays for the reader to open: every path
    the report prints is a path on disk."""
    scenario = VAULT_DEMO if vault else DEMO
    audit_day = date.fromisoformat(today) if today else scenario_today(scenario) or date.today()
    named = folder or DEFAULT_FOLDER
    _vacant(named)
    # Absolute before anything is built: git runs inside the corpus, so a relative
    # path handed to it would put the bare remote inside the corpus it serves.
    # `kb` and `vault`, not longer names: the locations print relative to the current
    # directory, and context-doctor-demo/kb/projects/harbor/resources/artifacts/… fits 80
    # columns.
    root = named.absolute() / (DEMO_VAULT if vault else DEMO_KB)
    beside = root.parent / DEMO_LAYOUT
    built = (root,) if vault else (root, beside)
    for taken in (*built, *(remote_path(path) for path in built)):
        if taken.exists():  # an empty folder was checked above: only a race gets here
            raise DoctorError(f"{taken} already exists", "build the demo with `--dir DIR`")
    build_scenario(scenario, root)
    if not vault:
        build_scenario(DEMO_LAYOUT, beside)
    person = not FORMATS[output_format].machine
    if person:
        what = (
            f"Demo memory vault built in {_shown(named)} (its README.md names the planted faults)"
            if vault
            else f"Demo knowledge base built in {_shown(named)}: {root.name}/ in the seed's "
            f"layout, and {beside.name}/, a repository in another layout"
        )
        _say([f"{what}; audit date {audit_day}."])
    if vault:
        # The floors are machine state: beside the vault, never in it (docs/vaults.md).
        floors = write_floors(scenario, root.parent / "vault-machine")
        corpus = discover(
            vaults=(str(root),),
            floors=floors_beside(floors, {}) if floors is not None else None,
        )
    else:
        corpus = discover(sources=(str(root), str(beside)))
    report, _, checks = audit(
        corpus, today=audit_day, readiness="local", select=[], ignore=[], config=None
    )
    # Most important first: defects, then the working-memory checks (docs/output.md).
    emit(report, output_format, quiet=False, statistics=False, checks=checks, importance=True)
    code = report.exit_code()
    if person:
        _say(
            [
                f"Exit {code} is expected: the demo's records carry planted faults.",
                next_step(),
            ]
        )
    return code


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
    "--dir",
    "--keep",
    "folder",
    cls=AliasedOption,
    hidden_aliases=("--keep",),  # its name while the demo was built in a temporary folder
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Build the demo in DIR, a new folder (default: ./context-doctor-demo); it is kept.",
)
@click.option(
    "--vault",
    is_flag=True,
    help="Build and audit the demo Bastra Recall memory vault instead (faults named in its "
    "README.md).",
)
def demo_command(today: str | None, output_format: str, folder: Path | None, vault: bool) -> None:
    """Build the demo knowledge base and audit it.

    It is built in ./context-doctor-demo (or --dir DIR), a new folder it keeps; --vault
    builds the demo memory vault instead. Exit 1 is expected: the demo's records carry
    planted faults.
    """
    with guarded(output_format == "json", False):
        code = run_demo(today=today, output_format=output_format, folder=folder, vault=vault)
    sys.exit(code)
