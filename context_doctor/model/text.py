"""Small grammar pieces shared by the model: dates and ordinals."""

from __future__ import annotations

import re
from datetime import date

DATE_PATTERN = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
LEADING_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})(?!\d)")
# At most 9 digits: a longer "ordinal" is not one, and int() of thousands of digits raises.
ORDINAL_PATTERN = re.compile(
    r"\b(round|wave|phase|step|part)[\s\-_]*(\d{1,9})(?!\d)", re.IGNORECASE
)


def to_date(year: str, month: str, day: str) -> date | None:
    """A real calendar date, or ``None`` for an impossible one such as 2026-02-30."""
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def first_date(text: str) -> tuple[str, date | None] | None:
    """The first ``YYYY-MM-DD`` in ``text``: its spelling and its value (None if impossible)."""
    match = DATE_PATTERN.search(text)
    if match is None:
        return None
    return match.group(0), to_date(*match.groups())


def parse_iso_date(value: object) -> date | None:
    """An index date: a YAML date, or a ``YYYY-MM-DD`` string that is a real day."""
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d{4})-(\d{2})-(\d{2})\s*", value)
        if match:
            return to_date(*match.groups())
    return None


def ordinals(text: str) -> dict[str, int]:
    """The first ordinal ``text`` names in each family (round, wave, phase, step, part)."""
    found: dict[str, int] = {}
    for match in ORDINAL_PATTERN.finditer(text):
        family = match.group(1).lower()
        found.setdefault(family, int(match.group(2)))
    return found
