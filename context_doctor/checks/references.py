"""References that resolve (docs/references.md): records and instruction files name real files.

What counts as a reference, how each is resolved and what history says of one that does
not are the model's (``model/reference_text.py``, ``model/references.py``); this module
words the findings and their fixes.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import Context, SkipRule, check
from context_doctor.model.procedural import record_references
from context_doctor.model.project import Project
from context_doctor.model.reference_text import (
    IMPORT,
    LINK,
    PACKAGE_SCRIPT,
    RECIPE,
    SCRIPT,
    SPAN,
)
from context_doctor.model.references import (
    DELETED,
    FOLDER_REMOVED,
    LOST,
    NAME_DELETED,
    NEVER_EXISTED,
    NO_HISTORY,
    NO_RECIPE,
    NO_SCRIPT,
    RENAMED,
    Unresolved,
)
from context_doctor.model.source import Source
from context_doctor.report.findings import Applicability, Fix, Issue, RewritePath, Severity

GROUP = "procedural"

TERMINAL = SkipRule(
    "terminal",
    "the project is completed or archived: its records are history, and cite what was there",
    lambda p: p.claims_completed,
)


def instruction_units(source: Source, ctx: Context) -> int:
    """The instruction files (and files they import) whose references are judged."""
    procedural = source.procedural
    return len(procedural.judged) + len(procedural.imports.loaded)


@check(
    "reference-missing",
    severity=Severity.WARNING,
    skips=(TERMINAL,),
    units=instruction_units,
    summary="a record or an instruction file names a file, script or recipe that does not exist",
    remedy="Point the reference at the file as it is now, or remove it; `context-doctor check "
    "--fix` rewrites a reference to a renamed file.",
    explanation="""
        An agent follows the paths its records and instructions give it: a link to
        docs/adr/0004.md, a code span naming src/parser.py, `python scripts/deploy.sh`, `npm run
        e2e`. When the file is gone the agent reads nothing, or runs a command that fails, and
        the record teaches it to trust neither. Every reference of a working-memory record,
        its reference files, the log entries dated after the record's own date, and every
        instruction file (AGENTS.md, CLAUDE.md, rules, lessons: docs/references.md) must
        resolve in the work tree, relative to the file or to the repository's top as its
        syntax implies. One that does not is told by the history pass: renamed (named with
        the commit, and rewritten by `--fix` when the rename was exact, by `--unsafe-fixes`
        when the contents changed too), deleted (the commit named), in a folder since
        emptied, or never in the history at all (a link or an import only: a code span or
        command that never existed is too often an example to judge). A package script
        missing from the nearest package.json and a target missing from the folder's
        Makefile or justfile are reported too. Never judged: URLs, anchors, placeholders
        (`<id>`, `YYYY-MM`), globs, `~` and absolute paths, package names, paths the
        repository ignores, paths inside fenced examples, and bare words in prose. The
        coverage counts projects and instruction files. Skipped for completed and archived
        projects, whose records are history.""",
    severities=(
        (Severity.DEFECT, "the target was deleted and nothing replaced it"),
        (
            Severity.WARNING,
            "it was renamed (the fix says where to), its folder was emptied, it never "
            "existed, a script or recipe is missing, or git could not compare the deleting "
            "commit's contents",
        ),
    ),
)
def reference_missing(project: Project, ctx: Context) -> Iterator[Issue]:
    for group in grouped(record_references(project, project.source.procedural)):
        yield issue_of(group)


@reference_missing.for_source
def instruction_references(source: Source, ctx: Context) -> Iterator[Issue]:
    procedural = source.procedural
    for file in procedural.files:
        if file.outside or file.readable:
            continue
        # Nothing is skipped silently: a file no agent can read says so once.
        yield Issue(
            f"{file.rel_path} {file.unreadable}: no agent reads it, and its references cannot "
            "be verified",
            file.rel_path,
            remedy="Make it a regular UTF-8 file inside the repository (or remove it).",
            unit=procedural.unit_of(file.rel_path),
        )
    for group in grouped(procedural.unresolved):
        yield issue_of(group, procedural.unit_of(group[0].document))


def grouped(found: list[Unresolved]) -> list[list[Unresolved]]:
    """One group per file and target (said once): the references of one file to one missing
    path, script or recipe, in line order."""
    groups: dict[tuple[str, str, str, str], list[Unresolved]] = {}
    for unresolved in found:
        reference = unresolved.reference
        named = reference.kind in (PACKAGE_SCRIPT, RECIPE)  # a name, not a path
        kind = f"{reference.kind} {reference.tool}" if named else "path"
        key = (unresolved.document, kind, unresolved.looked_up, unresolved.state)
        groups.setdefault(key, []).append(unresolved)
    return sorted(groups.values(), key=lambda g: (g[0].document, g[0].reference.line))


def named(unresolved: Unresolved) -> str:
    """The reference as written, with the path it was looked up as when that differs."""
    reference = unresolved.reference
    if reference.kind == PACKAGE_SCRIPT:
        return f"`{reference.tool} run {reference.target}`"
    if reference.kind == RECIPE:
        return f"`{reference.tool} {reference.target}`"
    shown = f"`{reference.written}`"
    if reference.kind == IMPORT:
        shown = f"`@{reference.written}`"
    looked_up = unresolved.looked_up.strip("/")
    if unresolved.state != NAME_DELETED and looked_up != reference.written.strip("/").removeprefix(
        "./"
    ):
        shown += f" ({looked_up})"
    return shown


def _hops(unresolved: Unresolved) -> str:
    """``to B in c1, then to C in c2``: the renames a path went through."""
    return ", then ".join(
        f"to {hop.to} in {hop.removal.when()}" for hop in unresolved.via if hop.to is not None
    )


def what_became(unresolved: Unresolved) -> str:
    """What history says of a target that does not resolve, as a clause."""
    removal = unresolved.removal
    state = unresolved.state
    if state == RENAMED and removal is not None:
        verb = "renamed" if unresolved.exact else "moved"
        hops = _hops(unresolved)
        last = unresolved.via[-1].to if unresolved.via else None
        where = f" (now {unresolved.now_at})" if last != unresolved.now_at else ""
        changed = " (its contents changed too)" if not unresolved.exact and not where else ""
        return f"was {verb} {hops}{where}{changed}"
    if state == LOST and removal is not None:
        return (
            f"was moved {_hops(unresolved)}, and that path is not in the tree either (a merge "
            "moved it: history cannot say where it is)"
        )
    if state == DELETED and removal is not None:
        renames = _hops(unresolved)
        deleted = f"was renamed {renames}, then deleted" if renames else "was deleted"
        if not unresolved.compared:
            return (
                f"{deleted} in {removal.when()} (git could not compare that commit's "
                "contents, so it may have moved)"
            )
        return f"{deleted} in {removal.when()} (no file of that commit took its contents)"
    if state == FOLDER_REMOVED and removal is not None:
        folder = unresolved.detail
        if folder == unresolved.looked_up:
            return f"is a folder that was emptied: its last file left in {removal.when()}"
        return f"does not exist, and its folder {folder}/ was emptied in {removal.when()}"
    if state == NAME_DELETED and removal is not None:
        return f"names no file of the tree any more: {removal.path} was deleted in {removal.when()}"
    if state == NEVER_EXISTED:
        return "does not exist, and no commit of this history ever held it"
    if state == NO_HISTORY:
        return "does not exist (a shallow clone: its history cannot say what became of it)"
    if state == NO_SCRIPT:
        return f"names no script of {unresolved.detail}"
    if state == NO_RECIPE:
        return f"names no target of {unresolved.detail}"
    return "does not resolve"


def severity_of(unresolved: Unresolved) -> Severity:
    if unresolved.state == DELETED and unresolved.compared:
        return Severity.DEFECT
    return Severity.WARNING


def remedy_of(unresolved: Unresolved) -> str:
    state, removal = unresolved.state, unresolved.removal
    if state == RENAMED and unresolved.now_at is not None:
        command = "--fix" if unresolved.exact else "--fix --unsafe-fixes"
        target = unresolved.rewrite or unresolved.now_at
        return f"Point it at `{target}` (`context-doctor check {command}` rewrites it)."
    if state == DELETED and removal is not None:
        return (
            f"Remove the reference, or restore what it named (`git show {removal.short}^:"
            f"{removal.path}` shows its last version)."
        )
    if state in (NO_SCRIPT, NO_RECIPE):
        return f"Name a script or target {unresolved.detail} defines, or add it there."
    if state == NEVER_EXISTED:
        return "Correct the path (a typo, or a file of another tree?) or remove the reference."
    return "Point the reference at the file as it is now, or remove it."


def fix_of(group: list[Unresolved]) -> Fix | None:
    """The rewrite of every reference of the group, when each has an exact new text."""
    first = group[0]
    if first.state != RENAMED or any(u.rewrite is None for u in group):
        return None
    if first.reference.kind not in (LINK, IMPORT, SCRIPT, SPAN):
        return None
    applicability = Applicability.SAFE if all(u.exact for u in group) else Applicability.UNSAFE
    edits = tuple(
        RewritePath(u.reference.line, u.reference.column, u.reference.written, u.rewrite or "")
        for u in group
    )
    return Fix(
        first.document,
        applicability,
        f"rewrite `{first.reference.written}` as `{first.rewrite}`",
        edits,
    )


def issue_of(group: list[Unresolved], unit: str | None = None) -> Issue:
    first = group[0]
    lines = sorted({u.reference.line for u in group[1:]} - {first.reference.line})
    also = ""
    if lines:
        also = f" (also on line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})"
    return Issue(
        f"{named(first)} {what_became(first)}{also}",
        first.document,
        first.reference.line,
        severity=severity_of(first),
        remedy=remedy_of(first),
        fix=fix_of(group),
        unit=unit,
    )
