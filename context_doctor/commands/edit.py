"""``context-doctor edit set-field | replace | insert-before | delete-line FILE``, ``edit apply``
and ``edit recover PROJECT``.

Thin: parse the options, call :mod:`context_doctor.edit`, say what happened in
one line. Exit 0 written (with ``--dry-run``: would be written, and the diff is
printed), 1 refused (one line naming the rule and the flag or command that would
pass, nothing written), 2 a usage error or a file that is missing, a directory,
unreadable or not UTF-8 text. Every success line names the body state.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.commands.text_input import (
    TextSource,
    read_file,
    read_input,
    read_stdin,
    text_option,
)
from context_doctor.editor import apply as edit  # not context_doctor.edit: the CLI names its flags
from context_doctor.editor.apply import ApplyResult, recover_project
from context_doctor.editor.edit import EditRefused, EditResult
from context_doctor.editor.edits_file import Edit, read_edits
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.layouts.single_file import INSTRUCTION_FILES

_FILE = click.argument("file", type=click.Path(path_type=Path, dir_okay=True))
_COUNT = click.option(
    "--count",
    type=int,
    default=1,
    show_default=True,
    metavar="N",
    help="How many times the anchor occurs (anything else is refused).",
)


def gate_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The overrides every editing command takes, and --dry-run."""
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
        click.option(
            "--allow-header-ahead",
            is_flag=True,
            help="Record that moving Last session past the newest log entry is intended.",
        ),
        click.option("--dry-run", is_flag=True, help="Print the diff; write nothing."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def gates_of(options: dict[str, Any]) -> dict[str, Any]:
    """The gate keywords of the editing API, taken from a command's parsed options."""
    names = (
        "max_lines",
        "allow_header_lag",
        "allow_stale_body",
        "state_reviewed",
        "allow_header_ahead",
        "dry_run",
    )
    return {name: options[name] for name in names}


@click.group("edit", cls=DoctorGroup)
def edit_group() -> None:
    """Fail-closed edits of context files: refuse, never guess.

    An edit that cannot prove it changed only what was asked is refused, and nothing is
    written.

    Every text option also takes `-` (read from stdin) and has a `--…-file`
    twin that reads a file byte for byte (trailing spaces, tabs, CRLF kept).
    """


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    absolute = Path(os.path.abspath(path))
    here = Path.cwd()
    text = str(absolute.relative_to(here)) if absolute.is_relative_to(here) else str(path)
    return escape_text(text)


def describe(results: list[EditResult]) -> str:
    """The files of a batch, each CONTEXT.md with its body state (else the first file's)."""
    has_context = any(item.path.name == "CONTEXT.md" for item in results)
    parts = []
    for number, item in enumerate(results):
        notes = ["created"] if item.created else []
        if item.path.name == "CONTEXT.md" or (number == 0 and not has_context):
            notes.append(item.body_state)
        parts.append(shown(item.path) + (f" ({'; '.join(notes)})" if notes else ""))
    return ", ".join(parts)


def report_batch(result: ApplyResult, dry_run: bool, done: str = "") -> None:
    """What a batch wrote (or, dry, the combined diff and what it would write)."""
    parts = describe(result.files)
    if dry_run:
        click.echo(result.diff(Path.cwd()), nl=False)
        click.echo(f"would write {parts} (dry run)")
    else:
        click.echo(f"{done}wrote {parts}")


def report_refusal(refused: EditRefused) -> None:
    click.echo(f"context-doctor: {escape_text(refused.one_line())}", err=True)
    sys.exit(1)


def one_file(positional: Path | None, option: Path | None) -> Path:
    """FILE from the argument or from `--file`: exactly one of the two (else exit 2)."""
    if positional is not None and option is not None:
        raise click.UsageError(
            f"FILE given twice ({escape_text(str(positional))} and --file "
            f"{escape_text(str(option))}): give it once, as the argument or as --file."
        )
    chosen = positional if positional is not None else option
    if chosen is None:
        raise click.UsageError("Missing FILE: give it as the argument or as --file FILE.")
    return chosen


def record_section(file: Path) -> str | None:
    """The section FILE's layout keeps its record in (``## Current status`` of a ``CLAUDE.md``
    or ``AGENTS.md`` found by detection), so ``set-field`` edits the field the doctor reads
    there and never a line of the same name elsewhere in the file; None: the whole
    file.  Only those two names can hold such a section, so no other edit pays for the
    discovery (the same as ``check --project`` runs)."""
    if file.name not in INSTRUCTION_FILES:
        return None
    from context_doctor.pipeline.discover import (
        discover,  # only an instructions file needs discovery
    )

    try:
        found = discover(projects=(str(file.parent),)).projects
        target = file.resolve()
    except (DoctorError, OSError):
        return None
    for project in found:
        layout = project.layout
        inner = layout.inner(layout.context) or layout.context
        if layout.section is not None and (project.directory / inner).resolve() == target:
            return layout.section
    return None


def with_sections(edits: list[Edit]) -> list[Edit]:
    """Each set-field edit of an EDITS.json with its file's record section (:func:`record_section`)."""
    return [
        replace(edit, section=record_section(edit.file)) if edit.op == "set-field" else edit
        for edit in edits
    ]


def _run(file: Path, attempt: Callable[[], EditResult], dry_run: bool) -> None:
    with guarded(False, False):
        try:
            result = attempt()
        except EditRefused as refused:
            report_refusal(refused)
    name = escape_text(str(file))
    if dry_run:
        click.echo(result.diff(str(file)), nl=False)
        click.echo(f"would write {name} (dry run; {result.body_state})")
    else:
        click.echo(f"wrote {name} ({result.body_state})")


@edit_group.command("set-field")
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=True))
@click.option(
    "--file",
    "file_option",
    type=click.Path(path_type=Path, dir_okay=True),
    metavar="FILE",
    help="FILE given as an option (the seed's `set-field --file FILE` spelling).",
)
@click.option("--field", required=True, metavar="NAME", help="The header field, e.g. Phase.")
@text_option("value", "TEXT", "Its new one-line value (a final line break is dropped).")
@click.option(
    "--whole-value",
    is_flag=True,
    help="Replace a date-led value whole (default: a bare new date keeps the text after it).",
)
@gate_options
def set_field_command(
    file: Path | None,
    file_option: Path | None,
    field: str,
    value: TextSource,
    whole_value: bool,
    **options: Any,
) -> None:
    """Set the one `**NAME:**` header field of FILE to TEXT.

    Refused when the field shares its line with another field (use `edit
    replace`), appears twice, or is spelled in another case. FILE may also be
    given as `--file FILE` (the seed's own form); exactly one of the two.

    \b
    Example (keeps " — shipped the parser" after the date):
      context-doctor edit set-field projects/atlas/CONTEXT.md \\
        --field 'Last session' --value 2026-06-19
    """
    target = one_file(file, file_option)
    _run(
        target,
        lambda: edit.set_field(
            target,
            field,
            read_input(value, one_line=True),
            whole_value=whole_value,
            section=record_section(target),
            **gates_of(options),
        ),
        options["dry_run"],
    )


@edit_group.command("replace")
@_FILE
@text_option("anchor", "OLD", "The exact text to replace.")
@text_option("replacement", "NEW", "The text to put there.")
@_COUNT
@gate_options
def replace_command(
    file: Path, anchor: TextSource, replacement: TextSource, count: int, **options: Any
) -> None:
    """Replace OLD with NEW in FILE; OLD must occur exactly --count times.

    \b
    Example:
      context-doctor edit replace projects/atlas/CONTEXT.md \\
        --anchor '- Indexer rewritten; query path next.' \\
        --replacement '- Query path ported.'
    """
    _run(
        file,
        lambda: edit.replace_once(
            file, read_input(anchor), read_input(replacement), count=count, **gates_of(options)
        ),
        options["dry_run"],
    )


@edit_group.command("insert-before")
@_FILE
@text_option("anchor", "LINE_START", "The start of the line to insert before.")
@text_option("text", "TEXT", "Whole lines, ending with a newline.")
@_COUNT
@gate_options
def insert_before_command(
    file: Path, anchor: TextSource, text: TextSource, count: int, **options: Any
) -> None:
    """Insert TEXT before the line of FILE that starts with LINE_START.

    \b
    Example (a session entry from a file, kept byte for byte):
      context-doctor edit insert-before projects/atlas/sessions/2026-06.md \\
        --anchor '## 2026-06-20' --text-file entry.md
    """
    _run(
        file,
        lambda: edit.insert_before(
            file, read_input(anchor), read_input(text), count=count, **gates_of(options)
        ),
        options["dry_run"],
    )


@edit_group.command("delete-line")
@_FILE
@text_option("anchor", "LINE_START", "The start of the line to delete.")
@_COUNT
@gate_options
def delete_line_command(file: Path, anchor: TextSource, count: int, **options: Any) -> None:
    """Delete the line of FILE that starts with LINE_START (--count of them).

    \b
    Example:
      context-doctor edit delete-line projects/atlas/CONTEXT.md \\
        --anchor '**Open items added:**'
    """
    _run(
        file,
        lambda: edit.delete_line(file, read_input(anchor), count=count, **gates_of(options)),
        options["dry_run"],
    )


@edit_group.command("apply")
@click.option(
    "--edits",
    "edits_path",
    required=True,
    metavar="EDITS.json",
    help="A JSON list of edits (`-` reads it from stdin).",
)
@gate_options
def apply_command(edits_path: str, **options: Any) -> None:
    """Apply a JSON list of edits to one project: every gate once, every file or none.

    Each edit is an object with `op` (set-field, replace, insert-before,
    delete-line), `file` (relative to the working directory, or absolute) and
    the verb's options by their long names: field, value, whole_value, anchor,
    replacement, count, text.

    \b
    Example (a session's end in the demo: log, header, markers, index in one write):
      [
        {"op": "replace", "file": "projects/atlas/sessions/2026-06.md",
         "anchor": "Indexer rewritten.\\n",
         "replacement": "Indexer rewritten.\\n\\n### 2026-06-19 (round 4)\\nQuery path ported.\\n"},
        {"op": "set-field", "file": "projects/atlas/CONTEXT.md",
         "field": "Phase", "value": "Build (round 4)"},
        {"op": "set-field", "file": "projects/atlas/CONTEXT.md",
         "field": "Last session", "value": "2026-06-19 (round 4)", "whole_value": true},
        {"op": "replace", "file": "projects/atlas/CONTEXT.md",
         "anchor": "- Indexer rewritten; query path next.\\n\\n*State as of: 2026-06-18 (round 3)*",
         "replacement": "- Query path ported; ranking next.\\n\\n*State as of: 2026-06-19 (round 4)*"},
        {"op": "replace", "file": "projects/atlas/CONTEXT.md",
         "anchor": "1. [ ] Port the query path (as of 2026-06-18)\\n\\n*State as of: 2026-06-18 (round 3)*",
         "replacement": "1. [ ] Rank the results (as of 2026-06-19)\\n\\n*State as of: 2026-06-19 (round 4)*"},
        {"op": "set-field", "file": "projects/index.yaml",
         "field": "last_session", "value": "2026-06-19"}
      ]
      context-doctor edit apply --edits EDITS.json --dry-run
    """
    dry_run = options["dry_run"]
    with guarded(False, False):
        if edits_path == "-":
            edits = read_edits(read_stdin("--edits"), "EDITS.json (stdin)")
        else:
            edits = read_edits(read_file(Path(edits_path)), edits_path)
        try:
            result = edit.apply(with_sections(edits), **gates_of(options))
        except EditRefused as refused:
            report_refusal(refused)
    report_batch(result, dry_run)


@edit_group.command("recover")
@click.argument("project", type=click.Path(path_type=Path))
def recover_command(project: Path) -> None:
    """Finish or discard the batch an interrupted `edit apply` left in PROJECT.

    A batch killed after its commit point is finished (its staged files renamed
    into place); one killed before it is discarded (every file stays as it was).
    Any later edit in the project does the same first. A file changed by hand
    since the batch is left alone: exit 2 naming it and the staged file.

    \b
    Example:
      context-doctor edit recover projects/atlas
    """
    with guarded(False, False):
        recovered = recover_project(project)
    where = shown(project)
    if not recovered.journals:
        click.echo(f"no interrupted batch in {where}: nothing to do")
        return
    batches = f"{len(recovered.journals)} interrupted batch" + (
        "es" if len(recovered.journals) > 1 else ""
    )
    if recovered.finished:
        files = ", ".join(shown(path) for path in recovered.finished)
        click.echo(f"finished {batches} in {where}: wrote {files}")
    else:
        click.echo(
            f"recovered {batches} in {where}: no file needed writing (the batch had not "
            "committed, or its files already held the new versions)"
        )
