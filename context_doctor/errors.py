"""The two kinds of failure the doctor knows, kept apart on purpose.

A state the doctor *can* determine is a finding.  A state in which it cannot
establish ground truth is a :class:`DoctorError`: one line naming what went
wrong and what to do about it, and exit code 2.
"""

from __future__ import annotations

from pathlib import Path


class DoctorError(Exception):
    """The doctor could not establish ground truth (exit 2)."""

    def __init__(self, problem: str, remedy: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.remedy = remedy

    def one_line(self) -> str:
        return f"{self.problem} (remedy: {self.remedy})"


class Unreadable(Exception):
    """A tier file exists but cannot be read as UTF-8 text.

    Raised by the model the first time a check touches the file; the engine
    turns it into a skip with reason ``unreadable`` for that check, and the
    ``record-unreadable`` check reports the file itself.
    """

    def __init__(self, path: Path, rel_path: str, reason: str) -> None:
        super().__init__(f"{rel_path}: {reason}")
        self.path = path
        self.rel_path = rel_path
        self.reason = reason


class Unverifiable(Exception):
    """A check found mid-way that it cannot answer; becomes a warning finding."""

    def __init__(self, reason: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path
        self.line = line


class HistoryUnavailable(Unverifiable):
    """The repository is a shallow clone audited under ``--allow-shallow``.

    The engine reports it as a ``freshness-unverifiable`` finding naming the
    check that needed the history, and counts that check as skipped.
    """
