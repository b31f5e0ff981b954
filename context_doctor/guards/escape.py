"""Making user text safe to print: the one helper every output format uses.

Messages quote the audited tree (header values, directory and file names), and
that text is hostile until shown otherwise: an ESC sequence can clear a
terminal and print a fake verdict, a newline in a directory name can start a
line that GitHub Actions executes as a workflow command (``::error ...``), a
bidi override can make a line read differently than it is, and a name that
is not UTF-8 arrives as lone surrogates that no encoder accepts.

- :func:`escape_text` is for text formats (human, concise, GitHub, Markdown):
  every control character (C0, DEL, C1), the Unicode line and paragraph
  separators, bidi controls and lone surrogates become visible escapes, so a
  piece of user text is always one inert line.
- :func:`escape_undecodable` is for JSON formats, which escape control
  characters themselves: it only replaces lone surrogates, so the output is
  valid UTF-8.  :func:`clean_json` applies it to a whole JSON value.

Visible forms: ``\\n``, ``\\r``, ``\\t``, ``\\x1b`` (other controls as ``\\xNN``),
``\\u202e`` (format characters), and an undecodable byte kept by
``surrogateescape`` as ``\\xff`` (its original byte).  A backslash already in
the text is left alone: the escapes are for safety and legibility, not a
reversible encoding.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (status imports this)
if TYPE_CHECKING:
    from typing import Any

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one: an undecodable byte
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """``text`` as one inert line: no control, separator or bidi character, valid UTF-8."""
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text


def escape_undecodable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes) shown as escapes: valid UTF-8."""
    return SURROGATE.sub(_visible, text) if SURROGATE.search(text) else text


def clean_json(value: Any) -> Any:
    """A JSON value (dicts, lists, strings...) whose every string is valid UTF-8."""
    if isinstance(value, str):
        return escape_undecodable(value)
    if isinstance(value, dict):
        return {clean_json(key): clean_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(item) for item in value]
    return value
