"""``context-doctor explain``: a check's page, in the manner of ``ruff rule``."""

from __future__ import annotations

import click

from context_doctor.checks.registry import (
    GROUPS,
    CheckSpec,
    load_checks,
    resolve_names,
    severity_lines,
    severity_words,
    shape_reasons,
    skip_reasons,
)
from context_doctor.commands.common import complete_check_names, guarded
from context_doctor.render.terminal import terminal_width, wrap

EXPLAIN_WIDTH = 88  # a pipe or a file: the width explain always had


def explain_text(spec: CheckSpec, width: int | None = None) -> str:
    """The check's page, every paragraph wrapped to ``width`` (default: the terminal's)."""
    columns = width or terminal_width(EXPLAIN_WIDTH)

    def paragraph(text: str) -> list[str]:
        return wrap(text, columns, indent="  ")

    def listed(reasons: list[tuple[str, str]]) -> list[str]:
        return [
            line
            for reason, description in reasons
            for line in wrap(
                f"- `{reason}`: {description}" if reason else f"- {description}",
                columns,
                indent="  ",
                subsequent="    ",
            )
        ]

    gates, shapes = listed(skip_reasons(spec)), listed(shape_reasons(spec))
    return "\n".join(
        [
            f"{spec.name} ({severity_words(spec)})",
            *paragraph(spec.summary),
            "",
            "Why it matters:",
            *paragraph(spec.explanation),
            "",
            "How to fix:",
            *paragraph(spec.remedy),
            "",
            *(
                line
                for said in severity_lines(spec)
                for line in wrap(
                    said.strip(), columns, indent="  " if said[0] == " " else "", subsequent="    "
                )
            ),
            "",
            "Skipped (and counted in coverage) when:",
            *gates,
            *(["", "Not applicable (counted, shown with --show-coverage) when:"] if shapes else []),
            *shapes,
            *_documented(spec, columns),
        ]
    )


def _documented(spec: CheckSpec, columns: int) -> list[str]:
    """Where a built-in check is documented in the doctor's source: its page and its group's
    table (a plugin's check is documented by its own package)."""
    if not spec.module.startswith("context_doctor."):
        return []
    return [
        "",
        "More:",
        *wrap(
            f"docs/checks/{spec.name}.md, and docs/checks.md for its group, in the doctor's "
            "source.",
            columns,
            indent="  ",
        ),
    ]


def check_list(registry: dict[str, CheckSpec], width: int | None = None) -> str:
    """Every check, by group, in one screen: a group and its checks wrapped under it."""
    columns = width or terminal_width(EXPLAIN_WIDTH)
    by_group: dict[str, list[str]] = {}
    for name, spec in sorted(registry.items()):
        by_group.setdefault(spec.group, []).append(name)
    lines = wrap(
        "Checks by group. `context-doctor explain NAME` explains a check, or each check of "
        "a group; `--all` explains every check; docs/checks.md lists each with its severity "
        "and gates.",
        columns,
    )
    lines.append("")
    for group in [*GROUPS, *sorted(set(by_group) - set(GROUPS))]:
        if group in by_group:
            heading = f"{group} — {GROUPS[group]}" if group in GROUPS else group
            text = f"{heading}: {', '.join(by_group[group])}"
            lines += wrap(text, columns, subsequent="    ")
    return "\n".join(lines)


@click.command("explain")
@click.argument("name", required=False, shell_complete=complete_check_names)
@click.option("--all", "show_all", is_flag=True, help="Explain every check.")
def explain_command(name: str | None, show_all: bool) -> None:
    """Explain a check: what it finds, why, and how to fix it.

    NAME is a check or a group of checks (`context-doctor explain currency`); with no NAME
    the checks are listed by group.
    """
    with guarded(False, False):
        registry = load_checks()
        if show_all:
            names = list(registry)
        elif name:
            names = resolve_names([name], registry, "the command line")
        else:
            click.echo(check_list(registry))
            return
        click.echo("\n\n".join(explain_text(registry[item]) for item in names))
