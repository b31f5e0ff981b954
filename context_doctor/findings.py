"""Findings and severities: the pure data every renderer consumes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    DEFECT = "defect"
    WARNING = "warning"

    @property
    def rank(self) -> int:
        return 0 if self is Severity.DEFECT else 1


@dataclass(frozen=True)
class Finding:
    check: str
    severity: Severity
    source: str
    project: str | None
    path: str
    line: int | None
    message: str
    remedy: str

    def sort_key(self) -> tuple[Any, ...]:
        return (
            self.severity.rank,
            self.source,
            self.project or "",
            self.check,
            self.path,
            -1 if self.line is None else self.line,
            self.message,
        )

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data


@dataclass(frozen=True)
class Issue:
    """What a check yields before the engine stamps source, project and remedy on it.

    ``severity`` is ``None`` for the check's default; ``remedy`` overrides the
    check's remedy when one finding needs a more specific one.
    """

    message: str
    path: str
    line: int | None = None
    severity: Severity | None = None
    remedy: str | None = None
