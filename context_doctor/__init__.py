"""context-doctor: a linter for the durable context layer AI agents resume from."""

from __future__ import annotations

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    # The version is read from the installed metadata on first use, not at import:
    # importlib.metadata costs ~20 ms, and `status` (a session-start hook) never needs it.
    if name != "__version__":
        raise AttributeError(f"module 'context_doctor' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("context-doctor")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+unknown"
    globals()["__version__"] = found
    return found
