"""``log add``: a session entry in the project's log, in date order (docs/editor.md, docs/layouts.md).

Where the entry goes is the layout's (:class:`LogPlace`): the seed's
``sessions/YYYY-MM.md``; for another layout its log folder's month file, its one log
file, or the section of the context file that holds its dated entries; a log of
dated table rows gets a new row. Within a file the entry goes in date order: before
the first entry dated later (a log written newest first: before the first entry dated
earlier), else after the last entry's section. With ``set_header`` the same batch
moves the layout's last-session field to the entry's date (and, in the seed's layout,
the index's ``last_session`` with it), so the header can never be ahead of the log it
names. Everything is one :class:`~context_doctor.editor.apply.Batch`: every gate once,
every file or none.

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
  entry in the ``index.yaml`` beside it (the seed's layout; no other layout has one).
- A log folder gets month files ``YYYY-MM.md`` when it holds month files or no log
  yet; a folder holding exactly one other log file (``docs/handoff/sessions/log.md``)
  is that file; a folder of other files (one per session, say) is refused: the doctor
  will not guess a name (declare ``sessions`` as one file, or add the entry by hand).
- A log in the context file with no entry yet gets a ``## Session Log`` section at the
  end, unless a heading named ``Session Log``/``Sessions``/``Log`` (any case) exists:
  the entry then ends that section, one level below it.
- A table log's new row puts the date in the first cell, the title in the second, the
  text (one line) in the third; a table of two columns takes no text, and a text of
  several lines is refused (a row is one line); a ``|`` is written ``\\|``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.editor.apply import ApplyResult, Batch, as_edit_refusal
from context_doctor.editor.edit import EditRefused, Splice, apply_splices
from context_doctor.editor.edits_file import Edit
from context_doctor.editor.fixes import NotApplicable, set_entry_field
from context_doctor.editor.gates import Gates
from context_doctor.errors import DoctorError
from context_doctor.guards.dates import find_date, respell
from context_doctor.guards.text import LEADING_DATE, ORDINAL_PATTERN, TextFile, lines_with_ends
from context_doctor.guards.yamlio import careful_load
from context_doctor.layouts import DEFAULT_LAST_SESSION, IN_CONTEXT, NEWEST_FIRST
from context_doctor.model.document_facts import HeaderField, Heading
from context_doctor.model.documents import Document
from context_doctor.model.header import fields_named, last_session_field, record_date, section_range
from context_doctor.model.sessions import (
    ITEM,
    NOT_LOGS,
    SessionEntry,
    entries_of,
    is_month_file,
    kept_order,
    layout_entries,
    live_entries,
    log_section,
    new_entry_form,
    new_file_form,
)
from context_doctor.report.findings import SetEntryField

if TYPE_CHECKING:
    from context_doctor.layouts import Layout

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
_WORDS = re.compile(r"[\s—\u2013:\-]+")


@dataclass(frozen=True)
class LogPlace:
    """Where a layout keeps the records ``log add`` writes (absolute paths).

    ``sessions`` is a folder of logs or one log file (None: no separate log);
    ``in_context``: the log lives inside ``context``.  ``last_session`` are the layout's
    field names (case-insensitive) and ``anywhere`` how its fields are read (docs/layouts.md:
    every layout but the seed's).  ``seed``: the seed's layout (its grammar, its index).
    """

    context: Path
    sessions: Path | None
    in_context: bool = False
    last_session: tuple[str, ...] = ("Last session",)
    anywhere: bool = False
    seed: bool = False
    section: str | None = None  # the heading the record lives under (``## Current status``)
    order: str | None = None  # ``[layout] order``; None: the log's own (docs/layouts.md "Order")

    @classmethod
    def of_seed(cls, project: Path) -> LogPlace:
        return cls(project / "CONTEXT.md", project / "sessions", seed=True)

    @classmethod
    def of_layout(cls, directory: Path, layout: Layout) -> LogPlace:
        """The place a layout other than the seed's names, for its project in ``directory``."""
        context = directory / (layout.inner(layout.context) or layout.context)
        sessions = layout.inner(layout.sessions)
        return cls(
            context,
            None if sessions in (None, IN_CONTEXT) else directory / str(sessions),
            in_context=sessions == IN_CONTEXT,
            last_session=layout.fields.last_session,
            anywhere=True,
            section=layout.section,
            order=layout.order,
        )


@dataclass(frozen=True, init=False)
class LogEntry:
    """One session entry to log; ``project`` a path or a ``str`` (kept as a ``Path``)."""

    project: Path
    day: date
    title: str
    text: str
    place: LogPlace | None  # None: the seed's layout in ``project``

    def __init__(
        self,
        project: Path | str,
        day: date,
        title: str,
        text: str = "",
        place: LogPlace | None = None,
    ) -> None:
        object.__setattr__(self, "project", Path(project))
        object.__setattr__(self, "day", day)
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "place", place)


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
    place = entry.place or LogPlace.of_seed(entry.project)
    with as_edit_refusal():
        batch = Batch(entry.project, dry_run=dry_run)
        newline = _project_newline(batch, place.context)
        path = log_file(place, entry.day)
        if path.exists() or path.is_symlink():
            _insert(batch, path, entry.day, title, entry.text, place)
        else:
            month = f"{MONTHS[entry.day.month - 1]} {entry.day.year}"
            level, separator = _new_file_form(batch, path, place)
            heading = f"{'#' * level} {entry.day.isoformat()}{separator}{title}"
            top = f"# Session Archive — {month}" if _monthly(path) else "# Session Log"
            body = f"{top}\n\n{heading}\n{_paragraph(entry.text)}"
            batch.create(path, body.replace("\n", newline))
        if set_header:
            _set_header(batch, place, entry.day, title)
        return batch.commit(gates or Gates(), dry_run=dry_run)


def _new_file_form(batch: Batch, path: Path, place: LogPlace) -> tuple[int, str]:
    """A new month file of a layout's log spells its entry as the newest month file beside
    it does (``new_file_form``); the seed's layout keeps ``## YYYY-MM-DD — ``."""
    folder = path.parent
    if place.seed or not _monthly(path) or not folder.is_dir():
        return new_file_form(None, [])
    months = sorted(child for child in folder.iterdir() if _monthly(child) and child.is_file())
    if not months:
        return new_file_form(None, [])
    held = batch.file(months[-1])
    document = Document.from_text(held.body, months[-1], months[-1].name)
    return new_file_form(document, _entries(document, place))


def _monthly(path: Path) -> bool:
    return is_month_file(path.name)


def log_file(place: LogPlace, day: date) -> Path:
    """The file the entry goes in: see the module's decisions."""
    if place.in_context:
        return place.context
    if place.sessions is None:
        raise DoctorError(
            f"the layout of {place.context.name} keeps no session log",
            'declare one: `sessions = "docs/sessions"` (a folder), a file, or "context" '
            "under [layout] (`context-doctor layout` shows what it found)",
        )
    folder = place.sessions
    if folder.suffix.casefold() == ".md" and not folder.is_dir():
        return folder
    month = folder / f"{day:%Y-%m}.md"
    logs = (
        sorted(
            child
            for child in folder.iterdir()
            if child.suffix.casefold() == ".md" and child.name.casefold() not in NOT_LOGS
        )
        if folder.is_dir()
        else []
    )
    others = [log for log in logs if not _monthly(log)]
    if place.seed or not others or len(others) < len(logs):
        return month
    if len(others) == 1:
        return others[0]
    raise DoctorError(
        f"{folder} holds {len(others)} log files and none is a month file (YYYY-MM.md): "
        "log add will not guess which one this session belongs in",
        "declare `sessions` as the one file to append to, or add the entry by hand",
    )


def _paragraph(text: str) -> str:
    if not text.strip():
        return ""
    return "\n" + text + ("" if text.endswith(("\n", "\r")) else "\n")


def _project_newline(batch: Batch, context: Path) -> str:
    if context.is_file() and not context.is_symlink():
        try:
            return batch.file(context).decoded.newline
        except DoctorError:  # an unreadable CONTEXT.md does not stop the log (only the header)
            return "\n"
    return "\n"


def _entries(document: Document, place: LogPlace) -> list[SessionEntry]:
    if place.seed:
        return entries_of(document, 0)
    if document.path != place.context:  # a log file of its own: dated list items count too
        return layout_entries([document], None, log_in_context=False)
    return layout_entries([], document, log_in_context=True)


@dataclass(frozen=True)
class _NewEntry:
    """A one-line entry to add to a log (a table row, a list item): the file as the batch
    holds it, its document and live entries, and the entry's day, title and text."""

    batch: Batch
    body: str
    decoded: TextFile
    path: Path
    document: Document
    entries: list[SessionEntry]
    day: date
    title: str
    text: str
    order: str | None


def _insert(batch: Batch, path: Path, day: date, title: str, text: str, place: LogPlace) -> None:
    held = batch.file(path)
    document = Document.from_text(held.body, path, path.name)
    entries = live_entries(document, _entries(document, place))  # never an abandoned log
    new = _NewEntry(
        batch, held.body, held.decoded, path, document, entries, day, title, text, place.order
    )
    rows = {row.line: row for row in document.dated_rows}
    if entries and all(entry.line in rows for entry in entries):
        _insert_row(new)
        return
    level, separator = new_entry_form(document, entries, in_context=path == place.context)
    if level == ITEM:
        _insert_item(new)
        return
    headings = [entry for entry in entries if entry.line not in rows]
    heading_text = f"{day.isoformat()}{separator}{title}"
    wanted = _normal(heading_text)
    for heading in document.headings:
        if (place.seed and heading.level not in (2, 3)) or _normal(heading.text) != wanted:
            continue
        raise EditRefused(
            "duplicate-entry",
            f"{path.name} already has `{heading.text}` (line {heading.line})",
            remedy="add to that entry with `context-doctor edit insert-before`, or give "
            "another title",
        )
    section = log_section(document) if not headings and path == place.context else None
    block = f"{'#' * level} {heading_text}\n{_paragraph(text)}"
    if not headings and section is None and path == place.context:
        block = f"## Session Log\n\n{block}"
    before = _before_line(document, headings, day, section, place.order)
    body = held.body
    if before is not None:
        offset = sum(len(line) for line in _with_ends(body)[: before - 1])
        splice = Splice(offset, offset, held.decoded.native(block + "\n"))
    else:
        lines = document.lines
        ending = "" if not body or body.endswith(("\n", "\r")) else "\n"
        blank = "" if not lines or not lines[-1].strip() else "\n"
        splice = Splice(len(body), len(body), held.decoded.native(ending + blank + block))
    batch.change(path, [splice], "the new entry")


def _before_line(
    document: Document,
    headings: list[SessionEntry],
    day: date,
    section: Heading | None,
    order: str | None,
) -> int | None:
    """The line the new entry goes before (None: the end of the file).

    Date order as the log keeps it (``order``, else newest first when its dates never rise); after the
    last entry, the entry ends that entry's section (the next heading of its level or
    above), so a log in the middle of a file stays in its section.
    """
    before = _entry_dated_after(headings, day, order)
    if before is not None:
        return before
    last = headings[-1] if headings else None
    anchor = last.line if last is not None else (section.line if section else None)
    if anchor is None:
        return None
    level = next(h.level for h in document.headings if h.line == anchor)
    if last is None and section is not None:
        level = section.level
    return next((h.line for h in document.headings if h.line > anchor and h.level <= level), None)


def _entry_dated_after(entries: list[SessionEntry], day: date, order: str | None) -> int | None:
    """The line of the first entry the new one precedes in the log's own order (``order``
    when the layout declares it, else the one :func:`kept_order` reads in the log): the first
    dated later, or, in a log kept newest first, the first dated earlier, so a new entry
    of a newest-first log goes at its top.  None: the new entry comes after them all."""
    newest_first = kept_order(entries, order) == NEWEST_FIRST
    for entry in entries:
        if entry.date is None:
            continue
        if (entry.date < day) if newest_first else (entry.date > day):
            return entry.line
    return None


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner.removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [cell.strip() for cell in _CELL_SPLIT.split(inner)]


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _insert_row(new: _NewEntry) -> None:
    """A new row of the table log, in date order, with the cells the table has."""
    sample = new.document.lines[new.entries[-1].line - 1]
    width = len(_cells(sample))
    note = _one_line(new.text, new.path, "table rows, and a row is one line")
    column = _row_column(new.document, new.entries)
    if note and width < 3 + column:
        raise DoctorError(
            f"{new.path.name}'s session table has {width} columns: no cell for --text",
            "put the session in --title alone",
        )
    for entry in new.entries:
        cells = _cells(new.document.lines[entry.line - 1])
        titled = len(cells) > column + 1
        if entry.date == new.day and titled and _normal(cells[column + 1]) == _normal(new.title):
            raise EditRefused(
                "duplicate-entry",
                f"{new.path.name} already has the row `{entry.heading}` (line {entry.line})",
                remedy="add to that row with `context-doctor edit replace`, or give another title",
            )
    values = [new.day.isoformat(), new.title.strip(), note]
    if column == 1:
        values.insert(0, _next_label(new.path, new.document, new.entries))
    values = values[:width]
    values += [""] * (width - len(values))
    escaped = [value.replace("|", "\\|") for value in values]
    row = " | ".join(escaped)
    row = f"| {row} |" if sample.lstrip().startswith("|") else row
    splice = _line_splice(
        new.body, new.decoded, new.entries, (new.day, new.order), row, new.entries[-1].line
    )
    new.batch.change(new.path, [splice], "the new row")


def _row_column(document: Document, entries: list[SessionEntry]) -> int:
    """The cell the table log's rows are dated in (0 or 1), as its last dated row has it."""
    rows = {row.line: row for row in document.dated_rows}
    last = rows.get(entries[-1].line)
    return last.column if last is not None else 0


_LABEL_NUMBER = re.compile(r"(.*?)(\d{1,6})([a-z]?)")


def _next_label(path: Path, document: Document, entries: list[SessionEntry]) -> str:
    """The first cell of a new row in a table dated in its second cell: the numbered label
    one past the greatest its rows hold (``Round 7`` -> ``Round 8``), when every row's label
    is the same word and a number; else refused (the doctor does not invent a label)."""
    prefixes: set[str] = set()
    numbers: list[int] = []
    for entry in entries:
        label = _cells(document.lines[entry.line - 1])[0].strip("*_` ")
        found = _LABEL_NUMBER.fullmatch(label)
        if found is None:
            prefixes.add(label)
            break
        prefixes.add(found.group(1))
        numbers.append(int(found.group(2)))
    if len(prefixes) != 1 or len(numbers) != len(entries):
        raise EditRefused(
            "row-label",
            f"{path.name}'s session rows are dated in their second cell, after labels that do "
            "not count up in one word (a number, or `Round 3`)",
            remedy="add the row by hand with `context-doctor edit insert-before`",
        )
    return f"{prefixes.pop()}{max(numbers) + 1}"


def _one_line(text: str, path: Path, kept_as: str) -> str:
    """``--text`` for a log whose entry is one line (a table row, a list item)."""
    note = text.strip()
    if "\n" in note or "\r" in note:
        raise DoctorError(
            f"{path.name} logs sessions as {kept_as}: --text holds line breaks",
            "give --text on one line (or none, with the session in --title)",
        )
    return note


def _line_splice(
    body: str,
    decoded: TextFile,
    entries: list[SessionEntry],
    when: tuple[date, str | None],
    new: str,
    last: int,
) -> Splice:
    """The one-line entry ``new`` of day ``when[0]`` in the log's order (``when[1]``, the
    declared one): before the entry it precedes, else after line ``last`` (the last
    entry's last line)."""
    before = _entry_dated_after(entries, *when)
    starts = _with_ends(body)
    if before is not None:
        offset = sum(len(line) for line in starts[: before - 1])
        return Splice(offset, offset, decoded.native(new + "\n"))
    offset = sum(len(line) for line in starts[:last])
    ending = "" if starts[last - 1].endswith(("\n", "\r")) else "\n"
    return Splice(offset, offset, decoded.native(ending + new + ("\n" if ending == "" else "")))


_ITEM_MARKER = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+")


def _insert_item(new: _NewEntry) -> None:
    """A new item of a log kept as dated list items, in date order, marked and separated
    as the log's first item is; the item is one line, so --text must be one line too."""
    note = _one_line(new.text, new.path, "list items, and an item is one line here")
    _, separator = new_entry_form(new.document, new.entries, in_context=False)
    for entry in new.entries:
        if _normal(entry.heading).startswith(_normal(f"{new.day.isoformat()} {new.title}")):
            raise EditRefused(
                "duplicate-entry",
                f"{new.path.name} already has the item `{entry.heading}` (line {entry.line})",
                remedy="add to that item with `context-doctor edit replace`, or give another title",
            )
    lines = new.document.lines
    marker = _ITEM_MARKER.match(lines[new.entries[0].line - 1])
    lead = marker.group(0) if marker else "- "
    item = f"{lead}{new.day.isoformat()}{separator}{new.title}" + (f" {note}" if note else "")
    # After the last item's own lines: an item's continuation lines stay with it.
    end = _item_end(lines, new.entries[-1].line)
    splice = _line_splice(new.body, new.decoded, new.entries, (new.day, new.order), item, end)
    new.batch.change(new.path, [splice], "the new item")


def _item_end(lines: list[str], line: int) -> int:
    """The last line (1-based) of the list item starting on ``line``: its continuation
    lines are the following non-blank lines that open no new item at its indent."""
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    end = line
    for number in range(line + 1, len(lines) + 1):
        current = lines[number - 1]
        if not current.strip():
            break
        marker = _ITEM_MARKER.match(current)
        if marker is not None and len(current) - len(current.lstrip()) <= indent:
            break
        end = number
    return end


def _with_ends(body: str) -> list[str]:
    return lines_with_ends(body)


def _set_header(batch: Batch, place: LogPlace, day: date, title: str) -> None:
    context = place.context
    held = batch.file(context)
    document = Document.from_text(held.body, context, context.name)
    within = section_range(document, place.section) if place.section is not None else None
    if place.section is not None and within is None:
        within = (0, 0)  # no such section: no field to move (set-field refuses, naming it)
    found = last_session_field(document, place.last_session, anywhere=place.anywhere, within=within)
    if not place.seed and _move_date_in_place(
        batch, place, held.body, document, found, within, day
    ):
        return
    if found is None and not place.seed:
        fields = fields_named(document, place.last_session, anywhere=place.anywhere, within=within)
        found = (fields[0], None) if fields else None
    name = found[0].name if found is not None else place.last_session[0]
    old = found[0].value if found is not None else ""
    leading = LEADING_DATE.match(old)
    rest = old[leading.end() :] if leading else old
    summary = bool(ORDINAL_PATTERN.sub("", rest).strip(" \t()—\u2013-,;:"))
    value = f"{day.isoformat()} — {title}" if summary else day.isoformat()
    batch.edit(
        Edit(
            "set-field", context, field=name, value=value, whole_value=True, section=place.section
        ),
        "--set-header",
    )
    if place.seed:
        _set_index(batch, context.parent, day)


def _move_date_in_place(
    batch: Batch,
    place: LogPlace,
    body: str,
    document: Document,
    found: tuple[HeaderField, date | None] | None,
    within: tuple[int, int] | None,
    day: date,
) -> bool:
    """``--set-header`` on a date the doctor reads where ``set-field`` cannot write it in its
    own spelling (docs/layouts.md "Date lines"): the date of a status heading or a date line
    in any language (:func:`record_date`, when the layout declares no names of its own and
    none of them is found), or a layout field's date that is not a leading ``YYYY-MM-DD``
    (``Last updated: 30.04.2026``). That date is replaced on its own line, written as it was
    (:func:`respell`); the text around it stays, and no second line is ever added. False:
    not such a date."""
    if found is not None:
        if found[1] is None or found[0].line == 0:
            return False
        line = document.lines[found[0].line - 1]
        at = line.find(found[0].value) if found[0].value else -1
        date_found = find_date(line, max(at, 0))
        if date_found is None or (date_found.form == "iso" and at == date_found.start):
            return False  # a leading ISO date: set-field's own rule moves it
        number = found[0].line
    elif place.last_session == DEFAULT_LAST_SESSION:
        dated = record_date(document, within)
        if dated is None:
            return False
        date_found, number = dated.found, dated.field.line
    else:
        return False
    offset = sum(len(text) for text in _with_ends(body)[: number - 1])
    splice = Splice(offset + date_found.start, offset + date_found.end, respell(date_found, day))
    after = Document.from_text(apply_splices(body, [splice]), place.context, place.context.name)
    moved = last_session_field(after, place.last_session, anywhere=True, within=within)
    if moved is None and found is None:
        dated = record_date(after, within)
        moved = (dated.field, dated.day) if dated is not None else None
    if moved is None or moved[1] != day or moved[0].line != number:
        raise EditRefused(
            "value-unreadable",
            f"the date on line {number} of {place.context.name} would not read back as {day}",
            remedy="set the date by hand with `context-doctor edit replace`",
        )
    batch.change(place.context, [splice], "--set-header")
    return True


def _set_index(batch: Batch, project: Path, day: date) -> None:
    index = project.parent / "index.yaml"
    if not batch.holds_index_beside() or not index.is_file():
        return
    held = batch.file(index)
    try:
        data = careful_load(held.body)
    except Exception:  # any YAML error or bound: the index is not ours to repair here
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
