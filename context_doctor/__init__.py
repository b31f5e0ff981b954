"""context-doctor: a linter for the durable context layer AI agents resume from.

``context_doctor.diagnose(source)`` audits in process and returns what ``check --json``
prints; ``context_doctor.DoctorError`` is what it raises where the CLI exits 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from context_doctor.errors import DoctorError
    from context_doctor.library import diagnose

__all__ = ["DoctorError", "__version__", "diagnose"]

# The one place the version is written: pyproject.toml reads it from here (setuptools'
# `attr:`, read from the source without importing it), and `--version` prints it without
# importlib.metadata, which cost most of that command's start-up (#32).
__version__ = "0.1.0"

def __getattr__(name: str) -> Any:
    # Each is loaded on first use, not at import: importlib.metadata costs ~20 ms and the
    # audit far more, and `status` (a session-start hook) needs none of them.
    if name == "diagnose":
        from context_doctor.library import diagnose

        globals()["diagnose"] = diagnose
        return diagnose
    if name == "DoctorError":
        from context_doctor.errors import DoctorError

        globals()["DoctorError"] = DoctorError
        return DoctorError
    raise AttributeError(f"module 'context_doctor' has no attribute {name!r}")
