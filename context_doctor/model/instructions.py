"""The procedural tier (docs/references.md): the instruction files agents load before they work.

Found per repository as the agents find them, by one walk of the work tree
(:func:`context_doctor.guards.walk.walk_files`: iterative, never through a symlinked
folder, never into ``.git``, ``node_modules``, a virtual environment or a nested
repository such as a submodule):

* **Codex**: ``AGENTS.override.md``, ``AGENTS.md`` and the ``[instructions]
  fallback_names`` in any folder; an agent working in a folder loads one file per folder
  from the repository's top down to it (the override first), stopping at
  ``codex_max_bytes`` (:class:`CodexChain`).
* **Claude Code**: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md`` in any folder
  and ``.claude/rules/**/*.md``; each may import further files with ``@path``
  (:class:`ImportGraph`).
* **Cursor** ``.cursor/rules/**/*.mdc``; **Copilot** ``.github/copilot-instructions.md`` and
  ``.github/instructions/*.instructions.md``; **Gemini** ``GEMINI.md`` in any folder;
  **lessons**: the Markdown files under a ``lessons/`` folder at the repository's top.

Every file is read through the one guarded reader (:class:`~context_doctor.model.documents.Document`:
bounded, never through a link that leaves the repository). A symlink to another
instruction file of the tree (``CLAUDE.md -> AGENTS.md``) is the file it leads to: its
text is judged once, under the target's name, and costs the target's bytes in a chain.

A working-memory section inside one (a ``## Current status`` of ``CLAUDE.md``) stays the
layout's record (docs/layouts.md); the file is still an instruction file, read once.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.config.instruction_options import InstructionOptions
from context_doctor.guards.walk import walk_files
from context_doctor.model.documents import Document
from context_doctor.model.reference_text import IMPORT, Reference

if TYPE_CHECKING:
    from context_doctor.git.repository import Repository

CODEX = "codex"
CLAUDE = "claude"
CURSOR = "cursor"
COPILOT = "copilot"
GEMINI = "gemini"
LESSONS = "lessons"
IMPORTED = "imported"  # not found by name: a file a Claude or Gemini file imports
FAMILIES = (CODEX, CLAUDE, CURSOR, COPILOT, GEMINI, LESSONS)

CODEX_OVERRIDE = "AGENTS.override.md"
CODEX_FILE = "AGENTS.md"
MAX_IMPORT_HOPS = 5
MAX_INSTRUCTION_FILES = 5000
"""The most instruction files read per repository: past it the rest are counted, not read."""

_NOT_ENTERED = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
        ".nox",
    }
)
_BY_NAME = {
    "CLAUDE.md": CLAUDE,
    "CLAUDE.local.md": CLAUDE,
    "GEMINI.md": GEMINI,
    CODEX_FILE: CODEX,
    CODEX_OVERRIDE: CODEX,
}


@dataclass
class InstructionFile:
    """One instruction file: where it is, which agent loads it, and its text (read once).

    ``target`` is the repository-relative file a symlink leads to (None for a plain file);
    ``outside`` says the link leaves the repository (never read, never judged).
    """

    rel_path: str
    family: str
    document: Document
    target: str | None = None
    outside: bool = False

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.rel_path)

    @property
    def name(self) -> str:
        return posixpath.basename(self.rel_path)

    @property
    def read_as(self) -> str:
        """The file whose text this is (a symlink's target inside the repository)."""
        return self.target or self.rel_path

    @cached_property
    def size(self) -> int:
        """Its bytes as an agent reads them (a link's target's); 0 when it cannot be read."""
        if self.outside:
            return 0
        try:
            return os.stat(self.document.path).st_size
        except OSError:
            return 0

    @property
    def readable(self) -> bool:
        return not self.outside and self.document.exists and self.document.problem is None

    @property
    def unreadable(self) -> str:
        """Why a file that is not :attr:`readable` cannot be read (a link that leaves the
        repository aside: it is never opened)."""
        document = self.document
        if document.exists:
            return document.problem or "cannot be read"
        if os.path.islink(document.path):
            return "is a broken or looping symlink"
        found = document.read_bytes()
        return found if isinstance(found, str) else "cannot be read"

    @cached_property
    def blank(self) -> bool:
        """Whitespace only: Codex skips it, and it costs nothing."""
        return self.readable and self.document.is_blank

    @property
    def references(self) -> tuple[Reference, ...]:
        if not self.readable:
            return ()
        return self.document.references


def family_of(relative: str, fallback_names: Iterable[str] = ()) -> str | None:
    """Which agent loads the repository-relative file ``relative`` by its name and place."""
    parts = relative.split("/")
    name = parts[-1]
    folders = parts[:-1]
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name in fallback_names:
        return CODEX
    if name == "CLAUDE.md" or (folders[-1:] == [".claude"] and name == "CLAUDE.md"):
        return CLAUDE
    if name.endswith(".md") and ".claude" in folders:
        at = len(folders) - 1 - folders[::-1].index(".claude")
        if folders[at + 1 : at + 2] == ["rules"]:
            return CLAUDE
    if name.endswith(".mdc") and ".cursor" in folders:
        at = len(folders) - 1 - folders[::-1].index(".cursor")
        if folders[at + 1 : at + 2] == ["rules"]:
            return CURSOR
    if folders[-1:] == [".github"] and name == "copilot-instructions.md":
        return COPILOT
    if folders[-2:] == [".github", "instructions"] and name.endswith(".instructions.md"):
        return COPILOT
    if folders[:1] == ["lessons"] and name.endswith(".md"):
        return LESSONS
    return None


_TOP_MARKERS = (
    CODEX_FILE,
    CODEX_OVERRIDE,
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
    ".claude/CLAUDE.md",
    ".github/copilot-instructions.md",
)
_TOP_FOLDERS = (".claude/rules", ".cursor/rules", "lessons")


def holds_instruction_files(top: Path) -> bool:
    """Whether the repository at ``top`` holds an instruction file (for discovery: a
    repository with nothing else to audit is audited for these alone)."""
    if any(os.path.isfile(top / name) for name in _TOP_MARKERS):
        return True
    if any(os.path.isdir(top / folder) for folder in _TOP_FOLDERS):
        return True
    walk = walk_files(
        top,
        wanted=lambda name: name in (CODEX_FILE, CODEX_OVERRIDE, "CLAUDE.md", "GEMINI.md"),
        enter=lambda name: name not in _NOT_ENTERED,
    )
    return bool(walk.files)


def _wanted_name(name: str, fallback_names: frozenset[str]) -> bool:
    """A name the walk reports: the agents' own names, a Cursor rule, Copilot's files. The
    Markdown files of rule and lesson folders are listed where those folders are
    (:func:`_folder_files`), not looked for in every folder of the tree."""
    return (
        name in _BY_NAME
        or name in fallback_names
        or name.endswith((".mdc", ".instructions.md"))
        or name == "copilot-instructions.md"
    )


def _folder_files(top: Path, folder: str) -> tuple[list[str], set[str]]:
    """Every Markdown file under ``top/folder`` (a rules or lessons folder) by the one walk, and
    those of them that are not regular files; none when the folder is not a real folder."""
    path = top / folder
    if not path.is_dir() or path.is_symlink():
        return [], set()
    listed = walk_files(path, wanted=lambda name: name.endswith(".md"), regular_only=False)
    return listed.files, listed.irregular


def find_instruction_files(
    repository: Repository, options: InstructionOptions, *, within: Iterable[str] | None = None
) -> tuple[list[InstructionFile], int]:
    """The repository's instruction files, by path, and how many more were not read.

    ``within``: repository-relative folders (the projects a ``--project`` run audits): only
    the files inside them, and those of the folders above them (an agent working there
    loads those too).
    """
    top = repository.toplevel
    fallbacks = frozenset(options.fallback_names)

    def enter(name: str) -> bool:
        return name not in _NOT_ENTERED

    walk = walk_files(
        top,
        wanted=lambda name: _wanted_name(name, fallbacks),
        enter=enter,
        regular_only=False,
    )
    paths = list(walk.files)
    irregular = set(walk.irregular)
    # Claude Code's rules at the top and beside each nested CLAUDE.md; lessons at the top.
    claude_folders = {""}
    for path in walk.files:
        folder = os.path.dirname(path)
        if os.path.basename(path) == "CLAUDE.md" and os.path.basename(folder) != ".claude":
            claude_folders.add(folder[len(str(top)) + 1 :])
    extra = [posixpath.join(folder, ".claude/rules") for folder in sorted(claude_folders)]
    for folder in [*extra, "lessons"]:
        files, links = _folder_files(top, folder)
        paths += files
        irregular |= links
    nested = _nested_repositories(top, paths)
    found: list[InstructionFile] = []
    skipped = 0
    folders = None if within is None else [f.strip("/") for f in within]
    prefix = len(str(top)) + 1
    for path in sorted(set(paths)):
        relative = path[prefix:].replace(os.sep, "/")
        family = family_of(relative, fallbacks)
        if family is None or any(relative.startswith(prefix) for prefix in nested):
            continue
        if _archived(relative):
            continue
        if folders is not None and not _applies_within(relative, folders):
            continue
        if len(found) >= MAX_INSTRUCTION_FILES:
            skipped += 1
            continue
        document = Document(Path(path), relative, top)
        target, outside = None, False
        if path in irregular:
            target, outside = _link_target(path, top)
        found.append(InstructionFile(relative, family, document, target, outside))
    return found, skipped


_ARCHIVE_FOLDER = re.compile(r"^(?:archives?|archived|backups?|attic)$|backup", re.IGNORECASE)


def _archived(relative: str) -> bool:
    """Under a folder that keeps old copies (``archive/``, ``context.backup.2025.../``): a copy
    of instructions no agent is meant to follow."""
    return any(_ARCHIVE_FOLDER.search(part) for part in relative.split("/")[:-1])


def _link_target(path: str, top: Path) -> tuple[str | None, bool]:
    """(the repository-relative file a link leads to, whether it leaves the repository)."""
    real_top = os.path.realpath(top)
    try:
        real = os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):
        return None, False  # dangling or looping: the document says it cannot be read
    if not real.startswith(real_top + os.sep):
        return None, True
    return Path(real).relative_to(real_top).as_posix(), False


def governed_folder(relative: str) -> str:
    """The folder an instruction file speaks for: its own, or the one holding its ``.claude/``,
    ``.cursor/`` or ``.github/`` folder; the top for lessons."""
    parts = relative.split("/")[:-1]
    if parts[:1] == ["lessons"]:
        return ""
    for at, part in enumerate(parts):
        if part in (".claude", ".cursor", ".github"):
            return "/".join(parts[:at])
    return "/".join(parts)


def _applies_within(relative: str, folders: list[str]) -> bool:
    """The file lies inside one of ``folders``, or speaks for a folder above one of them."""
    governed = governed_folder(relative)
    for wanted in folders:
        if not wanted or relative.startswith(wanted + "/"):
            return True
        if not governed or wanted == governed or wanted.startswith(governed + "/"):
            return True
    return False


def _nested_repositories(top: Path, files: list[str]) -> list[str]:
    """Folders below ``top`` holding a ``.git`` of their own (a submodule, a vendored clone):
    another repository's instructions, as ``/``-ended repository-relative prefixes."""
    folders = {os.path.dirname(path) for path in files}
    nested: set[str] = set()
    for folder in folders:
        current = folder
        while current and current != str(top) and current.startswith(str(top)):
            if os.path.lexists(os.path.join(current, ".git")):
                nested.add(Path(current).relative_to(top).as_posix() + "/")
                break
            current = os.path.dirname(current)
    return sorted(nested)


# -- Codex: the chain an agent loads in a folder ---------------------------------------------


@dataclass(frozen=True)
class ChainPart:
    file: InstructionFile
    cost: int  # the bytes it takes from the budget (0 for a whitespace-only file)


@dataclass(frozen=True)
class CodexChain:
    """What Codex loads for an agent working in ``folder``: one file per folder from the top
    down to it, each charged its bytes until ``limit`` is spent."""

    folder: str
    parts: tuple[ChainPart, ...]
    limit: int

    @property
    def total(self) -> int:
        return sum(part.cost for part in self.parts)

    @property
    def over(self) -> bool:
        return self.limit > 0 and self.total > self.limit

    def cut(self) -> tuple[ChainPart, int] | None:
        """The first file Codex truncates or drops, and how many of its bytes it keeps."""
        spent = 0
        for part in self.parts:
            if spent + part.cost > self.limit:
                return part, max(0, self.limit - spent)
            spent += part.cost
        return None


def codex_chains(files: list[InstructionFile], options: InstructionOptions) -> list[CodexChain]:
    """The chain of every folder holding a Codex file, in folder order; not of a folder
    inside a hidden one (a skill bundle's ``AGENTS.md`` under ``.agents/skills/``: an agent
    is started in the code's folders, not in its tooling's)."""
    by_folder: dict[str, dict[str, InstructionFile]] = {}
    for file in files:
        if file.family == CODEX:
            by_folder.setdefault(file.folder, {})[file.name] = file
    order = (CODEX_OVERRIDE, CODEX_FILE, *options.fallback_names)

    def chosen(folder: str) -> InstructionFile | None:
        present = by_folder.get(folder, {})
        return next((present[name] for name in order if name in present), None)

    chains: list[CodexChain] = []
    for folder in sorted(by_folder):
        if any(step.startswith(".") for step in folder.split("/")):
            continue  # a hidden folder (`.agents/skills/x/`) holds tooling, not a place agents work
        parts: list[ChainPart] = []
        steps = folder.split("/") if folder else []
        for end in range(0, len(steps) + 1):
            loaded = chosen("/".join(steps[:end]))
            if loaded is not None:
                parts.append(ChainPart(loaded, 0 if loaded.blank else loaded.size))
        chains.append(CodexChain(folder, tuple(parts), options.codex_max_bytes))
    return chains


# -- Claude and Gemini: the imports ---------------------------------------------------------


@dataclass(frozen=True)
class ImportHop:
    """One ``@`` import of a file the agent loads: from where, to what, and how deep."""

    importer: str  # repository-relative file holding the import
    reference: Reference
    target: str  # repository-relative path it resolves to ("" when it leaves the tree)
    depth: int  # 1 for an import of a root file
    chain: tuple[str, ...]  # the files from the root down to the importer


@dataclass
class ImportGraph:
    """Every import reachable from the Claude and Gemini files, breadth first.

    ``hops`` are the imports followed; ``cycles`` the imports that lead back into their
    own chain; ``too_deep`` the imports past :data:`MAX_IMPORT_HOPS` (not loaded); ``loaded``
    the repository-relative files the agent reads through imports (roots excluded).
    """

    hops: list[ImportHop] = field(default_factory=list)
    cycles: list[ImportHop] = field(default_factory=list)
    too_deep: list[ImportHop] = field(default_factory=list)
    loaded: dict[str, Document] = field(default_factory=dict)

    @property
    def members(self) -> set[str]:
        return {hop.importer for hop in self.hops} | set(self.loaded)


def import_roots(files: list[InstructionFile]) -> list[InstructionFile]:
    return [f for f in files if f.family in (CLAUDE, GEMINI) and f.readable]


def follow_imports(
    files: list[InstructionFile],
    open_document: Callable[[str], Document | None],
    kind_of: Callable[[str], str | None],
) -> ImportGraph:
    """Follow every ``@`` import from the roots: ``open_document(relative)`` gives the
    Document of an imported file inside the repository, ``kind_of(relative)`` what the
    tree holds there (model/repository_tree.py)."""
    graph = ImportGraph()
    known = {f.read_as: f.document for f in files if f.readable}
    for root in import_roots(files):
        pending: list[tuple[str, Document, tuple[str, ...]]] = [
            (root.rel_path, root.document, (root.read_as,))
        ]
        seen_here: set[str] = set()
        while pending:
            importer, document, chain = pending.pop(0)
            if importer in seen_here:
                continue
            seen_here.add(importer)
            for reference in _imports_of(document):
                target = posixpath.normpath(
                    posixpath.join(posixpath.dirname(importer), reference.target)
                )
                depth = len(chain)
                hop = ImportHop(importer, reference, "" if target.startswith("..") else target,
                                depth, chain)  # fmt: skip
                if not hop.target or kind_of(target) != "file":
                    graph.hops.append(hop)  # judged by the caller (missing, or outside)
                    continue
                if target in chain:
                    graph.cycles.append(hop)
                    continue
                if depth > MAX_IMPORT_HOPS:
                    graph.too_deep.append(hop)
                    continue
                graph.hops.append(hop)
                imported = known.get(target) or open_document(target)
                if imported is None:
                    continue
                if target not in known:
                    graph.loaded[target] = imported
                pending.append((target, imported, (*chain, target)))
    return graph


def _imports_of(document: Document) -> list[Reference]:
    if not document.exists or document.problem is not None:
        return []
    return [reference for reference in document.references if reference.kind == IMPORT]
