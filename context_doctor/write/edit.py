"""Fail-closed edits of durable context files (SPEC §4, seed "Editing a Durable Context File").

A scripted edit is a claim that a specific change was made. Each edit here
reads the file once, computes the new bytes, and refuses (``EditRefused``,
nothing written) when the change cannot be proved to be the one intended:
an absent or miscounted anchor, a byte-identical result, a result over the
line budget, an insert that is not at a line start or does not end a line, a
replace that would fuse surviving lines, a header left lagging, a header
advanced past an as-of marker, or a marker advanced over untouched prose.
Only then does it write, through ``write.replace_file`` (temp file, fsync,
rename, re-read).

Everything is judged with the model's own parsers (header fields, ordinals,
as-of markers, the completion reading): the editor and the doctor can never
disagree about what a header says.

Decisions where the spec is silent (also in CHANGELOG.md):

- In a file whose line breaks are all CRLF, a bare LF in an anchor,
  replacement or inserted text stands for the file's CRLF (a bare LF can never
  match there, and writing one would mix separators). Any other file is
  matched and written byte for byte.
- The header-lag rule refuses an edit whose result has Phase ahead of Last
  session when the original did not, or when the edit changed either field;
  an unrelated edit to a file that already lags is not blocked by it (the
  doctor's `header-lag` check keeps reporting that file).
- The budget is the file's own: a CONTEXT.md gets 150 lines, 80 once its header
  reads completed (after the edit); other files have no default budget.
- The body state compares every as-of marker with the file's own ``**Last
  session:**``: no header date, no markers, an impossible marker date, or an
  operational section without a marker is "body currency unverifiable".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from context_doctor import write
from context_doctor.config import DEFAULT_BUDGETS
from context_doctor.errors import DoctorError
from context_doctor.escape import escape_text
from context_doctor.model.currency import (
    AsOfMarker,
    as_of_markers,
    header_lag,
    is_operational_title,
    lags,
)
from context_doctor.model.documents import Document
from context_doctor.model.header import completion_reading
from context_doctor.model.text import first_date, ordinals

BODY_CURRENT = "as-of markers current"
BODY_LAGS = "body lags"
BODY_UNVERIFIABLE = "body currency unverifiable"

# The override flag of each rule that has one; the others cannot be overridden.
OVERRIDES: dict[str, str] = {
    "anchor-count": "--count N",
    "max-lines": "--max-lines N",
    "header-lag": "--allow-header-lag",
    "stale-body": "--allow-stale-body",
    "marker-without-review": "--state-reviewed",
}

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_BARE_LF = re.compile(r"(?<!\r)\n")


class EditRefused(write.WriteRefused):
    """An edit the editor will not make; nothing was written."""

    @property
    def override(self) -> str | None:
        return OVERRIDES.get(self.rule)

    def one_line(self) -> str:
        flag = f" (override: {self.override})" if self.override else ""
        return f"refused [{self.rule}]: {self.message}{flag}"


@dataclass(frozen=True)
class Gates:
    """The overrides a caller may record; each is an explicit claim, never a default."""

    max_lines: int | None = None
    allow_header_lag: bool = False
    allow_stale_body: bool = False
    state_reviewed: bool = False


@dataclass(frozen=True)
class EditResult:
    path: Path
    before: bytes
    after: bytes
    body_state: str
    written: bool

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
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


def split_lines(text: str) -> list[str]:
    """Lines with their own line breaks, split only at CRLF, CR and LF (as ``Document`` does)."""
    return _LINE.findall(text)


# -- reading ---------------------------------------------------------------------


@dataclass(frozen=True)
class DecodedText:
    """A text file's bytes as text: its BOM, its body, and whether its line breaks are all CRLF."""

    bom: str
    body: str
    crlf: bool  # every line break is CRLF (and there is at least one)

    def encode(self, body: str) -> bytes:
        return (self.bom + body).encode("utf-8")

    def native(self, given: str) -> str:
        """``given`` with bare LFs written as the file's CRLF, in an all-CRLF file."""
        return _BARE_LF.sub("\r\n", given) if self.crlf else given


def decode(path: Path, data: bytes) -> DecodedText:
    """The text of a file read as bytes; DoctorError (exit 2) for a binary or non-UTF-8 file."""
    if b"\x00" in data:
        raise DoctorError(
            f"{path} is binary (contains NUL bytes), not a text file",
            "edit only Markdown or YAML context files",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"{path} is not valid UTF-8 (byte {error.start})", "re-save the file as UTF-8"
        ) from error
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text.removeprefix("\ufeff")
    breaks = re.findall(r"\r\n|\r|\n", body)
    return DecodedText(bom, body, bool(breaks) and all(item == "\r\n" for item in breaks))


def _document(path: Path, body: str) -> Document:
    return Document.from_text(body, path, path.name)


# -- planning: the new text, or a refusal ------------------------------------------


def plan_set_field(path: Path, body: str, field: str, value: str) -> str:
    """``body`` with the header field ``**field:**`` set to ``value``."""
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
    fields = _document(path, body).field_values(name)
    if not fields:
        raise EditRefused("anchor-absent", f"{path.name} has no `**{name}:**` header field")
    if len(fields) > 1:
        numbers = ", ".join(str(item.line) for item in fields)
        raise EditRefused(
            "anchor-count",
            f"{path.name} has {len(fields)} `**{name}:**` header fields (lines {numbers}); "
            "set-field needs exactly one",
        )
    target = fields[0]
    lines = split_lines(body)
    line = lines[target.line - 1]
    marker = f"**{target.name}:**"
    start = line.index(marker) + len(marker)
    content_end = len(line.rstrip("\r\n"))
    if target.value:
        at = line.index(target.value, start)
        new_line = line[:at] + value.strip() + line[at + len(target.value) :]
    else:
        gap = " " if start >= content_end or line[start] != " " else ""
        new_line = line[:start] + gap + value.strip() + line[start:]
    lines[target.line - 1] = new_line
    result = "".join(lines)
    after = _document(path, result).field_values(name)
    if len(after) != 1 or after[0].value != value.strip():
        raise EditRefused(
            "value-unreadable",
            f"`**{name}:** {value.strip()}` would not read back as that field's value "
            "(does the value hold another `**Field:**`?)",
        )
    return result


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


def plan_replace(path: Path, text: DecodedText, anchor: str, replacement: str, count: int) -> str:
    if not anchor:
        raise DoctorError("--anchor is empty", "give the exact text to replace")
    if count < 1:
        raise DoctorError(
            f"--count {count} declares no match",
            "--count is how many times the anchor occurs (at least 1); nothing to replace is no edit",
        )
    body = text.body
    anchor = text.native(anchor)
    replacement = text.native(replacement)
    starts = _occurrences(body, anchor)
    if not starts:
        raise EditRefused("anchor-absent", f"the anchor does not occur in {path.name}")
    if len(starts) != count:
        raise EditRefused(
            "anchor-count",
            f"the anchor occurs {len(starts)} times in {path.name}, not {count}",
        )
    fused = _fusion(body, starts, anchor, replacement)
    if fused is not None:
        raise EditRefused(
            "fused-boundary",
            f"{fused}; include the neighbouring line in both anchor and replacement to change "
            "a boundary on purpose",
        )
    return body.replace(anchor, replacement)


def _occurrences(body: str, anchor: str) -> list[int]:
    """Start of every non-overlapping occurrence, as ``str.replace`` would see them."""
    found: list[int] = []
    position = body.find(anchor)
    while position >= 0:
        found.append(position)
        position = body.find(anchor, position + len(anchor))
    return found


def plan_insert_before(path: Path, text: DecodedText, anchor: str, insert: str) -> str:
    if not anchor:
        raise DoctorError("--anchor is empty", "give the start of the line to insert before")
    if not insert:
        raise DoctorError("--text is empty", "give the text to insert, ending with a newline")
    body = text.body
    anchor = text.native(anchor)
    insert = text.native(insert)
    starts = _occurrences(body, anchor)
    if not starts:
        raise EditRefused("anchor-absent", f"the anchor does not occur in {path.name}")
    if len(starts) != 1:
        raise EditRefused(
            "anchor-count",
            f"the anchor occurs {len(starts)} times in {path.name}; insert-before needs exactly "
            "one (lengthen it until it is unique)",
        )
    start = starts[0]
    if not _at_line_start(body, start):
        line = body.count("\n", 0, start) + 1
        raise EditRefused(
            "anchor-not-at-line-start",
            f"the anchor starts mid-line (line {line}); insert-before inserts whole lines",
        )
    if not insert.endswith(("\n", "\r")):
        raise EditRefused(
            "text-without-newline",
            "the inserted text does not end with a newline, so it would fuse with the anchor's line",
        )
    return body[:start] + insert + body[start:]


# -- the gates every edit passes ---------------------------------------------------


def _last_session(document: Document) -> tuple[date | None, dict[str, int]] | None:
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
    last = _last_session(document)
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
        raise EditRefused("no-change", f"the edit would leave {path.name} byte-identical")
    before = _document(path, before_body)
    after = _document(path, after_body)
    budget = gates.max_lines if gates.max_lines is not None else default_max_lines(path, after)
    if budget is not None and after.line_count > budget:
        already = f" (it is already {before.line_count})" if before.line_count > budget else ""
        raise EditRefused(
            "max-lines",
            f"the result would be {after.line_count} lines, over the {budget}-line budget{already}",
        )
    _judge_header_lag(before, after, gates)
    _judge_stale_body(before, after, gates)
    _judge_marker_review(before, after, gates)
    return body_state(after)


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
    new_last = _last_session(after)
    if gates.allow_stale_body or new_last is None:
        return
    if not _advanced(_last_session(before), new_last):
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
            f"(line {marker.line}, {marker.spelled}) stays behind it; update that section too",
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


# -- the API: read once, plan, judge, write ----------------------------------------


def _edit(
    path: Path | str, plan: Callable[[Path, DecodedText], str], gates: Gates, dry_run: bool
) -> EditResult:
    target = Path(path)
    try:
        snapshot = write.read_snapshot(target)
    except EditRefused:
        raise
    except write.WriteRefused as refused:  # e.g. a symlink: callers catch one exception type
        raise EditRefused(refused.rule, refused.message) from refused
    text = decode(target, snapshot.data)
    new_body = plan(target, text)
    state = judge(target, text.body, new_body, gates)
    new_data = text.encode(new_body)
    if not dry_run:
        try:
            write.replace_file(snapshot, new_data)
        except EditRefused:
            raise
        except write.WriteRefused as refused:  # changed on disk, or not on disk after the rename
            raise EditRefused(refused.rule, refused.message) from refused
    return EditResult(target, snapshot.data, new_data, state, written=not dry_run)


def set_field(
    path: Path | str,
    field: str,
    value: str,
    *,
    max_lines: int | None = None,
    allow_header_lag: bool = False,
    allow_stale_body: bool = False,
    state_reviewed: bool = False,
    dry_run: bool = False,
) -> EditResult:
    """Set the one ``**field:**`` header field to ``value``; raises ``EditRefused``."""
    gates = Gates(max_lines, allow_header_lag, allow_stale_body, state_reviewed)
    return _edit(
        path, lambda target, text: plan_set_field(target, text.body, field, value), gates, dry_run
    )


def replace_once(
    path: Path | str,
    anchor: str,
    replacement: str,
    *,
    count: int = 1,
    max_lines: int | None = None,
    allow_header_lag: bool = False,
    allow_stale_body: bool = False,
    state_reviewed: bool = False,
    dry_run: bool = False,
) -> EditResult:
    """Replace ``anchor``, which must occur exactly ``count`` times; raises ``EditRefused``."""
    gates = Gates(max_lines, allow_header_lag, allow_stale_body, state_reviewed)
    return _edit(
        path,
        lambda target, text: plan_replace(target, text, anchor, replacement, count),
        gates,
        dry_run,
    )


def insert_before(
    path: Path | str,
    anchor: str,
    text: str,
    *,
    max_lines: int | None = None,
    allow_header_lag: bool = False,
    allow_stale_body: bool = False,
    state_reviewed: bool = False,
    dry_run: bool = False,
) -> EditResult:
    """Insert whole lines before the one line starting with ``anchor``; raises ``EditRefused``."""
    gates = Gates(max_lines, allow_header_lag, allow_stale_body, state_reviewed)
    return _edit(
        path,
        lambda target, current: plan_insert_before(target, current, anchor, text),
        gates,
        dry_run,
    )
