"""The caches' codec (msgspec): what goes in comes back equal and of its own types, and
anything else, even under the user's own tag, is a miss for that entry or that file."""

from __future__ import annotations

import hashlib
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import Doctor, MakeRepo, read_cache, write_cache

from context_doctor.cache import codec, history_wire, replay, store
from context_doctor.git.commits import Commit, Scope
from context_doctor.model.document_facts import (
    AsOfLine,
    DocumentFacts,
    HeaderField,
    Heading,
    Link,
    ListItem,
    facts_of_bytes,
    facts_of_text,
)
from context_doctor.model.index import Index, IndexEntry
from context_doctor.pipeline.prepare import _document_key

TODAY = "2026-06-02"

# Lines that exercise every kind of fact: headings (ATX and a field above `---`), fields,
# items with and without boxes, as-of markers, code, links, suppressions, secrets,
# current-state labels, releases, merge markers, attributions.
LINES = [
    "# Title",
    "## Current State",
    "**Status:** Active **Phase:** round 3",
    "Last session: 2025-11-02",
    "---",
    "- [ ] open item",
    "- [x] done item",
    "* plain bullet",
    "1. numbered",
    "*State as of: 2025-11-01 round 3*",
    "```",
    "    indented code",
    "See [the guide](guide.md) and <https://example.org>.",
    "[ref]: https://example.org/ref",
    "<!-- context-doctor: disable-next-line context-budget -->",
    "<!-- context-doctor: disable-file -->",
    "password = 'hunter2hunter2hunter2'",
    "AKIAIOSFODNN7EXAMPLE",
    "Current version: 2.3.1",
    "We shipped v1.4.0 today.",
    "<<<<<<< HEAD",
    "Attribution: someone",
    "",
]

TEXTS = st.lists(st.one_of(st.sampled_from(LINES), st.text(max_size=40)), max_size=30).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda end: end.join(lines)),
)


def round_trip(facts: DocumentFacts) -> DocumentFacts:
    return codec.decode(codec.encode(facts), DocumentFacts)


@settings(max_examples=150, deadline=None)
@given(text=TEXTS, links=st.booleans())
def test_document_facts_round_trip_equal_and_of_their_types(text: str, links: bool) -> None:
    facts = facts_of_text(text, links)
    again = round_trip(facts)
    assert again == facts
    assert type(again) is DocumentFacts
    for name, record in (
        ("headings", Heading),
        ("list_items", ListItem),
        ("header_fields", HeaderField),
        ("as_of_lines", AsOfLine),
    ):
        assert all(type(item) is record for item in getattr(again, name)), name
    assert all(type(link) is Link for link in again.links or ())
    assert all(type(row) is tuple for row in again.code_ranges)


@given(raw=st.binary(max_size=300))
def test_the_facts_of_any_bytes_round_trip(raw: bytes) -> None:
    facts = facts_of_bytes(raw)
    assert round_trip(facts) == facts


def test_forged_facts_are_refused_cell_by_cell() -> None:
    """Each field is decoded against its type: a bool is no line number, an int no checkbox."""
    wire = msgspec.msgpack.decode(codec.encode(facts_of_text("# T\n\n- [ ] a\n- b\n")))
    items = DocumentFacts._fields.index("list_items")
    line_count = DocumentFacts._fields.index("line_count")

    def forged(position: int, value: Any) -> bytes:
        copied = msgspec.msgpack.decode(msgspec.msgpack.encode(wire))
        copied[position] = value
        return msgspec.msgpack.encode(copied)

    for data in (
        forged(line_count, True),
        forged(line_count, "4"),
        forged(items, [[True, "a", False]]),  # a bool is not a line number
        forged(items, [[3, "- [ ] a", 1]]),  # nor an int a checkbox
        forged(items, [[3, "a"]]),  # a record missing a field
        forged(items, [[3, "a", None, "extra"]]),
        forged(items, "items"),
        msgspec.msgpack.encode(wire[:-1]),  # a field missing
        msgspec.msgpack.encode(dict(zip(DocumentFacts._fields, wire, strict=True))),
        msgspec.msgpack.encode(wire)[:-1],  # truncated
    ):
        with pytest.raises(ValueError):
            codec.decode(data, DocumentFacts)


def test_the_commit_row_is_the_commits_fields_in_order() -> None:
    """The history's row type follows ``Commit`` (times as ISO text): a new field must
    change both, and the history's cache key names the fields."""
    cells = {"str": str, "int": int, "bool": bool, "datetime": str}
    assert get_args(history_wire.CommitRow) == tuple(
        cells[str(item.type)] for item in fields(Commit)
    )


def test_a_memo_keeps_exact_types_only(tmp_path: Path) -> None:
    """A path comes back a path; a subclass of float or int (what ruamel's round-trip
    loader gives for `1.50` or `0x1F`) is not cached: it could print differently."""
    from ruamel.yaml.scalarfloat import ScalarFloat

    entry = IndexEntry(1, 2, {"id": "a", "n": [1, 2.5, None, True, b"\x00"]}, "a")
    index = Index(Path("/x/\udcff/index.yaml"), "projects/index.yaml", [entry], [])
    memo = store.Store(tmp_path / "cache")
    memo.keep("index", b"text", index)
    memo.keep(
        "index",
        b"float",
        Index(Path("/x"), "i", [IndexEntry(1, 2, {"n": ScalarFloat(1.5)}, None)], []),
    )
    memo.save_memos()
    again = store.Store(tmp_path / "cache")
    assert again.recall("index", Index, b"text") == index
    assert again.recall("index", Index, b"float") is None


# -- whole runs: one bad entry is a miss for it alone, a bad file for the file -------

HEADER = "# {name}\n\n**Status:** Active\n**Last session:** 2026-06-01\n\n## Current State\n"


def two_over_budget(make_repo: MakeRepo) -> tuple[Path, dict[str, bytes]]:
    """Two live projects whose CONTEXT.md is over its budget; each file's bytes."""
    filler = "".join(f"- note {number}\n" for number in range(200))
    contexts = {name: (HEADER.format(name=name) + filler).encode() for name in ("alpha", "beta")}
    files = {f"projects/{name}/CONTEXT.md": raw.decode() for name, raw in contexts.items()}
    index = "projects:\n" + "".join(
        f"  - id: {name}\n    status: active\n    last_session: 2026-06-01\n" for name in contexts
    )
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "message": "start",
                    "files": {"projects/index.yaml": index, **files},
                }
            ]
        }
    )
    return root, contexts


def cache_dir(root: Path) -> Path:
    return root / ".git" / "context-doctor" / "cache"


def budget_projects(doctor: Doctor, root: Path, *extra: str) -> tuple[list[str], str]:
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", *extra)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return sorted(f["project"] for f in run.findings("context-budget")), run.stderr


def test_a_wrongly_typed_entry_under_a_valid_tag_is_a_miss_and_the_others_are_used(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root, contexts = two_over_budget(make_repo)
    assert budget_projects(doctor, root, "--no-cache")[0] == ["alpha", "beta"]
    budget_projects(doctor, root)  # writes the cache
    path = cache_dir(root) / store.DOCUMENTS_FILE
    stored = read_cache(path)
    alpha, beta = (_document_key(contexts[name], True) for name in ("alpha", "beta"))
    assert {alpha, beta} <= set(stored["data"])
    # Under the user's own tag (as if their doctor wrote it): beta's entry says its file
    # is six lines long, alpha's is of the wrong types.
    short = msgspec.msgpack.decode(codec.encode(facts_of_text(HEADER.format(name="beta"), True)))
    stored["data"][beta] = short
    stored["data"][alpha] = [None, "many", True]
    write_cache(path, stored)
    (cache_dir(root) / replay.REPORTS_FILE).unlink()
    found, stderr = budget_projects(doctor, root, "--debug")
    # alpha was parsed again (its defect found); beta's entry, believed, was used.
    assert found == ["alpha"]
    assert stderr.count("a cached document ignored") == 1
    rewritten = read_cache(path)["data"]
    assert rewritten[beta] == short
    assert rewritten[alpha] != [None, "many", True]


def _sealed(path: Path, body: bytes) -> None:
    from context_doctor.cache.secret import machine_secret

    secret = machine_secret()
    assert secret is not None
    path.write_bytes(store.seal(secret, path.name, body))


def test_a_truncated_file_under_a_valid_tag_is_a_miss(doctor: Doctor, make_repo: MakeRepo) -> None:
    root, _ = two_over_budget(make_repo)
    truth = budget_projects(doctor, root, "--no-cache")[0]
    budget_projects(doctor, root)
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE, store.MEMO_FILE, replay.REPORTS_FILE):
        path = cache_dir(root) / name
        body = codec.encode(read_cache(path))
        _sealed(path, body[: len(body) // 2])
    found, stderr = budget_projects(doctor, root, "--debug")
    assert found == truth
    assert "Traceback" not in stderr
    assert stderr.count("not a cache file") >= 3  # every file read was a miss as a whole
    assert budget_projects(doctor, root) == (truth, "")  # and it was rewritten


def _format_2_file(path: Path, secret: bytes, data: Any) -> None:
    """A cache file as format 2 wrote it: its header, its tag (over the name and body)."""
    key = store.cache_key().replace(f"format {store.CACHE_FORMAT}", "format 2")
    body = msgspec.msgpack.encode({"key": key, "data": data})
    mac = hashlib.blake2b(key=secret, digest_size=store.TAG_BYTES, person=b"cd-cache")
    name = path.name.encode()
    mac.update(len(name).to_bytes(8, "little") + name)
    mac.update(body)
    path.write_bytes(b"context-doctor cache 2\n" + mac.digest() + body)


def test_a_cache_of_the_previous_format_is_ignored(doctor: Doctor, make_repo: MakeRepo) -> None:
    from context_doctor.cache.secret import machine_secret

    secret = machine_secret()
    assert secret is not None
    root, contexts = two_over_budget(make_repo)
    truth = budget_projects(doctor, root, "--no-cache")[0]
    budget_projects(doctor, root)
    # Format 2's facts were lists; even well-formed ones must not be read as format 3's.
    short = msgspec.msgpack.decode(codec.encode(facts_of_text("# A\n")))
    planted = {_document_key(raw, True): short for raw in contexts.values()}
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE, store.MEMO_FILE, replay.REPORTS_FILE):
        _format_2_file(cache_dir(root) / name, secret, planted)
    kept = store.Store(cache_dir(root))
    assert (
        kept.read(
            store.DOCUMENTS_FILE, kept._documents_key(DocumentFacts._fields), dict[bytes, Any]
        )
        is None
    )
    # Its body under this format's header does not verify either (the header is tagged).
    path = cache_dir(root) / store.DOCUMENTS_FILE
    old = path.read_bytes()
    path.write_bytes(old.replace(b"cache 2\n", f"cache {store.CACHE_FORMAT}\n".encode(), 1))
    assert (
        kept.read(
            store.DOCUMENTS_FILE, kept._documents_key(DocumentFacts._fields), dict[bytes, Any]
        )
        is None
    )
    found, stderr = budget_projects(doctor, root, "--debug")
    assert found == truth
    assert "Traceback" not in stderr
    assert budget_projects(doctor, root) == (truth, "")
    assert path.read_bytes().startswith(f"context-doctor cache {store.CACHE_FORMAT}\n".encode())


def test_a_stored_history_shares_offsets_and_equal_times() -> None:
    """Decoded, each offset is held once and a commit authored when committed holds one
    time for both, the times equal to the ones stored."""
    rows: list[history_wire.CommitRow] = [
        ("a" * 40, 1, "2026-05-01T10:00:00+02:00", "2026-05-01T10:00:00+02:00", 1, 0, False, False),
        ("b" * 40, 1, "2026-05-02T09:00:00+02:00", "2026-05-02T11:00:00+00:00", 1, 0, False, False),
    ]
    wire = history_wire.HistoryWire("c" * 40, 2, rows, [["CONTEXT.md"]], [(0, "p", [0, 1], [0, 0])])
    decoded = codec.decode(codec.encode(wire), history_wire.HistoryWire)
    _head, history = history_wire.history_from_wire(decoded, (Scope("projects"),))
    first, second = history.log
    assert first.authored is first.committed
    assert first.authored.tzinfo is second.authored.tzinfo
    assert [c.authored.isoformat() for c in history.log] == [row[2] for row in rows]
    assert [c.committed.isoformat() for c in history.log] == [row[3] for row in rows]
