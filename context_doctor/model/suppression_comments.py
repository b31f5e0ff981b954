"""Inline suppression comments, as facts of the files that carry them (docs/suppressions.md).

Markdown: ``<!-- context-doctor: disable-next-line CHECK[,CHECK] -->`` covers the
next non-blank line; ``<!-- context-doctor: disable CHECK[,CHECK] -->`` covers
the rest of the file (and the file's whole-file findings).  They are read from
markdown-it's HTML tokens (``html_block``, and ``html_inline`` inside a
paragraph), never by a regular expression over raw lines, so a comment shown
inside a code fence or an indented code block is an example, not a suppression.

YAML (``index.yaml``): a whole-line comment ``# context-doctor:
disable-next-line CHECK[,CHECK]``.  Decision: a line scan that trusts only
lines the YAML scanner did not place inside a scalar, so a ``#`` line inside a
block scalar (``note: |``) or a multi-line quoted string is content, and a
``#`` inside a one-line string never starts a line.  ruamel's comment
attachments (``.ca``) were the alternative; they move a comment between the
previous and the next node depending on indentation, which makes "the line
this comment is on" harder to get right than the scanner's scalar spans.

A comment that starts with ``context-doctor:`` but does not follow the grammar
is kept with a ``problem``: the suppression layer reports it as an
``unused-suppression`` warning rather than ignoring it or failing the run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.text import LINE_BREAK

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

MARKER = "context-doctor:"
NEXT_LINE = "disable-next-line"
REST_OF_FILE = "disable"
_HTML_COMMENT = LazyPattern(r"<!--(.*?)-->", re.DOTALL)
_DIRECTIVE = LazyPattern(
    r"context-doctor:\s*(?P<kind>[A-Za-z-]+)(?:\s+(?P<names>[^\s].*?))?\s*$", re.DOTALL
)
_NAME = LazyPattern(r"[a-z0-9][a-z0-9-]*")


@cache
def _inline_parser() -> MarkdownIt:
    """Built on first use: a warm run reads cached facts and never parses (start-up)."""
    from markdown_it import MarkdownIt  # a third-party import deferred for start-up time

    return MarkdownIt("commonmark", {"html": True})


@dataclass(frozen=True)
class SuppressionComment:
    """One suppression comment: where it is, what it covers, or why it is malformed."""

    path: str  # repository-relative path of the file holding it
    line: int  # 1-based line of the comment itself
    kind: str  # NEXT_LINE or REST_OF_FILE ("" when malformed)
    checks: tuple[str, ...]
    target_line: int | None  # the line a NEXT_LINE comment covers (None: nothing follows)
    text: str  # the comment as written, for messages
    problem: str | None = None  # why it is malformed (then it suppresses nothing)

    def covers(self, line: int | None) -> bool:
        """Whether a finding on ``line`` (None: the whole file) lies in this comment's reach."""
        if self.problem is not None:
            return False
        if self.kind == REST_OF_FILE:
            return line is None or line > self.line
        return line is not None and line == self.target_line


def _directive(body: str) -> tuple[str, tuple[str, ...], str | None] | None:
    """(kind, checks, problem) of a comment body, or None when it is not addressed to us."""
    stripped = body.strip()
    if not stripped.startswith(MARKER):
        return None
    match = _DIRECTIVE.match(stripped)
    if match is None:
        return "", (), "expected `context-doctor: disable-next-line|disable CHECK[,CHECK]`"
    kind = match.group("kind")
    if kind not in (NEXT_LINE, REST_OF_FILE):
        return "", (), f"unknown directive `{kind}` (use `disable-next-line` or `disable`)"
    raw_names = (match.group("names") or "").replace(" ", "")
    names = tuple(name for name in raw_names.split(",") if name)
    if not names:
        return kind, (), "names no check"
    bad = [name for name in names if not _NAME.fullmatch(name)]
    if bad:
        return kind, names, f"`{bad[0]}` is not a check name"
    if len(raw_names.split(",")) != len(names):
        return kind, names, "has an empty name in its list"
    return kind, names, None


def _next_content_line(lines: Sequence[str], after: int) -> int | None:
    """The first non-blank 1-based line after line ``after``."""
    for number in range(after + 1, len(lines) + 1):
        if lines[number - 1].strip():
            return number
    return None


def _comments_in(
    text: str, first_line: int, path: str, lines: Sequence[str]
) -> Iterable[SuppressionComment]:
    for match in _HTML_COMMENT.finditer(text):
        parsed = _directive(match.group(1))
        if parsed is None:
            continue
        kind, checks, problem = parsed
        start = first_line + text.count("\n", 0, match.start())
        end = first_line + text.count("\n", 0, match.end())
        target = _next_content_line(lines, end) if kind == NEXT_LINE else None
        if kind == NEXT_LINE and target is None and problem is None:
            problem = "no line follows it"
        yield SuppressionComment(
            path, start, kind, checks, target, " ".join(match.group(0).split()), problem
        )


def markdown_suppressions(
    tokens: Sequence[Token], lines: Sequence[str], path: str
) -> list[SuppressionComment]:
    """Suppression comments of a Markdown file, from its block tokens.

    Block tokens come from a parse without the inline pass; an inline token
    that mentions the marker is parsed inline here, so only the few paragraphs
    carrying a comment pay for it.
    """
    found: list[SuppressionComment] = []
    for token in tokens:
        if not token.map:
            continue
        if token.type == "html_block":
            found += _comments_in(token.content, token.map[0] + 1, path, lines)
        elif token.type == "inline" and MARKER in token.content:
            children = token.children or _inline_children(token.content)
            line = token.map[0] + 1
            for child in children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "html_inline":
                    found += _comments_in(child.content, line, path, lines)
    return found


def _inline_children(content: str) -> list[Token]:
    parsed = _inline_parser().parseInline(content)
    return list(parsed[0].children or []) if parsed else []


def _scalar_interior_lines(text: str) -> set[int]:
    """0-based lines that lie inside a multi-line scalar (a block or folded string).

    libyaml's scanner (C) finds them: ruamel's is pure Python, and an index of a few MiB
    holding one marker comment took it tens of seconds.  PyYAML without libyaml
    falls back to ruamel's, only in text the careful parser is given (limits.py).
    """
    # Third-party imports deferred for start-up time: only a YAML file with a marker gets here.
    import yaml

    from context_doctor.guards.limits import MAX_CAREFUL_YAML_BYTES

    loader = getattr(yaml, "CBaseLoader", None)
    if loader is not None:
        tokens: Iterable[object] = yaml.scan(text, Loader=loader)
        scalar: type = yaml.ScalarToken
    elif len(text) <= MAX_CAREFUL_YAML_BYTES:
        from ruamel.yaml import YAML
        from ruamel.yaml.tokens import ScalarToken

        tokens, scalar = YAML(typ="rt").scan(text), ScalarToken
    else:
        return set()
    inside: set[int] = set()
    try:
        for token in tokens:
            if isinstance(token, scalar):
                start, end = token.start_mark.line, token.end_mark.line  # type: ignore[attr-defined]
                last = end if token.end_mark.column > 0 else end - 1  # type: ignore[attr-defined]
                inside.update(range(start + 1, last + 1))
    except Exception:  # the loader reports bad YAML as exit 2; never fail here first
        return inside
    return inside


def yaml_suppressions(text: str, path: str) -> list[SuppressionComment]:
    """``# context-doctor: disable-next-line CHECK`` whole-line comments of a YAML file."""
    lines = LINE_BREAK.split(text)
    candidates = [
        number
        for number, line in enumerate(lines)
        if line.lstrip().startswith("#") and MARKER in line
    ]
    if not candidates:
        return []
    interior = _scalar_interior_lines(text)
    found: list[SuppressionComment] = []
    for number in candidates:
        if number in interior:
            continue
        body = lines[number].lstrip()[1:]
        parsed = _directive(body)
        if parsed is None:
            continue
        kind, checks, problem = parsed
        if kind == REST_OF_FILE and problem is None:
            problem = "`disable` is Markdown-only; in YAML use `disable-next-line`"
        target = _next_yaml_line(lines, number + 1)
        if target is None and problem is None:
            problem = "no line follows it"
        found.append(
            SuppressionComment(
                path, number + 1, kind, checks, target, lines[number].strip(), problem
            )
        )
    return found


def _next_yaml_line(lines: Sequence[str], after: int) -> int | None:
    """The next 1-based line after ``after`` that is neither blank nor a comment."""
    for number in range(after + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith("#"):
            return number
    return None
