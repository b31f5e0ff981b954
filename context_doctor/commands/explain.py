"""``context-doctor explain``: a check's page, in the manner of ``ruff rule``."""

from __future__ import annotations

import textwrap

import click

from context_doctor.commands.common import guarded
from context_doctor.errors import DoctorError
from context_doctor.registry import (
    ENGINE_REASONS,
    CheckSpec,
    SkipRule,
    VaultSkipRule,
    load_checks,
    resolve_names,
)


def explain_text(spec: CheckSpec) -> str:
    def wrapped(text: str) -> str:
        return textwrap.fill(text, width=88, initial_indent="  ", subsequent_indent="  ")

    rules: tuple[SkipRule | VaultSkipRule, ...] = (
        spec.vault_skips if spec.scope == "vault" else spec.own_skips
    )
    gates = [f"  - `{rule.reason}`: {rule.description}" for rule in rules if not rule.shape]
    shapes = [f"  - `{rule.reason}`: {rule.description}" for rule in rules if rule.shape]
    skips = gates
    if spec.scope == "vault":
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
            f"{spec.name} ({severity_words(spec)})",
            f"  {spec.summary}",
            "",
            "Why it matters:",
            wrapped(spec.explanation),
            "",
            "How to fix:",
            wrapped(spec.remedy),
            "",
            *severity_lines(spec),
            "",
            "Skipped (and counted in coverage) when:",
            *gates,
            *(["", "Not applicable (counted, shown with --show-coverage) when:"] if shapes else []),
            *shapes,
        ]
    )


def severity_words(spec: CheckSpec) -> str:
    """``defect``, or ``defect or warning`` when its findings can have either."""
    found = [spec.severity.value] + [
        severity.value for severity, _ in spec.severities if severity is not spec.severity
    ]
    return " or ".join(dict.fromkeys(found))


def severity_lines(spec: CheckSpec) -> list[str]:
    """The severity each finding can have, and when (the same word JSON and SARIF carry)."""
    if not spec.severities:
        return [f"Severity: {spec.severity.value}, for every finding."]
    return ["Severity:"] + [f"  - {severity.value}: {when}" for severity, when in spec.severities]


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
