"""``context-doctor log add PROJECT``: log a session entry in ``sessions/YYYY-MM.md`` (docs/editor.md).

Thin: parse the options, call :func:`context_doctor.editor.log.add_entry`, say
what was written. Exit codes as for ``edit``: 0 written, 1 refused (nothing
written), 2 a usage error or a file that cannot be read.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import click

from context_doctor.commands.common import guarded, parse_today
from context_doctor.commands.edit import gate_options, gates_of, report_batch, report_refusal
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.commands.text_input import TextSource, read_input, text_option
from context_doctor.editor.edit import EditRefused
from context_doctor.editor.gates import Gates
from context_doctor.editor.log import LogEntry, LogPlace, add_entry
from context_doctor.errors import DoctorError


def layout_place(project: Path) -> LogPlace | None:
    """Where PROJECT's layout keeps its log (None: the seed's ``sessions/YYYY-MM.md``).

    The project is found as ``check --project`` finds it (a declared or detected layout);
    a directory no layout matches keeps the seed's behaviour, as before layouts. A
    ``[layout]`` the doctor cannot use (a path in it leading outside the repository, a bad
    key) is exit 2 naming it, as for ``check``: the entry is never written into the seed's
    ``sessions/`` instead of the log the repository declares.
    """
    from context_doctor.git.repository import repository_or_none
    from context_doctor.pipeline.discover import discover  # only log add needs discovery
    from context_doctor.pipeline.sources import declared_for

    if project.is_dir():
        repository = repository_or_none(project)
        if repository is not None:
            declared_for(project, repository, None)  # DoctorError: the declared layout's
    try:
        found = discover(projects=(str(project),)).projects
    except DoctorError:
        return None
    if len(found) != 1 or found[0].layout.is_seed:
        return None
    return LogPlace.of_layout(found[0].directory, found[0].layout)


@click.group("log", cls=DoctorGroup)
def log_group() -> None:
    """Log a session, through the fail-closed editor.

    Entries go to sessions/YYYY-MM.md, or the log the project's layout keeps.
    """


@log_group.command("add")
@click.argument("project", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--date",
    "day",
    required=True,
    metavar="YYYY-MM-DD",
    callback=parse_today,
    help="The session's date.",
)
@click.option("--title", required=True, metavar="TEXT", help="What the session did, one line.")
@text_option("text", "TEXT", "The entry's body (Markdown).", required=False)
@click.option(
    "--set-header",
    is_flag=True,
    help="Also move CONTEXT.md's Last session (and the index's last_session) to the date.",
)
@click.option(
    "--today",
    callback=parse_today,
    metavar="YYYY-MM-DD",
    help="The date taken as today (default: the local date); a later --date is refused.",
)
@gate_options
def add_command(
    project: Path,
    day: date,
    title: str,
    text: TextSource,
    set_header: bool,
    today: date,
    **options: Any,
) -> None:
    """Append a session entry to PROJECT's log (sessions/YYYY-MM.md), in date order.

    In another layout (docs/layouts.md) the entry goes into that layout's log: a month file of
    its log folder, its one log file, the dated entries inside the context file, or a new
    row of a table log; --set-header moves that layout's own last-session field.

    The month file is created with its title line when missing. Refused: a
    date after today, or a heading the file already has.

    \b
    Example (the entry's body from a file; the header moves in the same write):
      context-doctor log add projects/atlas --date 2026-06-19 \\
        --title 'query path ported' --text-file notes.md --set-header
    """
    gates = gates_of(options)
    dry_run = gates.pop("dry_run")
    with guarded(False, False):
        try:
            result = add_entry(
                LogEntry(project, day, title, read_input(text), layout_place(project)),
                today=today,
                set_header=set_header,
                gates=Gates(**gates),
                dry_run=dry_run,
            )
        except EditRefused as refused:
            report_refusal(refused)
    report_batch(result, dry_run, f"logged {day.isoformat()}: ")
