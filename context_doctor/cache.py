"""Writing reports to disk without ever leaving half a file behind.

Every writer goes through :func:`write_atomically`: a temporary file in the
destination's own directory, flushed and fsynced, renamed over the target,
then read back and compared.  A crash at any point leaves either the old file
or the new one, never a truncated mix.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.yamlio import validator

REPORT_CACHE_NAME = "last-report.json"


def write_atomically(target: Path, content: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
    )
    try:
        # mkstemp makes the file 0600: give it the target's mode, or the umask default if new.
        os.chmod(temporary, _mode_for(target))
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    try:
        directory = os.open(target.parent, os.O_RDONLY)
    except OSError:
        directory = None
    if directory is not None:
        try:
            os.fsync(directory)
        except OSError:
            pass  # some filesystems refuse fsync on a directory; the rename already happened
        finally:
            os.close(directory)
    if target.read_bytes() != content:
        raise DoctorError(
            f"{target} does not hold what was just written to it",
            "check the disk and whether another process writes the same file",
        )


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_json(target: Path, payload: dict[str, Any]) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomically(target, text.encode("utf-8"))
    except OSError as error:
        raise DoctorError(
            f"cannot write {target}: {error.strerror or error}",
            "check the directory's permissions, or pass --no-report-cache",
        ) from error


def read_cached_report(path: Path) -> dict[str, Any]:
    """A cached report, validated; exit 2 naming what is wrong with it."""
    if not path.is_file():
        raise DoctorError(
            f"no cached report at {path}",
            "run `context-doctor check` over the console.yaml sources to write one",
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DoctorError(
            f"the cached report {path} is unreadable ({error.__class__.__name__})",
            "run `context-doctor check` again to rewrite it",
        ) from error
    errors = list(validator("report.schema.json").iter_errors(data))
    if errors or not isinstance(data, dict) or "findings" not in data:
        raise DoctorError(
            f"the cached report {path} does not match schemas/report.schema.json",
            "run `context-doctor check` again to rewrite it",
        )
    return data


def report_age_hours(report: dict[str, Any], now: datetime) -> float:
    generated = datetime.fromisoformat(str(report["generated_at"]))
    if generated.tzinfo is None:
        generated = generated.replace(tzinfo=now.tzinfo)
    return (now - generated).total_seconds() / 3600
