"""The caches' codec alone: reading and writing a repository's document and history caches.

Runs in one process against a repository whose caches a previous ``check`` wrote
(``check --source REPO --today 2025-12-01 --json`` once, with the cache)::

    python benchmarks/cache_codec.py /tmp/codec/kb-2000 --rounds 7

Prints the median of ``--rounds`` for each step (the collector paused, as in an audit):

* **documents read**: the file read, its tag checked, every entry decoded into
  ``DocumentFacts`` (what a warm + 1 run does before its checks);
* **documents write**: every entry encoded, tagged and written (what a cold run does after
  parsing), through the one write path;
* **history read** / **history write**: ``Store.load_history`` / ``Store.save_history`` of
  the whole pass (a write after an amend or a rebase; a resumed pass converts only the new
  commits).

It works with the hand-written msgpack codec too (main before #22 item 7, which had
``facts_from_wire``), so the same script measures before and after: run it with each
version's interpreter on its own copy of the repository (each version ignores the other's
cache).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from context_doctor.cache.store import DOCUMENTS_FILE, HISTORY_FILE, Store
from context_doctor.git.commits import Scope
from context_doctor.git.repository import Repository
from context_doctor.model.document_facts import DocumentFacts


def _median(rounds: int, step: Callable[[], object]) -> float:
    """The median time of ``step``, the collector paused as an audit pauses it
    (``prepare.paused_collection``): with it running, most of a decode's time is the
    collector walking the records just built."""
    times = []
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            started = time.perf_counter()
            step()
            times.append(time.perf_counter() - started)
        finally:
            gc.enable()
    return statistics.median(times)


def _entry_codec() -> tuple[Callable[[Any], DocumentFacts], Callable[[DocumentFacts], Any]]:
    """How this version turns a stored entry into facts and facts into what it stores."""
    try:  # the hand-written codec (before #22 item 7)
        from context_doctor.model.documents import (  # type: ignore[attr-defined]
            facts_from_wire,
            facts_to_wire,
        )
    except ImportError:
        from context_doctor.cache.codec import decode

        return (lambda entry: decode(entry, DocumentFacts)), (lambda facts: facts)
    return facts_from_wire, facts_to_wire


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    store = Store.for_repository(Repository(args.repo.resolve()))
    if store.directory is None or not (store.directory / DOCUMENTS_FILE).is_file():
        sys.exit(f"no {DOCUMENTS_FILE} under {args.repo}: run `context-doctor check` there first")
    from_entry, to_entry = _entry_codec()
    scopes = (Scope("projects"),)

    def read_documents() -> dict[bytes, DocumentFacts]:
        return {
            key: from_entry(value)
            for key, value in store.load_documents(DocumentFacts._fields).items()
        }

    facts = read_documents()
    loaded = store.load_history(scopes)
    if loaded is None:
        sys.exit(f"no usable {HISTORY_FILE} under {args.repo}")
    head, history = loaded
    sizes = {
        name: (store.directory / name).stat().st_size for name in (DOCUMENTS_FILE, HISTORY_FILE)
    }
    print(
        f"{len(facts)} documents, {history.commits} commits; "
        + ", ".join(f"{name} {size:,} bytes" for name, size in sizes.items())
    )
    rows = [
        ("documents read (tag + decode)", _median(args.rounds, read_documents)),
        (
            "documents write (encode + tag + write)",
            _median(
                args.rounds,
                lambda: store.save_documents(
                    {k: to_entry(v) for k, v in facts.items()}, DocumentFacts._fields
                ),
            ),
        ),
        ("history read", _median(args.rounds, lambda: store.load_history(scopes))),
        ("history write", _median(args.rounds, lambda: store.save_history(scopes, head, history))),
    ]
    for what, seconds in rows:
        print(f"{what:40} {seconds * 1000:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
