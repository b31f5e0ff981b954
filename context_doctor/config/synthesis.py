"""Where the Synthesis Console's files are: the two meanings of ``SYNTHESIS_HOME`` (docs/surfaces.md).

For console 1.x (and the 1.x doctor) ``SYNTHESIS_HOME`` is the folder holding
``console.yaml`` and ``context-doctor/last-report.json`` (default ``~/.synthesis``).
For synthesis v5 and console 2.x it is the v5 runtime folder ``V5`` (default
``~/.synthesis/v5``: ``current/``, ``config.json``, ``state/``), and console 2.x reads
``~/.synthesis/console.yaml`` whatever it says. The doctor tells them apart by
content: a ``SYNTHESIS_HOME`` holding ``current/synthesis/hook.py`` or ``config.json``
is a v5 runtime, and then the console's files are under ``~/.synthesis``.

Standard library only and no git: ``status`` (a session-start hook) imports this, and
reads the console's folder as text (:func:`console_home_text`) without importing
``pathlib``; the functions returning a ``Path`` import it when called.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from pathlib import Path

ENVIRONMENT = "SYNTHESIS_HOME"
RUNTIME_MARKER = "synthesis/hook.py"
"""The v5 runtime package: a folder holding it is a v5 release (``V5/current``) or plugin root
(relative, joined to a ``Path`` as ``folder / RUNTIME_MARKER``)."""


def _user_synthesis_text() -> str:
    return os.path.join(os.path.expanduser("~"), ".synthesis")


def user_synthesis() -> Path:
    """``~/.synthesis``: the console's folder when ``SYNTHESIS_HOME`` does not name it."""
    from pathlib import Path

    return Path(_user_synthesis_text())


def _configured_text() -> str | None:
    value = os.environ.get(ENVIRONMENT)
    return os.path.expanduser(value) if value else None


def configured_home() -> Path | None:
    from pathlib import Path

    configured = _configured_text()
    return Path(configured) if configured is not None else None


def is_v5_runtime(folder: Path | str) -> bool:
    """A v5 runtime folder: its release holds the runtime package, or it has v5's config."""
    return os.path.isfile(os.path.join(folder, "current", RUNTIME_MARKER)) or os.path.isfile(
        os.path.join(folder, "config.json")
    )


def console_home_text() -> str:
    """:func:`console_home` as text, as ``str(console_home())`` spells it."""
    configured = _configured_text()
    if configured is None or is_v5_runtime(configured):
        return path_text(_user_synthesis_text())
    return path_text(configured)


def console_home() -> Path:
    """The folder holding ``console.yaml`` and ``context-doctor/`` (the report cache)."""
    from pathlib import Path

    return Path(console_home_text())


def path_text(text: str) -> str:
    """``str(Path(text))`` without importing ``pathlib``: repeated slashes and ``.`` parts
    dropped, no trailing slash, ``..`` kept (a POSIX path; elsewhere ``pathlib`` itself)."""
    if os.name != "posix":
        from pathlib import Path

        return str(Path(text))
    root = (
        "//" if text.startswith("//") and not text.startswith("///") else "/" * text.startswith("/")
    )
    return root + "/".join(part for part in text.split("/") if part not in ("", ".")) or "."


def v5_home() -> Path:
    """The v5 runtime folder as synthesis v5 and console 2.x compute it: ``SYNTHESIS_HOME``
    when set, else ``~/.synthesis/v5`` (a 1.x home in the variable has no runtime in it,
    and console 2.x then finds none there either)."""
    return configured_home() or user_synthesis() / "v5"
