"""``context-doctor explain``: a check's page, in the manner of ``ruff rule``."""

from __future__ import annotations

import textwrap

import click

from context_doctor.commands.common import guarded
from context_doctor.errors import DoctorError
from context_doctor.registry import ENGINE_REASONS, CheckSpec, load_checks, resolve_names


def explain_text(spec: CheckSpec) -> str:
    def wrapped(text: str) -> str:
        return textwrap.fill(text, width=88, initial_indent="  ", subsequent_indent="  ")

    skips = [f"  - `{rule.reason}`: {rule.description}" for rule in spec.own_skips]
    if spec.scope == "vault":
        skips = [f"  - `{rule.reason}`: {rule.description}" for rule in spec.vault_skips]
        skips.append(
            "  - a unit of a shape the doctor does not know (an unreadable note, an unknown "
            "log entry or floor): counted as unverifiable, never judged"
        )
    elif spec.needs_context:
        skips += [f"  - `{reason}`: {text}" for reason, text in ENGINE_REASONS.items()]
    else:
        skips.append(f"  - `unreadable`: {ENGINE_REASONS['unreadable']}")
    return "\n".join(
        [
            f"{spec.name} ({spec.severity.value})",
            f"  {spec.summary}",
            "",
            "Why it matters:",
            wrapped(spec.explanation),
            "",
            "How to fix:",
            wrapped(spec.remedy),
            "",
            "Skipped (and counted in coverage) when:",
            *skips,
        ]
    )


@click.command("explain")
@click.argument("name", required=False)
@click.option("--all", "show_all", is_flag=True, help="Explain every check.")
def explain_command(name: str | None, show_all: bool) -> None:
    """What a check means, why it matters, how to fix it and what skips it."""
    with guarded(False, False):
        registry = load_checks()
        if show_all:
            names = list(registry)
        elif name:
            names = resolve_names([name], registry, "the command line")
        else:
            raise DoctorError(
                "explain needs a check NAME or --all", "run `context-doctor explain --all`"
            )
        click.echo("\n\n".join(explain_text(registry[item]) for item in names))
