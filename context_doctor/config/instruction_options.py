"""The ``[instructions]`` table as a value (docs/configuration.md, docs/references.md).

Its own module, importing nothing, so the configuration and the procedural tier
(:mod:`context_doctor.model.instructions`) both use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_CODEX_MAX_BYTES = 32 * 1024
"""Codex's own default for ``project_doc_max_bytes``: what it loads of a folder's chain."""


@dataclass(frozen=True)
class InstructionOptions:
    """``fallback_names``: names Codex also loads in a folder without ``AGENTS.md``
    (``project_doc_fallback_filenames``), in order; ``codex_max_bytes``: the chain's budget
    (0: none); ``budgets``: (glob, lines, bytes) per declared glob, none by default."""

    fallback_names: tuple[str, ...] = ()
    codex_max_bytes: int = DEFAULT_CODEX_MAX_BYTES
    budgets: tuple[tuple[str, int | None, int | None], ...] = ()
