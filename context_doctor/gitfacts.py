"""Every git call the doctor makes goes through this module.

Git runs with ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` removed from
its environment (a pre-push hook exports them, and they would silently point
the doctor at the wrong repository or index) and with ``LC_ALL=C`` so messages
are stable.  GitPython's command wrapper merges its environment on top of
``os.environ`` and cannot *remove* a variable, so the single place that spawns
git uses :mod:`subprocess` directly.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from context_doctor.errors import DoctorError

_HOOK_EXPORTED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
)


def git_environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _HOOK_EXPORTED}
    env["LC_ALL"] = "C"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def run_git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=git_environment(),
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as error:
        raise DoctorError("git is not installed or not on PATH", "install git and retry") from error


@dataclass(frozen=True)
class Repository:
    """A git work tree the doctor reads; one per distinct top-level directory."""

    toplevel: Path

    def relative(self, path: Path) -> str:
        """Repository-relative POSIX path, the form every finding carries."""
        try:
            return path.resolve().relative_to(self.toplevel).as_posix()
        except ValueError:
            return path.as_posix()


@cache
def _toplevel(directory: Path) -> Path | None:
    result = run_git(["rev-parse", "--show-toplevel"], directory)
    if result.returncode != 0:
        return None
    return Path(result.stdout.decode("utf-8", "replace").strip()).resolve()


def repository_for(directory: Path) -> Repository:
    """The repository holding ``directory``, or exit 2 naming it."""
    toplevel = _toplevel(directory.resolve())
    if toplevel is None:
        raise DoctorError(
            f"{directory} is not inside a git repository",
            "run `git init` there and commit the context files, or point the doctor at a "
            "directory inside a git work tree",
        )
    return Repository(toplevel)
