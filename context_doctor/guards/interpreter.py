"""How the doctor starts a Python of its own: isolated, so the audited tree supplies no code.

The pre-push hook, the command ``mcp install`` registers and the console
launcher all run ``python -m context_doctor`` (or ``-c``) from wherever git or
a client starts them, typically the top of the repository being audited. A
plain ``python -m`` puts that working directory first on the import path, so a
``context_doctor/`` package committed at the repository's top would run instead
of the doctor (docs/caches.md, "Round three"). Every such interpreter therefore runs
isolated: ``-I`` (no working directory or script directory on the path, no
``PYTHON*`` variables, no user site-packages).

Decision: when the doctor itself is installed in the user's site-packages
(``pip install --user``), ``-I`` would hide it; then the flags are ``-E -P``,
which keep the user site (the user's own files, never the audited tree's) and
drop the rest. Both need Python 3.11 (``-P``), which the doctor requires.
"""

from __future__ import annotations

import site
from pathlib import Path

FULL_ISOLATION: tuple[str, ...] = ("-I",)
KEEP_USER_SITE: tuple[str, ...] = ("-E", "-P")


def _installed_in_user_site(package: Path) -> bool:
    try:
        user_site = site.getusersitepackages()
    except (AttributeError, OSError):  # a virtualenv's old site module, an odd HOME
        return False
    try:
        return package.resolve().is_relative_to(Path(user_site).resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def isolation_flags() -> tuple[str, ...]:
    """The flags every interpreter the doctor starts gets, before ``-m`` or ``-c``."""
    package = Path(__file__).parent.parent  # the context_doctor package itself
    return KEEP_USER_SITE if _installed_in_user_site(package) else FULL_ISOLATION
