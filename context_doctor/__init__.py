"""context-doctor: a linter for the durable context layer AI agents resume from."""

from __future__ import annotations

__all__ = ["__version__"]

# The one place the version is written: pyproject.toml reads it from here (setuptools'
# `attr:`, read from the source without importing it), and `--version` prints it without
# importlib.metadata, which cost most of that command's start-up (#32).
__version__ = "0.1.0"
