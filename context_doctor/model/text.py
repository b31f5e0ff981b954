"""Small grammar pieces shared by the model: dates, ordinals, text that is not Unicode."""

from __future__ import annotations

import re
from datetime import date

DATE_PATTERN = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
LEADING_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})(?!\d)")
# At most 9 digits: a longer "ordinal" is not one, and int() of thousands of digits raises.
ORDINAL_PATTERN = re.compile(
    r"\b(round|wave|phase|step|part)[\s\-_]*(\d{1,9})(?!\d)", re.IGNORECASE
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def is_valid_unicode(text: str) -> bool:
    """False when ``text`` holds a lone surrogate: a name's undecodable byte, or a ``\\ud83d``."""
    return _SURROGATE.search(text) is None


def join_surrogate_pairs(text: str) -> str:
    """``"\\ud83d\\ude80"`` (as ``json.dump`` escapes an emoji, read by YAML) as the one character.

    YAML decodes each ``\\u`` escape alone; a high surrogate followed by a low one
    is what JSON means by a character outside the BMP, so it is joined.  A lone one
    stays, for :func:`is_valid_unicode` to report.
    """
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE_PAIR.sub(
        lambda pair: pair.group().encode("utf-16", "surrogatepass").decode("utf-16"), text
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
