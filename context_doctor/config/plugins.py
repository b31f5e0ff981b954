"""Where check modules come from: the doctor's own package, and third parties' entry points.

Apart from :mod:`context_doctor.checks.registry` so that a run can ask whether any plugin is
installed (its replay key depends on it) without importing the registry or a check.
"""

from __future__ import annotations

import os
import sys
from typing import Any

ENTRY_POINT_GROUP = "context_doctor.checks"
BUILTIN_PACKAGE = "context_doctor.checks"
"""Built-in checks are the modules of this package, found by walking it: a new file is a new
check, with no list to edit. Entry points are for third-party packages only."""
PLUGINS_OFF = "CONTEXT_DOCTOR_DISABLE_PLUGIN_AUTOLOAD"
"""Set (to anything but empty) to load no third-party check module, e.g. in a test suite."""


def plugins_enabled() -> bool:
    return not os.environ.get(PLUGINS_OFF)


def plugin_modules() -> list[tuple[str, str]]:
    """The third-party check modules :func:`load_checks` would import, as (module, entry
    point name); none when :data:`PLUGINS_OFF` is set. Nothing is imported, and
    ``importlib.metadata`` (slow to import) only when some distribution may name one."""
    if not plugins_enabled() or not _may_name_plugins():
        return []
    return entry_point_modules()


METADATA_SUFFIXES = (".dist-info", ".egg-info")


def installed_metadata() -> tuple[str, ...]:
    """The metadata directory of every distribution on ``sys.path`` (``name-version``), as
    ``importlib.metadata`` finds them, by path; a ``sys.path`` entry that is no directory
    (a zip) or cannot be listed is named as such. An install, an upgrade or a removal
    changes it: what the replay key holds of the libraries."""
    found: list[str] = []
    for entry in dict.fromkeys(sys.path):
        try:
            with os.scandir(entry or ".") as listing:
                found += sorted(
                    item.path for item in listing if item.name.endswith(METADATA_SUFFIXES)
                )
        except FileNotFoundError:
            continue  # a sys.path entry that does not exist holds nothing
        except OSError as error:
            found.append(f"{entry} (unlisted: {error.__class__.__name__})")
    return tuple(found)


def _may_name_plugins() -> bool:
    """Whether any distribution's entry points may name a check module: a quick read of
    each ``entry_points.txt``; anything unlisted or unreadable says it may."""
    for path in installed_metadata():
        if not path.endswith(METADATA_SUFFIXES):
            return True  # a zip or an unlistable directory: importlib.metadata decides
        try:
            with open(os.path.join(path, "entry_points.txt"), "rb") as points:
                text = points.read(1 << 20)
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if ENTRY_POINT_GROUP.encode() in text and _names_other_modules(text):
            return True
    return False


def _names_other_modules(text: bytes) -> bool:
    """Whether the ``[context_doctor.checks]`` section of an ``entry_points.txt`` names a
    module outside the doctor's own checks (an old install of ours lists those)."""
    section = None
    for raw in text.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == ENTRY_POINT_GROUP and "=" in line:
            module = line.split("=", 1)[1].split(":", 1)[0].strip()
            if not _defined_in_package(module):
                return True
    return False


def entry_point_modules() -> list[tuple[str, str]]:
    if not _may_name_plugins():
        return []  # importlib.metadata would find none (it is slow to import)
    from importlib.metadata import entry_points

    discovered: list[Any] = list(entry_points(group=ENTRY_POINT_GROUP))
    return [
        (point.value, point.name)
        for point in sorted(discovered, key=lambda p: (p.value, p.name))
        # an install made before built-ins were walked still lists them
        if not _defined_in_package(point.value)
    ]


def _defined_in_package(module: str) -> bool:
    return module == BUILTIN_PACKAGE or module.startswith(f"{BUILTIN_PACKAGE}.")
