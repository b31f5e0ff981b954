"""``context-doctor state init|compile PROJECT``: structured state (docs/editor.md).

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
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.commands.text_input import TextSource, read_input, text_option
from context_doctor.editor.state import PlannedWrite, plan_compile, plan_init
from context_doctor.errors import DoctorError, Unreadable
from context_doctor.guards.contain import repository_root
from context_doctor.guards.escape import escape_text
from context_doctor.model.project import Project
from context_doctor.pipeline.discover import discover
from context_doctor.write import WriteRefused, read_snapshot, write_file
from context_doctor.write.batch import PlannedFile, commit_files, recover

_PROJECT = click.argument("project", type=click.Path(path_type=Path))
_NOW = click.option(
    "--now",
    metavar="ISO-8601",
    hidden=True,
    callback=parse_now,
    help="The current time, with its offset (updated_at; for reproducible tests).",
)


@click.group("state", cls=DoctorGroup)
def state_group() -> None:
    """Structured state: CURRENT_STATE.json and its CONTEXT.md block.

    The block is what `state compile` writes into CONTEXT.md from the JSON.
    """


def _project(path: Path) -> Project:
    corpus = discover(projects=(str(path),))
    projects = corpus.projects
    if len(projects) != 1 or not projects[0].directory_exists:
        raise DoctorError(f"{path} is not one project directory", "name a project directory")
    return projects[0]


def _tree(named: Path, target: Project) -> Path:
    """Where the state writers' bytes must stay: the repository of the path the user named,
    found without following links (so a project directory symlinked out of it is refused,
    docs/caches.md), else the project directory."""
    return repository_root(named) or target.directory


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
        write_file(planned.path, planned.data, exclusive=True, within=_tree(project, target))
        click.echo(
            f"wrote {escape_text(target.relative(planned.path))}; run `context-doctor state "
            f"compile {escape_text(str(project))}` to render its block into CONTEXT.md"
        )


def _commit(target: Project, writes: list[PlannedWrite], tree: Path) -> None:
    """Write the planned files all or none, refusing if one changed since the plan was made."""
    planned: list[PlannedFile] = []
    for write in writes:
        snapshot = read_snapshot(write.path, within=tree)
        if snapshot.data != write.original:
            raise WriteRefused(
                "changed-on-disk", f"{write.path} changed while compiling; nothing written"
            )
        planned.append(PlannedFile(write.path, write.data, snapshot, within=tree))
    if planned:
        commit_files(planned, journal_dir=target.directory, within=tree)


def _compile(project: Path, now: datetime, change: tuple[str, str] | None) -> None:
    with guarded(False, False):
        target = _project(project)
        recover(target.directory, within=_tree(project, target))
        snapshot = read_snapshot(target.context.path, within=_tree(project, target))
        try:
            plan = plan_compile(target, snapshot.data, now=now, change=change)
        except Unreadable as error:
            raise _unreadable(error) from error
        writes = plan.writes
        _commit(target, writes, _tree(project, target))
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
            verb = f"set {escape_text(change[0])} in" if change is not None else "compiled"
            click.echo(f"{verb} {where}: wrote {names}{note}")


@state_group.command("compile")
@_PROJECT
@_NOW
def compile_command(project: Path, now: datetime) -> None:
    """Render the generated block into CONTEXT.md; refresh content_hashes, git_head, updated_at.

    The block replaces the header's Phase/Status/Last session/Accepted
    baseline/Controlling plan lines (or goes right under the title). Refuses
    (exit 1) an invalid state file. Both files are written, or neither.
    """
    _compile(project, now, None)


@state_group.command("set")
@_PROJECT
@click.option(
    "--field",
    required=True,
    metavar="NAME",
    help="phase, status, accepted_baseline, controlling_plan, last_session or next_actions.",
)
@text_option("value", "TEXT", "The new value (next_actions: one action per line).")
@_NOW
def set_command(project: Path, field: str, value: TextSource, now: datetime) -> None:
    """Change one field of CURRENT_STATE.json and recompile CONTEXT.md's block, in one write.

    The way to change what the generated block says: an `edit` inside it is
    refused (`generated-block`). Refuses (exit 1) a value the schema rejects.

    \b
    Example:
      context-doctor state set projects/atlas --field phase --value 'Ship (round 4)'
    """
    with guarded(False, False):
        text = read_input(value, one_line=field.strip().casefold() != "next_actions")
    _compile(project, now, (field, text))
