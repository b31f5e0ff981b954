"""The files and recipes a command line runs (docs/references.md "What counts as a reference").

``python X``, ``bash X``, ``node X``, ``./X`` name a script; ``npm run X`` (and pnpm, yarn,
bun) a package script; ``make X`` and ``just X`` a recipe. A ``cd D`` earlier on the line
moves the base of what follows (:func:`commands_in` returns the base it leaves); a folder the
text cannot follow (``~``, ``$VAR``, a placeholder) leaves nothing after it judged. Commands
written in prose are never read: :mod:`context_doctor.model.reference_text` calls this only
for a code span or a line of a shell fence.

Pure: a command line in, :class:`~context_doctor.model.reference_paths.Reference` values out.
"""

from __future__ import annotations

import posixpath

from context_doctor.guards.patterns import LazyPattern
from context_doctor.model.reference_paths import (
    PACKAGE_SCRIPT,
    PLACEHOLDER,
    RECIPE,
    SCRIPT,
    Reference,
    path_token,
)

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
COMMAND_BREAKS = LazyPattern(r"\s*(?:&&|\|\||;|\|)\s*")
_RECIPE_NAME = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_.:/\-]*")
_PACKAGE_SCRIPT_NAME = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*")


def runs_as_program(token: str) -> bool:
    """``./gradlew``, ``./scripts/run.sh``: a program; ``./docs/a.md`` is a path."""
    last = token.rstrip("/").rsplit("/", 1)[-1]
    extension = last.rpartition(".")[2].lower() if "." in last.lstrip(".") else ""
    return not token.endswith("/") and (not extension or extension in SCRIPT_EXTENSIONS)


def commands_in(text: str, number: int, column: int, base: str) -> tuple[list[Reference], str]:
    """The references a command line makes, and the base a ``cd`` in it leaves for the next."""
    found: list[Reference] = []
    position = 0
    for part in COMMAND_BREAKS.split(text):
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
    if not folder or folder.startswith(("~", "/", "$", "-")) or PLACEHOLDER.search(folder):
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
        if not runs_as_program(runner):
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
    found = path_token(SCRIPT, token, number, _column_of(part, token, here), base)
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
    if not _RECIPE_NAME.fullmatch(name) or PLACEHOLDER.search(name):
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
    if not _PACKAGE_SCRIPT_NAME.fullmatch(found) or PLACEHOLDER.search(found):
        return []
    if tool == "bun" and "." in found.rsplit("/", 1)[-1]:
        return None  # `bun run x.ts` runs a file
    column = _column_of(part, found, here, len(tool))
    return [Reference(PACKAGE_SCRIPT, found, number, column, found, base, tool, filtered)]
