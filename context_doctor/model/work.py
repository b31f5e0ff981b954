"""Work in a layout other than the seed's (docs/layouts.md): which commits count as the project's work.

Work is every commit that touches a file of the project other than its own records (the
context file, the log, the reference) and the ``work_ignore`` globs. Generated data a
scheduled job commits daily belongs in ``work_ignore``: such commits are *set aside*
(counted, never cited as the newest work). Bulk sweeps, merges and maintenance commits
are judged by the history pass as for every layout.
"""

from __future__ import annotations

from collections.abc import Iterable

from context_doctor.guards.globs import Globs, compiled
from context_doctor.layouts import Layout


def ignore_globs(globs: tuple[str, ...]) -> Globs | None:
    """The ``work_ignore`` globs, matched in linear time (``context_doctor/guards/globs.py``):
    ``*`` within a name, ``**`` across folders, ``?`` one character; a glob ending in ``/``
    or naming a folder covers what is under it. None when there is none."""
    if not globs:
        return None
    return compiled(tuple(glob.strip().lstrip("/") for glob in globs), below=True)


GENERATED_SUFFIXES = frozenset(
    {
        ".json", ".jsonl", ".ndjson", ".geojson", ".csv", ".tsv", ".xml", ".rss", ".atom",
        ".ics", ".txt", ".parquet", ".sqlite", ".db", ".yaml", ".yml", ".svg", ".png", ".jpg",
        ".jpeg", ".gif", ".webp", ".xlsx", ".html", ".htm", ".md", ".toml", ".cfg", ".ini",
        ".lock", ".lockb", ".sum", ".mod",
    }
)  # fmt: skip
"""What a bot writes without anyone working: data and the pages a job renders, prose, and
dependency manifests, lock files and configuration (what dependabot and renovate bump)."""
GENERATED_NAMES = frozenset({"dockerfile", "gemfile", "pipfile", "podfile", "makefile"})
GENERATED_FOLDERS = frozenset({".github", ".gitlab", ".circleci"})
"""CI configuration: a bot bumping an action's version did no work on the project."""


def bot_generated(path: str) -> bool:
    """A file a bot's commit may touch and still be no one's work (docs/layouts.md)."""
    *folders, name = path.split("/")
    if not GENERATED_FOLDERS.isdisjoint(folders):
        return True
    name = name.lower()
    if name in GENERATED_NAMES:
        return True
    return "." in name and name[name.rindex(".") :] in GENERATED_SUFFIXES


def bots_own_job(files: Iterable[str]) -> bool:
    """The one rule for bots (docs/layouts.md): a bot's commit is set aside when every file
    it touches is data, prose, a dependency manifest, a lock file or CI configuration; a
    bot that changes code (an AI coding agent's pull request) did work."""
    return all(map(bot_generated, files))


class WorkFilter:
    """Answers, for a commit's project-relative files: is it work, was it set aside?

    A bot's commit (``name[bot]``, GitHub Actions, dependabot, renovate) that touches no code
    (:func:`bots_own_job`) is generated too: never work, and set aside like
    ``work_ignore``'s (a daily data job or a dependency bump is never cited as the newest
    work). A bot that changes code did work.
    """

    def __init__(self, layout: Layout, log_inner: str | None, extra: tuple[str, ...] = ()) -> None:
        """``extra``: more record paths (the config file declaring the layout)."""
        records = {*layout.records, *extra}
        self.records = frozenset(records)
        self.record_folders = tuple(
            f"{path}/" for path in (log_inner,) if path is not None and not path.endswith(".md")
        )
        self.ignored = ignore_globs(layout.work_ignore)

    def _record(self, path: str) -> bool:
        return path in self.records or path.startswith(self.record_folders)

    def _others(self, files: Iterable[str]) -> list[str]:
        return [path for path in files if not self._record(path)]

    def is_work(self, files: Iterable[str], bot: bool = False) -> bool:
        others = self._others(files)
        if bot and others and bots_own_job(others):
            return False
        if self.ignored is None:
            return bool(others)
        return not all(map(self.ignored.matches, others))

    def set_aside(self, files: Iterable[str], bot: bool = False) -> bool:
        """Work but for ``work_ignore`` or a bot: it touched a non-record file, and every
        such file is ignored (or a bot wrote them)."""
        others = self._others(files)
        if bot and others and bots_own_job(others):
            return True
        if self.ignored is None or not others:
            return False
        return all(map(self.ignored.matches, others))
