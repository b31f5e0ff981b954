"""Memory vaults: the trail (docs/vaults.md, group ``memory-vault``).

Bastra's contract is that nothing evaporates and every change leaves a trail:
a delete moves the file into ``.bastra/trash`` and appends a line to the
append-only ``.bastra/audit-log.ndjson``.  These checks hold the trash and the
log to each other.  The log's format is outside Bastra's compatibility
promise: an entry of a shape the doctor does not know makes its memory
unverifiable (counted), never a defect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from context_doctor.checks.registry import (
    VAULT_CHECKS,
    Context,
    VaultSkipRule,
    absent_and_unreadable,
)
from context_doctor.report.findings import Issue, Severity, Unverified
from context_doctor.vault import AUDIT_LOG

if TYPE_CHECKING:  # the vault model (PyYAML among it) loads only for a vault
    from context_doctor.vault.history import Rewrite
    from context_doctor.vault.model import Vault

GROUP = "memory-vault"

# The trail checks count trashed (and logged) ids: without a log and without trash there is
# nothing to examine and nothing is listed; trashed files with no log to account for them
# are held back by a gate (docs/checks.md `no log` where the check needs one), shown in coverage.
NO_LOG = VaultSkipRule(
    "no log",
    "the vault has no .bastra/audit-log.ndjson to account for its trash",
    lambda v: v.audit_log is None,
)
NO_TRAIL, LOG_UNREADABLE = absent_and_unreadable(
    lambda v: v.audit_log,
    (
        "no log",
        "the vault keeps no audit log (.bastra/audit-log.ndjson): there is no trail to judge",
    ),
    ("log unreadable", "the audit log cannot be read (a symlink, not a regular file, unreadable)"),
)


def _log_lines(vault: Vault) -> int:
    return vault.audit_log.lines if vault.audit_log is not None else 0


@VAULT_CHECKS.check(
    "audit-log-line",
    severity=Severity.WARNING,
    units=_log_lines,
    skips=(NO_TRAIL,),
    summary="an audit-log line that is not JSON or lacks Bastra's fields",
    remedy="Leave the log as it is (it is append-only: never rewrite it); find what wrote the "
    "line, and let Bastra's own tools write from now on.",
    explanation=f"""
        Bastra appends one JSON object per audited mutation to {AUDIT_LOG}: `id`,
        `memory_id`, `timestamp`, `actor` (user, assistant, system, import), `operation`
        (create, update, delete, restore), `diff_before`, `diff_after` (frontmatter
        snapshots), and optionally `actor_detail`, `file_path`, `reason`, `session_id`.
        Bastra skips a line it cannot parse, so a broken line is a mutation that left no
        usable trace: restore cannot find a delete it records. A line that is not JSON,
        not an object, or lacks a required field is reported. An operation or actor Bastra
        may add later, or a line too long to read (over 8 MiB), is not judged: that entry's
        memory is counted as unverifiable. The log is read as a stream, so its size does not
        matter. A log that cannot be read at all (a symlink, not a regular file) is reported
        once.""",
)
def audit_log_line(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    log = vault.audit_log
    assert log is not None
    if log.problem is not None:
        yield Issue(f"the audit log {log.problem}: no entry can be verified", log.rel_path)
        yield Unverified("log unreadable", max(1, log.lines))
        return
    for problem in log.problems:
        if problem.unknown_shape:
            yield Unverified("unknown entry shape")
            continue
        yield Issue(f"audit-log line {problem.line} {problem.problem}", log.rel_path, problem.line)


def _trail_units(vault: Vault) -> int:
    ids = vault.trash_ids | {
        memory_id
        for memory_id, entries in vault.entries_by_memory.items()
        if any(entry.operation in ("delete", "restore") for entry in entries)
    }
    return len(ids)


TRASH_CHECKS = VAULT_CHECKS.within(units=_trail_units, skips=(NO_LOG, LOG_UNREADABLE))
"""Checks that hold the trash and the audit log to each other, counted per trashed or logged
id."""


def _expected_in_trash(vault: Vault) -> tuple[dict[str, int], dict[str, int], set[str]]:
    """Per id: trash files present, trash files the log accounts for; ids not judged."""
    present = Counter(item.memory_id for item in vault.trash.files)
    expected: dict[str, int] = {}
    for memory_id, entries in vault.entries_by_memory.items():
        count = 0
        for entry in entries:
            if entry.operation == "delete":
                count += 1
            elif entry.operation == "restore":
                count = max(0, count - 1)
        expected[memory_id] = count
    unknown = vault.audit_log.unknown_ids() if vault.audit_log is not None else set()
    return dict(present), expected, unknown


@TRASH_CHECKS.check(
    "trash-without-audit",
    severity=Severity.WARNING,
    summary="a file in .bastra/trash with no delete entry in the audit log",
    remedy="Restore it through Bastra (then delete it again, so the log records it), or keep "
    "it and record why; never move files into the trash by hand.",
    explanation="""
        A soft delete moves the memory to .bastra/trash/<id>.md (a second delete of the same
        id adds a timestamped version, <id>.<time>.md) and appends a `delete` entry; a
        restore takes the newest version back and appends a `restore` entry. So the trash
        should hold, for each id, as many versions as the log has deletes not undone by a
        restore. More versions than that means a file was put into the trash without its
        trail (by hand, by a sync client, or a delete whose audit line failed: Bastra's
        recording is best-effort). Bastra's restore needs the delete entry to know where the
        file came from. Files in the trash whose names Bastra never writes are counted as
        unverifiable.""",
)
def trash_without_audit(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    present, expected, unknown = _expected_in_trash(vault)
    if vault.trash.unknown:
        yield Unverified("unknown trash entry", len(vault.trash.unknown))
    by_id: dict[str, list[str]] = {}
    for item in vault.trash.files:
        by_id.setdefault(item.memory_id, []).append(item.note.rel_path)
    for memory_id, count in sorted(present.items()):
        if memory_id in unknown:
            yield Unverified("unknown entry shape")
            continue
        logged = expected.get(memory_id, 0)
        if count > logged:
            paths = sorted(by_id[memory_id])
            where = "no delete entry" if logged == 0 else f"only {logged} undone delete(s)"
            yield Issue(
                f"{count} trashed version(s) of `{memory_id}` but the audit log has {where} for it",
                paths[-1],
                unit=memory_id,
            )


@TRASH_CHECKS.check(
    "audit-without-trash",
    severity=Severity.WARNING,
    summary="a delete entry whose file is gone from .bastra/trash, or a restore of nothing",
    remedy="Find the file (git history, a sync client's own trash, a backup) and put it back "
    "into .bastra/trash under its name; Bastra's restore needs it.",
    explanation="""
        Nothing in a Bastra vault may evaporate: a delete keeps the memory in .bastra/trash
        until it is restored. A `delete` entry whose trashed version is no longer there
        (more undone deletes than files in the trash) means a memory was hard-deleted after
        all, and Bastra's restore will fail for it. A `restore` entry for an id with no
        delete before it is reported too. The live memory of an id restored since does not
        count as its trash file.""",
)
def audit_without_trash(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    present, expected, unknown = _expected_in_trash(vault)
    log = vault.audit_log
    assert log is not None
    for memory_id, entries in sorted(vault.entries_by_memory.items()):
        if memory_id in unknown:
            yield Unverified("unknown entry shape")
            continue
        open_deletes = 0
        for entry in entries:
            if entry.operation == "delete":
                open_deletes += 1
            elif entry.operation == "restore":
                if open_deletes == 0:
                    yield Issue(
                        f"a restore of `{memory_id}` with no delete before it",
                        log.rel_path,
                        entry.line,
                        unit=memory_id,
                    )
                open_deletes = max(0, open_deletes - 1)
        missing = expected.get(memory_id, 0) - present.get(memory_id, 0)
        if missing > 0:
            last = next(e for e in reversed(entries) if e.operation == "delete")
            yield Issue(
                f"`{memory_id}` was deleted (audit-log line {last.line}) but "
                f"{'its trashed file is' if missing == 1 else f'{missing} trashed versions are'} "
                "gone from .bastra/trash: it can no longer be restored",
                log.rel_path,
                last.line,
                unit=memory_id,
            )


# Gates and shapes of the history checks (docs/checks.md). A vault outside git, or one whose audit
# log no commit holds (`.bastra/` ignored, or no log at all), has no committed trail: there
# is nothing these checks are about (shapes, counted as not applicable). A shallow clone
# has the trail and hides it: a gate, shown, with `git fetch --unshallow` as its remedy.
NO_GIT = VaultSkipRule(
    "no git", "the vault is not in a git repository", lambda v: v.repository is None, shape=True
)
SHALLOW = VaultSkipRule(
    "shallow clone",
    "the repository is a shallow clone: its history is incomplete",
    lambda v: v.history.reason == "shallow clone",
)
LOG_NOT_IN_GIT = VaultSkipRule(
    "log not in git",
    "no commit holds the audit log (it is ignored, or never committed)",
    lambda v: v.history.reason == "log not in git",
    shape=True,
)


def _short(sha: str) -> str:
    return sha[:10]


NAMED_IDS = 5  # memory ids a rewrite's finding names; past that, how many more


def _what_it_lost(rewrite: Rewrite) -> str:
    """Which memories' entries the rewrite removed or changed: their trail now starts late
    (or with a `delete`), and the finding names them (docs/vaults.md)."""
    if rewrite.reordered:
        return "; every entry is still there, reordered"
    if not rewrite.lost:
        return "; the lines it removed or changed record no memory"
    shown = [f"`{memory_id[:80]}`" for memory_id in rewrite.lost[:NAMED_IDS]]
    more = len(rewrite.lost) - len(shown)
    named = ", ".join(shown) + (f" and {more} more" if more else "")
    entries = "entry" if len(rewrite.lost) == 1 else "entries"
    return f"; it removed or changed the {entries} of memor{'y' if len(rewrite.lost) == 1 else 'ies'} {named}"


@VAULT_CHECKS.check(
    "audit-log-rewritten",
    severity=Severity.DEFECT,
    units=lambda v: max(1, v.history.log_commits) if v.repository is not None else 1,
    skips=(NO_GIT, SHALLOW, LOG_NOT_IN_GIT),
    summary="a committed version of the audit log that does not extend the one before it",
    remedy="Restore the lines from the version before the rewriting commit (git history holds "
    "it) and append what came later; the log is append-only: never edit or tidy it.",
    explanation=f"""
        Bastra's audit log ({AUDIT_LOG}) is append-only by contract: no line is ever
        changed or removed, so a store's history is something a third party can re-run.
        Git keeps every committed version, so the contract can be checked: each version
        must extend the previous one byte for byte. A merge may take the union of its
        parents' lines (two machines appended at once). A commit that removes, reorders or
        edits a line, or deletes the log, is reported with its sha, date and subject, and
        with the memories whose entries it removed or changed (their trail now starts
        late, or with a `delete`), one finding per rewriting commit.
        The history is read in one pass; the log's versions are streamed once each, and
        when they add up to more than 512 MiB the oldest are counted as unverifiable.""",
)
def audit_log_rewritten(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    history = vault.history
    for reason, count in history.unverified_log.items():
        yield Unverified(reason, count)
    path = vault.rel(vault.root / AUDIT_LOG)
    for rewrite in history.rewrites:
        yield Issue(
            f'commit {_short(rewrite.sha)} ({rewrite.date[:10]}, "{rewrite.subject}") '
            f"{rewrite.problem}{_what_it_lost(rewrite)}",
            path,
            remedy=f"Restore {path} as it was before commit {_short(rewrite.sha)} (git history "
            "holds it) and append what came later; the log is append-only: never edit or tidy it.",
        )


@VAULT_CHECKS.check(
    "unaudited-change",
    severity=Severity.WARNING,
    units=lambda v: max(1, v.history.memory_changes) if v.repository is not None else 1,
    skips=(NO_GIT, NO_TRAIL, SHALLOW, LOG_NOT_IN_GIT),
    summary="a commit that adds or changes a memory with no audit-log line for it",
    remedy="Make memory changes through Bastra (`save_memory`, `edit_memory`), which writes "
    "the audit line; commit the audit log together with the memories it records.",
    explanation=f"""
        Every change Bastra makes to a memory appends a line to {AUDIT_LOG}; an edit made
        around Bastra (by hand in an editor, by a script, by a sync client) leaves no trail.
        For each commit that adds or changes a memory file, the lines that commit appended
        to the audit log must include one for that memory's id. Fields Bastra's daemon
        writes on its own (`recall_when_expanded*`, `related_via`, the auto-related block,
        `superseded_by`, `stale_status`) are exempt: a commit that changed only those needs
        no line. Merges are not judged (their changes were judged where they were made),
        nor commits older than the first commit of the audit log. Bastra records the trail
        best-effort (a write may land without its line), so this is a warning.""",
)
def unaudited_change(vault: Vault, ctx: Context) -> Iterator[Issue | Unverified]:
    history = vault.history
    for reason, count in history.unverified_changes.items():
        yield Unverified(reason, count)
    for change in history.unaudited:
        verb = "added" if change.added else "changed"
        yield Issue(
            f'commit {_short(change.sha)} ({change.date[:10]}, "{change.subject}") {verb} '
            f"memory `{change.memory_id}` with no audit-log line for it",
            change.path,
            unit=change.memory_id,
        )
