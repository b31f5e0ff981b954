"""The one text model every reader and writer shares, and small grammar pieces (dates, ordinals).

**Text.** A file's bytes are text when they hold no NUL byte and decode as UTF-8
(:func:`decode_utf8`). A leading BOM is kept apart from the body (:class:`TextFile`),
so a writer puts it back and a reader never sees it. **Only CRLF, CR and LF end a
line** (:data:`LINE_BREAK`), as for git, ``wc -l`` and markdown-it, whose line maps
locate headings: never U+2028, form feed or the other breaks ``str.splitlines``
knows. :func:`lines` gives lines without their breaks, :func:`lines_with_ends` with
them. **The CRLF rule**: a file's newline (what a writer uses for a line it adds)
is its first line break, LF when it has none; text given to a writer is converted
to the file's breaks only when the file uses one kind (:meth:`TextFile.native`);
a file's existing breaks are never rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from context_doctor.guards.patterns import LazyPattern

BOM = "\ufeff"
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_WITH_END = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_BARE_LF = re.compile(r"(?<!\r)\n")


def decode_utf8(raw: bytes) -> tuple[str | None, str | None]:
    """(text, None) for UTF-8 text (its BOM kept), else (None, why it is not text)."""
    if b"\x00" in raw:
        return None, "is binary (contains NUL bytes), not UTF-8 text"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as error:
        return None, f"is not valid UTF-8 (byte {error.start})"


def lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks (a final break ends a line, starts none)."""
    found = LINE_BREAK.split(text)
    if found[-1] == "":
        found.pop()
    return found


def lines_with_ends(text: str) -> list[str]:
    """The lines of ``text``, each with its own break (the last may have none)."""
    return _LINE_WITH_END.findall(text)


def newline_of(text: str) -> str:
    """The CRLF rule: the first line break of ``text``, LF when it has none."""
    first = LINE_BREAK.search(text)
    return first.group(0) if first else "\n"


@dataclass(frozen=True)
class TextFile:
    """A text file as a writer sees it: its BOM, its body, and the line breaks it uses."""

    bom: str
    body: str
    crlf: bool  # every line break is CRLF (and there is at least one)
    lf: bool = False  # every line break is LF, or there is none
    newline: str = "\n"  # the break for a line a writer adds: the first one (the CRLF rule)

    @classmethod
    def of(cls, text: str) -> TextFile:
        """``text`` as decoded (a BOM, if any, still in front)."""
        bom = BOM if text.startswith(BOM) else ""
        body = text.removeprefix(BOM)
        breaks = set(LINE_BREAK.findall(body))
        return cls(bom, body, breaks == {"\r\n"}, breaks <= {"\n"}, newline_of(body))

    def native(self, given: str) -> str:
        """``given`` with its line breaks written as the file's, when the file uses one kind."""
        if self.crlf:
            return _BARE_LF.sub("\r\n", given)
        if self.lf:
            return given.replace("\r\n", "\n")
        return given

    def encode(self, body: str) -> bytes:
        """The file's bytes with ``body`` in place of its body (the BOM kept)."""
        return (self.bom + body).encode("utf-8")


DATE_PATTERN = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
LEADING_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})(?!\d)")
# At most 9 digits: a longer "ordinal" is not one, and int() of thousands of digits raises.
ORDINAL_PATTERN = re.compile(
    r"\b(round|wave|phase|step|part)[\s\-_]*(\d{1,9})(?!\d)", re.IGNORECASE
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_PAIR = LazyPattern("[\ud800-\udbff][\udc00-\udfff]")


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
