"""``context-doctor layout [PATH]``: the layout the doctor would use, as a table to paste.

Prints the ``[layout]`` table (docs/layouts.md) for the repository at PATH (default: the current
directory), each key commented with what it matched and whether it was declared or
detected, then the instruction files agents load there (docs/references.md), as comments.
A detected layout also names the other working-memory records detection saw and does not
audit (a second record), and how its log is ordered when it reads one order. Exit 0 when
a layout matches; exit 2 when none does, listing the shapes detection looked for (the
message ``check PATH`` gives), after the near misses it saw that are not working memory
as they stand, each with the ``[layout]`` table that declares it (docs/layouts.md "Near
misses").
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.config.settings import resolve_settings
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.layouts import NEWEST_FIRST, SEED_SINGLE, Layout
from context_doctor.layouts.detect import survey
from context_doctor.model.reference_text import OUTSIDE_PATH
from context_doctor.model.sessions import SessionEntry, log_order
from context_doctor.model.source import Source
from context_doctor.pipeline.audit import config_directories
from context_doctor.pipeline.discover import discover


def instruction_lines(source: Source) -> list[str]:
    """The procedural tier's files (docs/references.md), one comment line each: the path, the
    agent that loads it, where a link leads."""
    procedural = source.procedural
    files = procedural.files
    if not files:
        return ["# instruction files: none (docs/references.md)"]
    lines = [f"# instruction files ({len(files)}, docs/references.md): path, agent"]
    width = max(len(file.rel_path) for file in files)
    for file in files:
        note = ""
        if file.outside:
            note = " (a link out of the repository: not read)"
        elif file.target is not None:
            note = f" (a link to {file.target})"
        lines.append(f"#   {file.rel_path:<{width}}  {file.family}{note}")
    if procedural.unread:
        lines.append(f"#   ... and {procedural.unread} more, not read (past the limit)")
    outside = sum(
        1 for file in procedural.judged for r in file.references if r.kind == OUTSIDE_PATH
    )
    if outside:
        plural = "s" if outside > 1 else ""
        lines.append(
            f"# {outside} reference{plural} to files outside the repository (`~/`, absolute "
            "paths): counted, not judged"
        )
    return lines


def layout_text(source: Source) -> str:
    """The commented ``[layout]`` table for ``source``: its layout, and its project's id."""
    if source.instructions_only:
        near = near_misses_text(source.root)
        return "\n".join(
            [
                "# no working memory here: only the instruction files are audited",
                *instruction_lines(source),
                *([near] if near else []),
            ]
        )
    layout: Layout = source.layout
    origin = f"declared in {layout.origin}" if layout.declared else f"detected ({layout.origin})"
    lines = [f"# layout {layout.context}, {origin}"]
    if not layout.working_memory:
        lines.append(
            f"# {layout.context} holds no field (Last session, Status, Phase) and no dated "
            "entry: not working memory, so no check speaks about it"
        )
    table = layout
    if source.is_single_project and source.projects and layout.name is None:
        # Where the id came from (docs/layouts.md "Project ids"): a remote could move the
        # last two; `[layout] name` pins it (`context-doctor init` writes it).
        project_id = source.projects[0].id
        why = source.id_source or "the repository's folder name (no origin remote)"
        table = Layout(
            **{**layout.__dict__, "name": project_id, "matched": (*layout.matched, ("name", why))}
        )
    if layout.kind == SEED_SINGLE or layout.declared or not layout.is_seed:
        lines.append(table.toml())
    else:
        lines.append("# the seed's layout is the default: nothing to declare\n" + table.toml())
    lines.extend(_order_note(source))
    if not layout.declared and not layout.is_glob:
        lines.extend(_second_records(source.root, layout))
    lines += instruction_lines(source)
    return "\n".join(lines)


def _order_note(source: Source) -> list[str]:
    """A comment when every log file of the project reads newest first (docs/layouts.md
    "Order"): ``log add`` writes at its top; ``order`` declares it for good."""
    if not source.is_single_project or not source.projects or source.layout.order:
        return []
    project = source.projects[0]
    by_file: dict[str, list[SessionEntry]] = {}
    for entry in project.session_entries:
        by_file.setdefault(entry.path, []).append(entry)
    if not by_file or any(log_order(entries) != NEWEST_FIRST for entries in by_file.values()):
        return []
    return _comment(
        f"the log runs newest first (read from {', '.join(by_file)}): `log add` writes at "
        'its top; `order = "newest-first"` declares it'
    )


def _comment(text: str) -> list[str]:
    """``text`` as ``# `` comment lines of at most 80 columns, never breaking a word."""
    return [
        f"# {line}"
        for line in textwrap.wrap(text, 78, break_long_words=False, break_on_hyphens=False)
    ]


def _second_records(top: Path, layout: Layout) -> list[str]:
    """The other working-memory records detection saw here and does not audit."""
    found = survey(top)
    lines: list[str] = []
    for other in found.others:
        if other.context != layout.context:
            lines += _comment(
                f"also working memory here, not audited: {other.context}"
                + (" (near the layouts table)" if other.near else "")
                + f'; declare `context = "{other.context}"` to audit it instead'
            )
    return lines


def near_misses_text(top: Path) -> str:
    """The near misses detection saw at ``top`` that are not working memory as they stand,
    each with the ``[layout]`` table that declares it ("" when it saw none)."""
    if not top.is_dir():
        return ""
    seen = survey(top).seen
    blocks = [
        "\n".join(
            _comment(f"seen, not working memory: {miss.path} ({miss.why}); to audit it, declare:")
        )
        + "\n"
        + miss.layout.toml()
        for miss in seen
    ]
    return "\n\n".join(blocks)


@click.command("layout")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [layout] from this configuration file instead of the one the repository finds.",
)
@click.option("--debug", is_flag=True, hidden=True)
def layout_command(path: Path | None, config: Path | None, debug: bool) -> None:
    """Print the [layout] table the doctor would use here.

    Each key is commented with what it matched.
    """
    with guarded(False, debug):
        try:
            corpus = discover((str(path),) if path is not None else (), config=config)
        except DoctorError:
            near = near_misses_text(path if path is not None else Path.cwd())
            for line in near.splitlines():
                click.echo(escape_text(line))
            raise
        if not corpus.sources:
            raise click.UsageError("no source here: pass a repository path")
        settings = resolve_settings(config_directories(corpus), config, None, None)
        corpus.assign_instructions(settings.instructions)
        if settings.baseline is not None and settings.baseline.is_file():
            # The ids the configured baseline recorded, as `check` reads them.
            from context_doctor.pipeline.ids import keep_recorded_ids

            keep_recorded_ids(corpus, settings.baseline)
        for number, source in enumerate(corpus.sources):
            if number:
                click.echo("")
            for line in layout_text(source).splitlines():
                click.echo(escape_text(line))
