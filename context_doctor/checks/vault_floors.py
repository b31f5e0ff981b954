"""Memory vaults: floors (docs/vaults.md, group ``memory-vault``).

A floor pins a memory into every session while a condition holds; Bastra
never expires one, it asks for re-affirmation with a stated reason.  Floors are
machine state (``~/.bastra/floors.json`` and ``floor-acts.jsonl``, or
``$BASTRA_FLOORS_PATH`` / ``$BASTRA_FLOOR_ACTS_PATH``): without them these
checks are skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from context_doctor.checks.registry import (
    VAULT_CHECKS,
    Context,
    absent_and_unreadable,
)
from context_doctor.report.findings import Issue, Severity, Unverified

if TYPE_CHECKING:  # the vault model (PyYAML among it) loads only for a vault
    from context_doctor.vault.floors import Floor
    from context_doctor.vault.model import Vault

GROUP = "memory-vault"

STALE_WEEKS = 4  # Bastra's report: floor(days since the live affirmation / 7) >= 4
STALE_DAYS = STALE_WEEKS * 7
MAX_FLOORS = 12  # Bastra's cap: its API refuses a 13th floor

# Floors are a feature a machine uses or not: without a floors file there is nothing these
# checks are about (a shape, docs/checks.md: counted as not applicable, not a coverage skip). A
# floors file that is there and cannot be read is a gate: floor-stale reports it.
NO_FLOORS, FLOORS_UNREADABLE = absent_and_unreadable(
    lambda v: v.floors,
    ("no floors", "this machine has no Bastra floors file"),
    (
        "floors unreadable",
        "the floors file is a symlink, not JSON or not Bastra's shape (floor-stale reports it)",
    ),
)


def _units(vault: Vault) -> int:
    return max(1, len(vault.my_floors())) if vault.floors is not None else 1


FLOOR_CHECKS = VAULT_CHECKS.within(units=_units, skips=(NO_FLOORS,))
"""Checks of this machine's floors, counted per floor of the vault."""
READABLE_FLOOR_CHECKS = FLOOR_CHECKS.within(skips=(FLOORS_UNREADABLE,))
"""Floor checks that judge the floors themselves: held back while the file cannot be read."""


def _where(vault: Vault) -> str:
    assert vault.floors is not None
    return str(vault.floors.path)


def _about(vault: Vault, floor: Floor, said: str) -> Issue:
    """A finding about one floor, ``said`` of it after its name (``floor on `id```): at its
    line of the floors file, counted under its memory."""
    return Issue(
        f"floor on `{floor.memory_id}`{said}", _where(vault), floor.line, unit=floor.memory_id
    )


@FLOOR_CHECKS.check(
    "floor-stale",
    severity=Severity.WARNING,
    summary=f"a floor whose live affirmation is {STALE_DAYS} days old or more",
    remedy="Re-affirm the floor through Bastra with a fresh `why`, or release its condition; "
    "a released floor drops back to ranked recall, the memory stays.",
    explanation=f"""
        A floor spends guaranteed context on every session, so Bastra asks for it to be
        re-affirmed; its vault report lists a floor once `floor(days since its live
        affirmation / 7)` reaches {STALE_WEEKS}. The live affirmation is the act in
        floor-acts.jsonl with the latest `occurred_at` (an act without one counts at its
        `recorded` time; ties go to the later `recorded`), among acts at or after the floor's
        `floored_at` that carry both `affirmed_by` and `why` (an act without them is no
        affirmation and does not move the clock); with none, the floor's `last_affirmed`. It
        is stale when it is {STALE_DAYS} days or more before --today (exactly {STALE_DAYS} is
        stale, as in Bastra's report). A floors file that
        cannot be judged (a symlink, not JSON, not an array: Bastra then reads no floor at
        all) is reported here once, and the other floor checks are skipped.""",
)
def floor_stale(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    from context_doctor.vault.floors import day_of  # loaded with the vault it reads

    floors = vault.floors
    assert floors is not None
    if floors.problem is not None:
        yield Issue(f"the floors file {floors.problem}: no floor can be verified", _where(vault))
        yield Unverified("floors unreadable", _units(vault))
        return
    if floors.skipped:
        yield Unverified("unknown floor shape", floors.skipped)
    for floor in vault.my_floors():
        stamp = floors.live(floor)
        day = day_of(stamp)
        if day is None:
            yield Unverified("unknown floor shape")
            continue
        age = (ctx.today - day).days
        if age >= STALE_DAYS:
            yield _about(
                vault,
                floor,
                f" was last affirmed {day.isoformat()}, {age} days "
                f"before {ctx.today.isoformat()} ({age // 7} weeks: Bastra asks for a "
                f"re-affirmation from {STALE_WEEKS})",
            )


@READABLE_FLOOR_CHECKS.check(
    "floor-without-why",
    severity=Severity.WARNING,
    summary="a floor without its `reason`, or a floor or affirm act with `affirmed_by` or "
    "`why` but not both",
    remedy="Re-affirm through Bastra with both `affirmed_by` and a `why` (a floor without its "
    "reason: floor it again with one); an affirmation without its reason is not one.",
    explanation="""
        Bastra's rule for floors is "no why, no affirm". Its API refuses a floor whose
        `reason` is empty ("a floor without its why is unauditable at the gate"), and
        `affirmed_by` without `why` or `why` without `affirmed_by`, on a floor entry and on
        an affirm act alike. So a floor entry or an act in floor-acts.jsonl that breaks one
        of these was written around Bastra's API: each is reported, and an act without both
        `affirmed_by` and `why` does not count as an affirmation (floor-stale does not let
        it move the clock).""",
)
def floor_without_why(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    floors = vault.floors
    assert floors is not None
    mine = {floor.memory_id for floor in vault.my_floors()}
    for floor in vault.my_floors():
        if not floor.reason.strip():
            yield _about(
                vault,
                floor,
                " has an empty `reason` (Bastra refuses a floor without its why)",
            )
        half = _half(floor.affirmed_by or "", floor.why or "", act=False)
        if half is not None:
            yield _about(
                vault,
                floor,
                f" {half}",
            )
    for act in floors.acts:
        if act.memory_id not in mine:
            continue
        half = _half(act.affirmed_by, act.why, act=True)
        if half is not None:
            yield Issue(
                f"affirm act for `{act.memory_id}` {half}: it is no affirmation and does not "
                "move the clock",
                str(floors.acts_path),
                act.line,
                unit=act.memory_id,
            )


def _half(affirmed_by: str, why: str, *, act: bool) -> str | None:
    """What is wrong with an affirmation's `affirmed_by` and `why`, or None: they come
    together (a floor row may carry neither; an act must carry both)."""
    by, because = affirmed_by.strip(), why.strip()
    if act and not by and not because:
        return "has neither `affirmed_by` nor `why`"
    if by and not because:
        return f"names `affirmed_by: {by}` but no `why`"
    if because and not by:
        return "has a `why` but no `affirmed_by`"
    return None


@READABLE_FLOOR_CHECKS.check(
    "floor-target",
    severity=Severity.WARNING,
    summary="a floor on a memory id that is trashed or unknown",
    remedy="Release the floor's condition through Bastra, or restore the memory it pins.",
    explanation="""
        A floor pins a memory by id. When the memory has been soft-deleted (it is in
        .bastra/trash, or its last audit-log entry is a delete), or no memory in the vault
        has that id, the floor pins nothing: the session hook injects a gap, and the
        condition it guards is unprotected. With several vaults, a floor belongs to the
        vault that knows its id; an id no vault knows is reported once.""",
)
def floor_target(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    trashed = vault.trash_ids | vault.deleted_ids
    for floor in vault.my_floors():
        if floor.memory_id in vault.index:
            continue
        state = "soft-deleted (in the trash)" if floor.memory_id in trashed else "not a memory id"
        yield _about(
            vault,
            floor,
            f", which is {state} in vault {vault.name}",
        )


@READABLE_FLOOR_CHECKS.check(
    "floor-cap",
    severity=Severity.WARNING,
    summary=f"more than {MAX_FLOORS} floors on this machine: over Bastra's cap",
    remedy="Release conditions through Bastra until no more than "
    f"{MAX_FLOORS} floors remain; the pinned set rations every session's context.",
    explanation=f"""
        Every floor is injected into every session, so Bastra caps the registry at
        {MAX_FLOORS}: its API refuses a new floor past the cap and lists the current ones,
        leaving the choice of what to release to a person. A floors file holding more was
        written around that API. Each floor past the {MAX_FLOORS}th (in the file's order)
        is reported, by the vault that knows its memory id.""",
)
def floor_cap(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    floors = vault.floors
    assert floors is not None
    mine = {id(floor) for floor in vault.my_floors()}
    total = len(floors.floors)
    for position, floor in enumerate(floors.floors[MAX_FLOORS:], start=MAX_FLOORS + 1):
        if id(floor) in mine:
            yield _about(
                vault,
                floor,
                f" is floor {position} of {total} on this machine, "
                f"over Bastra's cap of {MAX_FLOORS} (its API refuses a floor past the cap)",
            )
