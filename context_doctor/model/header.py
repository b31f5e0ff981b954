"""The completion reading of a CONTEXT.md header (SPEC §1 "Completion reading").

Only a value's leading clause decides: a completion word later in the prose never
does (a real active project's Status "Roster email sent — asking for a complete
suite description" is not completed, #18).

Every status word the vocabulary knows gives a verdict: `active`, `ongoing`, `new`
and `in progress` read as not completed, `superseded` (like the completion words)
as completed.  They behave like `active` does: beside a completion word, whichever
comes first wins ("Shipped v1, ongoing maintenance" reads completed by its leading
clause; "New — nothing shipped yet" reads not completed).
"""

from __future__ import annotations

import re

from context_doctor.model.documents import HeaderField

# A full stop ends the clause only before a space or the end (`v2.0 shipped` is one clause).
_CLAUSE_END = re.compile(r"—|\||,|;|\(|\.(?!\S)|--")
_NOT_COMPLETE = re.compile(r"\bnot\s+(?:yet\s+)?complete(?:d)?\b")
_ON_HOLD = re.compile(r"\b(?:paused|on\s+hold|parked)\b")
# Live status words: `active`, and the retired live statuses the index vocabulary still
# recognises (SPEC §1: a status the doctor knows in the index must give a header verdict too).
_LIVE = re.compile(r"\b(?:active|ongoing|new|in\s+progress)\b")
_COMPLETION = re.compile(r"\b(?:complete|completed|shipped|closed|done|archived|superseded)\b")


def _verdict_of(text: str) -> bool | None:
    lowered = text.casefold()
    if _NOT_COMPLETE.search(lowered) or _ON_HOLD.search(lowered):
        return False
    active = _LIVE.search(lowered)
    completion = _COMPLETION.search(lowered)
    if active and completion:
        return completion.start() < active.start()
    if completion:
        return True
    if active:
        return False
    return None


def value_verdict(value: str) -> bool | None:
    """True: reads completed; False: reads not completed; None: says nothing."""
    return _verdict_of(_leading_clause(value))


def completion_reading(status: list[HeaderField], phase: list[HeaderField]) -> bool | None:
    """Status values in order, first verdict wins; only then the Phase values."""
    field = deciding_field(status, phase)
    return value_verdict(field.value) if field is not None else None


def deciding_field(status: list[HeaderField], phase: list[HeaderField]) -> HeaderField | None:
    """The field whose value gives the completion reading: the one a finding quotes."""
    for fields in (status, phase):
        for field in fields:
            if value_verdict(field.value) is not None:
                return field
    return None


def _leading_clause(value: str) -> str:
    return _CLAUSE_END.split(value, maxsplit=1)[0]


def pause_reading(status: list[HeaderField], phase: list[HeaderField]) -> HeaderField | None:
    """The field whose leading clause says paused (`Paused`, `On hold`, `Parked`), if the
    value that decides the completion reading says so; None otherwise."""
    for fields in (status, phase):
        for field in fields:
            if value_verdict(field.value) is None:
                continue
            return field if _ON_HOLD.search(_leading_clause(field.value).casefold()) else None
    return None
