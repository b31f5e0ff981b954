"""A repository: its top, its git directory, and path questions answered without git where possible."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePath
from typing import Final

from context_doctor.errors import DoctorError
from context_doctor.git.run import git_directories, locate, run_git


@dataclass(frozen=True)
class Repository:
    """A git work tree the doctor reads; one per distinct top-level directory."""

    toplevel: Path

    @cached_property
    def _inside_prefix(self) -> str:
        """The string every path lexically inside the top level starts with."""
        top = str(self.toplevel)
        return top if top.endswith("/") else top + "/"

    def relative(self, path: Path) -> str:
        """Repository-relative POSIX path, the form every finding carries."""
        prefix = self._inside_prefix
        if isinstance(path, PurePath):
            # A pathlib path's text has no `.` component, repeated or trailing slash
            # already: when it is absolute and holds no `..`, it is what ``abspath`` gives.
            text = str(path)
            if (
                text.startswith(prefix)
                and prefix[0] == "/"
                and ".." not in text
                and not text.startswith("//")
            ):
                return text[len(prefix) :]
        absolute = os.path.abspath(path)
        # Lexically inside (the common case): the same answer as ``relative_to`` by
        # string slicing, without pathlib's parsing.  ``abspath`` has already
        # folded ``.``, ``..`` and repeated slashes, as pathlib would; a ``//`` root is
        # a root of its own to pathlib, so it takes the general way.
        if not absolute.startswith("//"):
            if absolute.startswith(prefix):
                return absolute[len(prefix) :]
            if absolute == prefix[:-1]:
                return ""
        return self._relative_resolved(Path(absolute), path)

    def lexically_relative(self, text: str) -> str | None:
        """``relative`` of an absolute path's text that lies lexically inside the top level
        and holds no ``.``/``..`` component or repeated slash (None otherwise): a name
        joined to it gives the relative path of the joined path."""
        prefix = self._inside_prefix
        if (
            prefix[0] != "/"
            or text.startswith("//")
            or ".." in text
            or "/./" in text
            or text.endswith("/.")
        ):
            return None
        if text == prefix[:-1] or text == prefix:
            return ""
        if text.startswith(prefix) and not text.endswith("/") and "//" not in text:
            return text[len(prefix) :]
        return None

    @cached_property
    def _unlinked(self) -> dict[str, bool]:
        return {}

    def no_symlink_below_top(self, directory: str) -> bool:
        """No component of ``directory`` below the top level is a symlink (nor ``..``), and
        it lies lexically inside: a non-symlink entry in it resolves inside the repository.

        One ``lstat`` per directory, remembered for this run: a project's directory asks
        only about itself once its parent (the projects directory) is known.
        """
        known = self._unlinked.get(directory)
        if known is None:
            relative = self.lexically_relative(directory)
            if relative is None:
                known = False
            elif relative == "":
                known = True
            else:
                parent, _, _ = directory.rpartition("/")
                known = self.no_symlink_below_top(parent or "/") and not os.path.islink(directory)
            self._unlinked[directory] = known
        return known

    def _relative_resolved(self, absolute: Path, path: Path) -> str:
        try:
            relative = absolute.relative_to(self.toplevel).as_posix()
        except ValueError:
            try:
                relative = absolute.resolve().relative_to(self.toplevel).as_posix()
            except (ValueError, OSError, RuntimeError):
                return path.as_posix()
        return "" if relative == "." else relative


def _toplevel(directory: Path) -> Path | str:
    """The work tree's top, or git's own first line saying why there is none."""
    return locate(directory)


def repository_for(directory: Path) -> Repository:
    """The repository holding ``directory``, or exit 2 naming it (and what git said)."""
    toplevel = _toplevel(directory.resolve())
    if isinstance(toplevel, Path):
        return Repository(toplevel)
    if "safe.directory" in toplevel or "dubious ownership" in toplevel:
        # git >= 2.35.2 refuses a repository another user owns (CVE-2022-24765).
        raise DoctorError(
            f"git refuses to read the repository at {directory}: {toplevel}",
            "it is owned by another user; if you trust it, add it to git's safe.directory "
            "(`git config --global --add safe.directory <repository top>`), or run the doctor "
            "as the repository's owner",
        )
    if "not a git repository" not in toplevel:
        raise DoctorError(
            f"git cannot read a repository at {directory}: {toplevel}",
            "fix what git reports (run `git status` there to see it)",
        )
    raise DoctorError(
        f"{directory} is not inside a git repository",
        "run `git init` there and commit the context files, or point the doctor at a "
        "directory inside a git work tree",
    )


def repository_or_none(directory: Path) -> Repository | None:
    """The repository holding ``directory``, or None when it is in none (a memory vault may
    live outside git: its git checks are then skipped).  Any other git refusal is exit 2."""
    toplevel = _toplevel(directory.resolve())
    if isinstance(toplevel, Path):
        return Repository(toplevel)
    if "not a git repository" in toplevel:
        return None
    return repository_for(directory)


# -- history, read once per repository ---------------------------------------


def origin_name(repository: Repository) -> str | None:
    """The last path part of the ``origin`` remote's URL, without ``.git`` (None: no origin).

    A project's id must not depend on the folder a checkout sits in (docs/layouts.md): every
    clone of one repository shares its origin. The URL is only read, never used.
    """
    result = run_git(["config", "--get", "remote.origin.url"], repository.toplevel)
    if result.returncode != 0:
        return None
    return name_of_url(result.stdout.decode("utf-8", "replace").strip())


def root_commits(repository: Repository) -> frozenset[str]:
    """The shas of the commits with no parent reachable from ``HEAD``: what every clone of a
    repository shares whatever its remotes are called (empty: no commit, or git failed).
    A shallow clone answers its boundary instead, which then matches nothing recorded."""
    result = run_git(["rev-list", "--max-parents=0", "HEAD"], repository.toplevel)
    if result.returncode != 0:
        return frozenset()
    return frozenset(result.stdout.decode("ascii", "replace").split())


def name_of_url(url: str) -> str | None:
    """``git@host:me/comics.git`` and ``https://host/me/comics/`` -> ``comics``."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = tail.removesuffix(".git").strip()
    return name if name and name not in (".", "..") and "\\" not in name else None


DOCTOR_DIRECTORY: Final = "context-doctor"
"""The doctor's own directory under the git common directory (caches, backups)."""


def doctor_directory(toplevel: Path) -> Path:
    """``<git-common-dir>/context-doctor`` of the repository at ``toplevel``.

    DoctorError when git cannot name the git directory, or when the doctor's
    directory is a symlink or not a directory: a prepared ``.git`` could point it
    anywhere, so it is not used (caches are then skipped, writers refuse).
    """
    known = git_directories(toplevel)
    if known is not None:
        common_directory = known[1]
    else:
        result = run_git(["rev-parse", "--git-common-dir"], toplevel)
        common = result.stdout.decode("utf-8", "surrogateescape").strip()
        if result.returncode != 0 or not common:
            said = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise DoctorError(
                f"cannot find the git directory of {toplevel}"
                + (f": git said {said[0]!r}" if said else ""),
                "check the repository (`git status` there), then rerun",
            )
        common_directory = Path(os.path.abspath(toplevel / common))
    directory = common_directory / DOCTOR_DIRECTORY
    try:
        status = os.lstat(directory)
    except FileNotFoundError:
        return directory
    except OSError as error:
        raise DoctorError(
            f"cannot inspect {directory}: {error.strerror or error}", "check its permissions"
        ) from error
    if stat.S_ISLNK(status.st_mode) or not stat.S_ISDIR(status.st_mode):
        kind = "a symlink" if stat.S_ISLNK(status.st_mode) else "not a directory"
        raise DoctorError(
            f"{directory} is {kind}; the doctor keeps its files only in a real directory there",
            f"remove it (`rm {directory}`) and rerun",
        )
    return directory
