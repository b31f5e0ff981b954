"""Findings and severities: the pure data every renderer consumes."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from context_doctor.guards.patterns import LazyPattern


class Severity(StrEnum):
    DEFECT = "defect"
    WARNING = "warning"

    @property
    def rank(self) -> int:
        return 0 if self is Severity.DEFECT else 1


class Applicability(StrEnum):
    """Whether ``check --fix`` applies a fix (safe) or only ``--unsafe-fixes`` does (ruff's model)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class SetEntryField:
    """Set ``key`` of the index.yaml entry at ``position`` (1-based), whose id is ``entry_id``."""

    position: int
    entry_id: str
    key: str
    value: str | bool


@dataclass(frozen=True)
class RemoveFrontmatterKey:
    """Remove the one-line ``key:`` from the file's leading frontmatter block."""

    key: str


@dataclass(frozen=True)
class AppendLine:
    """Append ``text`` (one line, without its line break) at the end of the file."""

    text: str


@dataclass(frozen=True)
class RewritePath:
    """On 1-based ``line``, replace the ``old`` text that starts at 0-based ``column`` (a
    reference's path as written) with ``new`` (docs/references.md)."""

    line: int
    column: int
    old: str
    new: str


FixEdit = SetEntryField | RemoveFrontmatterKey | AppendLine | RewritePath


@dataclass(frozen=True)
class Fix:
    """An exact repair a check knows, as data: ``fixes.py`` applies it, the check never writes.

    ``path`` is repository-relative, like a finding's; ``description`` says what
    the fix writes (``set status: completed``).
    """

    path: str
    applicability: Applicability
    description: str
    edits: tuple[FixEdit, ...]

    def to_json(self) -> dict[str, Any]:
        edits = []
        for edit in self.edits:
            data = asdict(edit)
            data["kind"] = type(edit).__name__
            edits.append(data)
        return {
            "path": self.path,
            "applicability": self.applicability.value,
            "description": self.description,
            "edits": edits,
        }


def whole_source(source: str) -> str:
    """The ``project`` of a finding about ``source`` as a whole: ``(acme)``."""
    return f"({source})"


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
    fix: Fix | None = None

    def sort_key(self) -> tuple[Any, ...]:
        """Within a source: by path, then line (a whole-file finding first), then check."""
        return (
            self.source,
            self.path,
            0 if self.line is None else self.line,
            self.check,
            self.severity.rank,
            self.project or "",
            self.message,
        )

    @property
    def subject(self) -> str:
        """What the finding is about, as the outputs name it: the project's id, or the
        source's name in parentheses (``(acme)``) for a finding about a source (or its
        repository) as a whole, as the upstream doctor writes it (docs/checks.md): never ``""``."""
        return self.project or whole_source(self.source)

    def to_json(self) -> dict[str, Any]:
        # Built field by field (asdict deep-copies: thousands of findings per report).
        return {
            "check": self.check,
            "severity": self.severity.value,
            "source": self.source,
            "project": self.subject,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "remedy": self.remedy,
            "fix": self.fix.to_json() if self.fix is not None else None,
        }


@dataclass(frozen=True)
class Issue:
    """What a check yields before the engine stamps source, project and remedy on it.

    ``severity`` is ``None`` for the check's default; ``remedy`` overrides the
    check's remedy when one finding needs a more specific one; ``fix`` is the
    exact repair, when the check knows one (docs/editor.md lists which).
    """

    message: str
    path: str
    line: int | None = None
    severity: Severity | None = None
    remedy: str | None = None
    fix: Fix | None = None
    unit: str | None = None  # a vault check's unit (a memory id): the finding's `project`


@dataclass(frozen=True)
class Unverified:
    """What a vault check yields for units it could not answer: counted as skipped, by reason.

    A shape the doctor does not know (docs/vaults.md) is never a defect: the units it
    hides are counted under ``reason`` in the check's coverage instead.
    """

    reason: str
    count: int = 1


_VOLATILE = LazyPattern(r"\d+")
FINGERPRINT_KEY = "contextDoctor/v1"  # the SARIF partialFingerprints key


def _fingerprint_base(finding: Finding) -> str:
    """No line numbers, and digits (counts, dates) folded away: stable while the file moves.

    Nor the source's name: it is the checkout directory's name for `check .`,
    which differs between a laptop clone and a CI runner, and a baseline written
    on one must match on the other. The repository-relative path names the file.
    """
    message = finding.message
    named = f"{finding.path}: "
    if message.startswith(named):  # a graded file's message names it: same identity
        message = message[len(named) :]
    return "|".join(
        [
            finding.check,
            finding.project or "",
            finding.path,
            _VOLATILE.sub("#", message),
        ]
    )


def fingerprints(findings: Sequence[Finding]) -> list[str]:
    """One stable fingerprint per finding, in order: SARIF's, the baseline's and GitLab's.

    Findings that agree on everything but their line are told apart by their
    order of occurrence (the n-th such finding in sort order).
    """
    seen: Counter[str] = Counter()
    found: list[str] = []
    for finding in findings:
        base = _fingerprint_base(finding)
        found.append(
            hashlib.sha256(f"{base}|{seen[base]}".encode("utf-8", "surrogatepass")).hexdigest()
        )
        seen[base] += 1
    return found
