"""One note's facts (context_doctor/vault/memory.py): what Bastra's lenient loader makes of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vault_support import memory

from context_doctor.cache import codec
from context_doctor.vault import EMPTY, MEMORY, PLAIN, REJECTED, UNKNOWN_TYPE, UNREADABLE
from context_doctor.vault.memory import (
    MemoryFacts,
    memory_facts_of_bytes,
    slug_from_filename,
)
from context_doctor.vault.model import Vault, trash_name


def facts(text: str | bytes, name: str = "note.md"):  # type: ignore[no-untyped-def]
    return memory_facts_of_bytes(text.encode() if isinstance(text, str) else text, name)


def test_a_sample_shaped_memory_loads_whole() -> None:
    found = facts(memory("deployment-rollback", body="See [[times-in-utc|UTC]].\n"))
    assert found.status == MEMORY and found.repairs == () and not found.rescued
    assert found.memory_id == "deployment-rollback"
    assert found.links == ((21, "times-in-utc"),)
    assert codec.decode(codec.encode(found), MemoryFacts) == found


def test_yaml_bastras_lenient_loader_rescues_is_reported_never_a_crash() -> None:
    # An unknown escape and a column-zero list: the block is not YAML, its entries are.
    text = memory("rescued").replace('title: "Rescued"', 'title: "it\\\'s here"')
    text = text.replace("recall_when:\n  - before", "recall_when:\n- before")
    found = facts(text)
    assert found.status == MEMORY and found.rescued
    assert found.problem is not None and "line 3" in found.problem
    assert ("title", "not YAML (Bastra drops the entry)") in found.repairs
    assert all(field != "recall_when" for field, _ in found.repairs)


def test_values_are_read_as_bastras_yaml_library_reads_them() -> None:
    text = memory("typed").replace('title: "Typed"', "title: yes")
    text = text.replace("created: 2026-01-01", "created: 2026-13-45")
    found = facts(text)
    assert found.status == MEMORY and found.repairs == ()


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("", EMPTY),
        ("  \n\n", EMPTY),
        ("# A plain Obsidian note\n", PLAIN),
        ("---\ntitle: x\n---\nbody\n", PLAIN),
        ("---\ntype: article\n---\n", PLAIN),
        ("---\nid: x\nrecall_when: [a]\ntype: Lesson\n---\n", UNKNOWN_TYPE),
        ("---\nid: x\ntype: lesson\ntitle: never closed\n", REJECTED),
        ("---\nid: x\ntype: lesson\ntags: [1, 2]\n---\n", REJECTED),
    ],
)
def test_what_bastra_makes_of_a_note(text: str, status: str) -> None:
    assert facts(text).status == status


def test_bytes_that_are_not_text_are_unreadable() -> None:
    assert facts(b"---\nid: x\xff\n---\n").status == UNREADABLE
    assert facts(b"\x00\x01binary").status == UNREADABLE


def test_bom_crlf_and_an_alias_bomb() -> None:
    crlf = "\ufeff" + memory("crlf").replace("\n", "\r\n")
    assert facts(crlf).status == MEMORY
    levels = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        refs = ", ".join([f"*l{level - 1}"] * 10)
        levels.append(f"l{level}: &l{level} [{refs}]")
    bomb = "---\nid: b\ntype: lesson\n" + "\n".join(levels) + "\n---\n"
    found = facts(bomb)  # refused within its node budget, not expanded
    assert found.status in (MEMORY, REJECTED)


def test_a_missing_id_is_derived_the_way_bastra_derives_it() -> None:
    found = facts(memory("x", omit=("id",)), name="Café Notes (1).md")
    assert found.memory_id == slug_from_filename("Café Notes (1).md") == "cafe-notes-1"
    assert ("id", "missing") in found.repairs


def test_trash_names_with_the_versioned_suffix() -> None:
    assert trash_name("old-host.md") == ("old-host", None)
    assert trash_name("old-host.2026-08-23T16-20-37-857Z.md") == (
        "old-host",
        "2026-08-23T16-20-37-857Z",
    )
    assert trash_name("old-host.2026-08-23T16-20-37-857Z-2.md") == (
        "old-host",
        "2026-08-23T16-20-37-857Z-2",
    )
    assert trash_name("foo.bar.md") == ("foo.bar", None)
    assert trash_name("notes.txt") is None


def test_the_walk_is_bastras(tmp_path: Path) -> None:
    (tmp_path / ".bastra").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.md").write_text(memory("one"))
    (tmp_path / "a" / "TWO.MD").write_text(memory("two"))
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "hidden.md").write_text(memory("hidden"))
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "dep.md").write_text(memory("dep"))
    outside = tmp_path.parent / "outside-note.md"
    outside.write_text(memory("outside"))
    os.symlink(outside, tmp_path / "a" / "linked.md")
    vault = Vault("v", tmp_path, None, (tmp_path / "f", tmp_path / "a"))
    assert [note.rel_path for note in vault.notes] == ["a/TWO.MD", "a/one.md"]


@given(st.binary(max_size=400))
def test_any_bytes_give_facts_never_a_traceback(raw: bytes) -> None:
    found = memory_facts_of_bytes(b"---\n" + raw, "x.md")
    assert codec.decode(codec.encode(found), MemoryFacts) == found


@given(st.text(max_size=300))
def test_any_frontmatter_text_gives_facts(text: str) -> None:
    found = memory_facts_of_bytes(f"---\ntype: lesson\n{text}\n---\nbody\n".encode(), "x.md")
    assert found.status in (MEMORY, REJECTED, UNREADABLE, PLAIN, UNKNOWN_TYPE)


def test_frontmatter_past_its_bound_is_never_parsed_and_counts_as_unreadable() -> None:
    # libyaml spent seconds on a few MiB of frontmatter: past 256 KiB it is not parsed.
    from context_doctor.guards.limits import MAX_NOTE_FRONTMATTER_BYTES

    text = memory("huge-memory")
    padding = "".join(f"note_{n:06}: [a, b, c]\n" for n in range(14_000))
    head, rest = text.split("\n", 1)
    oversized = f"{head}\n{padding}{rest}"
    assert len(oversized) > MAX_NOTE_FRONTMATTER_BYTES
    found = facts(oversized, "huge-memory.md")
    assert found.status == UNREADABLE
    assert found.problem == "its frontmatter is over 256 KiB, the most the doctor parses"
    # Control: within the bound the same memory is read.
    within = f"{head}\n{padding[: len(padding) // 2].rsplit(chr(10), 1)[0]}\n{rest}"
    assert facts(within, "huge-memory.md").status == MEMORY
