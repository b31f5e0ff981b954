"""Work in a layout other than the seed's (docs/layouts.md): which commits count as the project's work.

Work is every commit that touches a file of the project other than its own records (the
context file, the log, the reference) and the ``work_ignore`` globs. Generated data a
scheduled job commits daily belongs in ``work_ignore``: such commits are *set aside*
(counted, never cited as the newest work). Bulk sweeps, merges and maintenance commits
are judged by the history pass as for every layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from context_doctor.layouts import Layout


@lru_cache(maxsize=64)
def glob_pattern(globs: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for ``globs`` (``*`` within a name, ``**`` across folders, ``?`` one
    character; a glob ending in ``/`` or naming a folder covers what is under it)."""
    if not globs:
        return None
    parts: list[str] = []
    for glob in globs:
        text = glob.strip().lstrip("/")
        pattern = ""
        position = 0
        while position < len(text):
            if text.startswith("**/", position):
                pattern += "(?:.*/)?"
                position += 3
            elif text.startswith("**", position):
                pattern += ".*"
                position += 2
            elif text[position] == "*":
                pattern += "[^/]*"
                position += 1
            elif text[position] == "?":
                pattern += "[^/]"
                position += 1
            else:
                pattern += re.escape(text[position])
                position += 1
        parts.append(pattern.rstrip("/") + "(?:/.*)?")
    return re.compile("|".join(f"(?:{part})" for part in parts))


DATA_SUFFIXES = frozenset(
    {
        ".json", ".jsonl", ".ndjson", ".geojson", ".csv", ".tsv", ".xml", ".rss", ".atom",
        ".ics", ".txt", ".parquet", ".sqlite", ".db", ".yaml", ".yml", ".svg", ".png",
    }
)  # fmt: skip
"""What a scheduled job's generated data is made of: a bot's commit of only these is set
aside; a bot that changes code (an AI coding agent's pull request) did work."""


def _is_data(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "." in name and name[name.rindex(".") :].lower() in DATA_SUFFIXES


class WorkFilter:
    """Answers, for a commit's project-relative files: is it work, was it set aside?

    A bot's commit (``name[bot]``, GitHub Actions) of data files only (:data:`DATA_SUFFIXES`)
    is generated too: never work, and set aside like ``work_ignore``'s (a daily data job is
    never cited as the newest work). A bot that changes code did work.
    """

    def __init__(self, layout: Layout, log_inner: str | None, extra: tuple[str, ...] = ()) -> None:
        """``extra``: more record paths (the config file declaring the layout)."""
        records = {*layout.records, *extra}
        self.records = frozenset(records)
        self.record_folders = tuple(
            f"{path}/" for path in (log_inner,) if path is not None and not path.endswith(".md")
        )
        self.ignored = glob_pattern(layout.work_ignore)

    def _record(self, path: str) -> bool:
        return path in self.records or path.startswith(self.record_folders)

    def _others(self, files: Iterable[str]) -> list[str]:
        return [path for path in files if not self._record(path)]

    def is_work(self, files: Iterable[str], bot: bool = False) -> bool:
        others = self._others(files)
        if bot and others and all(map(_is_data, others)):
            return False
        if self.ignored is None:
            return bool(others)
        return any(self.ignored.fullmatch(path) is None for path in others)

    def set_aside(self, files: Iterable[str], bot: bool = False) -> bool:
        """Work but for ``work_ignore`` or a bot: it touched a non-record file, and every
        such file is ignored (or a bot wrote them)."""
        others = self._others(files)
        if bot and others and all(map(_is_data, others)):
            return True
        if self.ignored is None or not others:
            return False
        return all(self.ignored.fullmatch(path) is not None for path in others)
