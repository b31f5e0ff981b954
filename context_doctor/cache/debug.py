"""The caches' ``--debug`` lines, without importing :mod:`logging` for a run that shows none.

A replayed run is mostly start-up, and :mod:`logging` (with the ``traceback``, ``string``
and ``threading`` it imports) is a noticeable part of it. The lines only ever reach the
handler ``--debug`` installs (``commands/common.py``), which imports :mod:`logging`
first; before anything has imported it no handler can exist, and a debug record would
reach none (the last-resort handler takes warnings and worse), so it is not made at all.
"""

from __future__ import annotations

import sys


class DebugLog:
    """``LOG.debug(message)`` for the logger ``name``, once :mod:`logging` is loaded."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def debug(self, message: str) -> None:
        logging = sys.modules.get("logging")
        if logging is not None:
            logging.getLogger(self.name).debug(message)
