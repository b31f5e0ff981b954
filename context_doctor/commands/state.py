"""``context-doctor state init|compile PROJECT``: structured state (SPEC §4).

Thin: find the project, ask :mod:`context_doctor.structured_state` for the
bytes to write (or its refusal), write them through :mod:`context_doctor.write`.
Exit 0 written (or already current), 1 refused (nothing written), 2 when the
project cannot be found or a file cannot be read.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from context_doctor.commands.common import guarded, parse_now
from context_doctor.discover import discover
from context_doctor.errors import DoctorError, Unreadable
from context_doctor.escape import escape_text
from context_doctor.model.project import Project
from context_doctor.write import (
    FileSnapshot,
    WriteRefused,
    read_snapshot,
    replace_file,
    write_file,
)
from context_doctor.write.state import PlannedWrite, plan_compile, plan_init

_PROJECT = click.argument("project", type=click.Path(path_type=Path))
_NOW = click.option(
    "--now",
    metavar="ISO-8601",
    hidden=True,
    callback=parse_now,
    help="The current time, with its offset (updated_at; for reproducible tests).",
)


@click.group("state")
def state_group() -> None:
    """Structured state: CURRENT_STATE.json and the block it compiles into CONTEXT.md."""


def _project(path: Path) -> Project:
    corpus = discover(projects=(str(path),))
    projects = corpus.projects
    if len(projects) != 1 or not projects[0].directory_exists:
        raise DoctorError(f"{path} is not one project directory", "name a project directory")
    return projects[0]


def _unreadable(error: Unreadable) -> DoctorError:
    return DoctorError(f"{error.rel_path} {error.reason}", "re-save it as UTF-8 text")


@state_group.command("init")
@_PROJECT
@click.option(
    "--plan",
    metavar="PATH",
    help="The controlling plan, project-relative (default: the `**Controlling plan:**` link).",
)
@click.option(
    "--baseline",
    metavar="TEXT",
    help="The accepted baseline (default: `**Accepted baseline:**`, else `none recorded`).",
)
@_NOW
def init_command(project: Path, plan: str | None, baseline: str | None, now: datetime) -> None:
    """Write CURRENT_STATE.json from the header, the session log and the What's Next items.

    Refuses (exit 1) when the state file exists or the plan is missing or does
    not resolve inside the project.
    """
    with guarded(False, False):
        target = _project(project)
        try:
            planned = plan_init(target, plan=plan, baseline=baseline, now=now)
        except Unreadable as error:
            raise _unreadable(error) from error
        write_file(planned.path, planned.data, exclusive=True, within=target.directory)
        click.echo(
            f"wrote {escape_text(target.relative(planned.path))}; run `context-doctor state "
            f"compile {escape_text(str(project))}` to render its block into CONTEXT.md"
        )


def _snapshots(writes: list[PlannedWrite], within: Path) -> list[FileSnapshot]:
    """Every target read once more, refusing before any byte moves if one changed since the plan.

    ``replace_file`` then refuses a change after this point, so a concurrent edit can
    leave at worst the first file written, never a silently lost update.
    """
    snapshots: list[FileSnapshot] = []
    for planned in writes:
        snapshot = read_snapshot(planned.path, within=within)
        if snapshot.data != planned.original:
            raise WriteRefused(
                "changed-on-disk", f"{planned.path} changed while compiling; nothing written"
            )
        snapshots.append(snapshot)
    return snapshots


@state_group.command("compile")
@_PROJECT
@_NOW
def compile_command(project: Path, now: datetime) -> None:
    """Render the generated block into CONTEXT.md; refresh content_hashes, git_head, updated_at.

    The block replaces the header's Phase/Status/Last session/Accepted
    baseline/Controlling plan lines (or goes right under the title). Refuses
    (exit 1) an invalid state file.
    """
    with guarded(False, False):
        target = _project(project)
        snapshot = read_snapshot(target.context.path, within=target.directory)
        try:
            plan = plan_compile(target, snapshot.data, now=now)
        except Unreadable as error:
            raise _unreadable(error) from error
        writes = plan.writes
        for planned, current in zip(writes, _snapshots(writes, target.directory), strict=True):
            replace_file(current, planned.data, within=target.directory)
        where = escape_text(target.rel_dir)
        if not writes:
            click.echo(f"{where}: the block and content hashes are current; nothing written")
        else:
            names = ", ".join(escape_text(target.relative(p.path)) for p in writes)
            removed = plan.markers_removed
            note = (
                f"; removed {removed} as-of marker{'s' if removed != 1 else ''} (the block "
                "replaces them)"
                if removed
                else ""
            )
            click.echo(f"compiled {where}: wrote {names}{note}")
