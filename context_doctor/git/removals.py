"""The paths the history pass saw leave the tree (docs/references.md "The history behind it").

The one ``git log`` pass (:mod:`context_doctor.git.history`) lists each commit's files with
their status and exact renames (``--name-status -M100%``: git pairs a deleted and an added
file only when their contents are identical, which needs no file contents, so it works on a
clone with missing blobs and costs nothing measurable).  Every path a commit deleted, or
renamed away, is kept here with the newest commit that did it: a reference that no longer
resolves is then looked up without another walk.

Decision: a rename whose contents changed (git's similarity rename) is not looked for in
the pass (it reads both files of every candidate pair of every commit: up to ten times the
pass's cost on a real repository, and a fatal error where a blob is missing).  It is asked
afterwards, only of the few commits that deleted a path a reference still names
(:meth:`context_doctor.git.facts.RepositoryFacts.moves_in`).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import date, datetime


@dataclass(frozen=True, slots=True)
class Removal:
    """The newest commit that took ``path`` out of the tree, and where it went (exact renames)."""

    path: str
    sha: str
    authored: str  # ISO-8601, in the author's offset: its date is the day of the change
    renamed_to: str | None = None

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def day(self) -> date | None:
        try:
            return datetime.fromisoformat(self.authored).date()
        except ValueError:
            try:
                return date.fromisoformat(self.authored[:10])
            except ValueError:
                return None

    def when(self) -> str:
        """``4c1e2a9 on 2026-05-02``: the commit as a finding names it."""
        day = self.day
        return f"{self.short} on {day.isoformat()}" if day else self.short


@dataclass
class Removals:
    """Each path a commit deleted or renamed away: the newest such commit, compactly.

    ``paths`` maps a path to (the commit's position in ``commits``, the path it was
    renamed to, ``""`` for a deletion); ``commits`` holds each such commit once, as
    (sha, author date).  ``complete`` is False when the pass saw only the commits under
    the projects directory (a pathspec pass): then a path it never saw removed may still
    have been, and nothing may be said of its absence from history.
    """

    paths: dict[str, tuple[int, str]] = field(default_factory=dict)
    commits: list[tuple[str, str]] = field(default_factory=list)
    complete: bool = True
    _sorted: list[str] | None = field(default=None, repr=False, compare=False)
    _names: dict[str, list[str]] | None = field(default=None, repr=False, compare=False)
    _at: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def record(self, sha: str, authored: str, path: str, renamed_to: str = "") -> None:
        """One removal, met newest first: a path's first removal seen is its newest."""
        if path in self.paths:
            return
        at = self._at.get(sha)
        if at is None:
            at = self._at[sha] = len(self.commits)
            self.commits.append((sha, authored))
        self.paths[path] = (at, renamed_to)

    def get(self, path: str) -> Removal | None:
        found = self.paths.get(path)
        if found is None:
            return None
        sha, authored = self.commits[found[0]]
        return Removal(path, sha, authored, found[1] or None)

    def under(self, folder: str) -> list[Removal]:
        """Every removal of a path inside ``folder`` (repository-relative, no trailing ``/``)."""
        if self._sorted is None:
            self._sorted = sorted(self.paths)
        prefix = folder.rstrip("/") + "/"
        found: list[Removal] = []
        at = bisect_left(self._sorted, prefix)
        while at < len(self._sorted) and self._sorted[at].startswith(prefix):
            removal = self.get(self._sorted[at])
            if removal is not None:
                found.append(removal)
            at += 1
        return found

    def named(self, name: str) -> list[Removal]:
        """Every removal of a file called ``name`` (its last path part), in any folder."""
        if self._names is None:
            names: dict[str, list[str]] = {}
            for path in self.paths:
                names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            self._names = names
        return [r for path in self._names.get(name, ()) if (r := self.get(path)) is not None]

    def followed_by(self, older: Removals) -> Removals:
        """These (newer) removals with ``older``'s after them: a resumed pass."""
        merged = Removals(complete=self.complete and older.complete)
        for source in (self, older):
            for path, (at, renamed_to) in source.paths.items():
                sha, authored = source.commits[at]
                merged.record(sha, authored, path, renamed_to)
        return merged

    def __len__(self) -> int:
        return len(self.paths)
