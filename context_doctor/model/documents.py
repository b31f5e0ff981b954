"""Markdown documents, read once and parsed with markdown-it-py.

Nothing here raises on bad input except :class:`Unreadable`, which the engine
turns into a skip and ``record-unreadable`` turns into a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from itertools import islice
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from context_doctor.errors import Unreadable
from context_doctor.limits import TooLarge, read_limited, resolves_within
from context_doctor.model.suppressions import MARKER as SUPPRESSION_MARKER
from context_doctor.model.suppressions import SuppressionComment, markdown_suppressions

_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")
# The same grammar without the core inline pass: block tokens (headings, list items,
# code, each inline token's raw ``content``) are identical, only ``children`` stays
# empty.  Only ``links`` reads children, so it alone pays for a full parse; the
# inline pass is about a quarter of parsing time (benchmarks/README.md).
_BLOCKS = MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")
_FIELD = re.compile(r"\*\*([A-Z][^*\n]*?):\*\*")
_CHECKBOX = re.compile(r"^\[([ xX])\](?:\s|$)")
# Only \n, \r\n and \r end a line, as for git, `wc -l` and markdown-it (whose line
# maps the header and heading lines are compared with); str.splitlines would also
# split on \v, \f, \x1c-\x1e, \x85, U+2028 and U+2029.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class ListItem:
    line: int
    text: str
    checked: bool | None  # None: a plain item without a [ ] / [x] box


@dataclass(frozen=True)
class Link:
    href: str
    line: int


@dataclass(frozen=True)
class HeaderField:
    name: str
    value: str
    line: int


class Document:
    """One file of a project; its bytes are read at most once."""

    def __init__(self, path: Path, rel_path: str, root: Path | None = None) -> None:
        self.path = path
        self.rel_path = rel_path
        self.root = root  # when given, a file that resolves outside it is never read

    @cached_property
    def outside(self) -> bool:
        """The file is a symlink leaving ``root`` (the repository): it is not read."""
        return self.root is not None and not resolves_within(self.path, self.root)

    def __repr__(self) -> str:
        return f"Document({self.rel_path!r})"

    @classmethod
    def from_text(cls, text: str, path: Path, rel_path: str) -> Document:
        """A document over text already read (it is parsed, never read again)."""
        document = cls(path, rel_path)
        document.__dict__["exists"] = True
        document.__dict__["_text_or_problem"] = (text, None)
        return document

    @cached_property
    def exists(self) -> bool:
        return self.path.is_file()

    @cached_property
    def _text_or_problem(self) -> tuple[str | None, str | None]:
        if self.outside:
            return None, "resolves outside the repository: not read"
        try:
            raw = read_limited(self.path)
        except TooLarge as error:
            return None, f"{error}: split it (archive old entries) so it can be checked"
        except OSError as error:
            return None, f"cannot be read ({error.strerror or error.__class__.__name__})"
        if b"\x00" in raw:
            return None, "is binary (contains NUL bytes), not UTF-8 text"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            return None, f"is not valid UTF-8 (byte {error.start})"
        return text.removeprefix("\ufeff"), None

    @property
    def problem(self) -> str | None:
        """Why the file cannot be read, without raising; None when it reads fine."""
        if not self.exists:
            return None
        return self._text_or_problem[1]

    @property
    def text(self) -> str:
        text, problem = self._text_or_problem
        if text is None:
            raise Unreadable(self.path, self.rel_path, problem or "cannot be read")
        return text

    @cached_property
    def lines(self) -> list[str]:
        lines = _LINE_BREAK.split(self.text)
        if lines[-1] == "":
            lines.pop()  # a final line break ends the last line; it does not start one
        return lines

    @property
    def line_count(self) -> int:
        return len(self.lines)

    @property
    def is_blank(self) -> bool:
        return not self.text.strip()

    @cached_property
    def tokens(self) -> list[Token]:
        """Block-level tokens; inline tokens carry ``content`` but no ``children``."""
        return _BLOCKS.parse(self.text)

    @cached_property
    def code_lines(self) -> frozenset[int]:
        """1-based lines inside fenced or indented code blocks."""
        inside: set[int] = set()
        for token in self.tokens:
            if token.type in ("fence", "code_block") and token.map:
                inside.update(range(token.map[0] + 1, token.map[1] + 1))
        return frozenset(inside)

    @cached_property
    def headings(self) -> list[Heading]:
        found: list[Heading] = []
        for index, token in enumerate(self.tokens):
            if token.type == "heading_open" and token.map:
                inline = self.tokens[index + 1]
                found.append(Heading(int(token.tag[1:]), inline.content.strip(), token.map[0] + 1))
        return found

    @cached_property
    def list_items(self) -> list[ListItem]:
        found: list[ListItem] = []
        for index, token in enumerate(self.tokens):
            if token.type != "list_item_open" or not token.map:
                continue
            text = ""
            for follower in islice(self.tokens, index + 1, None):
                if follower.type == "inline":
                    text = follower.content.split("\n", 1)[0].strip()
                    break
                if follower.type in ("list_item_close", "list_item_open"):
                    break
            box = _CHECKBOX.match(text)
            checked = None if box is None else box.group(1) != " "
            found.append(ListItem(token.map[0] + 1, text, checked))
        return found

    @cached_property
    def links(self) -> list[Link]:
        found: list[Link] = []
        for token in _MARKDOWN.parse(self.text):  # links need the inline pass
            if token.type != "inline" or not token.children:
                continue
            line = (token.map[0] + 1) if token.map else 1
            for child in token.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "link_open":
                    href = child.attrs.get("href")
                    if isinstance(href, str):
                        found.append(Link(href, line))
        return found

    @cached_property
    def suppressions(self) -> list[SuppressionComment]:
        """Inline ``<!-- context-doctor: ... -->`` suppression comments (model/suppressions.py).

        A file that never mentions the marker is not parsed for them.
        """
        if SUPPRESSION_MARKER not in self.text:
            return []
        return markdown_suppressions(self.tokens, self.lines, self.rel_path)

    def heading_above(self, line: int, max_level: int = 6) -> Heading | None:
        """The nearest heading at or above ``line`` whose level is at most ``max_level``."""
        nearest: Heading | None = None
        for heading in self.headings:
            if heading.line > line:
                break
            if heading.level <= max_level:
                nearest = heading
        return nearest

    @cached_property
    def header_fields(self) -> list[HeaderField]:
        """``**Name:** value`` fields of the header: the lines before the first ``##`` heading.

        Restricting fields to the header keeps a ``**Status:**`` line quoted in
        a body section (a paused note, a release table) from being read as the
        project's own status.
        """
        end = next((h.line for h in self.headings if h.level >= 2), len(self.lines) + 1)
        fields: list[HeaderField] = []
        for number, line in enumerate(self.lines[: end - 1], start=1):
            if number in self.code_lines:
                continue
            matches = list(_FIELD.finditer(line))
            for position, match in enumerate(matches):
                stop = matches[position + 1].start() if position + 1 < len(matches) else len(line)
                value = line[match.end() : stop].strip()
                fields.append(HeaderField(match.group(1).strip(), value, number))
        return fields

    def field_values(self, name: str) -> list[HeaderField]:
        wanted = name.casefold()
        return [field for field in self.header_fields if field.name.casefold() == wanted]
