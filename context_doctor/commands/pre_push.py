"""``check --pre-push``: judge what the remote will hold after the push (docs/surfaces.md).

The tree of each pushed commit is checked out into a temporary repository
(:mod:`context_doctor.git.push`) and audited there, so the user's uncommitted
work never decides the verdict. Only defects in projects the pushed commits
change block the push, and index-level defects when they change
``index.yaml``: the rest of the corpus is report-only (the seed's rule for
corpus-wide findings). Quiet on success (one line); a refusal lists the
blocking findings and ends with the one line naming the projects and the
command that shows them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import click

from context_doctor.config.settings import find_config
from context_doctor.errors import DoctorError
from context_doctor.git.push import (
    ZERO,
    PushedRef,
    PushRepository,
    parse_pushed_refs,
    pre_commit_refs,
    read_hook_input,
)
from context_doctor.git.repository import Repository, origin_name, repository_for
from context_doctor.guards.escape import escape_text
from context_doctor.layouts.detect import detect
from context_doctor.model.source import Corpus
from context_doctor.render.terminal import stream_width
from context_doctor.render.wrapping import break_line
from context_doctor.report.findings import Finding, Severity
from context_doctor.report.report import Report, plural

REFUSED = "push refused by context-doctor"

TreeAudit = Callable[
    [tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]], tuple[Corpus, Report]
]
"""Audits (paths, sources, projects) of a checked-out tree, the pushed shas counted as
published; returns the corpus and its report."""


@dataclass
class Verdict:
    """What the push's commits leave in the projects they change."""

    blocking: list[Finding] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)  # project ids (and index.yaml) the push changes
    changed_dirs: dict[str, str] = field(default_factory=dict)  # name -> repo-relative path
    warnings: int = 0
    elsewhere: int = 0  # defects in projects the push does not change: report-only
    blocked_dirs: dict[str, str] = field(default_factory=dict)
    empty: list[str] = field(default_factory=list)  # pushed refs whose tree holds no corpus
    warnings_block: bool = False  # --warnings-as-defects


def _ancestors(paths: frozenset[str]) -> set[str]:
    """Every directory holding a changed path ('' for the top), and the paths themselves."""
    found = {""}
    for path in paths:
        parts = path.split("/")
        for end in range(1, len(parts) + 1):
            found.add("/".join(parts[:end]))
    return found


def judge(
    corpus: Corpus,
    report: Report,
    changed: frozenset[str],
    verdict: Verdict,
    *,
    everything: bool = False,
) -> None:
    """Sort ``report``'s findings into blocking and report-only, by what ``changed`` touches.

    ``everything``: the whole tree counts as changed (a manual run of a HEAD without an
    upstream): every project, and every source's own findings, are judged."""
    touched = _ancestors(changed)
    changed_projects: set[tuple[str, str]] = set()
    index_changed: dict[str, str] = {}
    for source in corpus.sources:
        if source.index_rel_path in changed or everything:
            index_changed[source.name] = source.index_rel_path
            if source.index_rel_path in changed or source.projects_dir is not None:
                verdict.changed.add(source.index_rel_path)
                verdict.changed_dirs.setdefault(
                    source.index_rel_path, source.repository.relative(source.root) or "."
                )
        for project in source.projects:
            if everything or project.rel_dir in touched:
                changed_projects.add((source.name, project.id))
                verdict.changed.add(project.id)
                verdict.changed_dirs.setdefault(project.id, project.rel_dir or ".")
    for finding in report.findings:
        key = (finding.source, finding.project or "")
        in_project = bool(finding.project) and key in changed_projects
        index_path = index_changed.get(finding.source)
        index_level = index_path is not None and (not finding.project or finding.path == index_path)
        if not (in_project or index_level):
            if finding.severity is Severity.DEFECT:
                verdict.elsewhere += 1
            continue
        if finding.severity is not Severity.DEFECT and not verdict.warnings_block:
            verdict.warnings += 1
            continue
        verdict.blocking.append(finding)
        name = finding.project if in_project and finding.project else (index_path or "")
        verdict.blocked_dirs.setdefault(name, verdict.changed_dirs.get(name, "."))


def _holds_context(directory: Path) -> bool:
    """A knowledge repository or a project in any layout at ``directory`` (discovery's first
    look): ``projects/``, a declared ``[layout]``, or one detection finds (docs/layouts.md)."""
    if not directory.is_dir():
        return False
    if (directory / "projects").is_dir() or detect(directory) is not None:
        return True
    found = find_config([directory], None)
    return found is not None and "layout" in found[1]


def pushing_identity(anchor: Path) -> str:
    """What a single project's id stands on in the hook's temporary checkout: the pushing
    repository's origin remote name, else its top folder's name (docs/layouts.md)."""
    repository = repository_for(anchor if anchor.is_dir() else anchor.parent)
    return origin_name(repository) or repository.toplevel.name


def _relative(repository: Repository, raw: str) -> str:
    """``raw`` (a path in the user's work tree) relative to the repository being pushed."""
    relative = repository.relative(Path(os.path.abspath(raw)))
    if relative.startswith(("/", "../")) or relative == "..":
        raise DoctorError(
            f"{raw} is not inside the repository being pushed ({repository.toplevel})",
            "run the pre-push check from the repository's hook (`context-doctor hook install`)",
        )
    return relative


def _map_into(relative: str, raw: str, top: Path, commit: str) -> str:
    """The path ``relative`` in the pushed tree ``top``; it must be there."""
    mapped = top / relative if relative else top
    if not mapped.exists():
        raise DoctorError(
            f"{raw} is not in the pushed commit {commit[:12]}",
            "commit the knowledge base the hook audits, or reinstall the hook for the path "
            "that holds it (`context-doctor hook install --repo PATH`)",
        )
    return str(mapped)


def _pushed_refs() -> list[PushedRef] | None:
    """The refs being pushed: pre-commit's environment, else git's input on stdin; None
    when there are neither (pre-commit's `manual` stage, `run --hook-stage pre-push`)."""
    refs = pre_commit_refs(os.environ)
    if refs is not None:
        return refs
    text = read_hook_input()
    if not text.strip():
        return None
    return parse_pushed_refs(text)


def _head_as_pushed(pusher: PushRepository) -> tuple[list[PushedRef], bool]:
    """No refs given (pre-commit's ``manual`` stage, ``run --hook-stage pre-push``): the
    refs a push of ``HEAD`` to its upstream would send, judged as that push would be; with
    no upstream (a detached ``HEAD`` in CI, a branch never pushed, an upstream not fetched
    here) the whole tree of ``HEAD``, every project in it (the second value: True).

    Decision: what remote-tracking refs already hold is no reason to pass a tree that has
    no upstream (a CI checkout's commit is on ``origin`` by construction); a manual run
    judges what it can name. Never an error for want of refs; an unborn ``HEAD`` has
    nothing to audit."""
    head = pusher.head()
    if head is None:
        return [], False
    ref, commit = head
    upstream = pusher.upstream(ref)
    if upstream is not None:
        tracking, remote_ref, remote_sha = upstream
        click.echo(
            escape_text(
                f"context-doctor: no pushed refs on stdin (a manual run): judging what a "
                f"push of HEAD ({commit[:12]}) to its upstream {tracking} "
                f"({remote_sha[:12]}) would change"
            ),
            err=True,
        )
        return [PushedRef(ref, commit, remote_ref, remote_sha)], False
    click.echo(
        escape_text(
            f"context-doctor: no pushed refs on stdin (a manual run) and HEAD ({commit[:12]}) "
            "has no upstream: judging every project in HEAD"
        ),
        err=True,
    )
    return [PushedRef(ref, commit, ref, ZERO)], True


def run_pre_push(
    paths: tuple[str, ...],
    sources: tuple[str, ...],
    projects: tuple[str, ...],
    audit_tree: TreeAudit,
    *,
    warnings_block: bool = False,
) -> int:
    """Audit each pushed commit's tree; print the verdict; the exit code (0 pass, 1 refuse).

    ``warnings_block``: warnings in the changed projects refuse the push too.
    """
    refs = _pushed_refs()
    given = (*paths, *sources, *projects)
    if not given:
        paths = (".",)
    anchor = Path(given[0]) if given else Path.cwd()
    repository = repository_for(anchor if anchor.is_dir() else anchor.parent)
    pusher = PushRepository(repository)
    everything = False
    if refs is None:
        refs, everything = _head_as_pushed(pusher)
        if not refs:
            click.echo("context-doctor: HEAD has no commit yet; nothing to audit")
            return 0
    sent = [ref for ref in refs if not ref.deletes]
    if not sent:
        click.echo("context-doctor: the push deletes refs only; nothing to audit")
        return 0
    verdict = Verdict(warnings_block=warnings_block)
    seen: set[str] = set()
    for ref in sent:
        commit = pusher.commit_of(ref.local_sha)
        if commit is None:
            raise DoctorError(
                f"the pushed object {ref.local_sha[:12]} ({ref.local_ref}) is not a commit here",
                "push commits (a tag of a tree or a blob carries no context to audit)",
            )
        if commit in seen:
            continue
        seen.add(commit)
        changed = frozenset() if everything else pusher.changed_paths(ref, commit)
        if not (changed or everything):
            continue
        with pusher.checked_out(commit, ref.branch) as top:
            # The hook's own target: a branch that holds no knowledge base there (a site
            # branch, docs) has nothing to audit; an explicit --source/--project must exist.
            targets = tuple(
                str(top / relative)
                for relative in (_relative(repository, raw) for raw in paths)
                if _holds_context(top / relative)
            )
            if not (targets or sources or projects):
                verdict.empty.append(ref.local_ref)
                continue
            try:
                corpus, report = audit_tree(
                    targets,
                    tuple(
                        _map_into(_relative(repository, raw), raw, top, commit) for raw in sources
                    ),
                    tuple(
                        _map_into(_relative(repository, raw), raw, top, commit) for raw in projects
                    ),
                    (commit,),
                )
            except DoctorError as error:
                # Name the user's repository, not the temporary copy the audit ran in.
                raise DoctorError(
                    error.problem.replace(str(top), str(repository.toplevel)),
                    error.remedy.replace(str(top), str(repository.toplevel)),
                ) from error
            judge(corpus, report, changed, verdict, everything=everything)
    _say(verdict)
    return 1 if verdict.blocking else 0


def _echo(line: str, width: int | None, subsequent: str) -> None:
    """``line`` as ``check`` prints a finding: wrapped at ``width`` (render/wrapping.py)."""
    text = escape_text(line)
    for piece in break_line(text, width, subsequent):
        click.echo(piece.indent + text[piece.start : piece.end] + piece.suffix)


def _say(verdict: Verdict) -> None:
    elsewhere = (
        f"; {plural(verdict.elsewhere, 'defect')} in projects this push does not change "
        "(report-only: `context-doctor check`)"
        if verdict.elsewhere
        else ""
    )
    if not verdict.blocking:
        if not verdict.changed and verdict.empty:
            click.echo(
                escape_text(
                    f"context-doctor: {', '.join(verdict.empty)} holds no knowledge base where "
                    "the hook looks; nothing to audit"
                )
            )
            return
        if not verdict.changed:
            click.echo(
                escape_text(f"context-doctor: the push changes no project's context{elsewhere}")
            )
            return
        changed = ", ".join(sorted(verdict.changed))
        # The verdict's own format (what was audited, then the counts): `check` words it so.
        counts = f"0 defects, {plural(verdict.warnings, 'warning')}"
        click.echo(escape_text(f"context-doctor: push ok: {changed} audited, {counts}{elsewhere}"))
        return
    width = stream_width(sys.stdout)  # the pusher's terminal; one line each into a pipe
    for finding in sorted(verdict.blocking, key=Finding.sort_key):
        where = f"{finding.path}:{finding.line or 1}:1"
        level = "FAIL" if finding.severity is Severity.DEFECT else "warn"
        _echo(f"{where}  {level}  [{finding.check}] {finding.message}", width, "    ")
        _echo(f"    → {finding.remedy}", width, "      ")
    names = sorted(verdict.blocked_dirs)
    command = " ".join(["context-doctor", "check", *(verdict.blocked_dirs[n] for n in names)])
    click.echo(
        escape_text(
            f"{REFUSED}: {plural(len(verdict.blocking), 'defect')} in {', '.join(names)} "
            f"({command})"
        )
    )
