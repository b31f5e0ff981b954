"""Where a project's files are: its folder, listed once, its documents, and what must travel.

The files (the working-memory file, the reference, topics, the logs), found through the
layout and one listing per folder (model/listing.py), and the durability questions asked
of them (what resolves outside the repository, what is uncommitted, what has the wrong
shape). What the files say is :class:`context_doctor.model.project.Project`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from context_doctor.git.commits import Scope
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.repository import Repository
from context_doctor.guards.limits import kind_of, resolves_within
from context_doctor.layouts import IN_CONTEXT, MEMORY_BANK, SEED, Layout
from context_doctor.model.documents import Document
from context_doctor.model.index import Index, IndexEntry
from context_doctor.model.listing import Listing
from context_doctor.model.sessions import (
    NOT_LOGS,
)
from context_doctor.write.batch import is_batch_leftover, is_journal_name

if TYPE_CHECKING:
    from context_doctor.model.procedural import Procedural


class ProjectSource(Protocol):
    """What a project asks of the source holding it (:class:`context_doctor.model.source.Source`).

    A protocol rather than an import, so the source (which lists its projects) and the
    project do not import each other.
    """

    name: str
    repository: Repository
    index: Index | None
    layout: Layout

    @property
    def is_single_project(self) -> bool: ...

    @property
    def scope(self) -> Scope: ...

    @property
    def index_rel_path(self) -> str: ...

    def repository_facts(self) -> RepositoryFacts: ...

    @property
    def procedural(self) -> Procedural: ...


class ProjectFiles:
    """A project's files: every property is lazy and cached, and no file is read twice."""

    def __init__(
        self,
        source: ProjectSource,
        project_id: str,
        directory: Path,
        entry: IndexEntry | None,
        duplicate_entries: list[IndexEntry] | None = None,
    ) -> None:
        self.source = source
        self.id = project_id
        self.directory = directory
        self.entry = entry
        self.duplicate_entries = duplicate_entries or []
        self.layout = source.layout

    def __repr__(self) -> str:
        return f"Project({self.source.name}/{self.id})"

    def relative(self, path: Path) -> str:
        return self.source.repository.relative(path)

    @cached_property
    def rel_dir(self) -> str:
        return self.relative(self.directory)

    @property
    def cli_dir(self) -> str:
        """The project as a command argument: ``.`` for a repository-root project, never empty."""
        return self.rel_dir or "."

    def path_to(self, relative: str) -> str:
        """``relative`` inside the project, repository-relative (no leading ``/`` at the root)."""
        return f"{self.rel_dir}/{relative}" if self.rel_dir else relative

    def document(self, *parts: str, links: bool = False) -> Document:
        return self._document(self.directory.joinpath(*parts), links)

    def _document(
        self,
        path: Path,
        links: bool = False,
        *,
        plain_in: Listing | None = None,
        rel_path: str | None = None,
    ) -> Document:
        """A tier document that is never read through a symlink leaving the repository.

        ``plain_in``: the listing of a folder that resolves to itself inside the
        repository, holding the document's name; when it lists the name as no symlink,
        the document exists exactly when the entry is a file, and it is inside.
        """
        entry = plain_in.plain(path.name) if plain_in is not None else None
        document = Document(
            path,
            self.relative(path) if rel_path is None else rel_path,
            self.source.repository.toplevel,
            links=links,
            listed_file=None if entry is None else entry.is_file(follow_symlinks=False),
        )
        self._documents_by_path[path] = document
        return document

    @cached_property
    def _documents_by_path(self) -> dict[Path, Document]:
        """The tier documents made so far: whether each resolves inside is asked once."""
        return {}

    @cached_property
    def _listing(self) -> Listing:
        return Listing(self.directory)

    @cached_property
    def _resolves_to_itself(self) -> bool:
        """The directory lies lexically inside the repository and no symlink is on the way.

        Then a name its listing shows as no symlink resolves inside the repository
        without a ``realpath`` of its own (one ``lstat`` per project instead of a
        ``realpath`` per file).
        """
        return self.source.repository.no_symlink_below_top(str(self.directory))

    @cached_property
    def _lexical_rel_dir(self) -> str | None:
        """The directory's repository-relative path when it lies lexically inside."""
        return self.source.repository.lexically_relative(str(self.directory))

    def _rel_in(self, folder: str | None, name: str) -> str | None:
        """The relative path of ``name`` in the directory (or its ``folder``), by joining."""
        base = self._lexical_rel_dir
        if base is None:
            return None
        parts = [part for part in (base, folder, name) if part]
        return "/".join(parts)

    def _folder(self, name: str) -> Listing:
        """The listing of the project's ``name`` folder (sessions/ or reference/), read once."""
        listings = self._folders
        listing = listings.get(name)
        if listing is None:
            listing = listings[name] = Listing(self._listing.path(name))
        return listing

    @cached_property
    def _folders(self) -> dict[str, Listing]:
        return {}

    def _plain_folder(self, name: str) -> Listing | None:
        """The folder's listing when its files need no ``realpath`` (see _resolves_to_itself)."""
        if self._resolves_to_itself and self._listing.is_plain_dir(name):
            return self._folder(name)
        return None

    @cached_property
    def directory_exists(self) -> bool:
        return self._listing.listed or self.directory.is_dir()

    def _top_document(self, name: str, links: bool) -> Document:
        plain = self._listing if self._resolves_to_itself else None
        return self._document(
            self._listing.path(name), links, plain_in=plain, rel_path=self._rel_in(None, name)
        )

    @cached_property
    def context(self) -> Document:
        # Links too: context-template and structured-state read CONTEXT.md's links, and
        # collected with the other facts they are cached (a warm run parses nothing).
        if self.layout.is_seed:
            return self._top_document("CONTEXT.md", links=True)
        return self._layout_document(self.layout.context, links=True)

    @cached_property
    def reference(self) -> Document:
        if self.layout.is_seed:
            return self._top_document("REFERENCE.md", links=True)
        return self._layout_document(self.layout.reference, links=True)

    def _layout_document(self, path: str | None, links: bool = False) -> Document:
        """A record a layout names (``path`` as the layout writes it); absent when it names none."""
        inner = self.layout.inner(path)
        if inner is None or inner == IN_CONTEXT:
            absent = self.directory / ".no-such-record"
            return Document(absent, self.relative(absent), listed_file=False)
        return self._document(self.directory / inner, links)

    @property
    def context_name(self) -> str:
        """How findings name the working-memory file: ``CONTEXT.md``, ``docs/STATUS.md``."""
        return "CONTEXT.md" if self.layout.is_seed else self.context.rel_path

    @cached_property
    def log_inner(self) -> str | None:
        """The log's path inside the project directory (a folder or a file); None: none, or
        inside the context file (:attr:`log_in_context`)."""
        if self.layout.is_seed:
            return "sessions" if self.has_sessions_dir else None
        inner = self.layout.inner(self.layout.sessions)
        return None if inner == IN_CONTEXT else inner

    @property
    def log_in_context(self) -> bool:
        return not self.layout.is_seed and self.layout.sessions == IN_CONTEXT

    @cached_property
    def is_sharded(self) -> bool:
        return self._listing.is_dir("reference")

    @cached_property
    def topics(self) -> list[Document]:
        if not self.is_sharded:
            return []
        return self._folder_documents("reference", lambda name: not name.startswith("."))

    @cached_property
    def edit_journals(self) -> list[str]:
        """The journals of interrupted batches (``edit apply``) in the project's directory."""
        return sorted(name for name in self._listing.entries if is_journal_name(name))

    @cached_property
    def has_sessions_dir(self) -> bool:
        if not self.layout.is_seed:
            inner = self.log_inner
            return inner is not None and (self.directory / inner).is_dir()
        return self._listing.is_dir("sessions")

    @cached_property
    def session_logs(self) -> list[Document]:
        if not self.layout.is_seed:
            return self._layout_logs()
        if not self.has_sessions_dir:
            return []
        return self._folder_documents("sessions", lambda name: name.lower() not in NOT_LOGS)

    def _layout_logs(self) -> list[Document]:
        """The log of a layout other than the seed's: a folder's Markdown files, one file,
        or the context file itself."""
        if self.log_in_context:
            return [self.context] if self.context.exists else []
        inner = self.log_inner
        if inner is None:
            return []
        path = self.directory / inner
        if path.is_dir():
            listing = Listing(path)
            return [
                self._document(listing.path(name))
                for name in listing.markdown_files()
                if name.lower() not in NOT_LOGS and not name.startswith(".")
            ]
        document = self._document(path)
        return [document] if document.exists else []

    def _folder_documents(self, folder_name: str, keep: Callable[[str], bool]) -> list[Document]:
        """The documents of a tier folder's Markdown files (listed once) that ``keep`` admits."""
        folder = self._folder(folder_name)
        plain = self._plain_folder(folder_name)
        return [
            self._document(
                folder.path(name), plain_in=plain, rel_path=self._rel_in(folder_name, name)
            )
            for name in folder.markdown_files()
            if keep(name)
        ]

    def tier_documents(self) -> list[Document]:
        """Every tier file that exists, in a stable order."""
        candidates = [self.context, self.reference, *self.topics, *self.session_logs]
        unique = {id(document): document for document in candidates}  # an in-file log
        return [document for document in unique.values() if document.exists]

    def resolves_inside_repository(self, path: Path) -> bool:
        """False for a symlink that leaves the repository (or loops)."""
        document = self._documents_by_path.get(path)
        if document is not None:  # the same question its Document asks before reading
            return not document.outside
        if self._listed_plain(path):
            return True
        return resolves_within(path, self.source.repository.toplevel)

    def _listed_plain(self, path: Path) -> bool:
        """``path`` is directly in the directory, or in sessions/ or reference/, and the
        listings show no symlink on the way (see _resolves_to_itself)."""
        if not self._resolves_to_itself:
            return False
        parent = path.parent
        if parent == self.directory:
            return self._listing.plain(path.name) is not None
        if parent.parent == self.directory and parent.name in ("sessions", "reference"):
            folder = self._plain_folder(parent.name)
            return folder is not None and folder.plain(path.name) is not None
        return False

    @cached_property
    def durable_tier_paths(self) -> list[Path]:
        """Every tier file that must travel with the repository (docs/checks.md untracked-context).

        CONTEXT.md, REFERENCE.md, reference/*.md, every sessions/*.md (README.md and
        INDEX.md too: they travel like the logs) and CURRENT_STATE.json, as present on
        disk; symlinks are listed as they are (a dangling one is a shape problem).
        """
        if not self.layout.is_seed:
            documents = [self.context, self.reference, *self.session_logs]
            return list(dict.fromkeys(d.path for d in documents if d.exists))
        listing = self._listing
        found = [
            listing.path(name)
            for name in ("CONTEXT.md", "REFERENCE.md", "CURRENT_STATE.json")
            if listing.is_file(name)
        ]
        for name in ("reference", "sessions"):
            if listing.is_dir(name):
                folder = self._folder(name)
                found.extend(
                    folder.path(file)
                    for file in folder.markdown_files()
                    if not file.startswith(".")
                )
        return found

    @cached_property
    def escaping_tier_files(self) -> dict[str, str]:
        """Tier files whose symlinks resolve outside the repository: relative path -> target."""
        found: dict[str, str] = {}
        for path in self.durable_tier_paths:
            if not self.resolves_inside_repository(path):
                found[self.relative(path)] = str(path.resolve())
        return found

    @cached_property
    def uncommitted_paths(self) -> list[str]:
        # An interrupted batch's journal and staged files are `interrupted-edit`'s: committing
        # them (the remedy for uncommitted work) would ship a half-done batch to every clone.
        changed = self.source.repository_facts().changed_under(self.rel_dir)
        if self.layout.kind != SEED:  # a single project: its records, not the code beside them
            changed = [path for path in changed if self.is_record(path)]
        return [path for path in changed if not is_batch_leftover(path.rsplit("/", 1)[-1])]

    def is_record(self, rel_path: str) -> bool:
        """Whether the repository-relative ``rel_path`` is one of the project's records
        (docs/layouts.md): the seed's tier files (CONTEXT.md, REFERENCE.md,
        CURRENT_STATE.json, sessions/, reference/, resources/artifacts/); another layout's
        record, log and reference, and a memory bank's folder. Present or deleted alike: a
        dirty code file beside them is the user's business, not the doctor's."""
        prefix = f"{self.rel_dir}/" if self.rel_dir else ""
        if not rel_path.startswith(prefix):
            return False
        inner = rel_path[len(prefix) :]
        if self.layout.is_seed:
            return inner in SEED_RECORD_FILES or inner.startswith(SEED_RECORD_FOLDERS)
        layout = self.layout
        folders = [f"{self.log_inner}/"] if self.log_inner and self.has_sessions_dir else []
        if layout.kind == MEMORY_BANK:
            folders.append(f"{(layout.inner(layout.context) or '').rpartition('/')[0]}/")
        return inner in layout.records or inner.startswith(tuple(folders))

    @cached_property
    def shape_problems(self) -> list[tuple[str, str]]:
        """Tier paths of the wrong kind: (repository-relative path, what is wrong)."""
        expected = (
            ("CONTEXT.md", False),
            ("REFERENCE.md", False),
            ("sessions", True),
            ("reference", True),
        )
        found: list[tuple[str, str]] = []
        if not self.layout.is_seed:
            return found  # another layout's files are found by detection, as they are
        listing = self._listing
        for name, directory in expected:
            entry = listing.plain(name)
            if entry is not None:  # listed, no symlink: it exists and the listing knows its kind
                if entry.is_dir(follow_symlinks=False) != directory:
                    wanted = "a directory" if directory else "a file"
                    found.append((self.relative(listing.path(name)), f"is not {wanted}"))
                elif not directory and not entry.is_file(follow_symlinks=False):
                    found.append((self.relative(listing.path(name)), _special(entry)))
                elif directory:
                    # A FIFO among the logs or topics is never read (it would block): said so.
                    folder = self._folder(name)
                    found += [
                        (self.relative(folder.path(inner)), _special(item))
                        for inner, item in sorted(folder.entries.items())
                        if inner.endswith(".md")
                        and not item.is_symlink()
                        and not item.is_file(follow_symlinks=False)
                        and not item.is_dir(follow_symlinks=False)
                    ]
                continue
            if listing.absent(name):
                continue
            path = listing.path(name)
            if path.is_symlink() and not path.exists():
                found.append((self.relative(path), "is a broken or looping symlink"))
            elif path.exists() and path.is_dir() != directory:
                wanted = "a directory" if directory else "a file"
                found.append((self.relative(path), f"is not {wanted}"))
        return found


SEED_RECORD_FILES = frozenset({"CONTEXT.md", "REFERENCE.md", "CURRENT_STATE.json"})
SEED_RECORD_FOLDERS = ("sessions/", "reference/", "resources/artifacts/")


def _special(entry: os.DirEntry[str]) -> str:
    """Why a FIFO, socket or device in a tier file's place is never read."""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return "cannot be examined: it is never read"
    return f"is {kind_of(mode)}, not a regular file: it is never read"
