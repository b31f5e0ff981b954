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

This module is pure: text in, :class:`Reference` values out.  Whether a reference
resolves is :mod:`context_doctor.model.references`' question.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple
from urllib.parse import unquote

from context_doctor.guards.patterns import LazyPattern

LINK = "link"  # a Markdown link, image or reference definition: relative to the file
IMPORT = "import"  # a Claude `@path` import: relative to the file
SPAN = "span"  # a code span holding one path: relative to the file or to any folder above it
SCRIPT = "script"  # the file a command runs (`python X`, `./X`)
PACKAGE_SCRIPT = "package-script"  # `npm run X`: a script of a package.json
RECIPE = "recipe"  # `make X`, `just X`: a target of a Makefile or justfile
OUTSIDE_PATH = (
    "outside"  # `~/x`, `/etc/x.conf`: a file outside the repository, counted, never judged
)
KINDS = (LINK, IMPORT, SPAN, SCRIPT, PACKAGE_SCRIPT, RECIPE, OUTSIDE_PATH)

ROOT_BASE = "/"
"""``Reference.base`` for a path written relative to the repository's top (``mdc:``, ``/x``)."""


class Reference(NamedTuple):
    """One reference on one line.

    ``target`` is the path (or script, or recipe) as it is looked up: a fragment,
    query, title, ``file.py::Symbol`` or ``:12`` suffix dropped, percent-decoding
    undone for a link. ``written``/``column`` locate the exact text a fix rewrites
    (0-based, in the line). ``base`` is ``""`` (the file's directory, and for spans
    and commands the folders above it), :data:`ROOT_BASE`, or a folder a ``cd``
    moved to (relative to the file's directory). ``tool`` is the runner of a
    command (``npm``, ``make``, ``just``, ``python``...), ``""`` otherwise;
    ``filtered`` says a package script was asked of another package (``--filter``,
    ``-w``, ``yarn workspace P``). ``home_twin``: the line also names this path
    under ``~/`` (a list of where a tool looks, not a file of this tree).
    """

    kind: str
    target: str
    line: int
    column: int
    written: str
    base: str = ""
    tool: str = ""
    filtered: bool = False
    home_twin: bool = False


KNOWN_EXTENSIONS = frozenset(
    [
        "md",
        "mdx",
        "mdc",
        "markdown",
        "rst",
        "txt",
        "adoc",
        "py",
        "pyi",
        "ipynb",
        "ts",
        "tsx",
        "js",
        "jsx",
        "mjs",
        "cjs",
        "vue",
        "svelte",
        "astro",
        "json",
        "jsonc",
        "json5",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "sh",
        "bash",
        "zsh",
        "fish",
        "ps1",
        "bat",
        "rb",
        "go",
        "rs",
        "java",
        "kt",
        "kts",
        "scala",
        "swift",
        "m",
        "mm",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "fs",
        "php",
        "pl",
        "lua",
        "r",
        "sql",
        "graphql",
        "gql",
        "proto",
        "css",
        "scss",
        "sass",
        "less",
        "html",
        "htm",
        "xml",
        "csv",
        "tsv",
        "lock",
        "env",
        "tf",
        "hcl",
        "dockerfile",
        "gradle",
        "properties",
        "sbt",
        "ex",
        "exs",
        "erl",
        "clj",
        "dart",
        "zig",
        "nim",
        "ml",
        "mli",
        "hs",
        "elm",
        "jl",
        "cabal",
        "nix",
        "prisma",
        "ejs",
        "hbs",
        "njk",
        "liquid",
        "j2",
        "tmpl",
        "tpl",
    ]
)
"""Extensions that make a token without ``/`` a file name (``parser.py``); others are prose."""

SCRIPT_EXTENSIONS = frozenset(
    [
        "py",
        "sh",
        "bash",
        "zsh",
        "js",
        "mjs",
        "cjs",
        "ts",
        "mts",
        "cts",
        "tsx",
        "jsx",
        "rb",
        "pl",
        "php",
        "lua",
        "ps1",
        "bat",
        "r",
        "jl",
        "swift",
        "go",
    ]
)
"""What a file a runner runs ends in (``python X``, ``node X``): else it is a module or a tool."""

SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "terminal", "shell-session"})
"""The fences whose lines are commands (an info string naming another language holds code)."""

PATH_RUNNERS = frozenset(
    {
        "python",
        "python3",
        "py",
        "bash",
        "sh",
        "zsh",
        "node",
        "ruby",
        "perl",
        "tsx",
        "ts-node",
        "bun",
        "deno",
        "php",
        "pwsh",
    }
)
"""Runners whose first plain argument is a file to run."""

PACKAGE_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
RECIPE_RUNNERS = frozenset({"make", "just"})
_TRANSPARENT = frozenset({"sudo", "time", "exec", "env", "command", "nohup"})
_COMMAND_BREAKS = LazyPattern(r"\s*(?:&&|\|\||;|\|)\s*")
_BACKTICKS = LazyPattern(r"`+")
_LINK = LazyPattern(r"!?\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)")
_DEFINITION = LazyPattern(r"^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)")
_IMPORT = LazyPattern(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)")
_SCHEME = LazyPattern(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_LINE_SUFFIX = LazyPattern(r"(?::\d+(?:[:\-]\d+)?|#L\d+(?:-L?\d+)?|::?[A-Za-z_][\w.]*\(?\)?)$")
_PLACEHOLDER = LazyPattern(
    r"<[^>]*>|\{[^}]*\}|\$\{|\$[A-Za-z_(]|\.\.\.|…|\bY{2,4}\b|\bMM\b|\bDD\b|\bXX+\b|\bN{2,}\b"
    r"|(?:^|/)(?:path/to|foo|bar|baz|qux|example|your[-_][\w-]+|my[-_][\w-]+|some[-_][\w-]+"
    r"|xxx+|placeholder|sample)(?:/|\.|$)|yyyymmdd|YYYYMMDD",
    0,
)
_GLOB = frozenset("*?[]")
_SPAN_CODE = LazyPattern(r"[()=;,\"'|&<>!]|\s")
_MIME_TOPS = frozenset(
    {"application", "text", "image", "audio", "video", "multipart", "font", "message", "model"}
)
_BRANCH_TOPS = frozenset(
    {
        "origin",
        "upstream",
        "refs",
        "heads",
        "remotes",
        "feat",
        "feature",
        "fix",
        "bugfix",
        "hotfix",
        "release",
        "chore",
        "users",
        "renovate",
        "dependabot",
    }
)
_RECIPE_NAME = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_.:/\-]*")
_PACKAGE_SCRIPT_NAME = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*")
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
            if words[:1] == ["cd"] and not _COMMAND_BREAKS.search(stripped):
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
    elif _SCHEME.match(written):
        return []  # a URL, mailto:, data:... never a file of this tree
    path = written.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return []
    target = unquote(path)
    if base == "" and target.startswith("/"):
        base, target = ROOT_BASE, target.lstrip("/")
    if not target or not _plain_path(target, link=True):
        return []
    return [Reference(LINK, target, number, column, path, base)]


def _import(raw: str, column: int, number: int) -> list[Reference]:
    """A Claude import when it is path-shaped: ``./x``, ``../x``, a path with ``/`` and an
    extension, or a bare ``NAME.md``; never ``@scope/pkg``, ``@user`` or a decorator."""
    written = raw.rstrip(".,;:!?)]}'\"")
    path = written.split("#", 1)[0].replace("\\ ", " ")
    if _is_outside(path):
        return [Reference(OUTSIDE_PATH, path, number, column, written)]  # counted, never judged
    if not path or path.startswith(("~", "/")):
        return []
    relative = path.startswith(("./", "../"))
    last = path.rsplit("/", 1)[-1]
    extension = last.rpartition(".")[2].lower() if "." in last else ""
    shaped = relative or ("/" in path and extension in KNOWN_EXTENSIONS) or extension in ("md",)
    if not shaped or not _plain_path(path, link=False):
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
    if content.startswith(("./", "../")) and _runs_as_program(content):
        commands, _ = commands_in(content, number, column, "")
        if commands:
            return commands
    return _path_token(SPAN, content, number, column, "")


def _runs_as_program(token: str) -> bool:
    """``./gradlew``, ``./scripts/run.sh``: a program; ``./docs/a.md`` is a path."""
    last = token.rstrip("/").rsplit("/", 1)[-1]
    extension = last.rpartition(".")[2].lower() if "." in last.lstrip(".") else ""
    return not token.endswith("/") and (not extension or extension in SCRIPT_EXTENSIONS)


def _path_token(kind: str, token: str, number: int, column: int, base: str) -> list[Reference]:
    """A token that may name a file: trimmed, suffixes dropped, judged path-shaped or not."""
    written = token.strip("'\"").rstrip(".,;:!?)")
    column += token.find(written) if written else 0
    target = _LINE_SUFFIX.sub("", written)
    written = written[: len(target)] if written.startswith(target) else target
    if _is_outside(target):
        return [Reference(OUTSIDE_PATH, target, number, column, written, base)]
    if not target or target.startswith(("~", "/", "$", "-", "@", "#", "\\")):
        return []  # a variable, an option, an alias or package, a route...
    if _SCHEME.match(target) or target.startswith("www."):
        return []
    if not _plain_path(target, link=False):
        return []
    if "/" in target:
        head = target.split("/", 1)[0]
        if head in _MIME_TOPS or head.lower() in _BRANCH_TOPS:
            return []
        if "." in head and head not in (".", "..") and not head.startswith("."):
            return []  # a domain (`github.com/x`) or a dotted name, not a top folder
    else:
        if "." not in target.strip("."):
            return []  # no folder and no extension: a word
        extension = target.rsplit(".", 1)[1].lower()
        stem = target.rsplit(".", 1)[0]
        if extension not in KNOWN_EXTENSIONS or not stem or stem.startswith("."):
            return []  # `.tsx`, `Next.js`... an extension mention, a dotted name
    return [Reference(kind, target, number, column, written, base)]


def _is_outside(path: str) -> bool:
    """A home path (``~/x``) or an absolute path to a file (``/etc/x.conf``; one without an
    extension is an API or site route): a file outside the repository."""
    if path.startswith("~/"):
        return _plain_path(path[2:], link=False)
    if path.startswith("/") and not path.startswith("//"):
        last = path.rsplit("/", 1)[-1]
        return "." in last.lstrip(".") and _plain_path(path.lstrip("/"), link=False)
    return False


def _plain_path(path: str, *, link: bool) -> bool:
    """Not a glob, a placeholder, code or a bare ``.``/``..``."""
    if path in (".", "..", "./", "../") or path.strip("./") == "":
        return False
    if _GLOB & set(path) or _PLACEHOLDER.search(path):
        return False
    if not link and _SPAN_CODE.search(path):
        return False
    return "//" not in path and not path.startswith("../../../../")


def commands_in(text: str, number: int, column: int, base: str) -> tuple[list[Reference], str]:
    """The references a command line makes, and the base a ``cd`` in it leaves for the next."""
    found: list[Reference] = []
    position = 0
    for part in _COMMAND_BREAKS.split(text):
        start = text.find(part, position)
        position = start + len(part)
        words = part.split()
        while (
            words and ("=" in words[0] or words[0] in _TRANSPARENT) and not words[0].startswith("=")
        ):
            words = words[1:]
        if words and words[0] in ("$", "%", ">"):
            words = words[1:]
        if not words:
            continue
        if words[0] == "cd" and len(words) >= 2:
            base = _moved(base, words[1])
            continue
        here = column + start
        found += _command(words, part, number, here, base)
    return found, base


def _moved(base: str, folder: str) -> str:
    folder = folder.strip("'\"")
    if not folder or folder.startswith(("~", "/", "$", "-")) or _PLACEHOLDER.search(folder):
        return "\x00"  # somewhere the text cannot follow: nothing after it is judged
    if base == "\x00":
        return base
    return posixpath.normpath(posixpath.join(base, folder)) if base else posixpath.normpath(folder)


def _column_of(part: str, word: str, here: int, after: int = 0) -> int:
    found = part.find(word, after)
    return here + (found if found >= 0 else 0)


def _command(words: list[str], part: str, number: int, here: int, base: str) -> list[Reference]:
    if base == "\x00":
        return []
    runner = words[0]
    if runner.startswith(("./", "../")):
        if not _runs_as_program(runner):
            return []
        return _script(runner, part, number, here, base, "exec")
    if runner in RECIPE_RUNNERS:
        return _recipe(words, part, number, here, base)
    if runner in PACKAGE_RUNNERS:
        found = _package_script(words, part, number, here, base)
        if found is not None:
            return found
    if runner in PATH_RUNNERS:
        rest = words[1:]
        if runner in ("deno", "bun") and rest[:1] == ["run"]:
            rest = rest[1:]
        for word in rest:
            if word.startswith("-"):
                if word in ("-m", "-c", "-e", "--eval", "-p"):
                    return []  # a module or inline code, not a file
                continue
            return _script(word, part, number, here, base, runner)
    return []


def _script(
    word: str, part: str, number: int, here: int, base: str, runner: str
) -> list[Reference]:
    token = word.strip("'\"")
    last = token.rsplit("/", 1)[-1]
    extension = last.rpartition(".")[2].lower() if "." in last else ""
    if runner != "exec" and extension not in SCRIPT_EXTENSIONS and "/" not in token:
        return []  # `python manage` is no file; `node script` neither
    if runner != "exec" and extension not in SCRIPT_EXTENSIONS:
        return []
    found = _path_token(SCRIPT, token, number, _column_of(part, token, here), base)
    return [ref._replace(tool=runner) for ref in found]


def _recipe(words: list[str], part: str, number: int, here: int, base: str) -> list[Reference]:
    tool = words[0]
    rest = words[1:]
    targets: list[str] = []
    skip = False
    for index, word in enumerate(rest):
        if skip:
            skip = False
            continue
        if word in ("-C", "--directory", "-d", "--working-directory"):
            if index + 1 < len(rest):
                base = _moved(base, rest[index + 1])
            skip = True
            continue
        if word.startswith("--directory=") or word.startswith("--working-directory="):
            base = _moved(base, word.split("=", 1)[1])
            continue
        if word in ("-f", "--file", "--justfile", "-j", "--jobs", "-I", "-o", "-W"):
            return []  # another recipe file, or a flag whose value could be read as a target
        if word.startswith("-") or "=" in word:
            continue
        targets.append(word)
    if base == "\x00" or not targets:
        return []
    name = targets[0]
    if not _RECIPE_NAME.fullmatch(name) or _PLACEHOLDER.search(name):
        return []
    return [
        Reference(RECIPE, name, number, _column_of(part, name, here, len(tool)), name, base, tool)
    ]


def _package_script(
    words: list[str], part: str, number: int, here: int, base: str
) -> list[Reference] | None:
    """``npm run X`` (pnpm, yarn, bun): a package script. None: not a ``run`` form (the caller
    may still read ``bun X.ts``); ``[]``: a run form with nothing to judge."""
    tool = words[0]
    rest = words[1:]
    filtered = False
    found: str | None = None
    saw_run = False
    index = 0
    while index < len(rest):
        word = rest[index]
        if word in ("--filter", "-F", "-w", "--workspace", "--prefix", "-C", "--dir", "--cwd"):
            filtered = True
            index += 2
            continue
        if word.startswith(("--filter=", "--workspace=", "--prefix=", "--dir=", "--cwd=")):
            filtered = True
            index += 1
            continue
        if word in ("-r", "--recursive", "-ws", "--workspaces", "--if-present", "-W"):
            filtered = True
            index += 1
            continue
        if tool == "yarn" and word == "workspace" and not saw_run:
            filtered = True
            index += 2
            continue
        if word.startswith("-"):
            index += 1
            continue
        if not saw_run:
            if word in ("run", "run-script"):
                saw_run = True
                index += 1
                continue
            return None  # `pnpm X`, `yarn workspace P X`: a script or a dependency's binary
        found = word
        break
    if found is None:
        return [] if saw_run else None
    if not _PACKAGE_SCRIPT_NAME.fullmatch(found) or _PLACEHOLDER.search(found):
        return []
    if tool == "bun" and "." in found.rsplit("/", 1)[-1]:
        return None  # `bun run x.ts` runs a file
    column = _column_of(part, found, here, len(tool))
    return [Reference(PACKAGE_SCRIPT, found, number, column, found, base, tool, filtered)]
