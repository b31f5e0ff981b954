"""Fail-closed edits of durable context files (docs/editor.md, seed "Editing a Durable Context File").

A scripted edit is a claim that a specific change was made. Each verb here
turns its options into *splices* of a file's text (where, what goes) or refuses
(``EditRefused``, nothing written) when the change cannot be proved to be the
one intended: an absent or miscounted anchor, a field that shares its line or
appears twice, a date-led value whose text would be lost, an insert that is not
at a line start or does not end a line, a replace that would fuse surviving
lines. :func:`context_doctor.editor.gates.judge` then refuses a file's final text when a rule says so: a
byte-identical result, a result over the line budget, a change inside the
generated state block, a broken pipe table, a header left lagging, a header
advanced past an as-of marker, a marker advanced over untouched prose.
:mod:`context_doctor.editor.apply` runs the verbs in memory, judges every file
once, and writes through :mod:`context_doctor.write.atomic`.

Everything is judged with the model's own parsers (header fields, ordinals,
as-of markers, the completion reading): the editor and the doctor can never
disagree about what a header says.

Decisions where the spec is silent (also in CHANGELOG.md):

- Line endings: in a file whose line breaks are all CRLF, a bare LF in given
  text stands for CRLF; in a file whose breaks are all LF (or that has none), a
  CRLF stands for LF. A file with mixed breaks is matched and written byte for
  byte. So an LF anchor matches a CRLF file and written text takes the file's
  line ending, while the rest of the given bytes (trailing spaces, tabs) stay.
- The header-lag rule refuses an edit whose result has Phase ahead of Last
  session when the original did not, or when the edit changed either field;
  an unrelated edit to a file that already lags is not blocked by it (the
  doctor's `header-lag` check keeps reporting that file).
- The budget is the file's own: a CONTEXT.md gets 150 lines, 80 once its header
  reads completed (after the edit); other files have no default budget.
- The body state compares every as-of marker with the file's own ``**Last
  session:**``: no header date, no markers, an impossible marker date, or an
  operational section without a marker is "body currency unverifiable".
- ``set-field`` edits a header-block field (docs/layouts.md) when the file has one of that
  name; otherwise the field that docs/layouts.md reads anywhere in a layout's file: the first
  line that, list markers, ``>``, heading marks and emphasis stripped, starts with
  ``Name:`` (a ``## Last Session: 2026-04-08`` heading too). Only its value changes;
  the markers and emphasis around it stay, and the result must read back as that field.
- ``set-field`` matches the field's name as written: a header that spells it in
  another case is refused (``field-case``) with the spelling to pass, so a
  script never edits a field it did not name exactly.
- A date-led value with text after its date (``2026-04-18 — shipped the
  parser``): a bare new date replaces the date and keeps the text; any other
  new value is refused (``date-led-value``) unless ``--whole-value``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.guards.text import (
    BOM,
    LEADING_DATE,
    TextFile,
    decode_utf8,
    lines_with_ends,
)
from context_doctor.model.documents import Document
from context_doctor.model.header import fields_named, section_range
from context_doctor.write.atomic import WriteRefused

# The override flag of each rule that has a fixed one; ``anchor-count`` and
# ``max-lines`` name theirs with the number that would pass.
OVERRIDES: dict[str, str] = {
    "header-lag": "--allow-header-lag",
    "stale-body": "--allow-stale-body",
    "marker-without-review": "--state-reviewed",
    "header-ahead-of-log": "--allow-header-ahead",
    "date-led-value": "--whole-value",
}

BOLD_FIELD = re.compile(r"\*\*([A-Z][^*\n]*?):\*\*")
_BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class EditRefused(WriteRefused):
    """An edit the editor will not make; nothing was written.

    ``override`` is the flag that would make it pass (one the verb has), and
    ``remedy`` the command or change that would, when there is one.
    """

    def __init__(
        self, rule: str, message: str, *, override: str | None = None, remedy: str | None = None
    ) -> None:
        super().__init__(rule, message)
        self._override = override
        self.remedy = remedy

    @property
    def override(self) -> str | None:
        return self._override or OVERRIDES.get(self.rule)

    def one_line(self) -> str:
        text = f"refused [{self.rule}]: {self.message}"
        if self.override:
            text += f" (override: {self.override})"
        if self.remedy:
            text += f"; {self.remedy}"
        return text


@dataclass(frozen=True)
class EditResult:
    path: Path
    before: bytes
    after: bytes
    body_state: str
    written: bool
    created: bool = False

    def diff(self, label: str | None = None) -> str:
        return unified_diff(self.before, self.after, label or str(self.path))


def unified_diff(before: bytes, after: bytes, label: str) -> str:
    """A unified diff of two versions of a text file, each line printable (escaped).

    Line breaks are shown as plain newlines; every other control character is escaped,
    so a diff of a hostile file cannot drive the terminal.
    """
    old = [escape_text(line.rstrip("\r\n")) + "\n" for line in split_lines(_text_of(before))]
    new = [escape_text(line.rstrip("\r\n")) + "\n" for line in split_lines(_text_of(after))]
    label = escape_text(label)
    return "".join(difflib.unified_diff(old, new, f"a/{label}", f"b/{label}"))


def _text_of(data: bytes) -> str:
    return data.decode("utf-8", "replace").removeprefix(BOM)


# The text model is guards/text.py (BOM, line breaks, the CRLF rule); these names stay for
# the editor's callers.
split_lines = lines_with_ends
DecodedText = TextFile
decoded_text = TextFile.of


# -- reading ---------------------------------------------------------------------


def decode(path: Path, data: bytes) -> TextFile:
    """The text of a file read as bytes; DoctorError (exit 2) for a binary or non-UTF-8 file."""
    text, problem = decode_utf8(data)
    if text is not None:
        return TextFile.of(text)
    if b"\x00" in data:
        raise DoctorError(
            f"{path} is binary (contains NUL bytes), not a text file",
            "edit only Markdown or YAML context files",
        )
    raise DoctorError(f"{path} {problem}", "re-save the file as UTF-8")


def text_document(path: Path, body: str) -> Document:
    return Document.from_text(body, path, path.name)


# -- splices: what a verb changes ----------------------------------------------------


@dataclass(frozen=True)
class Splice:
    """Replace ``body[start:end]`` with ``new`` (``start == end``: an insertion)."""

    start: int
    end: int
    new: str


def apply_splices(body: str, splices: list[Splice]) -> str:
    """``body`` with non-overlapping ``splices`` applied (any order given)."""
    pieces: list[str] = []
    cursor = 0
    for splice in sorted(splices, key=lambda s: (s.start, s.end)):
        pieces.append(body[cursor : splice.start])
        pieces.append(splice.new)
        cursor = splice.end
    pieces.append(body[cursor:])
    return "".join(pieces)


def _line_starts(lines: list[str]) -> list[int]:
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
    return starts


def _line_number(body: str, position: int) -> int:
    return len(split_lines(body[:position])) + (
        1 if position == 0 or body[position - 1] in "\r\n" else 0
    )


def shell_quoted(text: str) -> str:
    """``text`` as one shell word (for the commands a refusal proposes)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def plan_set_field(
    path: Path,
    body: str,
    field: str,
    value: str,
    *,
    whole_value: bool = False,
    section: str | None = None,
) -> list[Splice]:
    """Where ``**field:**``'s value is and what replaces it.

    ``section``: the heading of the section the file's layout keeps its record in (the
    ``## Current status`` of a ``CLAUDE.md``); only a field inside it is edited, and a file
    without that section is refused, as the doctor reads nothing outside it.
    """
    name = field.strip()
    if not name or "*" in name or ":" in name or "\n" in name or "\r" in name:
        raise DoctorError(
            f"--field {field!r} is not a header field name",
            "name the field as it is written, e.g. --field Phase or --field 'Last session'",
        )
    if "\n" in value or "\r" in value:
        raise DoctorError(
            "--value holds a line break; a header field is one line",
            "give a one-line value (use `edit replace` to restructure the header)",
        )
    document = text_document(path, body)
    within = _record_section(path, document, section)
    fields = document.field_values(name) if section is None else []
    anywhere = not fields
    if anywhere:
        fields = fields_named(document, [name], anywhere=True, within=within)
    if not fields:
        where = f"in its `{section}` section" if section is not None else "anywhere"
        raise EditRefused(
            "anchor-absent",
            f"{path.name} has no `**{name}:**` header field (nor a `{name}:` line {where})",
            remedy=f"re-read {path.name}; add the field with `context-doctor edit insert-before`",
        )
    if len(fields) > 1:
        numbers = ", ".join(str(item.line) for item in fields)
        lines = split_lines(body)
        second = lines[fields[1].line - 1].rstrip("\r\n")
        raise EditRefused(
            "field-duplicated",
            f"{path.name} has {len(fields)} `**{name}:**` header fields (lines {numbers}); "
            "set-field needs exactly one",
            remedy=f"keep one first: `context-doctor edit delete-line {shell_quoted(str(path))} "
            f"--anchor {shell_quoted(second)}`",
        )
    target = fields[0]
    if target.name != name:
        raise EditRefused(
            "field-case",
            f"{path.name} spells the field `**{target.name}:**` (line {target.line}), "
            f"not `**{name}:**`",
            remedy=f"name it as written: --field {shell_quoted(target.name)}",
        )
    lines = split_lines(body)
    line = lines[target.line - 1]
    on_line = list(BOLD_FIELD.finditer(line))
    if len(on_line) > 1 and not anywhere:
        names = ", ".join(f"`**{match.group(1).strip()}:**`" for match in on_line)
        old = f"**{target.name}:** {target.value}".rstrip()
        new = f"**{target.name}:** {value.strip()}"
        raise EditRefused(
            "field-shares-line",
            f"line {target.line} of {path.name} holds {names}; set-field will not guess "
            "where one ends",
            remedy=f"use `context-doctor edit replace {shell_quoted(str(path))} --anchor "
            f"{shell_quoted(old)} --replacement {shell_quoted(new)}`",
        )
    new_value = _new_value(target.name, target.value, value.strip(), whole_value)
    start = on_line[0].end() if not anywhere else _value_start(line, target.name)
    content_end = len(line.rstrip("\r\n"))
    offset = _line_starts(lines)[target.line - 1]
    if target.value:
        at = line.index(target.value, start)
        splice = Splice(offset + at, offset + at + len(target.value), new_value)
    else:
        gap = " " if start >= content_end or line[start] != " " else ""
        splice = Splice(offset + start, offset + start, gap + new_value)
    changed = text_document(path, apply_splices(body, [splice]))
    after = (
        fields_named(changed, [name], anywhere=True, within=_record_section(path, changed, section))
        if anywhere
        else changed.field_values(name)
    )
    if len(after) != 1 or after[0].value != new_value or after[0].line != target.line:
        raise EditRefused(
            "value-unreadable",
            f"`**{name}:** {new_value}` would not read back as that field's value "
            "(does the value hold another `**Field:**`?)",
            remedy="write the bold text without a trailing colon, or restructure the line "
            "with `context-doctor edit replace`",
        )
    return [splice]


def _record_section(path: Path, document: Document, section: str | None) -> tuple[int, int] | None:
    """The lines of ``section`` (None: the whole file); a file without it is refused."""
    if section is None:
        return None
    found = section_range(document, section)
    if found is None:
        raise EditRefused(
            "anchor-absent",
            f"{path.name} has no `{section}` section, where its layout keeps the record",
            remedy=f"re-read {path.name}; restore the `## {section}` heading, or declare the "
            "layout's context in context-doctor.toml ([layout])",
        )
    return found


def _value_start(line: str, name: str) -> int:
    """Where the value of the field ``name`` begins on ``line``: after its colon and the
    emphasis closing it (``- **Name:** value``, ``> _Name: value_``, ``## Name: value``)."""
    colon = line.index(":", line.index(name) + len(name))
    start = colon + 1
    while start < len(line) and line[start] in "*_":
        start += 1
    return start


def _new_value(name: str, old: str, new: str, whole_value: bool) -> str:
    """The value to write: a bare new date keeps the text after an old leading date."""
    leading = LEADING_DATE.match(old)
    rest = old[leading.end() :] if leading else ""
    if whole_value or leading is None or not rest.strip() or new == old:
        return new
    if _BARE_DATE.fullmatch(new):
        return new + rest
    raise EditRefused(
        "date-led-value",
        f"`**{name}:**` carries text after its date (`{rest.strip()}`), which this value "
        "would replace",
        remedy="give only the new date to keep that text",
    )


def _at_line_start(text: str, position: int) -> bool:
    if position == 0:
        return True
    before = text[position - 1]
    return before == "\n" or (before == "\r" and text[position : position + 1] != "\n")


def _at_line_end(text: str, position: int) -> bool:
    return position == len(text) or text[position] in "\r\n"


def _splits_crlf(text: str, position: int) -> bool:
    return 0 < position < len(text) and text[position - 1] == "\r" and text[position] == "\n"


def _fusion(body: str, starts: list[int], anchor: str, replacement: str) -> str | None:
    """Why replacing ``anchor`` at ``starts`` would fuse surviving lines; None when it would not.

    A match end that was a line start must stay one, a match start that was a
    line end must stay one, and two surviving fragments of different lines
    (text before a match on its line, text after it on its line) must not end
    up on one line. Adjacent matches are judged against each other the same way.
    """
    length = len(anchor)
    spans = [(start, start + length) for start in starts]
    pieces: list[str] = []
    new_spans: list[tuple[int, int]] = []
    cursor = 0
    size = 0
    for start, end in spans:
        pieces.append(body[cursor:start])
        size += start - cursor
        new_spans.append((size, size + len(replacement)))
        pieces.append(replacement)
        size += len(replacement)
        cursor = end
    pieces.append(body[cursor:])
    result = "".join(pieces)
    multiline_anchor = "\n" in anchor or "\r" in anchor
    multiline_replacement = "\n" in replacement or "\r" in replacement
    for number, ((start, end), (new_start, new_end)) in enumerate(
        zip(spans, new_spans, strict=True), start=1
    ):
        where = f"match {number} (line {body.count(chr(10), 0, start) + 1})"
        if _splits_crlf(body, start) or _splits_crlf(body, end):
            return f"{where} splits a CRLF line break"
        if end < len(body) and _at_line_start(body, end) and not _at_line_start(result, new_end):
            return f"{where}: the line after the anchor would be joined to the replacement"
        if start > 0 and _at_line_end(body, start) and not _at_line_end(result, new_start):
            return f"{where}: the line before the anchor would be joined to the replacement"
        fragment_before = not _at_line_start(body, start) and (
            number == 1 or spans[number - 2][1] != start
        )
        fragment_after = not _at_line_end(body, end) and not _at_line_start(body, end)
        if fragment_before and fragment_after and multiline_anchor and not multiline_replacement:
            return f"{where}: text before and after the anchor, on different lines, would share one"
    return None


def _check_count(count: int) -> None:
    if count < 1:
        raise DoctorError(
            f"--count {count} declares no match",
            "--count is how many times the anchor occurs (at least 1); nothing to change is no edit",
        )


def _miscounted(path: Path, found: int, count: int, what: str) -> EditRefused:
    return EditRefused(
        "anchor-count",
        f"the anchor {what} {found} time{'s' if found != 1 else ''} in {path.name}, not {count}",
        override=f"--count {found}",
        remedy="or lengthen the anchor until it is unique",
    )


def _absent(path: Path) -> EditRefused:
    return EditRefused(
        "anchor-absent",
        f"the anchor does not occur in {path.name}",
        remedy=f"re-read {path.name} and build the anchor from what it says now",
    )


def plan_replace(
    path: Path, text: DecodedText, body: str, anchor: str, replacement: str, count: int
) -> list[Splice]:
    if not anchor:
        raise DoctorError("--anchor is empty", "give the exact text to replace")
    anchor, replacement = text.native(anchor), text.native(replacement)
    starts = _counted(path, body, anchor, count)
    fused = _fusion(body, starts, anchor, replacement)
    if fused is not None:
        raise EditRefused(
            "fused-boundary",
            fused,
            remedy="include the neighbouring line in both anchor and replacement to change "
            "a boundary on purpose",
        )
    return [Splice(start, start + len(anchor), replacement) for start in starts]


def _counted(path: Path, body: str, anchor: str, count: int) -> list[int]:
    """Where ``anchor`` occurs in ``body``: refused unless exactly ``count`` times (>= 1)."""
    _check_count(count)
    starts = _occurrences(body, anchor)
    if not starts:
        raise _absent(path)
    if len(starts) != count:
        raise _miscounted(path, len(starts), count, "occurs")
    return starts


def _occurrences(body: str, anchor: str) -> list[int]:
    """Start of every non-overlapping occurrence, as ``str.replace`` would see them."""
    found: list[int] = []
    position = body.find(anchor)
    while position >= 0:
        found.append(position)
        position = body.find(anchor, position + len(anchor))
    return found


def plan_insert_before(
    path: Path, text: DecodedText, body: str, anchor: str, insert: str, count: int = 1
) -> list[Splice]:
    if not anchor:
        raise DoctorError("--anchor is empty", "give the start of the line to insert before")
    if not insert:
        raise DoctorError("--text is empty", "give the text to insert, ending with a newline")
    anchor, insert = text.native(anchor), text.native(insert)
    starts = _counted(path, body, anchor, count)
    for start in starts:
        if not _at_line_start(body, start):
            raise EditRefused(
                "anchor-not-at-line-start",
                f"the anchor starts mid-line (line {_line_number(body, start)}); insert-before "
                "inserts whole lines",
                remedy="anchor on the start of the line to insert before",
            )
    if not insert.endswith(("\n", "\r")):
        raise EditRefused(
            "text-without-newline",
            "the inserted text does not end with a newline, so it would fuse with the anchor's line",
            remedy="end the text with a newline",
        )
    return [Splice(start, start, insert) for start in starts]


def plan_delete_line(
    path: Path, text: DecodedText, body: str, anchor: str, count: int = 1
) -> list[Splice]:
    """Delete each whole line that starts with ``anchor`` (there must be ``count`` of them)."""
    if not anchor:
        raise DoctorError("--anchor is empty", "give the start of the line to delete")
    _check_count(count)
    anchor = text.native(anchor)
    if "\n" in anchor.rstrip("\r\n") or "\r" in anchor.rstrip("\r\n"):
        raise DoctorError(
            "delete-line's --anchor spans more than one line",
            "delete one line per edit, or use `edit replace` for a block",
        )
    lines = split_lines(body)
    starts = _line_starts(lines)
    matching = [n for n, line in enumerate(lines) if line.startswith(anchor)]
    if not matching:
        mid = body.find(anchor)
        if mid >= 0:
            raise EditRefused(
                "anchor-not-at-line-start",
                f"no line starts with the anchor (it occurs mid-line, line "
                f"{_line_number(body, mid)}); delete-line deletes whole lines",
                remedy="anchor on the start of the line to delete",
            )
        raise _absent(path)
    if len(matching) != count:
        raise _miscounted(path, len(matching), count, "starts a line")
    return [Splice(starts[n], starts[n] + len(lines[n]), "") for n in matching]


# -- the gates every file's final text passes -------------------------------------
