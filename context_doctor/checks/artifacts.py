"""Executable state: artifacts cite scripts that exist where a cold resumer can run them.

Listing, reading and resolving happen in ``context_doctor.model.artifacts``.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import SEED_CHECKS, Context, SkipRule
from context_doctor.model.project import Project
from context_doctor.report.findings import Issue, Severity

GROUP = "state"

NO_ARTIFACTS = SkipRule(
    "no artifacts",
    "the project has no Markdown file directly under resources/artifacts/",
    lambda p: not p.artifacts,
    shape=True,
)


@SEED_CHECKS.check(
    "artifact-cites-missing-script",
    severity=Severity.WARNING,
    needs_context=False,
    skips=(NO_ARTIFACTS,),
    summary="an artifact cites a resources/scripts/ target that is missing, escapes or is not a "
    "script",
    remedy="Preserve the script (and its inputs) under resources/scripts/ at the cited path, or "
    "correct the citation.",
    explanation="""
        Durable prose is incomplete when the computation it cites exists only in the session that
        wrote it. A Markdown file directly under resources/artifacts/ that cites
        `resources/scripts/...` or `../scripts/...` (not preceded by a path character, so
        `projects/x/resources/scripts/y` is not a citation; code blocks count) must name a real
        script: the citation is resolved lexically and warns when it escapes resources/scripts/,
        traverses a symlink (resources/ and resources/scripts/ themselves included), does not
        exist, is not a regular file, or is an empty directory (dot-files such as .gitkeep do not
        count); a non-empty directory is fine. Each citation is reported once per artifact, at its
        first line. A symlinked or unreadable artifact is reported too, since its citations cannot
        be verified. Existence does not establish correctness: whether the script still produces
        the cited result stays with the artifact's acceptance evidence. Skipped for projects with
        no artifacts.""",
)
def artifact_cites_missing_script(project: Project, ctx: Context) -> Iterator[Issue]:
    for artifact in project.artifacts:
        if artifact.unreadable is not None:
            yield Issue(
                f"{artifact.rel_path} {artifact.unreadable}: its script citations cannot be "
                "verified",
                artifact.rel_path,
                remedy="Make the artifact a regular UTF-8 Markdown file inside the project.",
            )
        for citation in artifact.citations:
            if citation.problem is not None:
                yield Issue(
                    f"cites `{citation.cited}`, which {citation.problem}",
                    artifact.rel_path,
                    citation.line,
                )
