"""Commits as the freshness checks see them, and the history that groups them by project.

The values the history pass (:mod:`context_doctor.git.history`) builds and the cache
keeps: where projects live (:class:`Scope`), one commit (:class:`Commit`), a commit as
one project sees it (:class:`ProjectCommit`), and the whole pass (:class:`History`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol, TypeVar

from context_doctor.git.removals import Removals

MAINTENANCE_TRAILER = "Context-Doctor"


MAINTENANCE_VALUE = "maintenance"


BULK_PROJECTS = 3


BULK_OUTSIDE_FILES = 10


@dataclass(frozen=True)
class Scope:
    """Where projects live in a repository, as a repository-relative POSIX path.

    ``single`` scopes are one project (a single-project repository, or one
    whose directory is the path itself); otherwise each immediate child
    directory of ``path`` not starting with ``.`` or ``_`` is a project.
    """

    path: str
    single: bool = False

    @property
    def prefix(self) -> str:
        return f"{self.path}/" if self.path else ""


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit as the freshness checks see it."""

    sha: str
    parents: int
    authored: datetime  # in the author's own offset: its date is the work date
    committed: datetime
    projects_touched: int
    outside_files: int  # files outside every projects directory
    maintenance: bool = False  # `Context-Doctor: maintenance` trailer: a fix or archive pass
    bot: bool = False  # authored by a bot: work only when it changes code (model/work.py)

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
        return self.projects_touched > BULK_PROJECTS or self.outside_files > BULK_OUTSIDE_FILES

    @property
    def is_session(self) -> bool:
        """Work on a project: neither a merge, a bulk sweep nor a declared maintenance pass."""
        return not self.is_merge and not self.is_bulk and not self.maintenance

    def describe(self) -> str:
        kind = (
            "merge"
            if self.is_merge
            else "bulk sweep"
            if self.is_bulk
            else "maintenance commit"
            if self.maintenance
            else "commit"
        )
        return f"{kind} {self.short} of {self.work_date.isoformat()}"


@dataclass(frozen=True, slots=True)
class ProjectCommit:
    """A commit as seen from one project: which of the project's files it touched.

    Made on demand by :meth:`History.of`; ``files`` is shared by every entry that
    touched the same files (the history holds each distinct set once)."""

    commit: Commit
    files: frozenset[str]  # paths relative to the project directory

    def touched(self, relative: str) -> bool:
        return relative in self.files

    def touched_under(self, directory: str) -> bool:
        prefix = directory.rstrip("/") + "/"
        return any(path.startswith(prefix) for path in self.files)


ProjectKey = tuple[Scope, str]


def positions(values: Iterable[int] = ()) -> array[int]:
    """A compact run of non-negative positions (into :attr:`History.log` or
    :attr:`History.file_sets`)."""
    return array("I", values)


@dataclass
class History:
    """Every commit touching the scopes, newest first, grouped by project: compactly.

    ``log`` holds each commit some project's entries name, once, in the order git
    printed them (newest first); ``file_sets`` each distinct set of project-relative
    file names, once.  A project is two parallel arrays: the positions of its
    commits in ``log`` (ascending: newest first) and of the files each touched in
    ``file_sets``.  Nothing is held per commit per project but two integers
    (the frozensets per entry this replaced cost 68 MiB at 8,000 projects);
    :meth:`of` makes the :class:`ProjectCommit` list a caller asks for.
    ``commits`` counts every commit the pass showed (merges and commits touching
    no project included).
    """

    commits: int = 0
    log: list[Commit] = field(default_factory=list)
    file_sets: list[frozenset[str]] = field(default_factory=list)
    projects: dict[ProjectKey, tuple[array[int], array[int]]] = field(default_factory=dict)
    # Every path a commit of the walk deleted or renamed away (git/removals.py): what a
    # reference that no longer resolves is looked up in (docs/references.md).
    removals: Removals = field(default_factory=Removals)

    def key(self, scope: Scope, project_id: str) -> ProjectKey:
        return (scope, "" if scope.single else project_id)

    def of(self, scope: Scope, project_id: str) -> list[ProjectCommit]:
        found = self.projects.get(self.key(scope, project_id))
        if found is None:
            return []
        log, sets = self.log, self.file_sets
        return [ProjectCommit(log[at], sets[files]) for at, files in zip(*found, strict=True)]

    def followed_by(self, older: History) -> History:
        """This (newer) history with ``older`` after it: a resumed pass (see ``resumable``).

        ``older``'s positions move past this pass's commits and file sets (a set both
        hold is kept twice: harmless, and only until the next fresh pass)."""
        shift_log, shift_sets = len(self.log), len(self.file_sets)
        merged = History(
            self.commits + older.commits,
            self.log + older.log,
            self.file_sets + older.file_sets,
            {},
            self.removals.followed_by(older.removals),
        )
        for key in {**self.projects, **older.projects}:
            new_at, new_sets = self.projects.get(key, (positions(), positions()))
            old_at, old_sets = older.projects.get(key, (positions(), positions()))
            merged.projects[key] = (
                new_at + positions(at + shift_log for at in old_at),
                new_sets + positions(at + shift_sets for at in old_sets),
            )
        return merged


_T = TypeVar("_T")


class PersistentStore(Protocol):
    """What is kept between runs (``context_doctor.store``): the history, and small parsed values."""

    def load_history(
        self, scopes: tuple[Scope, ...], head: str | None = None
    ) -> tuple[str, History] | None:
        """The stored pass and the HEAD it was read at; ``head`` is today's (a hint)."""
        ...

    def has_history(self) -> bool:
        """Whether a stored pass exists at all (it may still turn out foreign or stale)."""
        ...

    def save_history(self, scopes: tuple[Scope, ...], head: str, history: History) -> None: ...

    def recall(self, kind: str, of_type: type[_T], content: bytes, *context: str) -> _T | None:
        """What was kept for ``content`` (the bytes it was computed from) in this context,
        when it is an ``of_type`` (checked as it is decoded)."""
        ...

    def keep(self, kind: str, content: bytes, value: Any, *context: str) -> None: ...


def is_maintenance(trailer_values: str) -> bool:
    """True when one of the commit's `Context-Doctor:` trailers says `maintenance` (any case)."""
    return any(
        value.strip().casefold() == MAINTENANCE_VALUE for value in trailer_values.split("\x1f")
    )


_BOT_NAMES = frozenset(
    {"github-actions", "github action", "github actions", "dependabot", "renovate", "renovate bot"}
)


_BOT_EMAILS = frozenset(
    {"action@github.com", "actions@github.com", "github-actions@github.com", "bot@renovateapp.com"}
)


def is_bot(author: str) -> bool:
    """An author line ``Name <email>`` that a scheduled job or bot commits under."""
    name, _, email = author.rpartition(" <")
    email = email.rstrip(">").strip().casefold()
    name = name.strip().casefold()
    return name.endswith("[bot]") or "[bot]@" in email or name in _BOT_NAMES or email in _BOT_EMAILS
