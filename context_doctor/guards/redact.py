"""Redaction: the only forms of a secret that leave the doctor.

A secret is shown as its first :data:`SHOWN` characters and an ellipsis (:func:`redact`);
:func:`scrub` replaces every quote of one in a text, a cut quote's head or tail too, and
:func:`scrub_value` does it through tuples and records. Pure text: which strings are
secrets is :mod:`context_doctor.model.secrets`'s to find.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


SHOWN = 4  # characters of a secret a report may show


def redact(value: str) -> str:
    """The only form of a secret that leaves this module: its first 4 characters, then `…`."""
    return value[:SHOWN] + "\u2026"


FRAGMENT = 8  # the fewest characters of a secret a cut quote may keep and still be redacted


# What may stand right after a quote cut inside a secret, or right before one.
_CUT = frozenset(" \t\r\n'\"`)]}>,;|*\u2026")


def scrub(text: str, values: Iterable[str]) -> str:
    """``text`` with every secret in ``values`` replaced by its redacted form.

    Also a secret's head left at the end of a quote that was cut short (`'… key
    ghp_A1b2C3d4E5f6'`), or its tail at the start of one, when at least
    :data:`FRAGMENT` characters of it remain: a cut quote must not spread most of
    a secret either.  Longest secrets first, so one inside another is not half-done.
    """
    for value in sorted(set(values), key=len, reverse=True):
        if value and (value[:FRAGMENT] in text or value[-FRAGMENT:] in text):
            text = _scrub_one(text, value)
    return text


def _scrub_one(text: str, value: str) -> str:
    shown = redact(value)
    text = text.replace(value, shown)
    if len(value) <= FRAGMENT:
        return text
    pieces: list[str] = []
    start = 0
    head = value[:FRAGMENT]
    at = text.find(head)
    while at >= 0:
        end, matched = at + FRAGMENT, FRAGMENT
        while end < len(text) and matched < len(value) and text[end] == value[matched]:
            end, matched = end + 1, matched + 1
        if end == len(text) or text[end] in _CUT or text.startswith("...", end):
            pieces += [text[start:at], shown]
            start = end
        at = text.find(head, end)
    text = "".join(pieces) + text[start:]
    tail = value[-FRAGMENT:]
    at = text.rfind(tail)
    while at >= 0:
        begin, matched = at, len(value) - FRAGMENT
        while begin > 0 and matched > 0 and text[begin - 1] == value[matched - 1]:
            begin, matched = begin - 1, matched - 1
        if begin == 0 or text[begin - 1] in _CUT:
            text = text[:begin] + shown + text[at + FRAGMENT :]
        at = text.rfind(tail, 0, begin)
    return text


def scrub_value(value: Any, secrets: list[str]) -> Any:
    """``value`` (text, tuples of text, records of text) with ``secrets`` redacted."""
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, tuple):
        items = [scrub_value(item, secrets) for item in value]
        return value._make(items) if hasattr(value, "_make") else tuple(items)
    if is_dataclass(value) and not isinstance(value, type):
        changed = {
            item.name: scrub_value(getattr(value, item.name), secrets) for item in fields(value)
        }
        return replace(value, **changed)
    return value
