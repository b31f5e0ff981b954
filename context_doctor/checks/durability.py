"""Durability and readiness: is the context layer actually in git, and published?

``--readiness local`` (the default: same-machine handoffs, day-start) softens
uncommitted and unpushed state to warnings; ``--readiness remote`` (before
switching machines, day-end) makes them defects.  A tier file git does not
track is a defect in both modes: no mode can recover a file git never saw.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from context_doctor.checks.registry import CheckFamily, Context, SkipRule
from context_doctor.layouts import SEED
from context_doctor.model.project import Project
from context_doctor.model.source import Source
from context_doctor.report.findings import Issue, Severity

GROUP = "durability"


def _readiness_severity(ctx: Context) -> Severity:
    return Severity.DEFECT if ctx.readiness == "remote" else Severity.WARNING


CI_CHECKOUT = SkipRule(
    "ci checkout",
    "a CI job (`CI=true`) checked out a detached HEAD: there is no branch to publish",
    lambda p: p.source.repository_facts().ci_checkout,
    source_matches=lambda s: s.repository_facts().ci_checkout,
)
LOCAL_READINESS = SkipRule(
    "readiness local",
    "the run judges local readiness (`--readiness local`, the default), which asks about "
    "project files only: the whole branch is asked only under `--readiness remote`",
    run_matches=lambda ctx: ctx.readiness != "remote",
)
GRADES_ONLY = SkipRule(
    "no projects",
    "the source holds graded files or instruction files and no projects (a LifeOS install, "
    "a repository with only AGENTS.md): there is no projects directory to publish",
    lambda p: False,  # a grades-only source lists no projects
    source_matches=lambda s: s.grades_only or s.instructions_only,
    shape=True,
)
MACHINE_CHECKS = CheckFamily(skips=(CI_CHECKOUT,))
"""A project's files that are on this machine only: a CI checkout has nothing to keep."""
BRANCH_CHECKS = CheckFamily(scope="repository")
"""What the branch has published, asked once per repository."""


@MACHINE_CHECKS.check(
    "untracked-context",
    severity=Severity.DEFECT,
    needs_context=False,  # a CONTEXT.md that leaves the repository is this check's finding
    summary="a tier file is ignored, excluded, or lives outside the repository",
    remedy="Remove the ignore or exclude rule (`git check-ignore -v` on the file names it) and commit the file; "
    "replace a symlink that leaves the repository with the file itself.",
    explanation="""
        A tier file (CONTEXT.md, REFERENCE.md, reference/*.md, sessions/*.md,
        CURRENT_STATE.json) that git ignores (.gitignore, .git/info/exclude, a global excludes
        file) or that is a symlink resolving outside the repository is never committed and
        never pushed: the next machine, or the next clone, resumes without it, and nothing
        warns; so is an index.yaml that is such a symlink. A defect in both readiness modes. Files that are merely not added yet are
        `uncommitted-context`. Skipped in a CI job's detached checkout (`CI=true`).""",
    severities=(
        (Severity.DEFECT, "a tier file is not tracked by git (it would not travel)"),
        (Severity.WARNING, "the project is inside a git submodule this audit does not read"),
    ),
)
def untracked_context(project: Project, ctx: Context) -> Iterator[Issue]:
    facts = project.source.repository_facts()
    submodule = facts.submodule_holding(project.rel_dir)
    if submodule is not None:
        yield Issue(
            f"{project.rel_dir}/ is inside the git submodule {submodule}: its tier files are "
            "committed to the submodule's own repository, which this audit does not read, so "
            "whether they travel is not verified",
            submodule,
            severity=Severity.WARNING,
            remedy="Audit the submodule as a source of its own (`context-doctor check "
            f"{shlex.quote(submodule)}`), "
            "or make the project a plain directory of this repository.",
        )
        return
    escaping = project.escaping_tier_files
    for path in project.durable_tier_paths:
        rel_path = project.relative(path)
        if rel_path in escaping:
            yield Issue(
                f"{path.name} resolves outside the repository ({escaping[rel_path]})", rel_path
            )
        elif rel_path not in facts.tracked_paths and rel_path not in facts.changed_set:
            yield Issue(
                f"{path.name} is ignored by git: it will never be committed or pushed", rel_path
            )


@untracked_context.for_source
def escaping_index(source: Source, ctx: Context) -> Iterator[Issue]:
    target = source.index_outside
    if target is not None:
        yield Issue(
            f"index.yaml is a symlink resolving outside the repository ({target}): only the "
            "link is committed, and it dangles on every other machine",
            source.index_rel_path,
            remedy="Replace the symlink with the file itself and commit it.",
        )


@MACHINE_CHECKS.check(
    "uncommitted-context",
    severity=Severity.DEFECT,
    summary="the project has uncommitted or never-added changes",
    remedy="Commit the project's files (`git add` its directory, then `git commit`).",
    explanation="""
        Uncommitted edits to a project's files exist on this machine only. Under `--readiness
        local` that is recoverable state and a warning; under `--readiness remote`, the gate
        before switching machines, it is a defect. Counts modified, deleted, staged and
        never-added files under the project directory, and in a single-project layout only
        its records (the working-memory file, its log and reference, the seed's tier files, a
        memory bank's folder: a dirty code file beside them is the user's business);
        uncommitted changes to index.yaml are reported once per source. Skipped in a CI job's detached checkout (`CI=true`).""",
    severities=(
        (Severity.DEFECT, "under `--readiness remote`"),
        (Severity.WARNING, "under `--readiness local` (the default)"),
    ),
)
def uncommitted_context(project: Project, ctx: Context) -> Iterator[Issue]:
    changed = project.uncommitted_paths
    if changed:
        # A folder of the seed's projects/ is committed whole; a single project names its
        # records (a dirty code file beside them is not the doctor's to commit).
        seed = project.layout.kind == SEED
        # Another layout's records lie anywhere in the repository: named in full.
        shown = ", ".join(path if not seed else path.rsplit("/", 1)[-1] for path in changed[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        plural = "files are" if len(changed) > 1 else "file is"
        where = f"under {project.rel_dir}/" if project.rel_dir else "in the repository"
        add = (project.rel_dir or ".") if seed else " ".join(shlex.quote(p) for p in changed)
        yield Issue(
            f"{len(changed)} {plural} uncommitted {where} ({shown}{more})",
            changed[0],
            severity=_readiness_severity(ctx),
            remedy=f"Commit the project's files (`git add {add} && git commit`).",
        )


@uncommitted_context.for_source
def uncommitted_index(source: Source, ctx: Context) -> Iterator[Issue]:
    if source.index is None:
        return
    if source.index.rel_path in source.repository_facts().changed_set:
        yield Issue(
            f"{source.index.rel_path} has uncommitted changes",
            source.index.rel_path,
            severity=_readiness_severity(ctx),
            remedy=f"Commit it (`git add {source.index.rel_path} && git commit`).",
        )


@BRANCH_CHECKS.check(
    "unpushed-context",
    severity=Severity.DEFECT,
    skips=(CI_CHECKOUT, GRADES_ONLY),
    summary="the projects directory is not published and upstream-current",
    remedy="Push the branch (`git push`, or `git push -u origin HEAD` to set an upstream).",
    explanation="""
        Committed context that was never pushed is still on this machine only, and a branch
        behind its upstream resumes from an older record than the other machine wrote. Fires
        when commits touching the projects directory (a single project's working-memory
        records: its record, log and reference) are not on the branch's upstream; when
        the branch is behind or has diverged from its upstream as of the last fetch (no
        network call is made: fetch first for a fresh answer); and when publication cannot be
        known: no remote, no upstream, an upstream ref that no longer exists, a detached HEAD,
        or a comparison that fails. Reported once per repository (its coverage counts repositories) even when
        several sources share it. A warning under `--readiness local`, a defect under
        `--readiness remote`. In a pre-push hook (`--pre-push`) the commits being pushed count
        as published: the hook judges what the remote will hold after the push. In a CI job
        (`CI=true`) on a detached HEAD all three durability checks are skipped with reason
        `ci checkout`: the job checked out a commit, not a branch to publish.""",
    severities=(
        (Severity.DEFECT, "under `--readiness remote`"),
        (Severity.WARNING, "under `--readiness local` (the default)"),
    ),
)
def unpushed_context(source: Source, ctx: Context) -> Iterator[Issue]:
    state = source.repository_facts().upstream()
    if state.problem is not None:
        if source.is_single_project:
            path = source.record_rel_path
        else:
            path = source.index.rel_path if source.index else source.index_rel_path
        yield Issue(state.problem, path, severity=_readiness_severity(ctx), remedy=state.remedy)


def _outside_projects(source: Source, paths: list[str]) -> list[str]:
    """The paths under no projects directory of the repository; for a single project whose
    records publication asks about, the paths that are none of its records (the code beside
    them, which remote readiness asks about and uncommitted-context does not)."""
    facts = source.repository_facts()
    if facts.records_only:
        return [path for path in paths if not any(p.is_record(path) for p in source.projects)]
    prefixes = [scope.path for scope in facts.scopes]
    if any(not prefix for prefix in prefixes):
        return []
    return [path for path in paths if not any(path.startswith(f"{p}/") for p in prefixes)]


def _elsewhere(source: Source) -> str:
    """Where branch-not-ready's files and commits are: beside the records, or outside the
    projects directory (a message never names a projects directory the layout lacks)."""
    if source.repository_facts().records_only:
        return "beside the working-memory records"
    return "outside the projects directory"


@BRANCH_CHECKS.check(
    "branch-not-ready",
    severity=Severity.DEFECT,
    skips=(LOCAL_READINESS, CI_CHECKOUT),
    summary="remote readiness: the branch has uncommitted or unpushed work outside the projects",
    remedy="Commit everything on the branch and push it (`git push`): what is not pushed does "
    "not travel, whatever folder it is in.",
    explanation="""
        Remote readiness means clean branch heads equal to their upstreams (the seed's
        REMOTE_READY), not only a clean projects directory: a dirty or unpushed README.md
        beside projects/ stays on this machine just the same. Under `--readiness remote`,
        fires for uncommitted or never-added files outside the projects directory, and for
        commits on the branch that are not on its upstream and touch nothing under it (the
        projects directory itself is uncommitted-context's and unpushed-context's). Under
        `--readiness local` it is skipped (coverage reason `readiness local`): local readiness
        judges project files only. Reported once per repository. Skipped in a CI job's
        detached checkout (`CI=true`).""",
)
def branch_not_ready(source: Source, ctx: Context) -> Iterator[Issue]:
    facts = source.repository_facts()
    outside = _outside_projects(source, facts.changed_paths)
    if outside:
        shown = ", ".join(outside[:3]) + (
            f" and {len(outside) - 3} more" if len(outside) > 3 else ""
        )
        plural = "files are" if len(outside) > 1 else "file is"
        yield Issue(
            f"{len(outside)} {plural} uncommitted {_elsewhere(source)} ({shown}): the "
            "branch is not clean, so it is not ready for a remote handoff",
            outside[0],
            remedy="Commit them (or discard them), then push: what is not pushed does not "
            "travel, whatever folder it is in.",
        )
    state = facts.upstream()
    extra = state.branch_ahead - state.ahead
    if extra > 0:
        where = source.index.rel_path if source.index else source.index_rel_path
        if source.is_single_project:
            where = source.record_rel_path
        commits = f"{extra} commit{'s' if extra > 1 else ''}"
        yield Issue(
            f"{commits} on branch `{facts.branch}` {'are' if extra > 1 else 'is'} not on "
            f"`{state.upstream}` as of the last fetch ({_elsewhere(source)}): the "
            "branch is not upstream-current",
            where,
            remedy="Push the branch (`git push`).",
        )
