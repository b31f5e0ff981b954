"""Bastra's floors: pinned memories that must be re-affirmed with a reason (docs/vaults.md).

Floors are machine state, not vault state: ``~/.bastra/floors.json`` (or
``$BASTRA_FLOORS_PATH``), a JSON array of entries, and the append-only act log
``~/.bastra/floor-acts.jsonl`` (or ``$BASTRA_FLOOR_ACTS_PATH``).  The live
affirmation of a floor is the act with the latest ``occurred_at`` (an act
without one is ordered by ``recorded``; ties go to the later ``recorded``, then
the later line), counting only acts at or after ``floored_at`` that carry both
``affirmed_by`` and ``why`` (an act without them is no affirmation); with no such
act it is the entry's ``last_affirmed``.  Both files are read defensively: a
symlink is not followed, a file that is not JSON makes the floors unverifiable
(Bastra itself then treats every floor as gone), an entry of a shape Bastra
would skip is counted, never judged.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from context_doctor.vault.audit_log import lines_of

MAX_FLOORS_BYTES = 4 << 20


@dataclass(frozen=True)
class Floor:
    line: int | None
    memory_id: str
    reason: str
    floored_at: str
    last_affirmed: str
    affirmed_by: str | None
    why: str | None


@dataclass(frozen=True)
class FloorAct:
    line: int
    memory_id: str
    occurred_at: str | None
    affirmed_by: str
    why: str
    recorded: str

    @property
    def order_key(self) -> str:
        return self.occurred_at if self.occurred_at is not None else self.recorded

    @property
    def affirms(self) -> bool:
        """An act is an affirmation only with both `affirmed_by` and `why` (Bastra's API
        refuses one without the other: no why, no affirm, the clock does not move)."""
        return bool(self.affirmed_by.strip() and self.why.strip())


@dataclass
class Floors:
    path: Path
    acts_path: Path
    floors: list[Floor] = field(default_factory=list)
    acts: list[FloorAct] = field(default_factory=list)
    skipped: int = 0  # entries and acts of a shape Bastra itself would skip
    problem: str | None = None  # why floors.json cannot be judged at all
    acts_problem: str | None = None

    def live(self, floor: Floor) -> str:
        """The timestamp of the floor's live affirmation."""
        mine = [
            act
            for act in self.acts
            if act.memory_id == floor.memory_id
            and act.affirms
            and act.order_key >= floor.floored_at
        ]
        if not mine:
            return floor.last_affirmed
        best = mine[0]
        for act in mine[1:]:
            if act.order_key != best.order_key:
                best = act if act.order_key > best.order_key else best
            elif act.recorded >= best.recorded:
                best = act
        return best.order_key


def floors_location(
    environ: Mapping[str, str] | None = None, home: Path | None = None
) -> tuple[Path, Path]:
    """Where Bastra keeps the floors and their act log on this machine."""
    env = os.environ if environ is None else environ
    base = (home or Path.home()) / ".bastra"
    floors = env.get("BASTRA_FLOORS_PATH") or str(base / "floors.json")
    acts = env.get("BASTRA_FLOOR_ACTS_PATH") or str(base / "floor-acts.jsonl")
    return Path(floors).expanduser(), Path(acts).expanduser()


def floors_beside(floors: Path, environ: Mapping[str, str] | None = None) -> tuple[Path, Path]:
    """A floors file the user named, and its act log: ``$BASTRA_FLOOR_ACTS_PATH``, else
    ``floor-acts.jsonl`` in the same directory (where Bastra keeps the two together)."""
    env = os.environ if environ is None else environ
    acts = env.get("BASTRA_FLOOR_ACTS_PATH")
    return floors, Path(acts).expanduser() if acts else floors.parent / "floor-acts.jsonl"


def day_of(stamp: str) -> date | None:
    """The UTC calendar day of an ISO-8601 timestamp (a date alone is that day)."""
    try:
        moment = datetime.fromisoformat(stamp.strip())
    except (ValueError, AttributeError):
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date()


def _open_regular(path: Path) -> tuple[int | None, str | None]:
    """An open descriptor for a regular, non-symlink file, or why not (None, None: absent)."""
    if path.is_symlink():
        return None, "is a symlink (not followed)"
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, f"cannot be read ({error.strerror or error})"
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        return None, "is not a regular file"
    return handle, None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _entry_lines(text: str) -> list[int]:
    """The line of each entry's ``"memory_id"`` key, in order (Bastra writes one per entry)."""
    return [
        number for number, line in enumerate(text.splitlines(), start=1) if '"memory_id"' in line
    ]


def read_floors(path: Path, acts_path: Path) -> Floors | None:
    """The floors and their acts; None when there is no floors file at all."""
    floors = Floors(path, acts_path)
    handle, problem = _open_regular(path)
    if handle is None and problem is None:
        return None
    if handle is not None:
        try:
            raw = os.read(handle, MAX_FLOORS_BYTES + 1)
        finally:
            os.close(handle)
        problem = _parse_floors(raw, floors)
    floors.problem = problem
    if problem is None:
        _read_acts(acts_path, floors)
    return floors


def _parse_floors(raw: bytes, floors: Floors) -> str | None:
    if len(raw) > MAX_FLOORS_BYTES:
        return f"is over {MAX_FLOORS_BYTES >> 20} MiB: not read"
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else []
    except (UnicodeDecodeError, ValueError, RecursionError):
        return "is not JSON (Bastra treats every floor as gone until it is repaired)"
    if not isinstance(data, list):
        return "is not a JSON array of floors (Bastra reads no floor from it)"
    lines = _entry_lines(text)
    for position, item in enumerate(data):
        shaped = (
            isinstance(item, dict)
            and _text(item.get("memory_id"))
            and _text(item.get("condition"))
            and isinstance(item.get("reason"), str)
            and isinstance(item.get("floored_at"), str)
            and isinstance(item.get("last_affirmed"), str)
        )
        if not shaped:
            floors.skipped += 1
            continue
        floors.floors.append(
            Floor(
                line=lines[position] if position < len(lines) else None,
                memory_id=item["memory_id"].strip(),
                reason=item["reason"],
                floored_at=item["floored_at"],
                last_affirmed=item["last_affirmed"],
                affirmed_by=_text(item.get("affirmed_by")),
                why=_text(item.get("why")),
            )
        )
    return None


def _read_acts(path: Path, floors: Floors) -> None:
    handle, problem = _open_regular(path)
    if handle is None:
        floors.acts_problem = problem
        return
    try:
        for number, raw in lines_of(handle):
            if raw is not None and not raw.strip():
                continue
            try:
                item = json.loads(raw) if raw is not None else None
            except (ValueError, RecursionError):
                item = None
            occurred = item.get("occurred_at") if isinstance(item, dict) else None
            if not (
                isinstance(item, dict)
                and _text(item.get("memory_id"))
                and isinstance(item.get("affirmed_by"), str)
                and isinstance(item.get("why"), str)
                and isinstance(item.get("recorded"), str)
                and (occurred is None or isinstance(occurred, str))
            ):
                floors.skipped += 1
                continue
            floors.acts.append(
                FloorAct(
                    number,
                    item["memory_id"].strip(),
                    occurred,
                    item["affirmed_by"],
                    item["why"],
                    item["recorded"],
                )
            )
    except OSError as error:
        floors.acts_problem = f"cannot be read ({error.strerror or error})"
    finally:
        os.close(handle)
