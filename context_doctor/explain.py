"""``context-doctor explain``: a check's page, in the manner of ``ruff rule``."""

from __future__ import annotations

import textwrap

from context_doctor.registry import ENGINE_REASONS, CheckSpec


def explain_text(spec: CheckSpec) -> str:
    def wrapped(text: str) -> str:
        return textwrap.fill(text, width=88, initial_indent="  ", subsequent_indent="  ")

    skips = [f"  - `{rule.reason}`: {rule.description}" for rule in spec.skips]
    if spec.needs_context:
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
