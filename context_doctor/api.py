"""The public surface for check authors: everything a plugin imports, from one module.

A check is metadata plus one pure function of the model (it never opens a file, runs
git, writes or reads the clock; ``ctx.today`` is the date). Register it with
:func:`check`; ship the module in a package that names it under the
``context_doctor.checks`` entry-point group. See ``docs/plugins.md``.

Names not listed in ``__all__`` are internal and may change between releases.
"""

from typing import TYPE_CHECKING, Any

from context_doctor.checks.registry import (
    BOUNDED,
    DORMANT,
    NO_INDEX,
    NOT_REGISTERED,
    NOT_SHARDED,
    NOT_TERMINAL,
    SHARDED,
    STANDING,
    CheckSpec,
    Context,
    SkipRule,
    VaultSkipRule,
    check,
)
from context_doctor.errors import Unverifiable
from context_doctor.model.documents import Document
from context_doctor.model.project import Project
from context_doctor.model.source import Source
from context_doctor.report.findings import (
    AppendLine,
    Applicability,
    Fix,
    Issue,
    RemoveFrontmatterKey,
    SetEntryField,
    Severity,
    Unverified,
)

if TYPE_CHECKING:
    from context_doctor.vault.model import Note, Vault

__all__ = [
    "BOUNDED",
    "DORMANT",
    "NOT_REGISTERED",
    "NOT_SHARDED",
    "NOT_TERMINAL",
    "NO_INDEX",
    "SHARDED",
    "STANDING",
    "AppendLine",
    "Applicability",
    "CheckSpec",
    "Context",
    "Document",
    "Fix",
    "Issue",
    "Note",
    "Project",
    "RemoveFrontmatterKey",
    "SetEntryField",
    "Severity",
    "SkipRule",
    "Source",
    "Unverifiable",
    "Unverified",
    "Vault",
    "VaultSkipRule",
    "check",
]


def __getattr__(name: str) -> Any:
    """``Note`` and ``Vault`` on first use: a plugin's import of this module loads the vault
    modules (PyYAML among them) only when it names one of them."""
    if name in ("Note", "Vault"):
        from context_doctor.vault import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
