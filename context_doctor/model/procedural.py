"""A source's procedural tier, read once (docs/references.md): its instruction files, the
chains Codex loads, the imports Claude follows, and the references none of them resolve.

The checks of ``checks/references.py`` and ``checks/instructions.py`` ask this; nothing here
runs before one does (a run that selects none of them walks nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.config.instruction_options import InstructionOptions
from context_doctor.git.removals import Removals
from context_doctor.guards.patterns import LazyPattern
from context_doctor.model.documents import Document
from context_doctor.model.instructions import (
    CodexChain,
    ImportGraph,
    ImportHop,
    InstructionFile,
    codex_chains,
    find_instruction_files,
    follow_imports,
)
from context_doctor.model.reference_text import IMPORT, Reference
from context_doctor.model.references import Resolver, Unresolved
from context_doctor.model.repository_tree import RepositoryTree
from context_doctor.model.sessions import session_date

if TYPE_CHECKING:
    from context_doctor.model.project import Project
    from context_doctor.model.source import Source


@dataclass(frozen=True)
class ImportProblem:
    """An import Claude does not load: ``kind`` is ``missing`` (with what history says),
    ``cycle`` or ``too deep``."""

    hop: ImportHop
    kind: str
    unresolved: Unresolved | None = None


class Procedural:
    """What a source's instruction files are and say, each part computed once when asked."""

    def __init__(self, source: Source, options: InstructionOptions) -> None:
        self.source = source
        self.options = options

    @cached_property
    def _found(self) -> tuple[list[InstructionFile], int]:
        within = None
        if self.source.only is not None:
            within = [project.rel_dir for project in self.source.projects]
        return find_instruction_files(self.source.repository, self.options, within=within)

    @property
    def files(self) -> list[InstructionFile]:
        """Every instruction file, by path (links included)."""
        return self._found[0]

    @property
    def unread(self) -> int:
        """Files past :data:`~context_doctor.model.instructions.MAX_INSTRUCTION_FILES`."""
        return self._found[1]

    @cached_property
    def judged(self) -> list[InstructionFile]:
        """The files whose text is judged: readable, and not a link to another of them."""
        names = {file.rel_path for file in self.files}
        return [
            file
            for file in self.files
            if file.readable and (file.target is None or file.target not in names)
        ]

    def documents(self) -> list[Document]:
        """The documents to prepare (read and parse once, with the tier's)."""
        return [file.document for file in self.files if not file.outside]

    @cached_property
    def tree(self) -> RepositoryTree:
        return RepositoryTree(self.source.repository_facts())

    @cached_property
    def removals(self) -> Removals | None:
        """The history pass's removals; None when the clone is shallow (``--allow-shallow``)."""
        history = self.source.repository_facts().history()
        return None if history is None else history.removals

    @cached_property
    def resolver(self) -> Resolver:
        return Resolver(self.tree, self.removals, self.source.repository_facts())

    # -- Codex ---------------------------------------------------------------------------

    @cached_property
    def chains(self) -> list[CodexChain]:
        return codex_chains(self.files, self.options)

    # -- Claude and Gemini imports -----------------------------------------------------------

    def _open(self, relative: str) -> Document | None:
        top = self.source.repository.toplevel
        document = Document(Path(top, relative), relative, top)
        if document.outside or not document.exists or document.problem is not None:
            return None
        return document

    @cached_property
    def imports(self) -> ImportGraph:
        return follow_imports(self.judged, self._open, self.tree.kind)

    @cached_property
    def import_problems(self) -> list[ImportProblem]:
        graph = self.imports
        problems: list[ImportProblem] = []
        missing = [hop for hop in graph.hops if hop.target and self.tree.kind(hop.target) is None]
        verdicts = self.resolver.judge((hop.importer, [hop.reference]) for hop in missing)
        by_place = {(v.document, v.reference.line, v.reference.column): v for v in verdicts}
        for hop in missing:
            verdict = by_place.get((hop.importer, hop.reference.line, hop.reference.column))
            if verdict is not None:
                problems.append(ImportProblem(hop, "missing", verdict))
        problems += [ImportProblem(hop, "cycle") for hop in graph.cycles]
        problems += [ImportProblem(hop, "too deep") for hop in graph.too_deep]
        problems.sort(key=lambda p: (p.hop.importer, p.hop.reference.line, p.hop.reference.column))
        return problems

    # -- references -----------------------------------------------------------------------

    @cached_property
    def unresolved(self) -> list[Unresolved]:
        """The references of the instruction files (and the files they import) that do not
        resolve; an import of a file Claude loads is instructions-import's, not counted here."""
        graph_members = {hop.importer for hop in self.imports.hops} | set(self.imports.loaded)
        graph_members |= {
            file.rel_path for file in self.judged if file.family in ("claude", "gemini")
        }
        documents: list[tuple[str, list[Reference]]] = []
        for file in self.judged:
            documents.append(
                (file.rel_path, _judged(file.references, file.rel_path in graph_members))
            )
        for relative, document in sorted(self.imports.loaded.items()):
            if not any(file.read_as == relative for file in self.judged):
                documents.append((relative, _judged(document.references, True)))
        return self.resolver.judge(documents)

    def unit_of(self, relative: str) -> str | None:
        """The id of the project whose folder holds ``relative`` (the finding's project)."""
        best: tuple[int, str] | None = None
        for project in self.source.projects:
            folder = project.rel_dir
            inside = not folder or relative.startswith(folder + "/")
            if inside and (best is None or len(folder) > best[0]):
                best = (len(folder), project.id)
        return None if best is None else best[1]


def _judged(references: tuple[Reference, ...], imports_loaded: bool) -> list[Reference]:
    """The references reference-missing judges: a file an agent loads through imports has its
    ``@`` imports judged by instructions-import instead (said once)."""
    if not imports_loaded:
        return list(references)
    return [reference for reference in references if reference.kind != IMPORT]


def record_references(project: Project, procedural: Procedural) -> list[Unresolved]:
    """The references of a project's records that do not resolve (docs/references.md): its
    working-memory file, its reference file and topics, and the entries of its log dated
    after the record's own date (older entries are history: they cite what was there then).
    A record that is an instruction file is the procedural tier's, judged there once.

    Most records name nothing: a document without a reference costs no more than asking.
    """
    named = [
        (document, document.references)
        for document in (project.context, project.reference, *project.topics)
        if document.exists and document.problem is None
    ]
    logs = [
        (log, log.references)
        for log in project.session_logs
        if log is not project.context and log.exists and log.problem is None
    ]
    if not any(references for _, references in named + logs):
        return []
    instruction_paths = {file.rel_path for file in procedural.files}
    header = project.header_last_session
    since = header[1] if header is not None else None
    documents: list[tuple[str, list[Reference]]] = []
    for document, references in named:
        if not references or document.rel_path in instruction_paths:
            continue
        known = {
            entry.line: entry.date
            for entry in project.session_entries
            if entry.path == document.rel_path
        }
        past = past_entry_lines(document, since, known) + history_lines(document)
        documents.append((document.rel_path, [r for r in references if not _inside(r.line, past)]))
    for log, references in logs:
        if since is None or not references or log.rel_path in instruction_paths:
            continue
        ranges = newer_entry_lines(project, log.rel_path, since)
        if ranges:
            documents.append((log.rel_path, [r for r in references if _inside(r.line, ranges)]))
    return procedural.resolver.judge(documents)


def past_entry_lines(
    document: Document, since: date | None, known: dict[int, date | None]
) -> list[tuple[int, int]]:
    """The lines ([first, end)) of a record's own dated entries (a heading or a table row
    that starts with a date, or that the layout reads as a log entry: ``known``, by line)
    not dated after ``since``: the record's history, which cites what was there then. With
    no record date, every dated entry is history."""
    headings = document.headings
    ranges: list[tuple[int, int]] = []
    for at, heading in enumerate(headings):
        found = session_date(heading.text.lstrip("[(*_ \t"))  # `## [2026-08-21] ...` too
        if heading.line in known:
            day = known[heading.line]
        elif found is not None:
            day = found[1]
        else:
            continue
        if since is not None and day is not None and day > since:
            continue
        end = next((h.line for h in headings[at + 1 :] if h.level <= heading.level), 1 << 30)
        ranges.append((heading.line, end))
    for row in document.dated_rows:
        found = session_date(row.first_cell)
        if found is not None and (since is None or found[1] is None or found[1] <= since):
            ranges.append((row.line, row.line + 1))
    heading_lines = {heading.line for heading in headings}
    for line, day in known.items():  # entries that are not headings (a dated list item)
        if line not in heading_lines and (since is None or day is None or day <= since):
            ranges.append((line, line + 1))
    return ranges


_HISTORY_HEADING = LazyPattern(
    r"\b(?:completed?|done|shipped|finished|changes|changed|changelog|history|touched"
    r"|archived?|recently|log)\b",
    re.IGNORECASE,
)


def history_lines(document: Document) -> list[tuple[int, int]]:
    """A record's lines that say what was done, not what is: a checked task item (``- [x]``)
    and a section whose heading names past work (``## Completed``, ``## Files touched this
    session``, ``## Changelog``): they cite what was there then."""
    ranges = [(item.line, item.line + 1) for item in document.list_items if item.checked]
    headings = document.headings
    for at, heading in enumerate(headings):
        if heading.level >= 2 and _HISTORY_HEADING.search(heading.text):  # not the title
            end = next((h.line for h in headings[at + 1 :] if h.level <= heading.level), 1 << 30)
            ranges.append((heading.line, end))
    return ranges


def newer_entry_lines(project: Project, rel_path: str, since: date) -> list[tuple[int, int]]:
    """The lines ([first, end)) of the log entries in ``rel_path`` dated after ``since``."""
    entries = sorted(
        (entry for entry in project.session_entries if entry.path == rel_path),
        key=lambda entry: entry.line,
    )
    ranges: list[tuple[int, int]] = []
    for at, entry in enumerate(entries):
        end = entries[at + 1].line if at + 1 < len(entries) else 1 << 30
        if entry.date is not None and entry.date > since:
            ranges.append((entry.line, end))
    return ranges


def _inside(line: int, ranges: list[tuple[int, int]]) -> bool:
    return any(first <= line < end for first, end in ranges)
