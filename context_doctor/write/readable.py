"""The write path's readability gate: no writer leaves a record the doctor cannot read.

Every write of a record into a tree (a Markdown file, and for control characters a YAML
or plain-text file too) passes :func:`judge_record` before a byte moves, whichever writer
made it: ``log add``, the editor's verbs and ``edit apply``, ``state``, ``check --fix``,
the freshness writers and the MCP tools all write through :mod:`~context_doctor.write.atomic`
or :mod:`~context_doctor.write.batch`, which call it. Files the user named
(``within=USER_NAMED``: ``-o``, the job summary) and the doctor's own files (caches,
journals, backups: no record suffix) are not records.

Two rules, each judged on what the write changes, so a file that is already odd can
still be edited elsewhere:

- ``control-character``: the new bytes hold more of a C0 control character (NUL and the
  others but a tab and the line breaks LF and CR) than the old ones. The doctor reads a
  file with a NUL as binary, and a terminal or a CI log acts on the rest.
- ``unclosed-block``: the write changes how a line it did not touch reads (text, code,
  an HTML block, a table row: :mod:`context_doctor.guards.line_kinds`), or leaves the file
  ending inside a code fence or an HTML comment it did not end in before, so that the
  next entry written would read as code. A fence, a comment or a table the new text
  opens must close inside it (a table, by a blank line before the text that follows).

Decision: a write that closes a block an earlier write left open changes how the lines
after it read too, and is refused like one that opens one: the gate cannot tell a
repair from damage, and the lines it would change were not part of the edit.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from context_doctor.guards.contain import USER_NAMED
from context_doctor.guards.text import BOM

RECORD_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = RECORD_SUFFIXES | {".yaml", ".yml", ".txt"}

# A tab is line text; LF, CR LF and a lone CR are line breaks (model/text.py reads all three).
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_NAMES = {0: "NUL", 0x0B: "a vertical tab", 0x0C: "a form feed", 0x1B: "ESC"}


def judge_record(
    path: Path, old: bytes | None, new: bytes | bytearray, *, within: Path | None
) -> tuple[str, str] | None:
    """The rule and the message refusing to write ``new`` over ``old`` (None: a new file)
    at ``path`` because it would make the record unreadable; None when it would not, or
    when ``path`` is no record. (The write path raises the refusal: ``atomic.py``.)"""
    if within is USER_NAMED:
        return None
    suffix = path.suffix.casefold()
    if suffix not in TEXT_SUFFIXES:
        return None
    before = b"" if old is None else old
    after = bytes(new)
    if after == before:
        return None
    found = _judge_controls(path, before, after)
    if found is None and suffix in RECORD_SUFFIXES:
        found = _judge_blocks(path, before, after)
    return found


def _controls(data: bytes) -> Counter[bytes]:
    return Counter(match.group() for match in _CONTROL.finditer(data))


def _judge_controls(path: Path, before: bytes, after: bytes) -> tuple[str, str] | None:
    if not _CONTROL.search(after):
        return None
    had = _controls(before)
    for char, count in _controls(after).items():
        if count > had[char]:
            return ("control-character", control_message(char[0], str(path)))
    return None


def first_control(text: str) -> int | None:
    """The code of the first control character a record may not hold in ``text``, or None."""
    found = _CONTROL.search(text.encode("utf-8", "surrogateescape"))
    return None if found is None else found.group()[0]


def control_message(code: int, where: str) -> str:
    """The ``control-character`` refusal for the character ``code`` written into ``where``."""
    name = _NAMES.get(code, f"the control character U+{code:04X}")
    described = f"{name} (U+{code:04X})" if code in _NAMES else name
    why = (
        "the doctor reads a file holding one as binary"
        if code == 0
        else "a terminal or a CI log acts on it"
    )
    return (
        f"the text would put {described} into {where} ({why}); a record holds no "
        "control character but tab and newline: remove it; nothing was written"
    )


def _decoded(data: bytes) -> str:
    return data.decode("utf-8", "replace").removeprefix(BOM)


def _judge_blocks(path: Path, before: bytes, after: bytes) -> tuple[str, str] | None:
    from context_doctor.guards.line_kinds import WORDS, line_kinds, lines_of

    old_text, new_text = _decoded(before), _decoded(after)
    if old_text == new_text:
        return None
    old_lines, new_lines = lines_of(old_text), lines_of(new_text)
    shortest = min(len(old_lines), len(new_lines))
    prefix = 0
    while prefix < shortest and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < shortest - prefix
        and old_lines[len(old_lines) - 1 - suffix] == new_lines[len(new_lines) - 1 - suffix]
    ):
        suffix += 1
    old_kinds, old_next = line_kinds(old_text)
    new_kinds, new_next = line_kinds(new_text)
    untouched = [(line, line) for line in range(prefix)] + [
        (len(old_lines) - back, len(new_lines) - back) for back in range(suffix, 0, -1)
    ]
    for old_line, new_line in untouched:
        if old_kinds[old_line] != new_kinds[new_line]:
            return (
                "unclosed-block",
                f"the text leaves a code fence, an HTML comment or a table open: line "
                f"{new_line + 1} of {path}, which the edit does not change, would read as "
                f"{WORDS[new_kinds[new_line]]} instead of {WORDS[old_kinds[old_line]]}; close "
                "every block the text opens (a table ends at a blank line); nothing was written",
            )
    if new_next != "text" and old_next == "text":
        return (
            "unclosed-block",
            f"the text opens {WORDS[new_next]} it does not close: {path} would end inside "
            "it, and the next entry written would read as part of it; close every block the "
            "text opens; nothing was written",
        )
    return None
