"""The one text model (guards/text.py): decoding, lines, the BOM and the CRLF rule, written once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from context_doctor.guards.text import (
    TextFile,
    decode_utf8,
    lines,
    lines_with_ends,
    newline_of,
)


def test_only_crlf_cr_and_lf_end_a_line() -> None:
    text = "a\r\nb\rc\nd\u2028still d\x0cand d"
    assert lines(text) == ["a", "b", "c", "d\u2028still d\x0cand d"]
    assert lines_with_ends(text) == ["a\r\n", "b\r", "c\n", "d\u2028still d\x0cand d"]
    assert lines("a\n") == ["a"] and lines_with_ends("a\n") == ["a\n"]
    assert lines("") == [] and lines_with_ends("") == []


@pytest.mark.parametrize(
    ("raw", "text", "problem"),
    [
        (b"\xef\xbb\xbf# T\r\n", "\ufeff# T\r\n", None),
        (b"# T\x00", None, "is binary (contains NUL bytes), not UTF-8 text"),
        (b"# T\xff", None, "is not valid UTF-8 (byte 3)"),
    ],
)
def test_decoding_keeps_the_bom_and_names_what_is_not_text(
    raw: bytes, text: str | None, problem: str | None
) -> None:
    assert decode_utf8(raw) == (text, problem)


@pytest.mark.parametrize(
    ("text", "newline", "crlf", "lf"),
    [
        ("a\r\nb\r\n", "\r\n", True, False),
        ("a\nb\n", "\n", False, True),
        ("a", "\n", False, True),
        ("a\r\nb\nc\n", "\r\n", False, False),  # mixed: the first break decides
        ("a\nb\r\n", "\n", False, False),
    ],
)
def test_the_crlf_rule(text: str, newline: str, crlf: bool, lf: bool) -> None:
    file = TextFile.of("\ufeff" + text)
    assert (file.bom, file.body) == ("\ufeff", text)
    assert (file.newline, file.crlf, file.lf) == (newline, crlf, lf)
    assert newline_of(text) == newline
    assert file.encode(file.body) == ("\ufeff" + text).encode("utf-8")


def test_given_text_takes_the_files_breaks_only_when_the_file_uses_one_kind() -> None:
    assert TextFile.of("a\r\n").native("x\ny\r\n") == "x\r\ny\r\n"
    assert TextFile.of("a\n").native("x\r\ny\n") == "x\ny\n"
    assert TextFile.of("a\r\nb\n").native("x\r\ny\n") == "x\r\ny\n"


def test_the_rule_is_written_once() -> None:
    """No module but guards/text.py spells the BOM or the line-break pattern itself."""
    spelled = re.compile(r'"\\ufeff"|\\r\\n\|\\r\|\\n|\[\^\\r\\n\]')
    package = REPO_ROOT / "context_doctor"
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path != package / "guards" / "text.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if spelled.search(line)
    ]
    assert found == [], "use BOM, LINE_BREAK, lines() or lines_with_ends() from guards/text.py"


def test_readers_and_writers_agree_on_lines(tmp_path: Path) -> None:
    from context_doctor.editor.edit import decode, split_lines
    from context_doctor.model.documents import Document

    raw = "\ufeff# T\r\n\r\nbody\u2028same line\rnext\n".encode()
    document = Document.from_text(raw.decode().removeprefix("\ufeff"), tmp_path / "C.md", "C.md")
    decoded = decode(tmp_path / "C.md", raw)
    assert [line.rstrip("\r\n") for line in split_lines(decoded.body)] == document.lines
