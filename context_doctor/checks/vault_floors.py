"""Memory vaults: floors (SPEC §9, group ``memory-vault``).

A floor pins a memory into every session while a condition holds; Bastra
never expires one, it asks for re-affirmation with a stated reason.  Floors are
machine state (``~/.bastra/floors.json`` and ``floor-acts.jsonl``, or
``$BASTRA_FLOORS_PATH`` / ``$BASTRA_FLOOR_ACTS_PATH``): without them these
checks are skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.findings import Issue, Severity, Unverified
from context_doctor.registry import Context, VaultSkipRule, check
from context_doctor.vault.floors import day_of
from context_doctor.vault.model import Vault

GROUP = "memory-vault"

STALE_DAYS = 28

NO_FLOORS = VaultSkipRule(
    "no floors", "this machine has no Bastra floors file", lambda v: v.floors is None
)
FLOORS_UNREADABLE = VaultSkipRule(
    "floors unreadable",
    "the floors file is a symlink, not JSON or not Bastra's shape (floor-stale reports it)",
    lambda v: v.floors is not None and v.floors.problem is not None,
)


def _units(vault: Vault) -> int:
    return max(1, len(vault.my_floors())) if vault.floors is not None else 1


def _where(vault: Vault) -> str:
    assert vault.floors is not None
    return str(vault.floors.path)


@check(
    "floor-stale",
    scope="vault",
    severity=Severity.WARNING,
    units=_units,
    skips=(NO_FLOORS,),
    summary=f"a floor whose live affirmation is more than {STALE_DAYS} days old",
    remedy="Re-affirm the floor through Bastra with a fresh `why`, or release its condition; "
    "a released floor drops back to ranked recall, the memory stays.",
    explanation=f"""
        A floor spends guaranteed context on every session, so Bastra asks for it to be
        re-affirmed; its vault report lists floors not re-affirmed for 4 weeks. The live
        affirmation is the act in floor-acts.jsonl with the latest `occurred_at` (an act
        without one counts at its `recorded` time; ties go to the later `recorded`), among
        acts at or after the floor's `floored_at`; with none, the floor's `last_affirmed`.
        It is stale when it is more than {STALE_DAYS} days before --today. A floors file that
        cannot be judged (a symlink, not JSON, not an array: Bastra then reads no floor at
        all) is reported here once, and the other floor checks are skipped.""",
)
def floor_stale(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
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
        if age > STALE_DAYS:
            yield Issue(
                f"floor on `{floor.memory_id}` was last affirmed {day.isoformat()}, {age} days "
                f"before {ctx.today.isoformat()} (more than {STALE_DAYS})",
                _where(vault),
                floor.line,
                unit=floor.memory_id,
            )


@check(
    "floor-without-why",
    scope="vault",
    severity=Severity.WARNING,
    units=_units,
    skips=(NO_FLOORS, FLOORS_UNREADABLE),
    summary="a floor or affirm act with `affirmed_by` and no `why`",
    remedy="Re-affirm through Bastra with both `affirmed_by` and a `why`; an affirmation "
    "without its reason is not one.",
    explanation="""
        Bastra's rule for floors is "no why, no affirm": a re-affirmation must restate its
        reason, or the clock must not move. Bastra's own writer refuses one without the
        other, so a floor entry or an act in floor-acts.jsonl that names who affirmed but
        carries no `why` was written around it, and its affirmation is not one.""",
)
def floor_without_why(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    floors = vault.floors
    assert floors is not None
    mine = {floor.memory_id for floor in vault.my_floors()}
    for floor in vault.my_floors():
        if floor.affirmed_by and not floor.why:
            yield Issue(
                f"floor on `{floor.memory_id}` names `affirmed_by: {floor.affirmed_by}` but "
                "no `why`",
                _where(vault),
                floor.line,
                unit=floor.memory_id,
            )
    for act in floors.acts:
        if act.memory_id in mine and act.affirmed_by.strip() and not act.why.strip():
            yield Issue(
                f"affirm act for `{act.memory_id}` by `{act.affirmed_by}` has no `why`",
                str(floors.acts_path),
                act.line,
                unit=act.memory_id,
            )


@check(
    "floor-target",
    scope="vault",
    severity=Severity.WARNING,
    units=_units,
    skips=(NO_FLOORS, FLOORS_UNREADABLE),
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
        yield Issue(
            f"floor on `{floor.memory_id}`, which is {state} in vault {vault.name}",
            _where(vault),
            floor.line,
            unit=floor.memory_id,
        )
