"""The report cache (``last-report.json``): written through :mod:`context_doctor.write`, read back validated."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.git.repository import doctor_directory
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_limited
from context_doctor.write import (
    USER_NAMED,
    WriteRefused,
    ensure_directory,
    write_file,
)

REPORT_CACHE_NAME = "last-report.json"


Payload = dict[str, Any] | str | bytes | bytearray


def _document(payload: Payload) -> bytes | bytearray:
    """The file's bytes: a report already written as JSON (``render.jsonout.report_json_bytes``,
    the same bytes ``json.dumps`` writes, faster), or any other payload."""
    if isinstance(payload, bytes | bytearray):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_json(target: Path, payload: Payload) -> None:
    """Write the report cache through the one write path; the last complete write wins.

    Concurrent runs writing the same cache serialise on the write lock and each
    confirms its own bytes, so neither fails because the other finished first.
    A refusal (a symlinked cache) is exit 2 here: the run did not do what it was asked.
    """
    data = _document(payload)
    try:
        # $SYNTHESIS_HOME or --report-cache: the user's place, never the audited tree's.
        ensure_directory(target.parent, within=USER_NAMED)
        write_file(target, data, within=USER_NAMED)
    except WriteRefused as refusal:
        raise DoctorError(
            f"cannot write the report cache: {refusal.message}",
            "point --report-cache at a regular file, or pass --no-report-cache",
        ) from refusal


def write_repository_report(toplevel: Path, payload: Payload) -> Path:
    """Write ``<git-common-dir>/context-doctor/last-report.json`` for the repository at
    ``toplevel`` (what ``status`` reads there); returns the path.

    Contained in the git directory: the doctor's folder there may not be a symlink or a
    file (:func:`doctor_directory`), and the report may not be a symlink, a FIFO or
    anything but a regular file. Raises DoctorError or WriteRefused, nothing written.
    """
    home = doctor_directory(toplevel)
    target = home / REPORT_CACHE_NAME
    data = _document(payload)
    ensure_directory(home, within=home)
    write_file(target, data, within=home)
    return target


def read_cached_report(path: Path) -> dict[str, Any]:
    """A cached report, validated; exit 2 naming what is wrong with it."""
    if not path.is_file():
        raise DoctorError(
            f"no cached report at {path}",
            "run `context-doctor check` over the console.yaml sources to write one",
        )
    try:
        data = json.loads(read_limited(path, MAX_WRITE_TARGET_BYTES).decode("utf-8"))
    except (OSError, TooLarge, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise DoctorError(
            f"the cached report {path} is unreadable ({error.__class__.__name__})",
            "run `context-doctor check` again to rewrite it",
        ) from error
    from context_doctor.guards.yamlio import validator  # the schema's validator: only to read one

    errors = list(validator("report.schema.json").iter_errors(data))
    if errors or not isinstance(data, dict) or "findings" not in data:
        raise DoctorError(
            f"the cached report {path} does not match schemas/report.schema.json",
            "run `context-doctor check` again to rewrite it",
        )
    return data


# A few minutes of clock skew between machines are not "the future".
FUTURE_SKEW_HOURS = 0.05


def report_age_hours(report: dict[str, Any], now: datetime, path: Path | str = "") -> float:
    """Hours since the report was generated; exit 2 when that cannot be told.

    A ``generated_at`` that is not a timestamp, or lies in the future, makes no age: the
    report is never called fresh on its word (a clock set wrong, a file edited by hand).
    """
    stamp = report.get("generated_at")
    where = f"the cached report {path}".replace("  ", " ")
    try:
        generated = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        generated = None
    if generated is None:
        raise DoctorError(
            f"{where} has no valid generated_at ({stamp!r} is not an ISO-8601 time)",
            "run `context-doctor check` again to rewrite it",
        )
    if generated.tzinfo is None:
        generated = generated.replace(tzinfo=now.tzinfo)
    age = (now - generated).total_seconds() / 3600
    if age < -FUTURE_SKEW_HOURS:
        raise DoctorError(
            f"{where} is dated in the future ({stamp}): its age cannot be told",
            "check the clock, then run `context-doctor check` again to rewrite it",
        )
    return max(age, 0.0)
