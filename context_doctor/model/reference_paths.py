"""What a path-shaped token is (docs/references.md "What counts as a reference").

The vocabulary every reader of references shares: the kinds of :class:`Reference`, the
extensions that make a bare token a file name, and the one judgement of a token -- a path of
this tree (:func:`path_token`), a file outside it (:func:`is_outside`), or prose, code, a
placeholder, a glob, a MIME type, a branch or a domain (nothing). The lines of a text are
read by :mod:`context_doctor.model.reference_text`, the commands on them by
:mod:`context_doctor.model.reference_commands`; both come here for the token.

Pure: strings in, :class:`Reference` values out.
"""

from __future__ import annotations

from typing import NamedTuple

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

SCHEME = LazyPattern(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_LINE_SUFFIX = LazyPattern(r"(?::\d+(?:[:\-]\d+)?|#L\d+(?:-L?\d+)?|::?[A-Za-z_][\w.]*\(?\)?)$")
PLACEHOLDER = LazyPattern(
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


def path_token(kind: str, token: str, number: int, column: int, base: str) -> list[Reference]:
    """A token that may name a file: trimmed, suffixes dropped, judged path-shaped or not."""
    written = token.strip("'\"").rstrip(".,;:!?)")
    column += token.find(written) if written else 0
    target = _LINE_SUFFIX.sub("", written)
    written = written[: len(target)] if written.startswith(target) else target
    if is_outside(target):
        return [Reference(OUTSIDE_PATH, target, number, column, written, base)]
    if not target or target.startswith(("~", "/", "$", "-", "@", "#", "\\")):
        return []  # a variable, an option, an alias or package, a route...
    if SCHEME.match(target) or target.startswith("www."):
        return []
    if not plain_path(target, link=False):
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


def is_outside(path: str) -> bool:
    """A home path (``~/x``) or an absolute path to a file (``/etc/x.conf``; one without an
    extension is an API or site route): a file outside the repository."""
    if path.startswith("~/"):
        return plain_path(path[2:], link=False)
    if path.startswith("/") and not path.startswith("//"):
        last = path.rsplit("/", 1)[-1]
        return "." in last.lstrip(".") and plain_path(path.lstrip("/"), link=False)
    return False


def plain_path(path: str, *, link: bool) -> bool:
    """Not a glob, a placeholder, code or a bare ``.``/``..``."""
    if path in (".", "..", "./", "../") or path.strip("./") == "":
        return False
    if _GLOB & set(path) or PLACEHOLDER.search(path):
        return False
    if not link and _SPAN_CODE.search(path):
        return False
    return "//" not in path and not path.startswith("../../../../")
