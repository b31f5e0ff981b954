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
from dataclasses import dataclass, field
from datetime import date, datetime
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


# -- history, read once per repository ---------------------------------------

BULK_PROJECTS = 3
BULK_OUTSIDE_FILES = 10
_RECORD = b"\x1e"
_FIELD = "\x1f"
_LOG_FORMAT = "%x1e%H%x1f%P%x1f%aI%x1f%cI"


@dataclass(frozen=True)
class Commit:
    """One commit as the freshness checks see it."""

    sha: str
    parents: int
    authored: datetime  # in the author's own offset: its date is the work date
    committed: datetime
    projects: frozenset[tuple[str, str]]  # (projects dir, project id) pairs it touches
    outside_files: int  # files outside every projects directory

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def work_date(self) -> date:
        return self.authored.date()

    @property
    def is_merge(self) -> bool:
        return self.parents > 1

    @property
    def is_bulk(self) -> bool:
        """A sweep across projects or the repository, not a session on one project."""
        return len(self.projects) > BULK_PROJECTS or self.outside_files > BULK_OUTSIDE_FILES

    @property
    def is_session(self) -> bool:
        return not self.is_merge and not self.is_bulk


@dataclass(frozen=True)
class ProjectCommit:
    """A commit as seen from one project: which of the project's files it touched."""

    commit: Commit
    files: frozenset[str]  # paths relative to the project directory

    def touched(self, relative: str) -> bool:
        return relative in self.files

    def touched_under(self, directory: str) -> bool:
        prefix = directory.rstrip("/") + "/"
        return any(path.startswith(prefix) for path in self.files)


@dataclass
class History:
    """Every commit touching the given projects directories, newest first, by project."""

    shallow: bool
    commits: int = 0
    by_project: dict[tuple[str, str], list[ProjectCommit]] = field(default_factory=dict)

    def of(self, projects_dir: str, project_id: str) -> list[ProjectCommit]:
        return self.by_project.get((projects_dir, project_id), [])


def is_shallow(repository: Repository) -> bool:
    result = run_git(["rev-parse", "--is-shallow-repository"], repository.toplevel)
    return result.stdout.strip() == b"true"


def _attribute(
    header: bytes, names: list[bytes], projects_dirs: tuple[str, ...], history: History
) -> None:
    sha, parents, authored, committed = header.decode("utf-8", "replace").split(_FIELD)
    touched: dict[tuple[str, str], set[str]] = {}
    outside = 0
    for raw in names:
        path = raw.decode("utf-8", "surrogateescape")
        for projects_dir in projects_dirs:
            prefix = f"{projects_dir}/" if projects_dir else ""
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                project_id, slash, inner = rest.partition("/")
                if slash and not project_id.startswith((".", "_")):
                    touched.setdefault((projects_dir, project_id), set()).add(inner)
                break
        else:
            outside += 1
    commit = Commit(
        sha=sha,
        parents=len(parents.split()),
        authored=datetime.fromisoformat(authored),
        committed=datetime.fromisoformat(committed),
        projects=frozenset(touched),
        outside_files=outside,
    )
    history.commits += 1
    for key, files in touched.items():
        history.by_project.setdefault(key, []).append(ProjectCommit(commit, frozenset(files)))


def read_history(repository: Repository, projects_dirs: tuple[str, ...]) -> History:
    """One streamed ``git log`` over the projects directories of one repository.

    ``--full-diff`` lists every file of a matching commit, not just the ones
    under the pathspec, so a commit that also rewrites files elsewhere in the
    repository can be recognised as a bulk sweep.  Projects directories are
    repository-relative POSIX paths (``""`` for the repository root).
    """
    history = History(shallow=is_shallow(repository))
    pathspecs = [directory or "." for directory in projects_dirs]
    command = [
        "git", "log", "-z", "--no-renames", "--name-only", "--full-diff",
        f"--format={_LOG_FORMAT}", "HEAD", "--", *pathspecs,
    ]  # fmt: skip
    head = run_git(["rev-parse", "--verify", "--quiet", "HEAD"], repository.toplevel)
    if head.returncode != 0:
        return history  # a repository with no commits yet has no history to read
    try:
        process = subprocess.Popen(
            command,
            cwd=repository.toplevel,
            env=git_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError as error:
        raise DoctorError("git is not installed or not on PATH", "install git and retry") from error
    assert process.stdout is not None
    pending = b""
    while chunk := process.stdout.read(1 << 16):
        pending += chunk
        *records, pending = pending.split(_RECORD)
        for record in records:
            _parse_record(record, projects_dirs, history)
    _parse_record(pending, projects_dirs, history)
    stderr = process.stderr.read() if process.stderr else b""
    if process.wait() != 0:
        message = stderr.decode("utf-8", "replace").strip().splitlines()
        raise DoctorError(
            f"git log failed in {repository.toplevel}: {message[0] if message else 'unknown error'}",
            "check that the repository is intact (`git fsck`)",
        )
    return history


def _parse_record(record: bytes, projects_dirs: tuple[str, ...], history: History) -> None:
    if not record:
        return
    header, _, rest = record.partition(b"\x00")
    names = [name for name in rest.lstrip(b"\n").split(b"\x00") if name]
    _attribute(header, names, projects_dirs, history)
