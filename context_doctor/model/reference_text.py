"""The path references a text makes, read from its lines alone (docs/references.md "What counts as a reference").

A **reference** is something in a record or an instruction file that names a file of
the repository: a Markdown link or image (``[x](docs/a.md)``, ``[x](mdc:src/a.ts)``, a
reference definition ``[x]: docs/a.md``), a Claude ``@`` import (``@docs/rules.md``, at
the start of a line or after a space), a code span holding one path-shaped token
(```src/parser.py```), and a command that runs a file or a named recipe: ``python X``,
``bash X``, ``node X``, ``./X``, ``npm run X`` (and pnpm, yarn, bun), ``make X``, ``just X``
-- in a code span, or on a line of a shell fence (none, ``bash``, ``sh``, ``shell``,
``console``, ``zsh``), where an earlier ``cd D`` of the line moves the base, and so does a
line of the fence that is nothing but ``cd D`` for the lines after it (a line
``cd web && npm run dev`` is one command, not a move of the whole fence).

What is never read as a reference, because a reader cannot tell it from prose or an
example without knowing more than the text (docs/references.md "Rejected kinds"): bare
words in prose, tokens inside a fence other than its command lines, commands written in
prose ("make sure"), and tokens that are not files of this tree -- URLs and other schemes,
anchors, ``~``, absolute and home paths (counted as outside, never judged), placeholders
(``<id>``, ``{name}``, ``YYYY-MM``, ``...``, ``path/to``, ``foo``), globs, framework
aliases (``@/``, ``#/``), MIME types, branch names, API routes, ``@scope/package`` names
and code (``a.b(``, ``process.env``).

This module reads the lines (fences, spans, links, imports, what a line says is gone or
another repository's); what a path-shaped token is lives in
:mod:`context_doctor.model.reference_paths`, what a command runs in
:mod:`context_doctor.model.reference_commands`. It is pure: text in, :class:`Reference`
values out.  Whether a reference resolves is :mod:`context_doctor.model.references`'
question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import unquote

from context_doctor.guards.patterns import LazyPattern
from context_doctor.model.reference_commands import (
    COMMAND_BREAKS,
    PACKAGE_RUNNERS,
    PATH_RUNNERS,
    RECIPE_RUNNERS,
    commands_in,
    runs_as_program,
)
from context_doctor.model.reference_paths import (
    IMPORT,
    KINDS,
    KNOWN_EXTENSIONS,
    LINK,
    OUTSIDE_PATH,
    PACKAGE_SCRIPT,
    RECIPE,
    ROOT_BASE,
    SCHEME,
    SCRIPT,
    SPAN,
    Reference,
    is_outside,
    path_token,
    plain_path,
)

# The vocabulary of references is offered here too, where readers of a text look for it.
__all__ = [
    "IMPORT",
    "KINDS",
    "LINK",
    "OUTSIDE_PATH",
    "PACKAGE_SCRIPT",
    "RECIPE",
    "ROOT_BASE",
    "SCRIPT",
    "SPAN",
    "Reference",
    "commands_in",
    "fence_languages",
    "references_in",
    "span_references",
]

SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "terminal", "shell-session"})
"""The fences whose lines are commands (an info string naming another language holds code)."""

_BACKTICKS = LazyPattern(r"`+")
_LINK = LazyPattern(r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)")
_DEFINITION = LazyPattern(r"^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)")
_IMPORT = LazyPattern(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_FENCE_OPEN = LazyPattern(r"^\s{0,3}(?:>\s?)*\s*(`{3,}|~{3,})\s*([^`\s{]*)")


# -- the lines -----------------------------------------------------------------------


def fence_languages(
    lines: list[str], code_ranges: Iterable[tuple[int, int]]
) -> dict[int, tuple[int, str]]:
    """For each 1-based line inside a code block, (the block's first line, its language).

    The language is a fence's info string, lower-cased (``""`` for a bare fence); an
    indented code block, which has no fence line, is ``"indented"``.
    """
    found: dict[int, tuple[int, str]] = {}
    for start, end in code_ranges:
        opening = lines[start - 1] if 0 < start <= len(lines) else ""
        match = _FENCE_OPEN.match(opening)
        language = match.group(2).lower() if match is not None else "indented"
        for number in range(start, end):
            found[number] = (start, language)
    return found


def references_in(
    lines: list[str], code_ranges: Iterable[tuple[int, int]] = ()
) -> tuple[Reference, ...]:
    """Every reference of a text's lines (``code_ranges``: its code blocks, 1-based [first, end)).

    Left out: a reference on a line that says its target is gone or not to be kept
    (:data:`_ABSENCE`: "was removed", "don't keep a `HISTORY.md`"), and one the text says
    is another repository's (:func:`_foreign`): the text knows, and is right.
    """
    code = fence_languages(lines, code_ranges)
    found = _references_of_lines(lines, code)
    found = [r for r in found if not _says_absent(lines, r.line, code)]
    return tuple(_with_home_twins(_foreign(found, lines, code), lines))


def _references_of_lines(lines: list[str], code: dict[int, tuple[int, str]]) -> list[Reference]:
    found: list[Reference] = []
    fence_base: dict[int, str] = {}  # a fence's base after a `cd` line
    for number, line in enumerate(lines, start=1):
        block = code.get(number)
        if block is not None:
            start, language = block
            if number == start or language not in SHELL_FENCES:
                continue  # the fence line itself, or code of another language
            stripped = line.strip()
            if not stripped or stripped.startswith(("#", "//")) or stripped in ("```", "~~~"):
                continue
            before = fence_base.get(start, "")
            commands, base = commands_in(stripped, number, 0, before)
            words = stripped.split()
            if words[:1] in (["$"], ["%"]):
                words = words[1:]
            if words[:1] == ["cd"] and not COMMAND_BREAKS.search(stripped):
                fence_base[start] = base  # a line that only moves: the lines after run there
            found += _located(commands, line, stripped)
            continue
        if not _may_hold(line):
            continue
        found += _line_references(line, number)
    return found


_ABSENCE = LazyPattern(
    r"\b(?:removed|deleted|dropped|no longer|formerly|former|obsolete|retired|deprecated"
    r"|renamed|replaced|don'?t|do not|instead of)\b",
    re.IGNORECASE,
)
"""Words by which a line says what it names is gone, renamed, or not to be kept."""
_STARTS_BLOCK = LazyPattern(r"^\s*(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|>|\||```|~~~)")


def _says_absent(lines: list[str], number: int, code: dict[int, tuple[int, str]]) -> bool:
    """The reference's line, or the line of its sentence right before or after it (a soft-
    wrapped paragraph, not a new item or heading), says what it names is gone."""
    if _ABSENCE.search(lines[number - 1]):
        return True
    if number in code:
        return False
    above, below = number - 1, number + 1
    if (
        above >= 1
        and above not in code
        and lines[above - 1].strip()
        and not _STARTS_BLOCK.match(lines[number - 1])
        and _ABSENCE.search(lines[above - 1])
    ):
        return True
    return bool(
        below <= len(lines)
        and below not in code
        and lines[below - 1].strip()
        and not _STARTS_BLOCK.match(lines[below - 1])
        and _ABSENCE.search(lines[below - 1])
    )


_REPOSITORY_NAME = LazyPattern(r"`?([A-Za-z0-9][\w.\-]*[\w])`?\s+(?:repo|repository)\b")
_NOT_A_NAME = frozenset(
    [
        "this",
        "the",
        "a",
        "an",
        "our",
        "your",
        "my",
        "their",
        "its",
        "same",
        "that",
        "each",
        "every",
        "any",
        "other",
        "another",
        "main",
        "current",
        "parent",
        "separate",
        "public",
        "private",
        "git",
        "github",
        "gitlab",
        "code",
        "source",
        "whole",
        "one",
        "new",
        "old",
        "own",
        "upstream",
        "downstream",
        "monorepo",
        "remote",
        "local",
        "sibling",
    ]
)


def _foreign(
    found: list[Reference], lines: list[str], code: dict[int, tuple[int, str]]
) -> list[Reference]:
    """Without the references the text places in another repository: one written right after
    that repository's name (``gp-props `docs/x.md```), one on a line that names the
    repository (``gp-props repo at `docs/implementations/```), and every reference under a
    folder such a line names."""
    names: set[str] = set()
    naming: set[int] = set()
    for number, line in enumerate(lines, start=1):
        if number in code or "repo" not in line:
            continue
        for match in _REPOSITORY_NAME.finditer(line):
            name = match.group(1)
            if name.lower() not in _NOT_A_NAME:
                names.add(name)
                naming.add(number)
    if not names:
        return found
    folders: set[str] = set()
    kept: list[Reference] = []
    for reference in found:
        line = lines[reference.line - 1]
        before = line[: reference.column].rstrip("`<([ '\"").rsplit(None, 1)
        after_name = bool(before) and before[-1].strip("`*_") in names
        if reference.line in naming or after_name:
            folders.add(reference.target.removeprefix("./").rstrip("/") + "/")
            continue
        kept.append(reference)
    return [
        reference
        for reference in kept
        if not any(reference.target.removeprefix("./").startswith(folder) for folder in folders)
    ]


def _may_hold(line: str) -> bool:
    return "`" in line or "](" in line or "@" in line or "]:" in line


def _located(references: list[Reference], line: str, stripped: str) -> list[Reference]:
    """References parsed from ``stripped`` (a part of ``line``), their columns in ``line``."""
    offset = line.find(stripped)
    return [ref._replace(column=ref.column + offset) for ref in references]


HOME_TWIN_LINES = 2
"""How near a ``~/`` form of a path makes it a place a tool looks (``~/.x/settings.json`` then
``.x/settings.json``): the same line, or this many lines above or below."""


def _with_home_twins(found: list[Reference], lines: list[str]) -> Iterator[Reference]:
    for reference in found:
        home = f"~/{reference.target.removeprefix('./')}"
        first = max(0, reference.line - 1 - HOME_TWIN_LINES)
        nearby = lines[first : reference.line + HOME_TWIN_LINES]
        if any(home in text for text in nearby):
            yield reference._replace(home_twin=True)
        else:
            yield reference


def _code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each code span's content in the line (CommonMark's backtick runs)."""
    spans: list[tuple[int, int]] = []
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    used: set[int] = set()
    for index, (start, end) in enumerate(runs):
        if index in used:
            continue
        if start > 0 and line[start - 1] == "\\":
            continue
        width = end - start
        for later in range(index + 1, len(runs)):
            if runs[later][1] - runs[later][0] == width:
                spans.append((end, runs[later][0]))
                used.update(range(index, later + 1))
                break
    return spans


def _line_references(line: str, number: int) -> list[Reference]:
    found: list[Reference] = []
    spans = _code_spans(line) if "`" in line else []
    # Outside the spans: links and imports (a span hides both, as Markdown and Claude read it).
    masked = line
    for start, end in spans:
        masked = masked[: start - 1] + " " * (end - start + 2) + masked[end + 1 :]
    if "](" in masked:
        for match in _LINK.finditer(masked):
            found += _link(match.group(1), match.start(1), number)
    if "]:" in masked:
        definition = _DEFINITION.match(masked)
        if definition is not None:
            found += _link(definition.group(1), definition.start(1), number)
    if "@" in masked:
        for match in _IMPORT.finditer(masked):
            found += _import(match.group(1), match.start(1), number)
    for start, end in spans:
        found += span_references(line[start:end], start, number)
    return found


# -- links and imports ----------------------------------------------------------------


def _link(raw: str, column: int, number: int) -> list[Reference]:
    written = raw
    if written.startswith("<") and written.endswith(">"):
        written, column = written[1:-1], column + 1
    if not written or written.startswith(("#", "//", "?")):
        return []
    base = ""
    if written.startswith("mdc:"):
        written, column, base = written[4:], column + 4, ROOT_BASE
    elif SCHEME.match(written):
        return []  # a URL, mailto:, data:... never a file of this tree
    path = written.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return []
    target = unquote(path)
    if base == "" and target.startswith("/"):
        base, target = ROOT_BASE, target.lstrip("/")
    if not target or not plain_path(target, link=True):
        return []
    return [Reference(LINK, target, number, column, path, base)]


def _import(raw: str, column: int, number: int) -> list[Reference]:
    """A Claude import when it is path-shaped: ``./x``, ``../x``, a path with ``/`` and an
    extension, or a bare ``NAME.md``; never ``@scope/pkg``, ``@user`` or a decorator."""
    written = raw.rstrip(".,;:!?)]}'\"")
    path = written.split("#", 1)[0].replace("\\ ", " ")
    if is_outside(path):
        return [Reference(OUTSIDE_PATH, path, number, column, written)]  # counted, never judged
    if not path or path.startswith(("~", "/")):
        return []
    relative = path.startswith(("./", "../"))
    last = path.rsplit("/", 1)[-1]
    extension = last.rpartition(".")[2].lower() if "." in last else ""
    shaped = relative or ("/" in path and extension in KNOWN_EXTENSIONS) or extension in ("md",)
    if not shaped or not plain_path(path, link=False):
        return []
    return [Reference(IMPORT, path, number, column, written.split("#", 1)[0])]


# -- code spans and commands ------------------------------------------------------------


def span_references(text: str, column: int, number: int) -> list[Reference]:
    """The references of one code span's content (``column``: where it starts in the line)."""
    content = text.strip()
    if not content:
        return []
    column += text.find(content)
    first = content.split(None, 1)[0]
    if " " in content or first in PATH_RUNNERS | PACKAGE_RUNNERS | RECIPE_RUNNERS:
        commands, _ = commands_in(content, number, column, "")
        return commands
    if content.startswith(("./", "../")) and runs_as_program(content):
        commands, _ = commands_in(content, number, column, "")
        if commands:
            return commands
    return path_token(SPAN, content, number, column, "")
