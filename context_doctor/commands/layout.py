"""``context-doctor layout [PATH]``: the layout the doctor would use, as a table to paste.

Prints the ``[layout]`` table (docs/layouts.md) for the repository at PATH (default: the current
directory), each key commented with what it matched and whether it was declared or
detected, then the instruction files agents load there (docs/references.md), as comments. Exit 0 when a layout matches; exit 2 when none does, listing the shapes
detection looked for (the message ``check PATH`` gives).
"""

from __future__ import annotations

from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.config.settings import resolve_settings
from context_doctor.git.repository import origin_name
from context_doctor.guards.escape import escape_text
from context_doctor.layouts import SEED_SINGLE, Layout
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
    return lines


def layout_text(source: Source) -> str:
    """The commented ``[layout]`` table for ``source``: its layout, and its project's id."""
    if source.instructions_only:
        return "\n".join(
            [
                "# no working memory here: only the instruction files are audited",
                *instruction_lines(source),
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
        project_id = source.projects[0].id
        why = (
            "the origin remote's name"
            if origin_name(source.repository) == project_id
            else "the repository's folder name (no origin remote)"
        )
        table = Layout(
            **{**layout.__dict__, "name": project_id, "matched": (*layout.matched, ("name", why))}
        )
    if layout.kind == SEED_SINGLE or layout.declared or not layout.is_seed:
        lines.append(table.toml())
    else:
        lines.append("# the seed's layout is the default: nothing to declare\n" + table.toml())
    lines += instruction_lines(source)
    return "\n".join(lines)


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
        corpus = discover((str(path),) if path is not None else (), config=config)
        if not corpus.sources:
            raise click.UsageError("no source here: pass a repository path")
        settings = resolve_settings(config_directories(corpus), config, None, None)
        corpus.assign_instructions(settings.instructions)
        for number, source in enumerate(corpus.sources):
            if number:
                click.echo("")
            for line in layout_text(source).splitlines():
                click.echo(escape_text(line))
