"""The gates every file's final text passes before the editor writes it (docs/editor.md).

:func:`judge` refuses a file's final text when a rule says so: a byte-identical result,
a result over the line budget, a change inside the generated state block, a broken pipe
table, a header left lagging, a header advanced past an as-of marker, a marker advanced
over untouched prose. Otherwise it says what the file's own as-of markers say against
its own ``**Last session:**`` (:func:`body_state`). :class:`Gates` holds the overrides a
caller may record.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from itertools import zip_longest
from pathlib import Path
from typing import TypedDict

from context_doctor.config.settings import DEFAULT_BUDGETS
from context_doctor.editor.edit import BOLD_FIELD, EditRefused, shell_quoted, text_document
from context_doctor.guards.text import (
    first_date,
    ordinals,
)
from context_doctor.model import tables
from context_doctor.model.currency import (
    AsOfMarker,
    as_of_markers,
    header_lag,
    is_operational_title,
    lags,
)
from context_doctor.model.documents import Document
from context_doctor.model.header import completion_reading
from context_doctor.model.state_file import find_block

BODY_CURRENT = "as-of markers current"


BODY_LAGS = "body lags"


BODY_UNVERIFIABLE = "body currency unverifiable"


_BLOCK_FIELDS = {
    "phase": "phase",
    "status": "status",
    "last session": "last_session",
    "accepted baseline": "accepted_baseline",
    "controlling plan": "controlling_plan",
}


@dataclass(frozen=True)
class Gates:
    """The overrides a caller may record; each is an explicit claim, never a default."""

    max_lines: int | None = None
    allow_header_lag: bool = False
    allow_stale_body: bool = False
    state_reviewed: bool = False
    allow_header_ahead: bool = False


class Claims(TypedDict, total=False):
    """The keywords every editing verb of the Python API takes: the :class:`Gates` a caller
    may claim, and ``dry_run`` (check everything, write nothing)."""

    max_lines: int | None
    allow_header_lag: bool
    allow_stale_body: bool
    state_reviewed: bool
    allow_header_ahead: bool
    dry_run: bool


def gates_claimed(verb: str, claims: Claims) -> tuple[Gates, bool]:
    """The gates and ``dry_run`` of ``verb``'s keywords; an unknown keyword is the
    ``TypeError`` Python raises for any function."""
    known = Claims.__annotations__
    for name in claims:
        if name not in known:
            raise TypeError(f"{verb}() got an unexpected keyword argument {name!r}")
    gates = Gates(
        claims.get("max_lines"),
        claims.get("allow_header_lag", False),
        claims.get("allow_stale_body", False),
        claims.get("state_reviewed", False),
        claims.get("allow_header_ahead", False),
    )
    return gates, claims.get("dry_run", False)


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
    before = text_document(path, before_body)
    after = text_document(path, after_body)
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
    match = BOLD_FIELD.match(changed.strip())
    if match is not None:
        field = _BLOCK_FIELDS.get(match.group(1).strip().casefold(), "phase")
    else:
        field = "next_actions"
    project = path.parent
    raise EditRefused(
        "generated-block",
        f"the edit changes {path.name}'s generated state block, which CURRENT_STATE.json owns",
        remedy=f"use `context-doctor state set {shell_quoted(str(project))} --field {field} --value …`",
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
