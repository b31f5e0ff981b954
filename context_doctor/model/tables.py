"""Pipe tables (GitHub-flavoured Markdown), read line by line for the editor's `table-broken` rule.

A table is a header row, a delimiter row (`| --- | :-: |`) with as many cells,
then body rows up to the first blank line (or a line with no pipe at all).
Cells are split at pipes that are not escaped (`\\|` stays inside its cell, as
GFM reads it). Lines inside code blocks are never table rows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

_DELIMITER_CELL = re.compile(r"\s*:?-+:?\s*")


def cells(line: str) -> list[str]:
    """A row's cells: split at unescaped pipes, the outer pipes dropped."""
    text = line.rstrip("\r\n").strip()
    parts: list[str] = []
    current: list[str] = []
    escaped = False
    for character in text:
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\":
            current.append(character)
            escaped = True
        elif character == "|":
            parts.append("".join(current))
            current = []
        else:
            current.append(character)
    parts.append("".join(current))
    if text.startswith("|"):
        parts = parts[1:]
    if text.endswith("|") and not text.endswith("\\|") and parts:
        parts = parts[:-1]
    return parts


def _has_pipe(line: str) -> bool:
    return len(cells(line)) > 1 or line.strip().startswith("|")


def is_delimiter_row(line: str) -> bool:
    found = cells(line)
    return bool(found) and "-" in line and all(_DELIMITER_CELL.fullmatch(c) for c in found)


@dataclass(frozen=True)
class Table:
    header: int  # 0-based line index of the header row
    width: int  # the header's (and delimiter's) cell count
    rows: tuple[int, ...]  # 0-based line indexes of the body rows


def tables(lines: list[str], code: Collection[int] = ()) -> list[Table]:
    """The pipe tables of ``lines`` (with or without line ends); ``code``: 1-based code lines."""
    found: list[Table] = []
    index = 0
    while index + 1 < len(lines):
        header, delimiter = lines[index], lines[index + 1]
        if (
            index + 1 in code
            or index + 2 in code
            or not _has_pipe(header)
            or not is_delimiter_row(delimiter)
            or len(cells(header)) != len(cells(delimiter))
        ):
            index += 1
            continue
        rows: list[int] = []
        at = index + 2
        while at < len(lines) and lines[at].strip() and at + 1 not in code and _has_pipe(lines[at]):
            rows.append(at)
            at += 1
        found.append(Table(index, len(cells(header)), tuple(rows)))
        index = at
    return found


def broken_rows(lines: list[str], code: Collection[int] = ()) -> list[tuple[int, str]]:
    """Body rows whose cell count differs from their table's header: (0-based line, text)."""
    return [
        (row, lines[row].rstrip("\r\n"))
        for table in tables(lines, code)
        for row in table.rows
        if len(cells(lines[row])) != table.width
    ]


def damage(
    before: list[str], before_code: Collection[int], after: list[str], after_code: Collection[int]
) -> str | None:
    """How an edit ``before`` -> ``after`` breaks a pipe table; None when it breaks none.

    A body row whose cell count differs from its header's, and which was not
    already so, is a break; so is a header or delimiter row that survives as a
    line while its table no longer reads as one (the delimiter cut, or a header
    given another cell count). A table removed whole is not.
    """
    old_broken = Counter(text for _, text in broken_rows(before, before_code))
    for row, text in broken_rows(after, after_code):
        if old_broken[text] > 0:
            old_broken[text] -= 1
            continue
        return f"line {row + 1} would have {len(cells(text))} cells where its table has " + (
            f"{_width_of(after, after_code, row)}"
        )
    old_tables = tables(before, before_code)
    new_tables = tables(after, after_code)
    old_lines = Counter(line.rstrip("\r\n") for line in before)
    new_lines = Counter(line.rstrip("\r\n") for line in after)
    for what, offset in (("header", 0), ("delimiter", 1)):
        old_kept = Counter(before[t.header + offset].rstrip("\r\n") for t in old_tables)
        new_kept = Counter(after[t.header + offset].rstrip("\r\n") for t in new_tables)
        for text, count in old_kept.items():
            if new_kept[text] < count and new_lines[text] >= old_lines[text]:
                return f"the table whose {what} row is `{text.strip()}` would no longer read as a table"
    return None


def _width_of(lines: list[str], code: Collection[int], row: int) -> int:
    return next(t.width for t in tables(lines, code) if row in t.rows)
