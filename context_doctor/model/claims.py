"""Current-looking claims and recorded releases: the grammar ``semantic-current-state`` reads.

A **current-looking label** is a line (outside code) that starts, after any
quote, list or checkbox marker and emphasis, with ``Current <words>:``,
``Accepted baseline:`` (singular), ``Next checkpoint:`` or ``State as of:``.
A line under a heading that labels its section as history (``History``,
``Historical``, ``Archive``/``Archived``, ``Superseded``, ``Previous``,
``Former``, ``Past``, ``Changelog``, ``Retrospective`` as a whole word, in
the heading itself or any heading it sits under) is a historical snapshot,
not a current claim.

A **version** is ``v1.2`` / ``v1.2.3`` (``v`` and two to four numeric parts)
or a bare ``1.2.3`` (three or four parts); a pre-release suffix (``-rc.1``,
``rc1``, ``-beta``, ``b2``...) marks a candidate, which is ignored.  Versions
compare numerically, part by part (``v1.10.0`` > ``v1.9.3``; missing parts
are 0).

A release is **recorded affirmatively** on a line (outside code) that says it
happened — ``released``, ``shipped``, ``tagged``, ``published``,
``deployed``, ``landed``, ``accepted``, ``rolled out``, ``went live`` — and
holds no prospective, conditional, negated or example word (``will``,
``next``, ``planned``, ``upcoming``, ``candidate``, ``draft``, ``target``,
``pending``, ``not``, ``never``, ``if``, ``e.g.``, ``example``...), which
would make every version on that line a mention rather than a record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from context_doctor.guards.patterns import LazyPattern

_LABEL = re.compile(
    r"^\s{0,3}(?:>\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s+)?(?:\[[ xX]\]\s+)?[*_]{0,3}\s*"
    r"(?P<label>current\s+[^:*_\n]{1,60}?|accepted\s+baseline|next\s+checkpoint|state\s+as\s+of)"
    r"\s*[*_]{0,3}\s*:(?P<value>.*)$",
    re.IGNORECASE,
)
HISTORY_TITLE = LazyPattern(
    r"\b(?:history|historical|archived?|archives|superseded|previous|former|past|changelog"
    r"|retrospective)\b",
    re.IGNORECASE,
)
_VERSION = LazyPattern(
    r"(?<![\w.\-/])(?:[vV](?P<tagged>\d{1,6}(?:\.\d{1,6}){1,3})|(?P<bare>\d{1,6}(?:\.\d{1,6}){2,3}))"
    r"(?P<suffix>-[0-9A-Za-z][0-9A-Za-z.\-]*|(?:rc|alpha|beta|a|b|pre|dev)\.?\d*)?"
    r"(?![\w\-]|\.\d)",
)
_AFFIRMATIVE = re.compile(
    r"\b(?:released|shipped|tagged|published|deployed|landed|accepted|rolled\s+out|went\s+live)\b",
    re.IGNORECASE,
)
_PROSPECTIVE = LazyPattern(
    r"\b(?:will|would|shall|should|could|might|may|plan|plans|planned|planning|next|upcoming"
    r"|candidate|candidates|rc|draft|target|targets|targeted|targeting|propose|proposed"
    r"|pending|prepare|preparing|toward|towards|intend|intended|expect|expected|example"
    r"|examples|instance|hypothetical|not|never|unreleased|if|e\.g)\b|n't\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Version:
    spelled: str
    parts: tuple[int, ...]  # padded to four parts
    candidate: bool


@dataclass(frozen=True)
class Label:
    """A current-looking label on a line: ``Current release``, ``Accepted baseline``..."""

    line: int
    label: str
    value: str


@dataclass(frozen=True)
class Release:
    version: Version
    path: str
    line: int


def versions(text: str) -> list[Version]:
    found: list[Version] = []
    for match in _VERSION.finditer(text):
        numbers = match.group("tagged") or match.group("bare")
        parts = tuple(int(part) for part in numbers.split("."))
        found.append(
            Version(match.group(0), (*parts, 0, 0, 0)[:4], match.group("suffix") is not None)
        )
    return found


def claimed_version(value: str) -> Version | None:
    """The version a current claim names: its first non-candidate version."""
    return next((version for version in versions(value) if not version.candidate), None)


def label_of(text: str) -> tuple[str, str] | None:
    """``(label, value)`` when the line is labelled like current state."""
    match = _LABEL.match(text)
    if match is None:
        return None
    return " ".join(match.group("label").split()), match.group("value").strip(" \t*_")


def affirmative_versions(text: str) -> list[Version]:
    """The released (non-candidate) versions a line records affirmatively, else none."""
    if not _AFFIRMATIVE.search(text) or _PROSPECTIVE.search(text):
        return []
    return [version for version in versions(text) if not version.candidate]
