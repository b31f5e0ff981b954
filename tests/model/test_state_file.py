"""Strict, bounded reading of CURRENT_STATE.json (context_doctor/model/state.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import state_object

from context_doctor.model.state_file import (
    BLOCK_END,
    BLOCK_START,
    MAX_DEPTH,
    content_hashes,
    find_block,
    lexical_inside,
    markdown_files,
    read_state,
    render_block,
    resolve_plan,
    without_block,
)


def write(tmp_path: Path, data: bytes | str) -> Path:
    path = tmp_path / "CURRENT_STATE.json"
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def line_in(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def only_problem(path: Path) -> str:
    reading = read_state(path)
    assert reading.present and reading.unreadable is None and not reading.valid
    assert len(reading.problems) == 1, reading.problems
    return reading.problems[0].message


def test_a_valid_state_reads_with_its_key_lines(tmp_path: Path) -> None:
    text = json.dumps(state_object(), indent=2)
    reading = read_state(write(tmp_path, text))
    assert reading.valid
    assert reading.data is not None and reading.data["project_id"] == "alpha"
    assert reading.key_lines["schema_version"] == 2
    assert reading.key_lines["updated_at"] == line_in(text, '"updated_at"')


def test_absent(tmp_path: Path) -> None:
    reading = read_state(tmp_path / "CURRENT_STATE.json")
    assert not reading.present and not reading.valid


def test_a_directory_is_not_opened(tmp_path: Path) -> None:
    (tmp_path / "CURRENT_STATE.json").mkdir()
    assert only_problem(tmp_path / "CURRENT_STATE.json") == "is a directory, not a regular file"


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    path = tmp_path / "CURRENT_STATE.json"
    os.mkfifo(path)  # opening it for reading would block forever
    assert only_problem(path) == "is a FIFO, not a regular file"


def test_a_symlink_is_not_followed(tmp_path: Path) -> None:
    target = write(tmp_path, json.dumps(state_object()))
    link = tmp_path / "linked" / "CURRENT_STATE.json"
    link.parent.mkdir()
    link.symlink_to(target)
    assert "symlink" in only_problem(link)


def test_ten_megabytes_are_refused_unread(tmp_path: Path) -> None:
    path = write(tmp_path, "[" + "0," * 5_000_000 + "0]")
    assert "over the 256 KiB limit" in only_problem(path)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[]", "a JSON array"),
        ("null", "JSON null"),
        ('"x"', "a JSON string"),
        ("3", "a JSON number"),
    ],
)
def test_not_an_object(tmp_path: Path, text: str, kind: str) -> None:
    assert only_problem(write(tmp_path, text)) == f"is {kind}, not a JSON object"


def test_deep_nesting_is_measured_before_parsing(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000  # would exhaust the recursion limit in json.loads
    assert only_problem(write(tmp_path, deep)) == f"nests deeper than {MAX_DEPTH} levels"


def test_eight_levels_are_allowed(tmp_path: Path) -> None:
    nested: Any = {}
    for _ in range(MAX_DEPTH - 1):
        nested = {"k": nested}
    reading = read_state(write(tmp_path, json.dumps(nested)))
    assert all("nests" not in problem.message for problem in reading.problems)


def test_brackets_inside_strings_do_not_count(tmp_path: Path) -> None:
    state = state_object(phase='[[[[[[[[[[ {{{{{{{{{{ \\" ]')
    assert read_state(write(tmp_path, json.dumps(state))).valid


def test_duplicate_keys(tmp_path: Path) -> None:
    text = json.dumps(state_object())[:-1] + ', "phase": "again"}'
    assert only_problem(write(tmp_path, text)) == "holds the key `phase` twice"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity(tmp_path: Path, constant: str) -> None:
    text = json.dumps(state_object())[:-1] + f', "x": {constant}}}'
    assert constant in only_problem(write(tmp_path, text))


def test_not_json_names_the_line(tmp_path: Path) -> None:
    reading = read_state(write(tmp_path, "{\n this is not json"))
    assert reading.problems[0].message.startswith("is not valid JSON")
    assert reading.problems[0].line == 2


def test_non_utf8_and_binary_are_unreadable(tmp_path: Path) -> None:
    assert read_state(write(tmp_path, b'{"a": "\xff"}')).unreadable == "is not valid UTF-8 (byte 7)"
    assert "NUL" in (read_state(write(tmp_path, b"{\x00}")).unreadable or "")


def test_schema_problems_name_field_and_line(tmp_path: Path) -> None:
    state = state_object(last_session="2026-02-30", extra=1)
    del state["phase"]
    text = json.dumps(state, indent=2)
    reading = read_state(write(tmp_path, text))
    by_field = {problem.field: problem for problem in reading.problems}
    # An unknown key is a warning of its own, never part of an invalid reading.
    assert set(by_field) == {"phase", "last_session"}
    assert by_field["phase"].message == "lacks the required field `phase`"
    assert by_field["last_session"].line == line_in(text, '"last_session"')
    assert reading.unknown_keys == ["extra"]


def test_the_upstream_compilers_project_tree_and_unknown_keys_keep_a_file_valid(
    tmp_path: Path,
) -> None:
    state = state_object(project_tree="a" * 40, compiler_hint="v2")
    reading = read_state(write(tmp_path, json.dumps(state, indent=2)))
    assert reading.valid and not reading.problems
    assert reading.unknown_keys == ["compiler_hint"]
    for bad in ("not-a-sha", 7):
        reading = read_state(write(tmp_path, json.dumps(state_object(project_tree=bad))))
        assert [problem.field for problem in reading.problems] == ["project_tree"]


def test_a_line_break_in_a_value_is_invalid(tmp_path: Path) -> None:
    reading = read_state(write(tmp_path, json.dumps(state_object(phase="Build\n"))))
    assert [problem.field for problem in reading.problems] == ["phase"]


def test_plan_resolution(tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "plan.md").write_text("# Plan\n")
    (tmp_path / "linked").symlink_to(tmp_path / "plans")
    assert resolve_plan(tmp_path, "plans/plan.md").normal == "plans/plan.md"
    assert resolve_plan(tmp_path, "./plans/../plans/plan.md").normal == "plans/plan.md"
    assert "escapes the project" in (resolve_plan(tmp_path, "../../etc/passwd").problem or "")
    assert "absolute path" in (resolve_plan(tmp_path, "/etc/passwd").problem or "")
    assert resolve_plan(tmp_path, "plans/none.md").problem == "does not exist"
    assert resolve_plan(tmp_path, "plans").problem == "is a directory, not a regular file"
    assert "symlink" in (resolve_plan(tmp_path, "linked/plan.md").problem or "")
    assert lexical_inside("a/../../b") is None


def test_block_round_trip_and_hashes(tmp_path: Path) -> None:
    block = render_block(state_object())
    assert block[0] == BLOCK_START and block[-1] == BLOCK_END
    assert "**Controlling plan:** [plans/plan.md](plans/plan.md)" in block
    lines = ["# Alpha", "", *block, "", "## Notes"]
    found = find_block(lines)
    assert found is not None and (found.start, found.end) == (3, 3 + len(block) - 1)
    plain = b"# Alpha\r\n\r\n## Notes\r\n"
    with_block = b"# Alpha\r\n\r\n" + "\r\n".join(block).encode() + b"\r\n## Notes\r\n"
    assert without_block(with_block) == plain
    (tmp_path / "CONTEXT.md").write_bytes(with_block)
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "plan.txt").write_text("plan\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.md").write_text("x\n")
    hashes = content_hashes(tmp_path, "plans/plan.txt")
    assert set(hashes) == {"CONTEXT.md", "plans/plan.txt"}
    (tmp_path / "CONTEXT.md").write_bytes(plain)
    assert content_hashes(tmp_path, "plans/plan.txt") == hashes


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.binary(max_size=300) | json_like.map(lambda value: json.dumps(value).encode()))
def test_anything_in_the_state_file_is_a_reading_never_an_exception(
    tmp_path: Path, data: bytes
) -> None:
    reading = read_state(write(tmp_path, data))
    assert reading.present
    assert reading.valid or reading.unreadable or reading.problems


# -- round three: no walk recurses ---------------------------------------------------

NESTED_LEVELS = 1_100


def _remove_nested(top: Path, levels: int) -> None:
    """Remove the nested chain deepest first: pytest's own cleanup recurses once per level."""
    for depth in range(levels, 0, -1):
        deepest = top.joinpath(*["d"] * depth)
        for entry in deepest.iterdir():
            entry.unlink()
        deepest.rmdir()


@pytest.fixture
def deeply_nested(tmp_path: Path) -> Any:
    project = tmp_path / "alpha"
    deepest = project
    project.mkdir()
    for _ in range(NESTED_LEVELS):  # one level at a time: makedirs recurses too
        deepest = deepest / "d"
        deepest.mkdir()
    (deepest / "notes.md").write_text("# Deep\n", encoding="utf-8")
    (project / "CONTEXT.md").write_text("# Alpha\n", encoding="utf-8")
    yield project
    _remove_nested(project, NESTED_LEVELS)


def test_the_state_file_walk_reaches_1100_nested_folders_without_recursing(
    deeply_nested: Path,
) -> None:
    found = markdown_files(deeply_nested)
    assert found == ["CONTEXT.md", "/".join(["d"] * NESTED_LEVELS) + "/notes.md"]
    hashes = content_hashes(deeply_nested, None)
    assert set(hashes) == set(found)
