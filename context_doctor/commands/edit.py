"""``context-doctor edit set-field | replace | insert-before FILE``: fail-closed edits (SPEC §4).

Thin: parse the options, call :mod:`context_doctor.edit`, say what happened in
one line. Exit 0 written (with ``--dry-run``: would be written, and the diff is
printed), 1 refused (one line naming the rule and its override flag, nothing
written), 2 a usage error or a file that is missing, a directory, unreadable or
not UTF-8 text. Every success line names the body state.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from context_doctor.commands.common import guarded
from context_doctor.escape import escape_text
from context_doctor.write import edit

_FILE = click.argument("file", type=click.Path(path_type=Path, dir_okay=True))


def _common(function: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--max-lines",
            type=click.IntRange(min=1),
            metavar="N",
            help="Refuse a result over N lines (default: a CONTEXT.md's budget, 150 or 80 once "
            "it reads completed; no limit for other files).",
        ),
        click.option(
            "--allow-header-lag",
            is_flag=True,
            help="Record that leaving Phase ahead of Last session is intended.",
        ),
        click.option(
            "--allow-stale-body",
            is_flag=True,
            help="Record that advancing the header past an as-of marker is intended.",
        ),
        click.option(
            "--state-reviewed",
            is_flag=True,
            help="Record that a section whose marker advances was re-read and still holds.",
        ),
        click.option("--dry-run", is_flag=True, help="Print the diff; write nothing."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.group("edit")
def edit_group() -> None:
    """Fail-closed edits of durable context files: refuse rather than assert a false change."""


def _run(file: Path, attempt: Callable[[], edit.EditResult], dry_run: bool) -> None:
    with guarded(False, False):
        try:
            result = attempt()
        except edit.EditRefused as refused:
            click.echo(f"context-doctor: {escape_text(refused.one_line())}", err=True)
            sys.exit(1)
    shown = escape_text(str(file))
    if dry_run:
        click.echo(result.diff(str(file)), nl=False)
        click.echo(f"would write {shown} (dry run; {result.body_state})")
    else:
        click.echo(f"wrote {shown} ({result.body_state})")


@edit_group.command("set-field")
@_FILE
@click.option("--field", required=True, metavar="NAME", help="The header field, e.g. Phase.")
@click.option("--value", required=True, metavar="TEXT", help="Its new one-line value.")
@_common
def set_field_command(
    file: Path,
    field: str,
    value: str,
    max_lines: int | None,
    allow_header_lag: bool,
    allow_stale_body: bool,
    state_reviewed: bool,
    dry_run: bool,
) -> None:
    """Set the one `**NAME:**` header field of FILE to TEXT."""
    _run(
        file,
        lambda: edit.set_field(
            file,
            field,
            value,
            max_lines=max_lines,
            allow_header_lag=allow_header_lag,
            allow_stale_body=allow_stale_body,
            state_reviewed=state_reviewed,
            dry_run=dry_run,
        ),
        dry_run,
    )


@edit_group.command("replace")
@_FILE
@click.option("--anchor", required=True, metavar="OLD", help="The exact text to replace.")
@click.option("--replacement", required=True, metavar="NEW", help="The text to put there.")
@click.option(
    "--count",
    type=int,
    default=1,
    show_default=True,
    metavar="N",
    help="How many times the anchor occurs (anything else is refused).",
)
@_common
def replace_command(
    file: Path,
    anchor: str,
    replacement: str,
    count: int,
    max_lines: int | None,
    allow_header_lag: bool,
    allow_stale_body: bool,
    state_reviewed: bool,
    dry_run: bool,
) -> None:
    """Replace OLD with NEW in FILE; OLD must occur exactly --count times."""
    _run(
        file,
        lambda: edit.replace_once(
            file,
            anchor,
            replacement,
            count=count,
            max_lines=max_lines,
            allow_header_lag=allow_header_lag,
            allow_stale_body=allow_stale_body,
            state_reviewed=state_reviewed,
            dry_run=dry_run,
        ),
        dry_run,
    )


@edit_group.command("insert-before")
@_FILE
@click.option(
    "--anchor", required=True, metavar="LINE_START", help="The start of the line to insert before."
)
@click.option(
    "--text", "text", required=True, metavar="TEXT", help="Whole lines, ending with a newline."
)
@_common
def insert_before_command(
    file: Path,
    anchor: str,
    text: str,
    max_lines: int | None,
    allow_header_lag: bool,
    allow_stale_body: bool,
    state_reviewed: bool,
    dry_run: bool,
) -> None:
    """Insert TEXT before the one line of FILE that starts with LINE_START."""
    _run(
        file,
        lambda: edit.insert_before(
            file,
            anchor,
            text,
            max_lines=max_lines,
            allow_header_lag=allow_header_lag,
            allow_stale_body=allow_stale_body,
            state_reviewed=state_reviewed,
            dry_run=dry_run,
        ),
        dry_run,
    )
