"""Where the Synthesis Console's files are: the two meanings of ``SYNTHESIS_HOME`` (SPEC §7).

For console 1.x (and the 1.x doctor) ``SYNTHESIS_HOME`` is the folder holding
``console.yaml`` and ``context-doctor/last-report.json`` (default ``~/.synthesis``).
For synthesis v5 and console 2.x it is the v5 runtime folder ``V5`` (default
``~/.synthesis/v5``: ``current/``, ``config.json``, ``state/``), and console 2.x reads
``~/.synthesis/console.yaml`` whatever it says. The doctor tells them apart by
content: a ``SYNTHESIS_HOME`` holding ``current/synthesis/hook.py`` or ``config.json``
is a v5 runtime, and then the console's files are under ``~/.synthesis``.

Standard library only and no git: ``status`` (a session-start hook) imports this.
"""

from __future__ import annotations

import os
from pathlib import Path

ENVIRONMENT = "SYNTHESIS_HOME"
RUNTIME_MARKER = Path("synthesis") / "hook.py"
"""The v5 runtime package: a folder holding it is a v5 release (``V5/current``) or plugin root."""


def user_synthesis() -> Path:
    """``~/.synthesis``: the console's folder when ``SYNTHESIS_HOME`` does not name it."""
    return Path.home() / ".synthesis"


def configured_home() -> Path | None:
    value = os.environ.get(ENVIRONMENT)
    return Path(value).expanduser() if value else None


def is_v5_runtime(folder: Path) -> bool:
    """A v5 runtime folder: its release holds the runtime package, or it has v5's config."""
    return (folder / "current" / RUNTIME_MARKER).is_file() or (folder / "config.json").is_file()


def console_home() -> Path:
    """The folder holding ``console.yaml`` and ``context-doctor/`` (the report cache)."""
    configured = configured_home()
    if configured is None or is_v5_runtime(configured):
        return user_synthesis()
    return configured


def v5_home() -> Path:
    """The v5 runtime folder as synthesis v5 and console 2.x compute it: ``SYNTHESIS_HOME``
    when set, else ``~/.synthesis/v5`` (a 1.x home in the variable has no runtime in it,
    and console 2.x then finds none there either)."""
    return configured_home() or user_synthesis() / "v5"
