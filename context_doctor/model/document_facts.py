"""A Markdown text, reduced to the facts the checks read.

A document's bytes are parsed once, with markdown-it-py, into
:class:`DocumentFacts`: headings, list items, header fields, as-of marker
lines, code ranges, line count and (for ``REFERENCE.md``) links.  The token
list is dropped as soon as the facts are taken from it, so a corpus of
thousands of files holds small tuples rather than hundreds of thousands of
tokens, and the facts are plain data the persistent cache
(:mod:`context_doctor.cache.store`) keeps between runs as they are (msgspec encodes
and type-checks the NamedTuples, :mod:`context_doctor.cache.codec`) and a worker
process can hand back.

Every walk here is one pass over the tokens or the lines: a document's size
never multiplies with itself (80,000 list items used to take 98 s because each
item rescanned the token list from the start).

Nothing here raises on bad input except :class:`Unreadable`, which the engine
turns into a skip and ``record-unreadable`` turns into a finding.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from context_doctor.guards.conflicts import may_hold_markers
from context_doctor.guards.markdown import block_parser, full_parser
from context_doctor.guards.redact import redact, scrub_value
from context_doctor.guards.text import BOM, decode_utf8
from context_doctor.guards.text import lines as split_lines
from context_doctor.layouts.words import row_date_cell
from context_doctor.model.claims import affirmative_versions, label_of
from context_doctor.model.plain_blocks import plain_blocks
from context_doctor.model.reference_text import Reference, references_in
from context_doctor.model.secrets import SecretHit, find_secrets, load_detectors
from context_doctor.model.suppression_comments import (
    MARKER,
    SuppressionComment,
    markdown_suppressions,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
# docs/layouts.md: `**Name:** value`, `**Name**: value`, and a bare `Name: value` at the start of a
# line (short, capitalised names only, so header prose is not read as a field).
_FIELD = re.compile(r"\*\*([A-Z][^*\n]*?)(?::\*\*|\*\*:)")
_BARE_FIELD = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Za-z]+){0,2}):(?=\s)")
_CHECKBOX = re.compile(r"^\[([ xX])\](?:\s|$)")
# docs/layouts.md: a field anywhere in a layout's file is a line that, with list markers, `>`,
# heading marks and emphasis (`*`, `_`) stripped, starts with `Name:`.  A name is a short
# run of words in any script (`Zuletzt aktualisiert`); the colon is followed by a space or
# the end of the line, so `https://…` is never a field.
_LINE_MARKS = re.compile(r"^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?|>\s*|#{1,6}\s+)*")
_FIELD_NAME = r"[^\W\d_][\w'\u2019 \-]{0,40}?"
_LINE_FIELD = re.compile(rf"[*_]*({_FIELD_NAME})[*_]*\s*:[*_]*(?=\s|$)")
# `<!-- Updated: 2026-07-20 by the bot -->`: a field in an HTML comment (last resort, docs/layouts.md).
_COMMENT_FIELD = re.compile(rf"^\s*<!--\s*({_FIELD_NAME})\s*:\s*(.*?)\s*(?:-->.*)?$")
_EMPHASIS_EDGES = "*_ \t"
# docs/layouts.md: a line `*State as of: YYYY-MM-DD <optional text>*`.
_AS_OF = re.compile(r"^\s*\*State as of:\s*(\d{4})-(\d{2})-(\d{2})(?!\d)(.*?)\*\s*$")
_AS_OF_HINT = "*State as of:"


# markdown-it is imported and its parsers built on first use, not at import time: a warm
# run takes every document's facts from the cache and never parses, and the import and
# the rule chains cost tens of milliseconds of start-up (the pre-push case).


def load_parsers() -> None:
    """Import and build everything parsing uses, now rather than on first use.

    :mod:`context_doctor.store` calls this before it forks its parsing workers, so
    they start with it (each would otherwise import markdown-it and detect-secrets
    and build the same parsers again: about 70 ms of CPU a worker).
    """
    block_parser()
    full_parser()
    load_detectors()


class Heading(NamedTuple):
    level: int
    text: str
    line: int


class ListItem(NamedTuple):
    line: int
    text: str
    checked: bool | None  # None: a plain item without a [ ] / [x] box


class Link(NamedTuple):
    href: str
    line: int


class HeaderField(NamedTuple):
    name: str
    value: str
    line: int


class DatedRow(NamedTuple):
    """A table body row dated as a session entry (docs/layouts.md): by its first cell, or by
    its second when the first is a number or a numbered label (``| Round 3 | 2026-08-21 |``).

    ``first_cell`` is the dated cell with its emphasis stripped (``column`` says which,
    0 or 1); ``text`` is every cell joined by `` | ``, as a reader sees the row.
    """

    line: int
    first_cell: str
    text: str
    column: int = 0


class AsOfLine(NamedTuple):
    """A ``*State as of: YYYY-MM-DD ...*`` line outside code: the date's parts and the rest."""

    line: int
    year: str
    month: str
    day: str
    rest: str


# Any case of the A: the text every attribution line holds (model/attribution.py).
ATTRIBUTION_HINT = "ttribution"


class DocumentFacts(NamedTuple):
    """Everything the checks read from one document, as plain data.

    ``problem`` is set (and everything else empty) for bytes that are not
    UTF-8 text.  ``links`` is None unless they were asked for.  Adding a field
    changes the persistent cache's format key by itself (see ``cache/store.py``).
    """

    problem: str | None
    line_count: int
    blank: bool
    headings: tuple[Heading, ...]
    list_items: tuple[ListItem, ...]
    code_ranges: tuple[tuple[int, int], ...]  # 1-based lines, [first, end)
    header_fields: tuple[HeaderField, ...]
    as_of_lines: tuple[AsOfLine, ...]
    links: tuple[Link, ...] | None
    suppressions: tuple[SuppressionComment, ...]  # their ``path`` is "" (content, not place)
    # Credential material in the lines (redacted): found here so a warm run neither
    # re-reads the file nor imports the detectors for it.
    secrets: tuple[SecretHit, ...]
    # For semantic-current-state (model/claims.py): each current-looking label line as
    # (line, label, value), and each affirmatively recorded release on the other lines as
    # (line, spelled, four numeric parts); and whether a merge marker may be present.
    claim_labels: tuple[tuple[int, str, str], ...]
    release_lines: tuple[tuple[int, str, int, int, int, int], ...]
    may_hold_markers: bool
    # model/attribution.py's pre-filter: only a line holding this can be an attribution.
    may_hold_attributions: bool
    # The last TAIL_LINES lines (context-template's budget footer): a warm run need not
    # read CONTEXT.md's text again for them.
    tail: tuple[str, ...]
    # docs/layouts.md reading, whatever the layout: every field on a line of its own anywhere
    # outside code (headings included), every HTML comment field, in file order, and the
    # table rows that start with a date.  Which names count is the layout's (model/header.py).
    line_fields: tuple[HeaderField, ...]
    comment_fields: tuple[HeaderField, ...]
    dated_rows: tuple[DatedRow, ...]
    # docs/references.md: every path reference of the text (links, imports, code spans,
    # commands), outside code but for shell fences' command lines.
    references: tuple[Reference, ...]


# How many of a document's last lines its facts keep (``Document.last_lines``).
TAIL_LINES = 5


def unreadable_facts(problem: str) -> DocumentFacts:
    return DocumentFacts(
        problem,
        0,
        True,
        (),
        (),
        (),
        (),
        (),
        None,
        (),
        (),
        (),
        (),
        False,
        False,
        (),
        (),
        (),
        (),
        (),
    )


def decode(raw: bytes) -> tuple[str | None, str | None]:
    """(text, None) for UTF-8 text (a leading BOM dropped), else (None, why not): guards/text.py."""
    text, problem = decode_utf8(raw)
    return (None, problem) if text is None else (text.removeprefix(BOM), None)


def facts_of_bytes(raw: bytes, links: bool = False) -> DocumentFacts:
    """The facts of a file's bytes (pure: safe to run in a worker process)."""
    text, problem = decode(raw)
    if text is None:
        return unreadable_facts(problem or "cannot be read")
    return facts_of_text(text, links)


def facts_of_text(text: str, links: bool = False) -> DocumentFacts:
    lines = split_lines(text)
    headings, items, code_ranges, rows, suppressions, found_links = _blocks(text, lines, links)
    headings = _without_field_paragraphs(headings, lines)
    code = _CodeLines(code_ranges)
    secrets = find_secrets(lines)
    facts = DocumentFacts(
        problem=None,
        line_count=len(lines),
        blank=not text.strip(),
        headings=headings,
        list_items=items,
        code_ranges=code_ranges,
        header_fields=_header_fields(lines, headings, code),
        as_of_lines=_as_of_lines(lines, code) if _AS_OF_HINT in text else (),
        links=found_links,
        suppressions=suppressions,
        secrets=tuple(SecretHit(hit.line, hit.kind, redact(hit.value)) for hit in secrets),
        **_claim_facts(lines),
        may_hold_markers=may_hold_markers(text),
        may_hold_attributions=ATTRIBUTION_HINT in text,
        tail=tuple(lines[-TAIL_LINES:]),
        line_fields=_line_fields(lines, code),
        comment_fields=_comment_fields(lines, code) if "<!--" in text else (),
        dated_rows=rows,
        references=references_in(lines, code_ranges),
    )
    if not secrets:
        return facts
    # No secret's text in the facts: they are cached, and every quote a check takes from
    # them would otherwise carry it.
    values = [hit.value for hit in secrets]
    return facts._replace(
        **{
            name: scrub_value(getattr(facts, name), values)
            for name in DocumentFacts._fields
            if name != "secrets"
        }
    )


def _blocks(
    text: str, lines: list[str], links: bool
) -> tuple[
    tuple[Heading, ...],
    tuple[ListItem, ...],
    tuple[tuple[int, int], ...],
    tuple[DatedRow, ...],
    tuple[SuppressionComment, ...],
    tuple[Link, ...] | None,
]:
    """The facts that come from the block structure: headings, items, code, rows, comments, links.

    A plain file (:mod:`context_doctor.model.plain_blocks`) is read by a line scan; any
    other file by markdown-it.  A suppression comment or (when ``links``) a possible link
    (:func:`_text_may_hold_link`) always takes markdown-it, which reads them.
    """
    if MARKER not in text and not (links and _text_may_hold_link(text)):
        plain = plain_blocks(text)
        if plain is not None:
            headings, items, code_ranges = plain
            return (
                tuple(Heading(level, content, line) for level, line, content in headings),
                _list_items(items),
                code_ranges,
                (),
                (),
                () if links else None,
            )
    env: dict[str, Any] = {}  # the block pass files reference definitions here (links need them)
    tokens = block_parser().parse(text, env)
    found_headings, found_items, code_ranges, rows = _walk_blocks(tokens)
    # Only a comment naming the marker can be one of ours: most files skip the walk.
    suppressions = tuple(markdown_suppressions(tokens, lines, "")) if MARKER in text else ()
    found_links = _links(tokens, env) if links else None
    return found_headings, found_items, code_ranges, rows, suppressions, found_links


def _claim_facts(lines: list[str]) -> dict[str, Any]:
    labels: list[tuple[int, str, str]] = []
    releases: list[tuple[int, str, int, int, int, int]] = []
    for number, line in enumerate(lines, start=1):
        labelled = label_of(line)
        if labelled is not None:
            labels.append((number, *labelled))
            continue
        for version in affirmative_versions(line):
            a, b, c, d = version.parts
            releases.append((number, version.spelled, a, b, c, d))
    return {"claim_labels": tuple(labels), "release_lines": tuple(releases)}


def _walk_blocks(
    tokens: Iterable[Token],
) -> tuple[
    tuple[Heading, ...], tuple[ListItem, ...], tuple[tuple[int, int], ...], tuple[DatedRow, ...]
]:
    """Headings, list items, code ranges and dated table rows in one pass over the tokens.

    A heading's text is the inline token right after its ``heading_open``; a
    list item's is the first line of the first inline token after its
    ``list_item_open``, unless another item opens or closes first (then it is
    empty).  Holding the one item still waiting for its text keeps this linear.
    A body row's cells are the inline tokens between its ``tr_open`` and ``tr_close``.
    """
    rows: list[DatedRow] = []
    row_at: int | None = None  # the line of a table body row being read
    cells: list[str] = []
    in_body = False
    headings: list[Heading] = []
    items: list[tuple[int, str]] = []
    code_ranges: list[tuple[int, int]] = []
    heading_at: tuple[int, int] | None = None  # (level, line) of a heading_open just seen
    waiting: int | None = None  # index in ``items`` of the item still without text
    for token in tokens:
        kind = token.type
        if heading_at is not None:
            if kind == "inline":
                headings.append(Heading(heading_at[0], token.content.strip(), heading_at[1]))
            heading_at = None
        if kind == "inline":
            if row_at is not None:
                cells.append(token.content.strip())
            if waiting is not None:
                items[waiting] = (items[waiting][0], token.content.split("\n", 1)[0].strip())
                waiting = None
        elif kind in ("tbody_open", "tbody_close"):
            in_body = kind == "tbody_open"
        elif kind == "tr_open":
            row_at, cells = (token.map[0] + 1 if in_body and token.map else None), []
        elif kind == "tr_close":
            if row_at is not None and cells:
                row = _dated_row(row_at, cells)
                if row is not None:
                    rows.append(row)
            row_at = None
        elif kind == "heading_open":
            if token.map:
                heading_at = (int(token.tag[1:]), token.map[0] + 1)
        elif kind == "list_item_open":
            waiting = None
            if token.map:
                items.append((token.map[0] + 1, ""))
                waiting = len(items) - 1
        elif kind == "list_item_close":
            waiting = None
        elif kind in ("fence", "code_block") and token.map:
            code_ranges.append((token.map[0] + 1, token.map[1] + 1))
    return tuple(headings), _list_items(items), tuple(code_ranges), tuple(rows)


def _list_items(items: Iterable[tuple[int, str]]) -> tuple[ListItem, ...]:
    found: list[ListItem] = []
    for line, text in items:
        box = _CHECKBOX.match(text)
        found.append(ListItem(line, text, None if box is None else box.group(1) != " "))
    return tuple(found)


def _dated_row(line: int, cells: list[str]) -> DatedRow | None:
    column = row_date_cell(cells)
    if column is None:
        return None
    return DatedRow(line, cells[column].strip(_EMPHASIS_EDGES), " | ".join(cells), column)


def field_of_line(line: str) -> tuple[str, str] | None:
    """``(name, value)`` when ``line`` is a field by the docs/layouts.md rule, else None.

    List markers (with a task box), ``>`` and heading marks are stripped, then emphasis
    around the name; the value ends at the next ``**Capitalised:**`` field on the line
    (as in the header rule) and loses the emphasis that closes it.
    """
    if ":" not in line:
        return None
    marks = _LINE_MARKS.match(line)
    rest = line[marks.end() :] if marks is not None else line
    match = _LINE_FIELD.match(rest)
    if match is None:
        return None
    value = rest[match.end() :]
    following = _FIELD.search(value)
    if following is not None:
        value = value[: following.start()]
    return match.group(1).strip(), value.strip(_EMPHASIS_EDGES)


def first_of_each_name(found: Iterable[HeaderField]) -> tuple[HeaderField, ...]:
    """docs/layouts.md: the first occurrence of a (casefolded) name wins; later ones are dropped."""
    seen: set[str] = set()
    kept: list[HeaderField] = []
    for field in found:
        key = field.name.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(field)
    return tuple(kept)


def _line_fields(lines: list[str], code: _CodeLines) -> tuple[HeaderField, ...]:
    def found() -> Iterable[HeaderField]:
        for number, line in enumerate(lines, start=1):
            if ":" not in line or number in code:
                continue
            field = field_of_line(line)
            if field is not None:
                yield HeaderField(field[0], field[1], number)

    return tuple(found())


def _comment_fields(lines: list[str], code: _CodeLines) -> tuple[HeaderField, ...]:
    def found() -> Iterable[HeaderField]:
        for number, line in enumerate(lines, start=1):
            if "<!--" not in line or number in code:
                continue
            match = _COMMENT_FIELD.match(line)
            if match is not None:
                yield HeaderField(match.group(1).strip(), match.group(2).strip(), number)

    return tuple(found())


def _is_field_line(line: str) -> bool:
    return _BARE_FIELD.match(line) is not None or _FIELD.search(line) is not None


def _without_field_paragraphs(
    headings: tuple[Heading, ...], lines: list[str]
) -> tuple[Heading, ...]:
    """Drop setext headings that are header fields above a ``---`` rule.

    CommonMark turns ``**Last session:** 2026-04-18`` directly above ``---`` (the seed's
    own template) into a level-2 heading; it is a header line, not a section (docs/layouts.md).
    """
    return tuple(
        heading
        for heading in headings
        if lines[heading.line - 1].lstrip().startswith("#")
        or not _is_field_line(lines[heading.line - 1])
    )


class _CodeLines:
    """Membership of a 1-based line in the code ranges, by bisection."""

    def __init__(self, ranges: tuple[tuple[int, int], ...]) -> None:
        self.starts = [start for start, _ in ranges]
        self.ranges = ranges

    def __contains__(self, line: int) -> bool:
        position = bisect_right(self.starts, line) - 1
        return position >= 0 and line < self.ranges[position][1]


def _header_fields(
    lines: list[str], headings: tuple[Heading, ...], code: _CodeLines
) -> tuple[HeaderField, ...]:
    """The header's fields: the lines before the first ``##`` heading, read line by line.

    A field directly above ``---`` is a setext heading to CommonMark, and still a field
    (docs/layouts.md): ``_without_field_paragraphs`` has already taken it out of ``headings``.
    """
    end = next((h.line for h in headings if h.level >= 2), len(lines) + 1)
    fields: list[HeaderField] = []
    for number, line in enumerate(lines[: end - 1], start=1):
        if ":" not in line or number in code:
            continue
        matches: list[tuple[str, int, int]] = []  # (name, start, value start)
        bare = _BARE_FIELD.match(line)
        if bare is not None:
            matches.append((bare.group(1), 0, bare.end()))
        if "**" in line:
            matches += [(m.group(1), m.start(), m.end()) for m in _FIELD.finditer(line)]
        for position, (name, _, value_start) in enumerate(matches):
            stop = matches[position + 1][1] if position + 1 < len(matches) else len(line)
            value = line[value_start:stop].strip()
            fields.append(HeaderField(name.strip(), value, number))
    return tuple(fields)


def _as_of_lines(lines: list[str], code: _CodeLines) -> tuple[AsOfLine, ...]:
    found: list[AsOfLine] = []
    for number, text in enumerate(lines, start=1):
        if _AS_OF_HINT not in text or number in code:
            continue
        match = _AS_OF.match(text)
        if match is not None:
            found.append(AsOfLine(number, *match.groups()))
    return tuple(found)


# The inline rules :func:`_may_hold_link` accounts for: commonmark's (markdown-it-py 3 and 4).
_KNOWN_INLINE_RULES = frozenset(
    [
        "text",
        "newline",
        "escape",
        "backticks",
        "emphasis",
        "link",
        "image",
        "autolink",
        "html_inline",
        "entity",
    ]
)


@cache
def _inline_rules_known(parser: MarkdownIt) -> bool:
    """``parser`` runs no inline rule beyond the known ones (else every token is parsed)."""
    return set(parser.get_active_rules()["inline"]) <= _KNOWN_INLINE_RULES


def _may_hold_link(content: str, env: dict[str, Any]) -> bool:
    """Can markdown-it's inline pass make a ``link_open`` of this inline token's content?

    With html on and linkify off (commonmark), only two inline rules push a
    ``link_open``: ``autolink``, which starts at a ``<``, and ``link``, whose label
    ends at a ``]`` that is followed by ``(`` (an inline link) or, only when the block
    pass filed a reference definition in ``env``, by anything (a reference link).  The
    inline pass reads the token's ``content`` as is, so a content holding none of
    these cannot hold a link.  Should another markdown-it enable an inline rule not
    accounted for here (:func:`_inline_rules_known`), every inline token is parsed.
    """
    return "<" in content or "](" in content or ("references" in env and "]" in content)


def _text_may_hold_link(text: str) -> bool:
    """Can any inline token of ``text`` hold a link (:func:`_may_hold_link`)?

    A link needs a ``<`` (an autolink), a ``](`` (an inline link), or a reference
    definition, whose label's ``]`` is followed by its ``:`` (CommonMark allows nothing
    between them): a text holding none of the three has no link whatever its blocks, and
    a task list's ``- [ ]`` alone keeps a record out of markdown-it. The token-level
    filter's guard (:func:`_inline_rules_known`, checked there on the parser itself) holds
    for the markdown-it the doctor depends on, whose commonmark preset
    ``tests/model/test_documents.py`` checks.
    """
    return "<" in text or "](" in text or "]:" in text


def _links(tokens: Iterable[Token], env: dict[str, Any]) -> tuple[Link, ...]:
    """Links of the block tokens, in order, each on the line it starts on.

    The inline pass runs here, with the full parser's inline rules and the ``env`` of
    the block pass (its reference definitions), on exactly the inline tokens that can
    hold a link: each one's children are what a full parse gives it, and the others
    hold no link (:func:`_may_hold_link`).
    """
    parser = full_parser()
    every = not _inline_rules_known(parser)
    found: list[Link] = []
    for token in tokens:
        if token.type != "inline" or not (every or _may_hold_link(token.content, env)):
            continue
        children: list[Token] = []
        parser.inline.parse(token.content, parser, env, children)
        line = (token.map[0] + 1) if token.map else 1
        for child in children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open":
                href = child.attrs.get("href")
                if isinstance(href, str):
                    found.append(Link(href, line))
    return tuple(found)


def links_of_text(text: str) -> tuple[Link, ...]:
    """The links of a text (what ``facts_of_text(text, links=True).links`` holds)."""
    env: dict[str, Any] = {}
    return _links(block_parser().parse(text, env), env)
