"""``log add``: a session entry appended to ``sessions/YYYY-MM.md``, in date order (SPEC §4).

The entry goes into the month file of its date (created with its title line
when missing), before the first entry dated later, else at the end. With
``set_header`` the same batch moves ``CONTEXT.md``'s ``**Last session:**`` to
the entry's date and the index's ``last_session`` with it, so the header can
never be ahead of the log it names. Everything is one
:class:`~context_doctor.write.apply.Batch`: every gate once, every file or none.

Decisions where the spec is silent (also in CHANGELOG.md):

- The heading copies the level (``##`` or ``###``) and the separator after the
  date (`` — ``, ``: ``) of the file's first entry; a new file gets
  ``## YYYY-MM-DD — Title`` under ``# Session Archive — Month YYYY``.
- A duplicate is a heading of the file with the same date and title (case,
  spacing and separator aside).
- ``--set-header`` writes the date alone when ``Last session`` holds only a
  date (and ordinals); a value with a summary after its date gets
  ``DATE — TITLE``: the old summary described the old session.
- The index's ``last_session`` is set (or added) only when the project has an
  entry in the ``index.yaml`` beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.findings import SetEntryField
from context_doctor.model.documents import Document
from context_doctor.model.sessions import entries_of
from context_doctor.model.text import LEADING_DATE, ORDINAL_PATTERN, lines_with_ends
from context_doctor.write.apply import ApplyResult, Batch, Edit, as_edit_refusal
from context_doctor.write.edit import EditRefused, Gates, Splice
from context_doctor.write.fixes import NotApplicable, set_entry_field
from context_doctor.yamlio import lenient_loader

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_SEPARATOR = re.compile(r"\d{4}-\d{2}-\d{2}(\s*[—\u2013:-]+\s*)")
_WORDS = re.compile(r"[\s—\u2013:\-]+")


@dataclass(frozen=True)
class LogEntry:
    project: Path
    day: date
    title: str
    text: str = ""


def _normal(heading: str) -> str:
    return _WORDS.sub(" ", heading).strip().casefold()


def log_path(project: Path, day: date) -> Path:
    return project / "sessions" / f"{day:%Y-%m}.md"


def add_entry(
    entry: LogEntry,
    *,
    today: date,
    set_header: bool = False,
    gates: Gates | None = None,
    dry_run: bool = False,
) -> ApplyResult:
    """Log ``entry`` (and, with ``set_header``, move the header and index); raises EditRefused."""
    title = entry.title.strip()
    if not title or "\n" in title or "\r" in title:
        raise DoctorError("--title must be one non-empty line", "e.g. --title 'query path ported'")
    if not entry.project.is_dir():
        raise DoctorError(f"{entry.project} is not a project directory", "name a project directory")
    if entry.day > today:
        raise EditRefused(
            "date-in-future",
            f"{entry.day} is after today ({today}); a session is logged on or after the day it "
            "happened",
            remedy="give the session's real date",
        )
    with as_edit_refusal():
        batch = Batch(entry.project, dry_run=dry_run)
        path = log_path(entry.project, entry.day)
        newline = _project_newline(batch, entry.project)
        if path.exists() or path.is_symlink():
            _insert(batch, path, entry.day, title, entry.text)
        else:
            month = f"{MONTHS[entry.day.month - 1]} {entry.day.year}"
            heading = f"## {entry.day.isoformat()} — {title}"
            body = f"# Session Archive — {month}\n\n{heading}\n{_paragraph(entry.text)}"
            batch.create(path, body.replace("\n", newline))
        if set_header:
            _set_header(batch, entry.project, entry.day, title)
        return batch.commit(gates or Gates(), dry_run=dry_run)


def _paragraph(text: str) -> str:
    if not text.strip():
        return ""
    return "\n" + text + ("" if text.endswith(("\n", "\r")) else "\n")


def _project_newline(batch: Batch, project: Path) -> str:
    context = project / "CONTEXT.md"
    if context.is_file() and not context.is_symlink():
        try:
            return batch.file(context).decoded.newline
        except DoctorError:  # an unreadable CONTEXT.md does not stop the log (only the header)
            return "\n"
    return "\n"


def _insert(batch: Batch, path: Path, day: date, title: str, text: str) -> None:
    held = batch.file(path)
    body = held.body
    document = Document.from_text(body, path, path.name)
    entries = entries_of(document, 0)
    level, separator = 2, " — "
    if entries:
        first = entries[0]
        level = next(h.level for h in document.headings if h.line == first.line)
        found = _SEPARATOR.match(first.heading.strip())
        separator = found.group(1) if found else " — "
    heading_text = f"{day.isoformat()}{separator}{title}"
    wanted = _normal(heading_text)
    for heading in document.headings:
        if heading.level in (2, 3) and _normal(heading.text) == wanted:
            raise EditRefused(
                "duplicate-entry",
                f"{path.name} already has `{heading.text}` (line {heading.line})",
                remedy="add to that entry with `context-doctor edit insert-before`, or give "
                "another title",
            )
    block = f"{'#' * level} {heading_text}\n{_paragraph(text)}"
    later = next((e for e in entries if e.date is not None and e.date > day), None)
    lines = document.lines
    if later is not None:
        offset = sum(len(line) for line in _with_ends(body)[: later.line - 1])
        splice = Splice(offset, offset, held.decoded.native(block + "\n"))
    else:
        ending = "" if not body or body.endswith(("\n", "\r")) else "\n"
        blank = "" if not lines or not lines[-1].strip() else "\n"
        splice = Splice(len(body), len(body), held.decoded.native(ending + blank + block))
    batch.change(path, [splice], "the new entry")


def _with_ends(body: str) -> list[str]:
    return lines_with_ends(body)


def _set_header(batch: Batch, project: Path, day: date, title: str) -> None:
    context = project / "CONTEXT.md"
    held = batch.file(context)
    fields = Document.from_text(held.body, context, context.name).field_values("Last session")
    old = fields[0].value if fields else ""
    leading = LEADING_DATE.match(old)
    rest = old[leading.end() :] if leading else old
    summary = bool(ORDINAL_PATTERN.sub("", rest).strip(" \t()—\u2013-,;:"))
    value = f"{day.isoformat()} — {title}" if summary else day.isoformat()
    batch.edit(
        Edit("set-field", context, field="Last session", value=value, whole_value=True),
        "--set-header",
    )
    _set_index(batch, project, day)


def _set_index(batch: Batch, project: Path, day: date) -> None:
    index = project.parent / "index.yaml"
    if not batch.holds_index_beside() or not index.is_file():
        return
    held = batch.file(index)
    try:
        data = lenient_loader().load(held.body)
    except Exception:  # any YAML error: the index is not ours to repair here
        raise EditRefused(
            "index-unreadable",
            f"{index} does not read as YAML, so its last_session cannot move with the header",
            remedy="fix the index first (`context-doctor check` names the problem)",
        ) from None
    entries = data.get("projects") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        return
    position = next(
        (
            number
            for number, item in enumerate(entries, start=1)
            if isinstance(item, dict) and item.get("id") == project.name
        ),
        None,
    )
    if position is None:
        return
    edit = SetEntryField(position, project.name, "last_session", day.isoformat())
    try:
        new_body = set_entry_field(held.body, edit)
    except NotApplicable as reason:
        raise EditRefused(
            "index-unwritable",
            f"{index}: the `{project.name}` entry's last_session cannot be set exactly ({reason})",
            remedy="set it by hand, or log without --set-header",
        ) from None
    if new_body != held.body:
        prefix = _common_prefix(held.body, new_body)
        suffix = _common_suffix(held.body[prefix:], new_body[prefix:])
        splice = Splice(prefix, len(held.body) - suffix, new_body[prefix : len(new_body) - suffix])
        batch.change(index, [splice], "--set-header")


def _common_prefix(old: str, new: str) -> int:
    size = 0
    for left, right in zip(old, new, strict=False):
        if left != right:
            break
        size += 1
    return size


def _common_suffix(old: str, new: str) -> int:
    size = 0
    for left, right in zip(reversed(old), reversed(new), strict=False):
        if left != right:
            break
        size += 1
    return size
