"""EDITS.json: the edits a script hands ``edit apply``, and the :class:`Edit` value each one is.

The document is a JSON list of objects, each naming its ``op`` (one of :data:`OPS`), its
``file`` and the verb's options by their long names. It is bounded (:data:`MAX_EDITS`
edits, :data:`MAX_EDITS_BYTES` bytes) and fails closed: the first problem is a
:class:`DoctorError` (exit 2) naming the edit and the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.guards.text import BOM

MAX_EDITS = 1000


MAX_EDITS_BYTES = 16 << 20


OPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # op: (required keys, optional keys) besides `op` and `file`
    "set-field": (("field", "value"), ("whole_value",)),
    "replace": (("anchor", "replacement"), ("count",)),
    "insert-before": (("anchor", "text"), ("count",)),
    "delete-line": (("anchor",), ("count",)),
}


@dataclass(frozen=True, init=False)
class Edit:
    """One edit of a batch: the verb and its options by their long names; ``file`` a path or
    a ``str`` (kept as a ``Path``)."""

    op: str
    file: Path
    field: str | None
    value: str | None
    whole_value: bool
    anchor: str | None
    replacement: str | None
    text: str | None
    count: int
    section: str | None  # set-field: the section the file's layout keeps its record in

    def __init__(
        self,
        op: str,
        file: Path | str,
        field: str | None = None,
        value: str | None = None,
        whole_value: bool = False,
        anchor: str | None = None,
        replacement: str | None = None,
        text: str | None = None,
        count: int = 1,
        section: str | None = None,
    ) -> None:
        given = dict(locals())
        given.pop("self")
        given["file"] = Path(file)
        for name, item in given.items():
            object.__setattr__(self, name, item)


def parse_edits(data: Any, cwd: Path | None = None) -> list[Edit]:
    """The edits of an EDITS.json document; DoctorError (exit 2) naming the first problem."""
    base = cwd or Path.cwd()
    if not isinstance(data, list):
        raise DoctorError(
            f"EDITS.json holds {type(data).__name__ if data is not None else 'null'}, "
            "not a list of edits",
            'write a JSON list: [{"op": "set-field", "file": "CONTEXT.md", ...}, ...]',
        )
    if not data:
        raise DoctorError("EDITS.json is an empty list", "give at least one edit")
    if len(data) > MAX_EDITS:
        raise DoctorError(
            f"EDITS.json holds {len(data)} edits, more than {MAX_EDITS}",
            "split the change into batches of at most 1000 edits",
        )
    return [parse_edit(item, number, base) for number, item in enumerate(data, start=1)]


def parse_edit(item: Any, number: int, base: Path) -> Edit:
    where = f"edit {number}"
    if not isinstance(item, Mapping):
        raise DoctorError(f"{where} is not an object", 'each edit is {"op": ..., "file": ...}')
    op = item.get("op")
    if op not in OPS:
        raise DoctorError(f"{where}: `op` is {json.dumps(op)[:60]}", f"use one of {', '.join(OPS)}")
    required, optional = OPS[op]
    unknown = sorted(set(item) - {"op", "file", *required, *optional})
    if unknown:
        raise DoctorError(
            f"{where} ({op}) has an unknown key `{unknown[0][:60]}`",
            f"{op} takes file, {', '.join((*required, *optional))}",
        )
    missing = [key for key in ("file", *required) if key not in item]
    if missing:
        raise DoctorError(
            f"{where} ({op}) lacks `{missing[0]}`", f"{op} needs {', '.join(required)}"
        )
    values: dict[str, Any] = {}
    for key in ("file", *required, *optional):
        if key not in item:
            continue
        value = item[key]
        if key == "count":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise DoctorError(f"{where}: `count` is not a whole number ≥ 1", 'e.g. "count": 2')
        elif key == "whole_value":
            if not isinstance(value, bool):
                raise DoctorError(f"{where}: `whole_value` is not true or false", "e.g. true")
        elif not isinstance(value, str):
            raise DoctorError(f"{where}: `{key}` is not a string", f"give `{key}` as JSON text")
        elif "\x00" in value and key in ("file", "anchor"):
            # Written text is judged by the write path (control-character, write/readable.py).
            raise DoctorError(f"{where}: `{key}` holds a NUL character", "remove it")
        values[key] = value
    path = Path(values.pop("file"))
    if not str(path):
        raise DoctorError(f"{where}: `file` is empty", "name the file to edit")
    return Edit(op=op, file=path if path.is_absolute() else base / path, **values)


def read_edits(raw: bytes, origin: str, cwd: Path | None = None) -> list[Edit]:
    """EDITS.json's bytes (from a file or stdin) as edits; DoctorError (exit 2) when unusable."""
    if len(raw) > MAX_EDITS_BYTES:
        raise DoctorError(f"{origin} is over {MAX_EDITS_BYTES >> 20} MiB", "split the batch")
    try:
        text = raw.decode("utf-8").removeprefix(BOM)
        data = json.loads(text, parse_constant=_no_constant)
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"{origin} is not UTF-8 (byte {error.start})", "save it as UTF-8"
        ) from None
    except (ValueError, RecursionError) as error:
        raise DoctorError(f"{origin} is not JSON: {error}", "write a JSON list of edits") from None
    return parse_edits(data, cwd)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
