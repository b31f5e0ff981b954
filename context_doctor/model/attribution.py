"""Agent attribution lines (the seed's "Agent Attribution"), parsed once per document.

The format is one italic line at the end of a session entry::

    *Attribution — agent: Claude Code · model: unknown · effort: unknown · scope: … · verified: none · ref: a1b2c3d*

Fields are separated by `·` (U+00B7); each is `name: value`.  Lines inside code
fences are examples, not provenance, and are never read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from context_doctor.guards.patterns import LazyPattern
from context_doctor.model.document_facts import ATTRIBUTION_HINT
from context_doctor.model.documents import Document

REQUIRED_FIELDS = ("agent", "model", "effort", "scope", "verified", "ref")
# `*Attribution — agent: …*` (or `_…_`); the dash may be an em/en dash, a hyphen or a colon.
_LINE = LazyPattern(
    r"^\s*(?P<mark>[*_])\s*Attribution\s*(?:[\u2014\u2013:-]|--)\s*(?P<body>.*?)\s*(?P=mark)\s*$",
    re.IGNORECASE,
)
_FIELD = LazyPattern(r"^\s*(?P<name>[A-Za-z][A-Za-z _-]*?)\s*:\s*(?P<value>.*?)\s*$")
MAX_LINE = 2000  # a longer line is prose that happens to start with the word, not a field list


@dataclass(frozen=True)
class Attribution:
    line: int
    fields: dict[str, str]  # first value of each field, names lower-cased
    duplicated: tuple[str, ...]  # fields given more than once
    unparsed: tuple[str, ...]  # parts that are not `name: value`

    @property
    def is_full(self) -> bool:
        """A full attribution line (it names the agent), not a passing mention."""
        return "agent" in self.fields

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(name for name in REQUIRED_FIELDS if name not in self.fields)

    @property
    def empty(self) -> tuple[str, ...]:
        return tuple(name for name in REQUIRED_FIELDS if self.fields.get(name, "x") == "")


def parse_attribution(text: str, line: int) -> Attribution | None:
    """The attribution on one line, or None when the line is not one."""
    if len(text) > MAX_LINE:
        return None
    match = _LINE.match(text)
    if match is None:
        return None
    fields: dict[str, str] = {}
    duplicated: list[str] = []
    unparsed: list[str] = []
    for part in match.group("body").split("\u00b7"):
        if not part.strip():
            continue
        field = _FIELD.match(part)
        if field is None:
            unparsed.append(part.strip())
            continue
        name = " ".join(field.group("name").lower().split())
        if name in fields:
            if name not in duplicated:
                duplicated.append(name)
            continue
        fields[name] = field.group("value")
    return Attribution(line, fields, tuple(duplicated), tuple(unparsed))


def attributions(document: Document) -> list[Attribution]:
    """Every attribution line of ``document`` outside code blocks."""
    found: list[Attribution] = []
    if not document.may_hold_attributions:  # a cached fact: the text is not read again
        return found
    code = document.code_lines
    for number, text in enumerate(document.lines, start=1):
        if number in code or ATTRIBUTION_HINT not in text:  # cheap pre-filter
            continue
        parsed = parse_attribution(text, number)
        if parsed is not None:
            found.append(parsed)
    return found
