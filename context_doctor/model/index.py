"""``projects/index.yaml``: the registry of a source's projects."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.git.commits import PersistentStore
from context_doctor.guards.limits import MAX_YAML_FILE_BYTES
from context_doctor.guards.text import is_valid_unicode, parse_iso_date
from context_doctor.guards.yamlio import line_of, load_yaml_text, plain, read_text, validator
from context_doctor.model.suppression_comments import SuppressionComment, yaml_suppressions


@dataclass
class IndexEntry:
    position: int  # 1-based position in the list
    line: int | None
    fields: dict[str, Any]
    project_id: str | None
    problems: list[str] = field(default_factory=list)
    field_lines: dict[str, int] = field(default_factory=dict)  # 1-based line of each key
    problem_fields: dict[str, str] = field(default_factory=dict)  # problem -> the field it names

    def line_of(self, name: str) -> int | None:
        """The line of field ``name``, else the entry's own line: findings point at the field."""
        return self.field_lines.get(name, self.line)

    @property
    def status(self) -> object:
        return self.fields.get("status")

    def date_field(self, name: str) -> date | None:
        return parse_iso_date(self.fields.get(name))

    def label(self) -> str:
        where = f", line {self.line}" if self.line else ""
        named = f" `{self.project_id}`" if self.project_id else ""
        return f"entry {self.position}{named}{where}"


@dataclass
class Index:
    path: Path
    rel_path: str
    entries: list[IndexEntry]
    problems: list[str]  # problems no entry can carry (the file's overall shape)
    suppressions: list[SuppressionComment] = field(default_factory=list)

    def by_id(self) -> dict[str, list[IndexEntry]]:
        found: dict[str, list[IndexEntry]] = {}
        for entry in self.entries:
            if entry.project_id is not None:
                found.setdefault(entry.project_id, []).append(entry)
        return found


def _field_name(error_path: list[Any]) -> str | None:
    return next((str(part) for part in error_path if isinstance(part, str)), None)


def _describe(error_path: list[Any], message: str) -> str:
    field_name = _field_name(error_path)
    return f"field `{field_name}`: {message}" if field_name else message


# The longest file name the common file systems hold (ext4, APFS, NTFS: 255 bytes or units).
MAX_NAME_BYTES = 255


def _is_directory_name(raw: object) -> bool:
    """An id names one directory inside the projects directory: never `..`, `/x` or `a/b`,
    nor a name longer than a file system holds (asking for it fails, it cannot exist)."""
    return (
        isinstance(raw, str)
        and raw not in ("", ".", "..")
        and "/" not in raw
        and "\\" not in raw
        and "\x00" not in raw
        and len(raw.encode("utf-8", "surrogateescape")) <= MAX_NAME_BYTES
    )


def _too_long(raw: object) -> str | None:
    """The problem of an id no directory can be named after, else None."""
    if not isinstance(raw, str):
        return None
    size = len(raw.encode("utf-8", "surrogateescape"))
    if size <= MAX_NAME_BYTES:
        return None
    return (
        f"`id` is {size} bytes long: no directory can be named after it (a file name holds at "
        f"most {MAX_NAME_BYTES} bytes); shorten it"
    )


def load_index(path: Path, rel_path: str, memo: PersistentStore | None = None) -> Index:
    """The parsed index; with ``memo``, kept between runs keyed by the file's text.

    A file that is not valid YAML raises (exit 2) every time: only results are kept.
    """
    text = read_text(path, "index file", MAX_YAML_FILE_BYTES)
    content = text.encode("utf-8", "surrogatepass")
    if memo is not None:
        kept = memo.recall("index", Index, content, str(path), rel_path)
        if kept is not None:
            return kept
    index = _parse_index(text, path, rel_path)
    if memo is not None:
        memo.keep("index", content, index, str(path), rel_path)
    return index


def _parse_index(text: str, path: Path, rel_path: str) -> Index:
    data = load_yaml_text(text, path, "index file")
    raw_entries: Any = data
    if isinstance(data, dict):
        raw_entries = data.get("projects")
    plain_data = plain(data) if data is not None else []
    problems: list[str] = []
    entry_problems: dict[int, list[str]] = {}
    problem_fields: dict[int, dict[str, str]] = {}
    for error in validator("index.schema.json").iter_errors(plain_data):
        error_path = list(error.absolute_path)
        if error_path and error_path[0] == "projects":
            error_path = error_path[1:]
        if error_path and isinstance(error_path[0], int):
            described = _describe(error_path[1:], error.message)
            entry_problems.setdefault(error_path[0], []).append(described)
            named = _field_name(error_path[1:])
            if named is not None:
                problem_fields.setdefault(error_path[0], {})[described] = named
        else:
            problems.append(_describe(error_path, error.message))
    entries: list[IndexEntry] = []
    if isinstance(raw_entries, list):
        for position, raw in enumerate(raw_entries):
            fields = plain(raw) if isinstance(raw, dict) else {}
            for name, problem in _not_unicode(fields):
                entry_problems.setdefault(position, []).append(problem)
                problem_fields.setdefault(position, {})[problem] = name
            raw_id = fields.get("id")
            too_long = _too_long(raw_id)
            if too_long is not None:
                entry_problems.setdefault(position, []).append(too_long)
                problem_fields.setdefault(position, {})[too_long] = "id"
            entries.append(
                IndexEntry(
                    position=position + 1,
                    line=line_of(raw_entries, position),
                    fields=fields,
                    project_id=raw_id if _is_directory_name(raw_id) else None,
                    problems=entry_problems.get(position, []),
                    field_lines=_field_lines(raw),
                    problem_fields=problem_fields.get(position, {}),
                )
            )
    return Index(
        path=path,
        rel_path=rel_path,
        entries=entries,
        problems=problems,
        suppressions=yaml_suppressions(text, rel_path),
    )


def _not_unicode(fields: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) for each field whose text holds a lone surrogate escape (``"\\ud83d"``)."""
    found: list[tuple[str, str]] = []
    for name, value in fields.items():
        texts = [name, *(value if isinstance(value, list) else [value])]
        if any(isinstance(text, str) and not is_valid_unicode(text) for text in texts):
            found.append(
                (
                    name,
                    f"field `{name}` holds text that is not valid Unicode (an unpaired "
                    "surrogate escape such as `\\ud83d`): write the character itself",
                )
            )
    return found


def _field_lines(raw: object) -> dict[str, int]:
    if not isinstance(raw, dict):
        return {}
    found: dict[str, int] = {}
    for key in raw:
        line = line_of(raw, key)
        if line is not None:
            found[str(key)] = line
    return found
