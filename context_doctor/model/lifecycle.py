"""The status vocabulary and what each status means for the checks."""

from __future__ import annotations

CANONICAL = ("active", "paused", "completed", "archived")
DORMANT = frozenset({"paused", "completed", "archived", "complete", "superseded"})
TERMINAL = DORMANT - {"paused"}

# Retired spellings and what each should become.
RETIRED: dict[str, str] = {
    "complete": "`completed` (`complete` is a typo of it)",
    "superseded": "`archived` with `superseded_by: <project id>`",
    "new": "`active` (new is a phase, not a state)",
    "ongoing": "`active` with `bounded: false`",
}


def normalise(status: object) -> str | None:
    if isinstance(status, str) and status.strip():
        return status.strip().lower()
    return None
