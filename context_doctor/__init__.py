"""context-doctor: a linter for the durable context layer AI agents resume from.

``context_doctor.diagnose(source)`` audits in process and returns what ``check --json``
prints; ``context_doctor.DoctorError`` is what it raises where the CLI exits 2.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command imports this
if TYPE_CHECKING:
    from typing import Any

    from context_doctor.errors import DoctorError
    from context_doctor.library import diagnose

    __version__: str

__all__ = ["DoctorError", "__version__", "diagnose"]


def __getattr__(name: str) -> Any:
    # Each is loaded on first use, not at import (the audit behind diagnose is large, and
    # `status`, a session-start hook, needs none of them). The doctor's own modules import
    # the version from context_doctor.version, never from here: this root depends on them.
    if name == "diagnose":
        from context_doctor.library import diagnose

        globals()["diagnose"] = diagnose
        return diagnose
    if name == "DoctorError":
        from context_doctor.errors import DoctorError

        globals()["DoctorError"] = DoctorError
        return DoctorError
    if name == "__version__":
        from context_doctor.version import __version__

        globals()["__version__"] = __version__
        return __version__
    raise AttributeError(f"module 'context_doctor' has no attribute {name!r}")
