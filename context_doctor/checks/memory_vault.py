"""Memory vaults: the notes themselves (docs/vaults.md, group ``memory-vault``).

A memory is a Markdown file whose frontmatter ``type`` is one of Bastra
Recall's types; these checks judge what Bastra makes of each one: whether it
loads, under which id, what it links to, and whether it holds a credential.
Read-only: a vault file is never written (a direct write would skip Bastra's
audit trail), so every remedy names the Bastra tool or the editor step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from context_doctor.checks.registry import VAULT_CHECKS, Context
from context_doctor.report.findings import Issue, Severity, Unverified
from context_doctor.vault import EMPTY, MEMORY, REJECTED, UNKNOWN_TYPE, UNREADABLE

if TYPE_CHECKING:  # the vault model (PyYAML among it) loads only for a vault
    from context_doctor.vault.model import Note, Vault

GROUP = "memory-vault"

TYPES = (
    "lesson, preference, project-fact, meta-working, decision, workflow, reference, "
    "user-preference, bookmark, doc"
)


NOTE_CHECKS = VAULT_CHECKS.within(units=lambda v: len(v.notes))
"""Checks of every Markdown note of the vault, memory or not: coverage counts notes."""


def _unread(vault: Vault) -> Iterator[Unverified]:
    """Notes and directories the doctor could not read: their memories are unknown."""
    unreadable = sum(1 for note in vault.notes if note.facts and note.facts.status == UNREADABLE)
    if unreadable:
        yield Unverified("unreadable note", unreadable)
    if vault.blind_spots:
        yield Unverified("unreadable directory", len(vault.blind_spots))


def _stem(note: Note) -> str:
    return note.name[:-3]


@VAULT_CHECKS.check(
    "memory-frontmatter",
    severity=Severity.DEFECT,
    units=lambda v: sum(1 for n in v.notes if n.facts and n.facts.status in (MEMORY, REJECTED)),
    summary="a memory's frontmatter does not parse, a required field is missing or empty, or "
    "a typed optional field is outside Bastra's range or enum",
    remedy="Fix the frontmatter in an editor (Bastra re-reads the file on its next load), or "
    "re-save the memory through Bastra's `edit_memory`; the doctor never edits a vault file.",
    explanation="""
        Bastra Recall keeps each memory as a Markdown file with YAML frontmatter, and its
        loader is lenient: a block that is not YAML is re-read one top-level entry at a
        time, keeping what parses, and a missing or empty required field (id, title,
        summary, topic_path, tags, scope, recall_when, created, updated) is filled in from
        the file name, the body or the file time. The memory still loads, but not as it was
        written, and the only trace is a line in Bastra's weekly vault report. A block that
        is not YAML is a defect (fields are lost: the message says which, and whether Bastra
        still loads the memory); a required field Bastra has to repair is a warning. A memory
        Bastra throws out entirely (a list field holding something that is not text, a date
        that is neither a date nor text, a block that is never closed) is a defect too.
        Bastra's typed optional fields are judged with its own ranges and enums:
        `confidence` and `salience` a number in 0..1, each `related_via` item an `id`, a
        `reason` and a `score` in 0..1, `sensitivity` one of private, team, public (exact
        case), `stale_status` one of fresh, aging, stale, expired, `write_origin`, `emotion`
        and `recall_mode` in theirs, `expires_after_days` a positive whole number. Bastra
        drops a field that fails (releases before its loader's repair skip the whole memory):
        a warning, except a `sensitivity` Bastra drops (`Private`), which silently makes the
        memory `team` and visible to outside tools: a defect. Plain Obsidian notes without a
        memory type are not judged.""",
    severities=(
        (
            Severity.DEFECT,
            "the frontmatter is not YAML (fields are lost), Bastra throws the memory out, or "
            "it drops a `sensitivity` (the memory silently becomes `team`)",
        ),
        (
            Severity.WARNING,
            "a required field Bastra repairs with values it makes up, or a typed optional "
            "field it drops",
        ),
    ),
)
def memory_frontmatter(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for note in vault.notes:
        facts = note.facts
        if facts is None or facts.status not in (MEMORY, REJECTED):
            continue
        unit = facts.memory_id or facts.declared_id or _stem(note)
        if facts.status == REJECTED:
            yield Issue(
                f"Bastra does not load this memory: {facts.problem}",
                note.rel_path,
                1,
                unit=unit,
            )
            continue
        if facts.rescued:
            dropped = [field for field, why in facts.repairs if why.startswith("not YAML")]
            lost = (
                f"; the entries {', '.join(f'`{f}`' for f in dropped)} are lost" if dropped else ""
            )
            yield Issue(
                f"{facts.problem or 'the frontmatter is not valid YAML'}: Bastra's lenient "
                f"loader still loads the memory, one entry at a time{lost}",
                note.rel_path,
                1,
                unit=unit,
            )
        yield from _invalid_optional(note, unit)
        repaired = [(f, why) for f, why in facts.repairs if not why.startswith("not YAML")]
        if repaired:
            what = "; ".join(f"`{field}` {why}" for field, why in repaired)
            lines = [facts.line_of(field) for field, _ in repaired]
            yield Issue(
                f"required {'field' if len(repaired) == 1 else 'fields'} {what}: Bastra loads "
                "the memory with values it makes up (from the file name, the body or the file "
                "time)",
                note.rel_path,
                min((line for line in lines if line is not None), default=1),
                severity=Severity.WARNING,
                unit=unit,
            )


_OLDER = "releases before its loader's repair skip the whole memory instead"


def _widens(value: str) -> bool:
    """A `sensitivity` Bastra drops makes the memory `team`: wider, unless it said team or public."""
    return value.strip().lower() not in ("team", "public")


def _invalid_optional(note: Note, unit: str) -> Iterator[Issue]:
    """Bastra's typed optional fields its schema rejects (one finding per cause)."""
    facts = note.facts
    assert facts is not None
    widening = [item for item in facts.invalid_optional if item[0] == "sensitivity"]
    widening = [item for item in widening if _widens(item[1])]
    for name, value, why in widening:
        yield Issue(
            f"`{name}: {value}` {why} (exact case): Bastra drops it and the memory silently "
            "becomes `team`, visible to outside tools (Claude Code, Cursor) that a `private` "
            f"memory is hidden from ({_OLDER})",
            note.rel_path,
            facts.line_of(name) or 1,
            unit=unit,
        )
    rest = [item for item in facts.invalid_optional if item not in widening]
    if rest:
        what = "; ".join(f"`{name}: {value}` {why}" for name, value, why in rest)
        lines = [facts.line_of(name) for name, _, _ in rest]
        dropped = (
            "Bastra drops the field and loads the memory without it"
            if len(rest) == 1
            else "Bastra drops these fields and loads the memory without them"
        )
        yield Issue(
            f"{what}: {dropped} ({_OLDER})",
            note.rel_path,
            min((line for line in lines if line is not None), default=1),
            severity=Severity.WARNING,
            unit=unit,
        )


@NOTE_CHECKS.check(
    "memory-type-unknown",
    severity=Severity.DEFECT,
    summary="a note with `id` and `recall_when` whose `type` Bastra does not know: never loaded",
    remedy=f"Set `type` to one of Bastra's types ({TYPES}); Bastra loads it on its next pass.",
    explanation=f"""
        Bastra decides whether a Markdown file is a memory by its frontmatter `type` alone:
        one of {TYPES}. Anything else (a typo, `Lesson` with a capital, a type of another
        tool, no type at all) makes the file a plain note, and Bastra skips it without a
        word: the memory is never recalled. A note that carries `id` and `recall_when` was
        clearly written as a memory, so an unknown type there is a defect. Notes without
        those fields are ordinary Obsidian notes and are left alone.""",
)
def memory_type_unknown(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for note in vault.notes:
        facts = note.facts
        if facts is None or facts.status != UNKNOWN_TYPE:
            continue
        what = f"type `{facts.type}` is not one Bastra knows" if facts.type else "it has no `type`"
        yield Issue(
            f"a memory (it has `id` and `recall_when`) that Bastra never loads: {what}",
            note.rel_path,
            facts.line_of("type") or 1,
            unit=facts.declared_id or _stem(note),
        )


@VAULT_CHECKS.check(
    "memory-id-duplicate",
    severity=Severity.DEFECT,
    units=lambda v: len(v.memories),
    summary="two memory files carry one id; Bastra indexes only the first in its load order",
    remedy="Compare the files, keep the current text under the id, and give the other file "
    "another id or remove it (a sync-conflict copy `X (1).md` is the usual cause).",
    explanation="""
        Bastra loads the vault's files in sorted path order and keeps the first file for each
        id; every later file with the same id is quarantined out of the index and only
        mentioned on the daemon's stderr. Which file wins is decided by the sort, not by which
        is newer: a cloud-sync conflict copy `Alpha (1).md` sorts before `Alpha.md` and wins.
        The finding names every file carrying the id and the one Bastra indexes. An id Bastra
        derives from the file name (the memory has none of its own) counts too.""",
)
def memory_id_duplicate(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for memory_id, notes in sorted(vault.duplicates.items()):
        winner = notes[0]
        for note in notes[1:]:
            yield Issue(
                f"id `{memory_id}` is also carried by {winner.rel_path}, which Bastra indexes "
                f"(first in its load order); this file is never recalled",
                note.rel_path,
                (note.facts.line_of("id") if note.facts else None) or 1,
                unit=memory_id,
            )


@NOTE_CHECKS.check(
    "memory-empty",
    severity=Severity.WARNING,
    summary="a 0-byte (or blank) Markdown file in the vault",
    remedy="Delete the empty file, or write the memory it stands for through Bastra's "
    "`save_memory`.",
    explanation="""
        Obsidian creates an empty note when an unresolved wikilink is clicked; Bastra lists
        such 0-byte files in its vault report as safe to delete. An empty file holds no
        memory, but its name is what a link resolves to in Obsidian, so it hides a dangling
        link from a reader.""",
)
def memory_empty(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for note in vault.notes:
        if note.facts is not None and note.facts.status == EMPTY:
            yield Issue("the file is empty: it holds no memory", note.rel_path, 1, unit=_stem(note))


def _target_state(vault: Vault, target: str, citing: Note | None = None) -> str | None:
    """Why ``target`` is not a live memory, or None when it resolves.  Bastra resolves a
    link by memory id only: a plain note's or an empty file's name is no target.  A
    successor citing the memory it `replaces` (or that names it in `superseded_by`)
    cites it on purpose."""
    live = vault.index.get(target)
    if live is not None and live.facts is not None:
        successor = live.facts.superseded_by
        if not successor:
            return None
        cited = citing.facts if citing is not None else None
        if cited is not None and (cited.replaces == target or successor == cited.memory_id):
            return None
        return f"superseded by `{successor}`"
    if target in vault.trash_ids:
        return "soft-deleted (in .bastra/trash: Bastra's restore brings it back)"
    if target in vault.deleted_ids:
        return "deleted (the audit log's last entry for it is a delete)"
    named = vault.plain_names.get(target.lower())
    if named is not None:
        return f"no memory id: only {named} has that name, and Bastra resolves links by memory id"
    return "unknown (no memory has this id)"


def _judged(vault: Vault) -> int:
    return sum(1 for note in vault.index.values() if note.facts and not note.facts.obsolete)


@VAULT_CHECKS.check(
    "memory-link",
    severity=Severity.WARNING,
    units=_judged,
    summary="a link whose target is not a live memory, or a `replaces`/`superseded_by` that "
    "does not pair",
    remedy="Restore the target (Bastra's restore), point the link at its successor, or drop "
    "the link; change the memory through Bastra's `edit_memory` so the edit is audited.",
    explanation="""
        A memory links to others through `related` (ids), `related_via` (the daemon's
        detected relations) and `[[id]]` / `[[id|label]]` wikilinks in its body (outside
        code). Bastra resolves a link by memory id only, so a link whose target is not a
        live memory's id is reported, saying which: the target was soft-deleted (it is in
        .bastra/trash and Bastra's restore brings it back), it was superseded (its
        `superseded_by` names the newer memory), only a plain note or an empty file has that
        name (Obsidian opens it, Bastra's report lists the link as dangling), or no memory
        ever had that id. A target is reported once per memory, naming every way it is
        cited (Bastra mirrors a body wikilink into `related`, and its enricher writes
        `related_via` with the auto-related block: one relation, up to four mentions). A
        successor citing the memory it `replaces` is no stale citation.
        A memory marked `obsolete: true` is not judged (Bastra's report skips its links).
        `replaces` and `superseded_by` are the two halves of one edge: when A replaces B, B
        must say it is superseded by A, and the reverse; a half without its partner is
        reported.""",
)
def memory_link(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for memory_id, note in vault.index.items():
        facts = note.facts
        assert facts is not None
        if facts.obsolete:
            continue
        links: list[tuple[int | None, str, str]] = [
            (facts.line_of("related"), target, "`related`") for target in facts.related
        ]
        links += [(facts.line_of("related_via"), t, "`related_via`") for t in facts.related_via]
        links += [(line, target, "wikilink") for line, target in facts.links]
        # One finding per target: Bastra itself writes one relation up to four times (a body
        # wikilink is mirrored into `related`; the enricher writes `related_via` and the
        # auto-related block), so the finding names every way it is cited, at the first.
        cited: dict[str, tuple[int | None, list[str]]] = {}
        for line, target, kind in links:
            if target == memory_id:
                continue
            kinds = cited.setdefault(target, (line, []))[1]
            if kind not in kinds:
                kinds.append(kind)
        for target, (line, kinds) in cited.items():
            state = _target_state(vault, target, note)
            if state is not None:
                yield Issue(
                    f"{_joined(kinds)} to `{target}`, which is {state}",
                    note.rel_path,
                    line,
                    unit=memory_id,
                )
        yield from _pairing(vault, memory_id, note)


def _joined(kinds: list[str]) -> str:
    return kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} and {kinds[-1]}"


def _pairing(vault: Vault, memory_id: str, note: Note) -> Iterator[Issue]:
    facts = note.facts
    assert facts is not None

    def at(field: str, message: str) -> Issue:
        return Issue(message, note.rel_path, facts.line_of(field), unit=memory_id)

    if facts.replaces:
        older = vault.index.get(facts.replaces)
        back = older.facts.superseded_by if older is not None and older.facts else None
        if older is None:
            state = _target_state(vault, facts.replaces) or "not a live memory"
            yield at("replaces", f"`replaces: {facts.replaces}`, which is {state}")
        elif back != memory_id:
            said = f"says `superseded_by: {back}`" if back else "has no `superseded_by`"
            yield at("replaces", f"`replaces: {facts.replaces}`, but `{facts.replaces}` {said}")
    if facts.superseded_by:
        newer = vault.index.get(facts.superseded_by)
        forward = newer.facts.replaces if newer is not None and newer.facts else None
        if newer is not None and forward != memory_id:
            said = f"says `replaces: {forward}`" if forward else "has no `replaces`"
            yield at(
                "superseded_by",
                f"`superseded_by: {facts.superseded_by}`, but `{facts.superseded_by}` {said}",
            )
        elif newer is None:
            state = _target_state(vault, facts.superseded_by) or "not a live memory"
            yield at("superseded_by", f"`superseded_by: {facts.superseded_by}`, which is {state}")


def _secret_units(vault: Vault) -> int:
    return (
        sum(
            1 for n in vault.notes if n.facts and n.facts.status in (MEMORY, REJECTED, UNKNOWN_TYPE)
        )
        + len(vault.trash.files)
        + (1 if vault.audit_log is not None else 0)
    )


@VAULT_CHECKS.check(
    "secret-in-memory",
    severity=Severity.DEFECT,
    units=_secret_units,
    summary="a memory, a trashed memory or an audit-log snapshot holds credential material",
    remedy="Remove the value through Bastra's `edit_memory` (an audited update) and rotate the "
    "credential: earlier copies stay in the trash, the audit log's snapshots and git history.",
    explanation="""
        The seed's first worry about a memory store is "the occasional credential you pasted
        while debugging". Every memory (frontmatter and body, code blocks included), every
        file in .bastra/trash and every frontmatter snapshot in the audit log
        (`diff_before`, `diff_after`) is scanned with the same detector as
        `secret-in-context`: known token formats, private-key blocks, URLs carrying a
        credential, high-entropy values under a secret-like key. The finding names the file,
        line and kind and shows only the first 4 characters. A soft delete keeps the file in
        the trash and the log keeps its snapshots for good (append-only), so removing the
        value from the memory is not enough: rotate the credential.""",
)
def secret_in_memory(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    yield from _unread(vault)
    for note in [*vault.notes, *(item.note for item in vault.trash.files)]:
        facts = note.facts
        if facts is None or facts.status not in (MEMORY, REJECTED, UNKNOWN_TYPE):
            continue
        for hit in facts.secrets:
            yield Issue(
                f"{hit.kind} ({hit.redacted}): credential material in a memory",
                note.rel_path,
                hit.line,
                unit=facts.memory_id or facts.declared_id or _stem(note),
            )
    log = vault.audit_log
    if log is not None:
        for hit in log.secrets:
            yield Issue(
                f"{hit.kind} ({hit.redacted}) in a frontmatter snapshot of the audit log",
                log.rel_path,
                hit.line,
            )
