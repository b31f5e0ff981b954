"""Containment (docs/caches.md): nothing from the audited tree decides where the doctor writes or reads.

One rule, answered here and nowhere else: a path that comes from the audited
tree or its own configuration (a statusline cache, a baseline, a registry
entry, ``derived_from``, a project directory, a state file) is used only when,
every symlink resolved, it lies inside the tree it came from (its git work
tree; outside git, the directory the configuration sits in). The doctor's own
files go under ``<git-common-dir>/context-doctor/``, which is not used when it
is a symlink. Paths that lie elsewhere come only from the user: a flag, their
environment, a configuration file they name with ``--config``
(:data:`USER_NAMED`).

The write path (:mod:`context_doctor.write.atomic`) checks the same rule again
at the moment of writing (``within=``), so a link planted between the check and
the write is refused too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from context_doctor.errors import DoctorError

USER_NAMED: Final = None
"""``within=USER_NAMED``: the user named this path (a flag, the environment, a config file
they passed), so there is no tree it must stay in. Never for a path read from the tree."""


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether ``path``, every symlink on the way resolved, lies in ``root`` (resolved too).

    A path that does not exist yet is judged by what its existing part resolves to.
    """
    try:
        resolved = Path(os.path.realpath(path))
        return resolved.is_relative_to(os.path.realpath(root))
    except (OSError, ValueError):  # an unresolvable path is not shown to be inside
        return False


def repository_root(path: Path | str) -> Path | None:
    """The git work tree holding ``path``, found without resolving links (None outside git).

    The natural ``within=`` of a write into a repository: a directory symlinked out of
    it then cannot carry the write elsewhere. ``path`` itself counts: a project at the
    repository's top (a single-project layout) is contained by that top folder, never its
    parent (docs/caches.md, round three). A work tree reached through a link inside an outer one
    (a committed ``projects -> ~`` naming the user's ``~/dotfiles`` repository as a
    project) is not the answer: the outer repository is, and the link is then caught as
    leaving it.
    """
    absolute = Path(os.path.abspath(path))
    found: Path | None = None
    through_link = False  # a link lies between ``found`` and the directory looked at
    for directory in (absolute, *absolute.parents):
        if (found is None or through_link) and os.path.lexists(directory / ".git"):
            found, through_link = directory, False
        if found is not None and os.path.islink(directory):
            through_link = True
    return found


def contained(raw: str | Path, *, base: Path, root: Path, what: str) -> Path:
    """The absolute path ``raw`` names (relative to ``base``), refused unless inside ``root``.

    ``what`` names the setting for the one-line refusal (``config X: key `k```).
    """
    path = Path(os.path.normpath(Path(os.path.abspath(base)) / Path(raw)))
    if not inside(path, root):
        raise DoctorError(
            f"{what} = {str(raw)!r} leads outside the repository {root}",
            "a repository's own files may name only paths inside it; name a path outside "
            "in a config you pass with --config, or with a command-line flag",
        )
    return path
