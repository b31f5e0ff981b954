"""Prepare a corpus (DESIGN "the one pipeline"): read each tier file once, take its facts from the cache or parse them, in parallel when it pays."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from context_doctor.cache.codec import encode
from context_doctor.cache.store import MAX_KEPT_DOCUMENTS, Entries, Store, decode_entry
from context_doctor.freshness.files import declares_in_bytes
from context_doctor.git.facts import RepositoryFacts
from context_doctor.model import document_facts
from context_doctor.model.document_facts import DocumentFacts
from context_doctor.model.documents import Document
from context_doctor.model.source import Corpus

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# -- document facts: the cache, then parsing (in parallel when it pays) --------------

# A pool pays for its start-up only over enough work.
POOL_MIN_FILES = 200
POOL_MIN_BYTES = 1 << 20


def _parse(job: tuple[bytes, bool]) -> DocumentFacts:
    raw, links = job
    return document_facts.facts_of_bytes(raw, links)


def _parse_packed(job: tuple[bytes, bool]) -> bytes:
    """Runs in a worker process: pure, so nothing but bytes crosses over, both ways.

    The facts come back as their cache encoding, not pickled: unpickled, a corpus's facts
    took about ten times the bytes of its files in the parent; packed, less than the files,
    and each document decodes its own when a check asks (``Document.keep_packed``).
    """
    raw, links = job
    return encode(document_facts.facts_of_bytes(raw, links))


def _document_key(raw: bytes, links: bool) -> bytes:
    return hashlib.blake2b(raw, digest_size=20).digest() + (b"L" if links else b"-")


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _start_parsing(
    todo: list[tuple[bytes, bool]], jobs: int
) -> tuple[Iterator[DocumentFacts | bytes], ProcessPoolExecutor | None]:
    """The facts of ``todo`` in order: lazily in this process, or already under way in a pool.

    The pool is used only when it pays (enough files and bytes, more than one job).
    Its workers are forked here, at once (``map`` submits every chunk), so they start
    with markdown-it imported and configured, and before the caller starts any thread.
    """
    size = sum(len(raw) for raw, _ in todo)
    if jobs <= 1 or len(todo) < POOL_MIN_FILES or size < POOL_MIN_BYTES:
        return map(_parse, todo), None  # a few files: their facts held as they are
    # Imported only here: a small source never starts a pool (a cold start).
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    document_facts.load_parsers()  # once, here: every forked worker starts with them
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork"))
    chunk = max(8, len(todo) // (jobs * 8))
    return pool.map(_parse_packed, todo, chunksize=chunk), pool


@dataclass
class Preparation:
    """What :func:`prepare` set up; :meth:`finish` writes the caches back."""

    stores: dict[Path, Store] = field(default_factory=dict)
    documents: dict[Path, dict[bytes, msgspec.Raw | DocumentFacts]] = field(default_factory=dict)
    dirty: set[Path] = field(default_factory=set)

    def finish(self) -> None:
        """Write back what changed: document facts, memos (the history writes itself)."""
        for toplevel, store in sorted(self.stores.items()):
            if toplevel in self.dirty:
                store.save_documents(self.documents[toplevel], DocumentFacts._fields)
            store.save_memos()


def prepare(
    repositories: Iterable[RepositoryFacts],
    documents_by_repository: Iterable[tuple[RepositoryFacts, list[Document]]],
    *,
    jobs: int | None = None,
    look: Callable[[Document, bytes], None] | None = None,
) -> Preparation:
    """Fill in every document's facts before the checks ask, and start the history passes.

    Where a repository has a store (``discover(cache=True)``), facts come from it
    when the bytes are unchanged and the history from the stored pass (see the
    module docstring).  What is left is parsed, in ``jobs`` worker processes when
    there is enough of it; meanwhile each repository's ``git log`` runs on a thread.
    ``look`` is shown each document's bytes as they are read (nothing reads them twice).
    """
    preparation = Preparation()
    repositories = list(repositories)
    for facts in repositories:
        if isinstance(facts.store, Store):
            preparation.stores[facts.repository.toplevel] = facts.store
    todo: list[tuple[bytes, bool]] = []
    waiting: list[tuple[Document, bytes | None, Path]] = []
    used: dict[Path, dict[bytes, msgspec.Raw | DocumentFacts]] = {}
    for facts, listed in documents_by_repository:
        toplevel = facts.repository.toplevel
        store = preparation.stores.get(toplevel)
        stored: Entries = store.load_documents(DocumentFacts._fields) if store is not None else {}
        kept = used.setdefault(toplevel, {})
        for document in listed:
            raw = document.read_bytes()
            if isinstance(raw, str):
                continue  # unreadable: the document reports it itself when asked
            if look is not None:
                look(document, raw)
            key = _document_key(raw, document.wants_links) if store is not None else None
            if key is not None and key in stored:
                found = decode_entry(stored[key], DocumentFacts, "document")
                if found is not None:  # an entry that does not decode is parsed again
                    document.keep_packed(stored[key])  # decoded again when asked
                    kept[key] = stored[key]  # written back as the bytes it was read as
                    continue
            waiting.append((document, key, toplevel))
            todo.append((raw, document.wants_links))
        if store is not None:
            preparation.documents[toplevel] = dict(stored)
    results, pool = _start_parsing(todo, jobs or default_jobs())
    try:
        for facts in repositories:
            facts.start_history()  # after the pool has forked: no thread exists in a fork
        for (document, digest, toplevel), parsed in zip(waiting, results, strict=True):
            entry: msgspec.Raw | DocumentFacts
            if isinstance(parsed, bytes):
                document.keep_packed(parsed)
                entry = msgspec.Raw(parsed)  # written to the cache as it came
            else:
                document.__dict__["facts"] = entry = parsed  # encoded when the cache is written
            if digest is not None:
                used[toplevel][digest] = entry
                preparation.dirty.add(toplevel)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    # Entries of other runs (other --project selections, older contents) are kept until
    # the file would pass MAX_KEPT_DOCUMENTS; then only this run's are.
    for toplevel in preparation.dirty:
        before, kept = preparation.documents[toplevel], used[toplevel]
        too_many = len(before) + len(kept) > MAX_KEPT_DOCUMENTS
        preparation.documents[toplevel] = kept if too_many else {**before, **kept}
    # Nothing new for a repository: its file still serves, so what was read is let go
    # now rather than held (tens of MB at 2,000 projects) until the audit ends.
    for toplevel in set(preparation.documents) - preparation.dirty:
        del preparation.documents[toplevel]
    return preparation


def prepare_corpus(corpus: Corpus, *, jobs: int | None, procedural: bool = False) -> Preparation:
    """Every tier document's facts (cached or parsed in parallel) before the checks ask;
    ``procedural``: the instruction files' too (docs/references.md), once per repository.

    Memory vaults first (docs/vaults.md): their notes are read and parsed the same way, before
    any pool or history thread of the documents' pass exists.
    """
    if corpus.vaults:  # the vault modules (PyYAML among them) load only for a vault
        from context_doctor.vault.model import assign_floors, prepare_vault

        for vault in corpus.vaults:
            prepare_vault(vault, jobs=jobs or default_jobs())
        assign_floors(corpus.vaults)
    repositories = {
        id(source.repository_facts()): source.repository_facts() for source in corpus.sources
    }
    by_repository: dict[int, list[Document]] = {key: [] for key in repositories}
    seen_repositories: set[Path] = set()
    for source in corpus.sources:
        listed = by_repository[id(source.repository_facts())]
        for project in source.projects:
            if project.directory_exists:
                listed.extend(project.tier_documents())
        if procedural and source.repository.toplevel not in seen_repositories:
            seen_repositories.add(source.repository.toplevel)
            known = {id(document) for document in listed}
            listed.extend(d for d in source.procedural.documents() if id(d) not in known)
    # The freshness walk's first look at each tier file, from the bytes read here.
    heads: dict[str, bool] = {}
    for source in corpus.sources:
        source.known_heads = heads

    def look(document: Document, raw: bytes) -> None:
        heads[str(document.path)] = declares_in_bytes(raw)

    return prepare(
        repositories.values(),
        [(repositories[key], listed) for key, listed in by_repository.items()],
        jobs=jobs,
        look=look,
    )
