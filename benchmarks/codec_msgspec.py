"""Would msgspec read the document cache faster than the hand-written codec? (#22 item 7)

Reads a repository's ``documents.msgpack`` (written by a previous ``check``) the way a
warm run does (file read and tag checked in both) — the tag verified, msgpack unpacked, every entry checked and rebuilt as
``DocumentFacts`` (``facts_from_wire``) — and compares it with msgspec decoding the
same facts, encoded by msgspec, into the same typed records (``DocumentFacts`` and its
NamedTuples, validated by msgspec's typed decoder). Also times writing both forms::

    python benchmarks/codec_msgspec.py /work/bench/kb-2000 --rounds 7

Prints the median of ``--rounds`` for each. msgspec must be installed by hand
(``pip install msgspec``): it is not a dependency.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from context_doctor.cache.store import DOCUMENTS_FILE, Store, read_regular_file, seal, unseal
from context_doctor.git.repository import Repository
from context_doctor.model.documents import DocumentFacts, facts_from_wire, facts_to_wire


def _median(rounds: int, step: Callable[[], object]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        step()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    store = Store.for_repository(Repository(args.repo.resolve()))
    path = store.directory / DOCUMENTS_FILE if store.directory else None
    if path is None or not path.is_file():
        sys.exit(f"no {DOCUMENTS_FILE} under {args.repo}: run `context-doctor check` there first")
    wire: dict[bytes, Any] = store.load_documents()
    facts = {key: facts_from_wire(value) for key, value in wire.items()}

    def current_read() -> object:
        return {key: facts_from_wire(value) for key, value in store.load_documents().items()}

    encoded = msgspec.msgpack.encode(facts)
    decoder = msgspec.msgpack.Decoder(dict[bytes, DocumentFacts])
    assert store.secret is not None
    secret = store.secret
    sealed = path.parent / "documents.msgspec-trial"
    sealed.write_bytes(seal(secret, DOCUMENTS_FILE, encoded))

    def msgspec_read() -> object:
        body = unseal(secret, DOCUMENTS_FILE, read_regular_file(sealed))
        assert body is not None
        return decoder.decode(body)

    assert msgspec_read() == facts, "msgspec does not give back the same facts"
    print(
        f"{len(facts)} documents; {path.stat().st_size:,} bytes now, {len(encoded):,} with msgspec"
    )
    rows = [
        ("read: tag + msgpack + facts_from_wire", _median(args.rounds, current_read)),
        ("read: tag + msgspec typed decode", _median(args.rounds, msgspec_read)),
        (
            "write: facts_to_wire + msgpack (no tag)",
            _median(
                args.rounds, lambda: store_encode({k: facts_to_wire(v) for k, v in facts.items()})
            ),
        ),
        (
            "write: msgspec encode (no tag)",
            _median(args.rounds, lambda: msgspec.msgpack.encode(facts)),
        ),
    ]
    for what, seconds in rows:
        print(f"{what:45} {seconds * 1000:8.1f} ms")
    sealed.unlink()
    return 0


def store_encode(value: Any) -> bytes:
    from context_doctor.cache.codec import encode_value

    return encode_value(value)


if __name__ == "__main__":
    sys.exit(main())
