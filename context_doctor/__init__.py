"""context-doctor: a linter for the durable context layer AI agents resume from."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("context-doctor")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
