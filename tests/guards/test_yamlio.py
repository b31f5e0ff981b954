"""yamlio: every YAML file read by libyaml, equal to the round-trip loader, bounded.

Outcomes only, never timings (those are in benchmarks/yaml_benchmark.py): each hostile
text is refused with the right line, or parsed equal to ruamel's own result, and the
slow (pure-Python) parser is never handed what it would spend seconds on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_doctor.errors import DoctorError
from context_doctor.guards import yamlio
from context_doctor.guards.limits import (
    MAX_CAREFUL_YAML_BYTES,
    MAX_YAML_COLLECTIONS,
    MAX_YAML_FILE_BYTES,
)
from context_doctor.guards.yamlio import (
    FastYamlError,
    UnreadableConstruct,
    YamlOverBound,
    YamlTooLarge,
    careful_load,
    fast_load,
    lenient_loader,
    load_yaml_text,
    plain,
)


def same_places(fast: Any, slow: Any, where: str = "$") -> None:
    """Every key, value and item starts where ruamel says, and collections keep its style."""
    if isinstance(slow, dict):
        assert isinstance(fast, dict) and list(fast) == list(slow), where
        assert (fast.lc.line, fast.lc.col) == (slow.lc.line, slow.lc.col), where
        assert fast.fa.flow_style() == slow.fa.flow_style(), where
        for key in slow:
            assert fast.lc.key(key) == tuple(slow.lc.key(key)), (where, key)
            if slow[key] is not None:  # an empty value (`key:`) starts where its `:` ends
                assert fast.lc.value(key) == tuple(slow.lc.value(key)), (where, key)
            same_places(fast[key], slow[key], f"{where}.{key}")
    elif isinstance(slow, list):
        assert isinstance(fast, list) and len(fast) == len(slow), where
        assert (fast.lc.line, fast.lc.col) == (slow.lc.line, slow.lc.col), where
        assert fast.fa.flow_style() == slow.fa.flow_style(), where
        for index, item in enumerate(slow):
            assert fast.lc.item(index) == tuple(slow.lc.item(index)), (where, index)
            same_places(fast[index], item, f"{where}[{index}]")
    else:
        assert type(fast) is type(slow) or isinstance(slow, str), (where, fast, slow)


def index_of(entries: int, tail: str = "") -> str:
    rows = "".join(
        f"  - id: p{n:06}\n    status: active\n    last_session: 2026-06-{n % 28 + 1:02}\n"
        for n in range(entries)
    )
    return f"# Project registry\nprojects:\n{rows}{tail}"


# Shapes real users write, and the scalar forms YAML 1.2 resolves (ruamel's reading).
DOCUMENTS = {
    "an index": index_of(30),
    "scalars": (
        "a: 2026-06-01\nb: 2026-06-01 10:30:00\nc: 2026-06-01T10:30:00Z\nd: 2026-13-45\n"
        "e: 12\nf: 0x1F\ng: 0o17\nh: 1_000\ni: +3\nj: 1.5\nk: 1e3\nl: .inf\nm: .NaN\n"
        "n: true\no: False\np: yes\nq: on\nr: ~\ns: null\nt:\nu: 017\nv: -0.5\nw: '12'\n"
        'x: "true"\ny: true_north\nz: nope\n'
    ),
    "strings": (
        "plain: a plain  string, with # no comment\nsingle: 'it''s'\n"
        'double: "tab\\t, \\u00e9, \\x41, line\\nbreak"\n'
        "literal: |\n  one\n  two\n\nfolded: >-\n  one\n  two\n\n  three\nkeep: |+\n  x\n\n"
        "multi: a plain\n  scalar over\n  lines\n"
    ),
    "flow and nesting": (
        "projects: [{id: a, tags: [x, y]}, {id: b, status: paused}]\n"
        "empty_map: {}\nempty_list: []\nnested:\n  - - a\n    - b\n  - {k: [1, {z: 2}]}\n"
    ),
    "anchors and aliases": (
        "base: &base {status: active, tags: [a]}\nname: &n alpha\n"
        "projects:\n  - *base\n  - id: *n\n    again: *base\n  - &seq [1, 2]\n  - *seq\n"
    ),
    "unicode and line ends": (
        "projects:\r\n  - id: café\r\n    note: 日本語 ✓ 🙂 then value\r\n    x: 🙂🙂 y\r\n"
    ),
    "comments and markers": "--- # start\n# a comment\n- a # trailing\n- b\n...\n",
    "keys that are not text": "1: one\n2026-06-01: a day\nfalse: yes\n? complex scalar\n: v\n",
    "empty document": "# nothing here\n",
    "top-level scalar": "just text\n",
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_libyaml_reads_what_the_round_trip_loader_reads(name: str) -> None:
    text = DOCUMENTS[name]
    fast = fast_load(text)
    slow = lenient_loader().load(text)
    assert plain(fast) == plain(slow)
    same_places(fast, slow)


UNUSUAL = {
    "an explicit tag": ("a: !!str 12\nb: !custom x\n", 0),
    "a merge key": ("base: &b {x: 1}\nitem:\n  <<: *b\n  y: 2\n", 2),
    "a YAML directive": ("%YAML 1.1\n---\na: yes\n", 0),
    "an alias of its own collection": ("a: &x [1, *x]\n", 0),
    "a collection as a key": ("? [a, b]\n: c\n", 0),
}


@pytest.mark.parametrize("name", sorted(UNUSUAL))
def test_what_libyaml_does_not_reproduce_is_read_by_ruamel_in_small_text(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, line = UNUSUAL[name]
    with pytest.raises(UnreadableConstruct) as unusual:
        fast_load(text)
    assert unusual.value.problem_mark is not None and unusual.value.problem_mark.line == line
    # (a tagged scalar is ruamel's TaggedScalar, compared by what it shows)
    assert repr(plain(careful_load(text))) == repr(plain(lenient_loader().load(text)))
    # Past the careful bound the same text is refused with one line, never handed over.
    handed: list[str] = []
    monkeypatch.setattr(yamlio, "MAX_CAREFUL_YAML_BYTES", 8)
    monkeypatch.setattr(yamlio, "lenient_loader", lambda: handed.append(text))
    with pytest.raises(DoctorError) as refused:
        load_yaml_text(text, Path("projects/index.yaml"), "index file")
    assert "\n" not in refused.value.problem and "projects/index.yaml" in refused.value.problem
    assert handed == []


def test_a_duplicate_key_is_ruamels_error_in_small_text_and_one_line_past_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = index_of(3, "  - id: z\n    id: y\n")
    with pytest.raises(DoctorError) as small:
        load_yaml_text(text, Path("i.yaml"), "index file")
    assert "duplicate key" in small.value.problem and "line 13" in small.value.problem
    monkeypatch.setattr(yamlio, "MAX_CAREFUL_YAML_BYTES", 64)
    with pytest.raises(DoctorError) as large:
        load_yaml_text(text, Path("i.yaml"), "index file")
    assert large.value.problem == 'index file i.yaml has the key "id" twice (line 13)'


def test_what_only_ruamel_accepts_is_read_by_it_in_small_text() -> None:
    text = 'a: "\\ud83d"\n'  # a lone surrogate escape: ruamel reads it, libyaml refuses it
    with pytest.raises(FastYamlError):
        fast_load(text)
    assert plain(careful_load(text)) == plain(lenient_loader().load(text))


def test_a_small_syntax_error_is_worded_by_ruamel_as_before() -> None:
    text = "projects:\n  - id: [never closed\n"
    with pytest.raises(DoctorError) as refused:
        load_yaml_text(text, Path("i.yaml"), "index file")
    with pytest.raises(Exception) as ruamel:
        lenient_loader().load(text)
    assert getattr(ruamel.value, "problem", None) in refused.value.problem


# -- hostile text at the cap: refused with its line, or parsed, never by the slow parser --


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    handed: list[int] = []
    real = lenient_loader

    class Counting:
        def __init__(self) -> None:
            self.loader = real()

        def load(self, text: str) -> Any:
            handed.append(len(text))
            return self.loader.load(text)

    monkeypatch.setattr(yamlio, "lenient_loader", Counting)
    return handed


def at_cap(unit: str, head: str = "", tail: str = "") -> str:
    room = MAX_YAML_FILE_BYTES - len(head) - len(tail) - 16
    return head + unit * (room // len(unit)) + tail


def test_a_valid_index_at_the_cap_is_parsed_with_its_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handed = counted(monkeypatch)
    entries = (MAX_YAML_FILE_BYTES - 200) // len(index_of(1)) + 1
    text = index_of(entries)
    while len(text) > MAX_YAML_FILE_BYTES:
        entries -= 100
        text = index_of(entries)
    data = careful_load(text)
    assert len(data["projects"]) == entries
    last = entries - 1
    assert data["projects"].lc.item(last) == (2 + 3 * last, 4)
    assert data["projects"][last]["last_session"].isoformat() == f"2026-06-{last % 28 + 1:02}"
    assert handed == []


def test_a_large_index_is_equal_to_the_slow_parsers_reading() -> None:
    text = index_of(900)  # large enough to be over the careful bound, small enough to compare
    assert len(text) > MAX_CAREFUL_YAML_BYTES / 2
    fast, slow = careful_load(text), lenient_loader().load(text)
    assert plain(fast) == plain(slow)
    same_places(fast, slow)


HOSTILE = {
    # A quote the line scan takes for an opening one hides the nesting from it.
    "deep nesting hidden from the scan": (
        "a: [x ', " + "[" * 100_000 + "]" * 100_000 + "]\n",
        FastYamlError,
        "nest",
    ),
    "deep nesting": ("[" * 200_000 + "]" * 200_000 + "\n", FastYamlError, "line 1"),
    "billion laughs": (
        "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 10))
        + "# padding\n" * 90_000,
        YamlTooLarge,
        "its aliases expand to more than",
    ),
    "many tiny documents": (at_cap("---\na: 1\n"), FastYamlError, "single document"),
    "broken at the end": (
        index_of(9_000, "  - id: [never closed\n  odd: : :\n"),
        FastYamlError,
        "line 27004",
    ),
    "a flow list of empty mappings": (
        at_cap("{}, ", "[", "{}]\n"),
        YamlOverBound,
        f"holds more than {MAX_YAML_COLLECTIONS:,} mappings and lists",
    ),
    "over the size cap": (at_cap("# pad\n") + "x" * 64, YamlOverBound, "is over 1 MiB"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_yaml_at_the_cap_is_refused_with_one_line(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text, refusal, words = HOSTILE[name]
    handed = counted(monkeypatch)
    with pytest.raises(refusal) as refused:
        careful_load(text)
    message = str(refused.value)
    if isinstance(refused.value, FastYamlError) and refused.value.problem_mark is not None:
        message += f" line {refused.value.problem_mark.line + 1}"
    assert words in message, message
    assert handed == []
    with pytest.raises(DoctorError) as exit_2:
        load_yaml_text(text, Path("projects/index.yaml"), "index file")
    assert "\n" not in exit_2.value.problem
    assert exit_2.value.problem.startswith("index file projects/index.yaml ")


def test_a_very_long_scalar_at_the_cap_is_parsed() -> None:
    text = at_cap("x", "projects:\n  - id: a\n    note: ", "\n")
    data = careful_load(text)
    assert len(data["projects"][0]["note"]) > MAX_YAML_FILE_BYTES - 64
    assert data["projects"][0].lc.value("note") == (2, 10)


def test_many_aliases_are_one_object_each_and_counted_not_expanded() -> None:
    rows = "".join(f"  - &e{n} {{id: a{n}, status: active}}\n  - *e{n}\n" for n in range(2_000))
    data = careful_load(f"projects:\n{rows}")
    assert data["projects"][0] is data["projects"][1]
    assert len(plain(data)["projects"]) == 4_000


def test_the_writers_read_the_index_the_same_way() -> None:
    """``check --fix`` and ``log add --set-header`` splice at the positions libyaml gives."""
    from context_doctor.editor.fixes import SetEntryField, set_entry_field

    text = index_of(3).replace("    status: active\n", "    status: active  # kept\n", 1)
    done = set_entry_field(text, SetEntryField(1, "p000000", "status", "paused"))
    assert done == text.replace("status: active  # kept", "status: paused  # kept", 1)
    flow = "projects:\n  - {id: a, status: active}\n"
    with pytest.raises(Exception, match="flow style"):
        set_entry_field(flow, SetEntryField(1, "a", "status", "paused"))
