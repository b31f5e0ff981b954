"""Fail-closed edits of durable context files (docs/editor.md, seed "Editing a Durable Context File").

A scripted edit is a claim that a specific change was made. Each verb here
turns its options into *splices* of a file's text (where, what goes) or refuses
(``EditRefused``, nothing written) when the change cannot be proved to be the
one intended: an absent or miscounted anchor, a field that shares its line or
appears twice, a date-led value whose text would be lost, an insert that is not
at a line start or does not end a line, a replace that would fuse surviving
lines. :func:`judge` then refuses a file's final text when a rule says so: a
byte-identical result, a result over the line budget, a change inside the
generated state block, a broken pipe table, a header left lagging, a header
advanced past an as-of marker, a marker advanced over untouched prose.
:mod:`context_doctor.write.apply` runs the verbs in memory, judges every file
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
from datetime import date
from itertools import zip_longest
from pathlib import Path

from context_doctor.config.settings import DEFAULT_BUDGETS
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.model import tables
from context_doctor.model.currency import (
    AsOfMarker,
    as_of_markers,
    header_lag,
    is_operational_title,
    lags,
)
from context_doctor.model.documents import Document
from context_doctor.model.header import completion_reading, fields_named, section_range
from context_doctor.model.state_file import find_block
from context_doctor.model.text import (
    BOM,
    LEADING_DATE,
    TextFile,
    decode_utf8,
    first_date,
    lines_with_ends,
    ordinals,
)
from context_doctor.write.atomic import WriteRefused

BODY_CURRENT = "as-of markers current"
BODY_LAGS = "body lags"
BODY_UNVERIFIABLE = "body currency unverifiable"

# The override flag of each rule that has a fixed one; ``anchor-count`` and
# ``max-lines`` name theirs with the number that would pass.
OVERRIDES: dict[str, str] = {
    "header-lag": "--allow-header-lag",
    "stale-body": "--allow-stale-body",
    "marker-without-review": "--state-reviewed",
    "header-ahead-of-log": "--allow-header-ahead",
    "date-led-value": "--whole-value",
}

_FIELD = re.compile(r"\*\*([A-Z][^*\n]*?):\*\*")
_BARE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_BLOCK_FIELDS = {
    "phase": "phase",
    "status": "status",
    "last session": "last_session",
    "accepted baseline": "accepted_baseline",
    "controlling plan": "controlling_plan",
}


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
class Gates:
    """The overrides a caller may record; each is an explicit claim, never a default."""

    max_lines: int | None = None
    allow_header_lag: bool = False
    allow_stale_body: bool = False
    state_reviewed: bool = False
    allow_header_ahead: bool = False


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


# The text model is model/text.py (BOM, line breaks, the CRLF rule); these names stay for
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


def _document(path: Path, body: str) -> Document:
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


def _quoted(text: str) -> str:
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
    without that section is refused, as the doctor reads nothing outside it (#27).
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
    document = _document(path, body)
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
            remedy=f"keep one first: `context-doctor edit delete-line {_quoted(str(path))} "
            f"--anchor {_quoted(second)}`",
        )
    target = fields[0]
    if target.name != name:
        raise EditRefused(
            "field-case",
            f"{path.name} spells the field `**{target.name}:**` (line {target.line}), "
            f"not `**{name}:**`",
            remedy=f"name it as written: --field {_quoted(target.name)}",
        )
    lines = split_lines(body)
    line = lines[target.line - 1]
    on_line = list(_FIELD.finditer(line))
    if len(on_line) > 1 and not anywhere:
        names = ", ".join(f"`**{match.group(1).strip()}:**`" for match in on_line)
        old = f"**{target.name}:** {target.value}".rstrip()
        new = f"**{target.name}:** {value.strip()}"
        raise EditRefused(
            "field-shares-line",
            f"line {target.line} of {path.name} holds {names}; set-field will not guess "
            "where one ends",
            remedy=f"use `context-doctor edit replace {_quoted(str(path))} --anchor "
            f"{_quoted(old)} --replacement {_quoted(new)}`",
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
    changed = _document(path, apply_splices(body, [splice]))
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
    _check_count(count)
    anchor = text.native(anchor)
    replacement = text.native(replacement)
    starts = _occurrences(body, anchor)
    if not starts:
        raise _absent(path)
    if len(starts) != count:
        raise _miscounted(path, len(starts), count, "occurs")
    fused = _fusion(body, starts, anchor, replacement)
    if fused is not None:
        raise EditRefused(
            "fused-boundary",
            fused,
            remedy="include the neighbouring line in both anchor and replacement to change "
            "a boundary on purpose",
        )
    return [Splice(start, start + len(anchor), replacement) for start in starts]


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
    _check_count(count)
    anchor = text.native(anchor)
    insert = text.native(insert)
    starts = _occurrences(body, anchor)
    if not starts:
        raise _absent(path)
    if len(starts) != count:
        raise _miscounted(path, len(starts), count, "occurs")
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


def last_session(document: Document) -> tuple[date | None, dict[str, int]] | None:
    for field in document.field_values("Last session"):
        found = first_date(field.value)
        if found is not None:
            return found[1], ordinals(field.value)
    return None


def _advanced(
    before: tuple[date | None, dict[str, int]] | None,
    after: tuple[date | None, dict[str, int]] | None,
) -> bool:
    if after is None or after[0] is None:
        return False
    if before is None or before[0] is None:
        return True
    return lags(before[0], before[1], after[0], after[1])


def _section_prose(document: Document, marker: AsOfMarker, marker_lines: set[int]) -> list[str]:
    """The lines of the marker's ``##`` section, its as-of markers left out."""
    first = marker.section.line if marker.section is not None else 1
    following = [h.line for h in document.headings if h.level <= 2 and h.line > first]
    last = following[0] - 1 if following else len(document.lines)
    return [
        document.lines[number - 1]
        for number in range(first, last + 1)
        if number not in marker_lines
    ]


def _keyed(markers: list[AsOfMarker]) -> dict[tuple[str, int], AsOfMarker]:
    keyed: dict[tuple[str, int], AsOfMarker] = {}
    seen: dict[str, int] = {}
    for marker in markers:
        title = marker.section.text if marker.section is not None else ""
        seen[title] = seen.get(title, 0) + 1
        keyed[(title, seen[title])] = marker
    return keyed


def body_state(document: Document) -> str:
    """What the file's own as-of markers say against its own ``**Last session:**``."""
    last = last_session(document)
    markers = as_of_markers(document)
    if last is None or last[0] is None or not markers:
        return BODY_UNVERIFIABLE
    if any(lags(marker.date, marker.ordinals, last[0], last[1]) for marker in markers):
        return BODY_LAGS
    marked = {marker.section.line for marker in markers if marker.section is not None}
    unmarked = any(
        heading.level == 2 and is_operational_title(heading.text) and heading.line not in marked
        for heading in document.headings
    )
    if unmarked or any(marker.date is None for marker in markers):
        return BODY_UNVERIFIABLE
    return BODY_CURRENT


def default_max_lines(path: Path, after: Document) -> int | None:
    if path.name != "CONTEXT.md":
        return None
    completed = completion_reading(after.field_values("Status"), after.field_values("Phase"))
    return DEFAULT_BUDGETS["completed_context_lines" if completed else "context_lines"]


def judge(path: Path, before_body: str, after_body: str, gates: Gates) -> str:
    """Refuse the edit ``before_body`` -> ``after_body`` if a rule says so; else the body state."""
    if after_body == before_body:
        raise EditRefused(
            "no-change",
            f"the edit would leave {path.name} byte-identical",
            remedy="nothing to write: the file already says this",
        )
    before = _document(path, before_body)
    after = _document(path, after_body)
    budget = gates.max_lines if gates.max_lines is not None else default_max_lines(path, after)
    if budget is not None and after.line_count > budget:
        already = f" (it is already {before.line_count})" if before.line_count > budget else ""
        raise EditRefused(
            "max-lines",
            f"the result would be {after.line_count} lines, over the {budget}-line budget{already}",
            override=f"--max-lines {after.line_count}",
            remedy="or archive cold content to sessions/ or REFERENCE.md first",
        )
    if path.suffix.casefold() == ".md":  # Markdown structure; a YAML `---` is no table
        _judge_generated_block(path, before, after)
        _judge_tables(before, after)
    _judge_header_lag(before, after, gates)
    _judge_stale_body(before, after, gates)
    _judge_marker_review(before, after, gates)
    return body_state(after)


def _block_lines(document: Document) -> list[str] | None:
    lines = [line.rstrip("\r\n") for line in document.lines]
    found = find_block(lines)
    if found is None:
        return None
    end = found.end if found.end is not None else len(lines)
    return lines[max(found.start, 1) - 1 : end]


def _judge_generated_block(path: Path, before: Document, after: Document) -> None:
    old = _block_lines(before)
    if old is None:
        return
    new = _block_lines(after)
    if new == old:
        return
    pairs = zip_longest(old, new or [], fillvalue="")
    changed = next((o or n for o, n in pairs if o != n), "")
    match = _FIELD.match(changed.strip())
    if match is not None:
        field = _BLOCK_FIELDS.get(match.group(1).strip().casefold(), "phase")
    else:
        field = "next_actions"
    project = path.parent
    raise EditRefused(
        "generated-block",
        f"the edit changes {path.name}'s generated state block, which CURRENT_STATE.json owns",
        remedy=f"use `context-doctor state set {_quoted(str(project))} --field {field} --value …`",
    )


def _judge_tables(before: Document, after: Document) -> None:
    broken = tables.damage(before.lines, before.code_lines, after.lines, after.code_lines)
    if broken is not None:
        raise EditRefused(
            "table-broken",
            f"the edit breaks a pipe table: {broken}",
            remedy="keep every row's cell count and the delimiter row (write a literal pipe "
            "as `\\|`)",
        )


def _judge_header_lag(before: Document, after: Document, gates: Gates) -> None:
    lag = header_lag(after)
    if lag is None or gates.allow_header_lag:
        return
    touched = any(
        [field.value for field in before.field_values(name)]
        != [field.value for field in after.field_values(name)]
        for name in ("Phase", "Last session")
    )
    if header_lag(before) is None or touched:
        raise EditRefused(
            "header-lag",
            f"**Phase:** (line {lag.phase.line}) would name {lag.family} {lag.phase_number} "
            f"while **Last session:** (line {lag.last_session.line}) names {lag.family} "
            f"{lag.last_number}; update Last session first or in the same change",
        )


def _judge_stale_body(before: Document, after: Document, gates: Gates) -> None:
    new_last = last_session(after)
    if gates.allow_stale_body or new_last is None:
        return
    if not _advanced(last_session(before), new_last):
        return
    behind = [
        marker
        for marker in as_of_markers(after)
        if lags(marker.date, marker.ordinals, new_last[0], new_last[1])
    ]
    if behind:
        marker = behind[0]
        where = f"`## {marker.section.text}`" if marker.section else "the top of the file"
        raise EditRefused(
            "stale-body",
            f"the header advances Last session but the as-of marker under {where} "
            f"(line {marker.line}, {marker.spelled}) stays behind it",
            remedy="or update that section and its marker in the same `context-doctor edit "
            "apply` batch",
        )


def _judge_marker_review(before: Document, after: Document, gates: Gates) -> None:
    if gates.state_reviewed:
        return
    old_markers = as_of_markers(before)
    new_markers = as_of_markers(after)
    old_keyed = _keyed(old_markers)
    old_lines = {marker.line for marker in old_markers}
    new_lines = {marker.line for marker in new_markers}
    for key, marker in _keyed(new_markers).items():
        old = old_keyed.get(key)
        if old is None or not lags(old.date, old.ordinals, marker.date, marker.ordinals):
            continue
        if _section_prose(before, old, old_lines) == _section_prose(after, marker, new_lines):
            where = f"`## {marker.section.text}`" if marker.section else "the top of the file"
            raise EditRefused(
                "marker-without-review",
                f"the as-of marker under {where} advances from {old.spelled} to "
                f"{marker.spelled} but the section's prose is byte-identical",
            )
