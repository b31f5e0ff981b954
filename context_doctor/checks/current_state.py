"""Structured state: CURRENT_STATE.json agrees with itself, its project and its block.

The reading, hashing and plan resolution happen in ``context_doctor.model.state``;
the claim and release grammar lives in ``context_doctor.model.claims``.  This
check only compares.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from datetime import date

from context_doctor.checks.registry import SEED_CHECKS, Context
from context_doctor.errors import Unreadable
from context_doctor.model.claims import Release, Version, claimed_version
from context_doctor.model.document_claims import is_history, labels, releases
from context_doctor.model.documents import Document
from context_doctor.model.project import Project
from context_doctor.model.state_file import STATE_FILE, StructuredState, render_block
from context_doctor.report.findings import Issue, Severity

GROUP = "state"

COMPILE = "context-doctor state compile"
MAX_NAMED = 5


def _compile_command(project: Project) -> str:
    """`state compile` on the project, its path quoted for the shell (spaces, quotes)."""
    return f"{COMPILE} {shlex.quote(project.cli_dir)}"


def _compile_remedy(project: Project) -> str:
    return f"Bring CURRENT_STATE.json up to date, then run `{_compile_command(project)}`."


def _state_issues(project: Project, state: StructuredState) -> Iterator[Issue]:
    reading = state.reading
    if reading.unreadable is not None:
        raise Unreadable(state.path, state.rel_path, reading.unreadable)
    if reading.problems:
        for problem in reading.problems:
            yield Issue(
                f"{STATE_FILE} {problem.message}",
                state.rel_path,
                problem.line,
                remedy=f"Make {state.rel_path} a regular UTF-8 JSON object valid against "
                "schemas/current-state.schema.json (or delete it and write it again with "
                "`state init` on the project, naming its plan).",
            )
        return
    for key in state.reading.unknown_keys:
        yield Issue(
            f"{STATE_FILE} has the field `{key[:60]}`, which this doctor does not know: it is "
            "kept and not checked",
            state.rel_path,
            state.line_of(key),
            severity=Severity.WARNING,
            remedy="Nothing to do when a newer compiler wrote it; otherwise delete the "
            f"`{key[:60]}` field from {state.rel_path} by hand, then run "
            f"`{_compile_command(project)}`.",
        )
    data = state.data
    if data["project_id"] != project.id:
        yield Issue(
            f"project_id `{data['project_id']}` is not the project's directory name `{project.id}`",
            state.rel_path,
            state.line_of("project_id"),
            remedy=f'Set `"project_id": "{project.id}"`.',
        )
    plan = state.plan
    if plan.problem is not None:
        yield Issue(
            f"controlling_plan `{data['controlling_plan']}` {plan.problem}",
            state.rel_path,
            state.line_of("controlling_plan"),
            remedy="Point controlling_plan at the plan file, a path inside the project "
            "(e.g. `plans/plan.md`).",
        )
    yield from _hash_issues(project, state)
    yield from _last_session_issues(project, state)
    yield from _block_issues(project, state)
    yield from _prose_issues(project, state)


def _named(paths: list[str]) -> str:
    shown = ", ".join(f"`{path}`" for path in paths[:MAX_NAMED])
    return shown + (f" and {len(paths) - MAX_NAMED} more" if len(paths) > MAX_NAMED else "")


def _hash_issues(project: Project, state: StructuredState) -> Iterator[Issue]:
    recorded: dict[str, str] = state.data["content_hashes"]
    fresh = state.fresh_hashes
    plan_raw = str(state.data["controlling_plan"])
    changed = sorted(p for p in recorded if p in fresh and fresh[p] != recorded[p])
    gone = sorted(p for p in recorded if p not in fresh and p != plan_raw)
    unrecorded = sorted(p for p in fresh if p not in recorded)
    parts = []
    if changed:
        parts.append(f"changed since the state was compiled: {_named(changed)}")
    if gone:
        parts.append(f"recorded but no longer present: {_named(gone)}")
    if unrecorded:
        parts.append(f"not recorded: {_named(unrecorded)}")
    if parts:
        yield Issue(
            "content_hashes no longer match the files; " + "; ".join(parts),
            state.rel_path,
            state.line_of("content_hashes"),
            remedy="Re-read the changed files, update phase, status and next actions in "
            f"CURRENT_STATE.json to what they say, then run `{_compile_command(project)}` "
            "(it refreshes the hashes).",
        )


def _last_session_issues(project: Project, state: StructuredState) -> Iterator[Issue]:
    recorded = date.fromisoformat(state.data["last_session"])
    later: list[tuple[date, str]] = []  # each record of a session, and where it says so
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        later.append(
            (newest.date, f"the newest session entry {newest.date} ({newest.path}:{newest.line})")
        )
    header = project.header_last_session
    if header is not None and header[1] is not None:
        later.append(
            (
                header[1],
                f"the CONTEXT.md header's Last session {header[1]} (line {header[0].line})",
            )
        )
    for day, record in later:
        if day > recorded:
            yield Issue(
                f"last_session {recorded} is older than {record}",
                state.rel_path,
                state.line_of("last_session"),
                remedy=f'Set `"last_session": "{day}"` and run `{_compile_command(project)}`.',
            )


def _block_issues(project: Project, state: StructuredState) -> Iterator[Issue]:
    context = project.context
    block = state.block
    remedy = f"Run `{_compile_command(project)}`; never edit the generated block by hand."
    if block is None:
        yield Issue(
            "CONTEXT.md has no generated block (`<!-- synthesis-current-state:start -->` ... "
            "`:end -->`) rendered from CURRENT_STATE.json",
            context.rel_path,
            remedy=remedy,
        )
        return
    if block.start == 0 or block.end is None:
        which = "an end marker without a start" if block.start == 0 else "no end marker"
        yield Issue(
            f"the generated block has {which}",
            context.rel_path,
            block.end if block.start == 0 else block.start,
            remedy=remedy,
        )
        return
    for extra in block.extra_starts:
        yield Issue(
            "a second generated block start marker (only one block is allowed)",
            context.rel_path,
            extra,
            remedy=remedy,
        )
    expected = render_block(state.data)
    found = [line.rstrip() for line in context.lines[block.start - 1 : block.end]]
    if found != expected:
        offset = next(
            (i for i, (a, b) in enumerate(zip(found, expected, strict=False)) if a != b),
            min(len(found), len(expected)),
        )
        wanted = expected[offset] if offset < len(expected) else "(the end marker earlier)"
        yield Issue(
            f"the generated block differs from a fresh render of CURRENT_STATE.json: "
            f"expected `{wanted[:80]}`",
            context.rel_path,
            block.start + min(offset, len(found) - 1),
            remedy=remedy,
        )


def _prose_documents(project: Project) -> list[Document]:
    return [doc for doc in (project.context, project.reference, *project.topics) if doc.exists]


def _prose_issues(project: Project, state: StructuredState) -> Iterator[Issue]:
    block = state.block
    skip = range(0)
    if block is not None and block.start and block.end is not None:
        skip = range(block.start, block.end + 1)
    for document in _prose_documents(project):
        inside = skip if document is project.context else range(0)
        for label in labels(document, inside):
            yield Issue(
                f"current-looking prose `{label.label}:` outside the generated block: "
                "CURRENT_STATE.json is this project's only current-state authority",
                document.rel_path,
                label.line,
                remedy="Move the fact into CURRENT_STATE.json (and `state compile`), reword it "
                "as history under a heading that says so (e.g. `## History`), or delete it.",
            )


# -- the release rule (every project, with or without a state file) -------------------


def _claims(project: Project) -> Iterator[tuple[str, int | None, str, Version]]:
    """(path, line, what, version) of every current claim that names a version."""
    for document in _prose_documents(project):
        for label in labels(document):
            version = claimed_version(label.value)
            if version is not None:
                yield document.rel_path, label.line, f"{label.label}: {label.value}", version
    for field in project.header("Phase"):
        version = claimed_version(field.value)
        if version is not None and not is_history(project.context, field.line):
            yield project.context.rel_path, field.line, f"Phase: {field.value}", version
    state = project.structured_state
    if state.valid:
        for key in ("phase", "accepted_baseline"):
            version = claimed_version(str(state.data[key]))
            if version is not None:
                yield state.rel_path, state.line_of(key), f"{key}: {state.data[key]}", version


def _release_issues(project: Project) -> Iterator[Issue]:
    recorded: list[Release] = []
    for document in (*_prose_documents(project), *project.session_logs):
        recorded.extend(releases(document))
    if not recorded:
        return
    latest = max(recorded, key=lambda release: (release.version.parts, release.path, release.line))
    seen: set[tuple[str, int | None]] = set()
    for path, line, what, version in _claims(project):
        if (path, line) in seen or latest.version.parts <= version.parts:
            continue
        seen.add((path, line))
        yield Issue(
            f"`{what[:80]}` claims {version.spelled} as current, but {latest.version.spelled} "
            f"is recorded as released later ({latest.path}:{latest.line})",
            path,
            line,
            remedy=f"Update the claim to {latest.version.spelled} (or what was accepted since), "
            "or, if the later line is not a release of this project, reword it.",
        )


@SEED_CHECKS.check(
    "semantic-current-state",
    severity=Severity.DEFECT,
    summary="CURRENT_STATE.json is invalid or has drifted, or a current claim is older than a "
    "recorded release",
    remedy="Fix CURRENT_STATE.json as the finding says, then run `context-doctor state compile` "
    "on the project to re-render the block and refresh the hashes.",
    explanation="""
        A structured project keeps its mutable state in CURRENT_STATE.json and a generated block
        in CONTEXT.md compiled from it; two authorities that disagree are worse than one. With a
        state file this fires when the file is not a regular, non-symlink file under 256 KiB, is
        not a JSON object, holds duplicate keys, NaN/Infinity or nesting deeper than 8, or is
        invalid against schemas/current-state.schema.json; when project_id is not the directory
        name; when controlling_plan is absolute, escapes the project, traverses a symlink, or is
        not a readable regular file; when content_hashes no longer match the project's *.md
        files and the plan (CONTEXT.md is hashed without the generated block); when last_session
        is older than the newest session entry or the header's Last session; when the generated
        block (`<!-- synthesis-current-state:start -->` ... `:end -->`) is missing or differs from
        a fresh render; and for current-looking prose outside the block: a line in CONTEXT.md,
        REFERENCE.md or reference/*.md labelled `Current ...:`, `Accepted baseline:`, `Next
        checkpoint:` or `State as of:`, unless a heading above it labels the section as history
        (History, Historical, Archive(d), Superseded, Previous, Former, Past, Changelog,
        Retrospective). For every project, state file or not: a current claim (a `Current ...:`
        or `Accepted baseline:` line, the header's Phase, the state's phase or
        accepted_baseline) naming a version older than a release the same record (CONTEXT.md,
        REFERENCE.md, reference/*.md, sessions/*.md) records affirmatively: a line outside code
        saying released, shipped, tagged, published, deployed, landed, accepted, rolled out or
        went live, with no prospective, negated or example word (will, next, planned,
        upcoming, candidate, draft, target, pending, not, never, if, e.g., example...).
        Versions are `v1.2`/`v1.2.3` or bare `1.2.3`, compared numerically; pre-releases
        (`-rc.1`, `b2`) are candidates and ignored. An unreadable or non-UTF-8 state file is
        reported by record-unreadable instead. Never skipped by a rule of its own: every
        project with a CONTEXT.md is examined.""",
    severities=(
        (
            Severity.DEFECT,
            "CURRENT_STATE.json is invalid, has drifted, or a current claim is too old",
        ),
        (Severity.WARNING, "it carries a field this doctor does not know (kept, not checked)"),
    ),
)
def semantic_current_state(project: Project, ctx: Context) -> Iterator[Issue]:
    state = project.structured_state
    if state.present:
        yield from _state_issues(project, state)
    yield from _release_issues(project)
