"""The sharded semantic tier: ``reference/<topic>.md`` under a REFERENCE.md index."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from urllib.parse import quote, unquote, urlsplit

from context_doctor.checks.registry import (
    ACTIVE_SEED_CHECKS,
    BOUNDED,
    NOT_SHARDED,
    SEED_CHECKS,
    SHARDED,
    Context,
    SkipRule,
)
from context_doctor.guards.escape import escape_text
from context_doctor.guards.patterns import LazyPattern
from context_doctor.model.project import Project
from context_doctor.report.findings import AppendLine, Applicability, Fix, Issue, Severity

GROUP = "structure"

NO_INDEX_FILE = SkipRule(
    "no REFERENCE.md",
    "reference/ exists but REFERENCE.md does not: there is no index to judge "
    "(reference-index-missing reports it)",
    lambda p: not p.reference.exists,
)
SHARD_CHECKS = SEED_CHECKS.within(skips=(NOT_SHARDED,))
"""Checks of a sharded reference (REFERENCE.md the index over reference/)."""


@ACTIVE_SEED_CHECKS.check(
    "reference-shard",
    severity=Severity.WARNING,
    skips=(SHARDED, BOUNDED),
    summary="a standing project's REFERENCE.md has outgrown one file",
    remedy="Shard it: move each topic to its own file under reference/ and turn REFERENCE.md into "
    "an index linking every topic. Do not narrow the project's scope.",
    explanation="""
        A standing project (`bounded: false`) exists to accumulate operating knowledge, so a
        REFERENCE.md over 300 lines (`budgets.reference_lines`) is not a scope problem: it has
        outgrown one file. The remedy is to shard into reference/, where the index is held to
        150 lines and each topic to 300. Skipped for bounded, sharded and dormant projects.""",
)
def reference_shard(project: Project, ctx: Context) -> Iterator[Issue]:
    budget = ctx.settings.budget("reference_lines")
    if project.reference.exists and project.reference.line_count > budget:
        yield Issue(
            f"REFERENCE.md is {project.reference.line_count} lines (over {budget}) in a standing "
            "project: shard it into reference/",
            project.reference.rel_path,
            remedy=f"Shard it: {_topics_phrase(project)}, and turn {project.reference.rel_path} "
            "into an index linking every topic. Do not narrow the project's scope.",
        )


MAX_TOPICS = 5


def _topics_phrase(project: Project) -> str:
    """Where each of REFERENCE.md's ``##`` topics would go, by name (never a placeholder)."""
    folder = project.path_to("reference")
    names: list[str] = []
    for heading in project.reference.headings:
        slug = re.sub(r"[^a-z0-9]+", "-", heading.text.lower()).strip("-")
        if heading.level == 2 and slug and f"{slug}.md" not in names:
            names.append(f"{slug}.md")
    if not names:
        return f"split it by topic, one file per topic under {folder}/"
    shown = ", ".join(names[:MAX_TOPICS])
    more = f" and {len(names) - MAX_TOPICS} more" if len(names) > MAX_TOPICS else ""
    return f"move each `##` topic to its own file under {folder}/ ({shown}{more})"


@SHARD_CHECKS.check(
    "reference-index-budget",
    severity=Severity.WARNING,
    skips=(NO_INDEX_FILE,),
    summary="once sharded, REFERENCE.md is over 150 lines",
    remedy="Move content from REFERENCE.md into topic files under reference/; keep it an index.",
    explanation="""
        After sharding, REFERENCE.md is the index over reference/ and is held to 150 lines
        (`budgets.reference_index_lines`). Over that, the index has started holding content
        again. Skipped for projects without a reference/ directory, and while REFERENCE.md
        is missing (reference-index-missing reports that).""",
)
def reference_index_budget(project: Project, ctx: Context) -> Iterator[Issue]:
    budget = ctx.settings.budget("reference_index_lines")
    if project.reference.line_count > budget:
        yield Issue(
            f"REFERENCE.md (the reference/ index) is {project.reference.line_count} lines, "
            f"over the {budget}-line index budget",
            project.reference.rel_path,
            remedy=f"Move the content below the index into topic files under "
            f"{project.path_to('reference')}/ (one per topic, each linked from "
            f"{project.reference.rel_path}); keep it an index.",
        )


@SHARD_CHECKS.check(
    "reference-topic-budget",
    severity=Severity.WARNING,
    summary="a reference/<topic>.md is over 300 lines",
    remedy="Split the topic into narrower topics, each linked from REFERENCE.md.",
    explanation="""
        Each topic file gets the old single-file budget of 300 lines
        (`budgets.reference_topic_lines`). Skipped for projects without a reference/
        directory.""",
)
def reference_topic_budget(project: Project, ctx: Context) -> Iterator[Issue]:
    budget = ctx.settings.budget("reference_topic_lines")
    for topic in project.topics:
        if topic.line_count > budget:
            yield Issue(
                f"{PurePosixPath(topic.rel_path).name} is {topic.line_count} lines, "
                f"over the {budget}-line topic budget",
                topic.rel_path,
            )


def _link_targets(project: Project) -> set[str]:
    """Repository-relative paths that REFERENCE.md's Markdown links point at."""
    base = PurePosixPath(project.reference.rel_path).parent
    targets: set[str] = set()
    for link in project.reference.links:
        parts = urlsplit(link.href)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        target = unquote(parts.path)
        # A root-relative link (`/projects/x/reference/a.md`) is relative to the repository.
        joined = PurePosixPath(target.lstrip("/")) if target.startswith("/") else base / target
        resolved: list[str] = []
        for piece in joined.parts:
            if piece == "..":
                if resolved:
                    resolved.pop()
            elif piece not in (".", ""):
                resolved.append(piece)
        targets.add("/".join(resolved))
    return targets


@SHARD_CHECKS.check(
    "reference-index-orphan",
    severity=Severity.WARNING,
    skips=(NO_INDEX_FILE,),
    summary="a reference/ topic file is not linked from REFERENCE.md",
    remedy="Add a Markdown link to the topic in REFERENCE.md's index (or delete the topic).",
    explanation="""
        Sharding is safe only while every topic is reachable from the index an agent reads at
        session start. A topic no Markdown link in REFERENCE.md targets is lost content. Only
        real link targets count (resolved relative to REFERENCE.md, fragments ignored): a
        topic's name mentioned in prose or in a code block does not. When REFERENCE.md itself
        is missing, `reference-index-missing` reports that instead (coverage reason `no
        REFERENCE.md`). Skipped for projects without a reference/ directory.""",
)
def reference_index_orphan(project: Project, ctx: Context) -> Iterator[Issue]:
    linked = _link_targets(project)
    for topic in project.topics:
        if topic.rel_path not in linked:
            link = _index_line(topic.rel_path)
            yield Issue(
                f"{PurePosixPath(topic.rel_path).name} is not linked from REFERENCE.md",
                topic.rel_path,
                remedy=f"Add `{link}` to {project.reference.rel_path} (or delete the topic).",
                # Unsafe: where the link belongs in the index, and what to call it, is a
                # person's choice; appending at the end is only a start.
                fix=Fix(
                    project.reference.rel_path,
                    Applicability.UNSAFE,
                    f"append `{link}` to REFERENCE.md",
                    (AppendLine(link),),
                ),
            )


def _index_line(topic_path: str) -> str:
    """A list-item link to a topic, relative to REFERENCE.md (``reference/<name>``).

    The name is the audited tree's: in the link text, Markdown's own punctuation is
    escaped and control characters shown as escapes, so a topic named
    ``x](javascript:…) [y.md`` is one link with odd text, never a second link or line.
    """
    name = PurePosixPath(topic_path).name
    stem = PurePosixPath(name).stem
    target = quote(f"reference/{name}")
    return f"- [{_link_text(stem)}]({target})"


_MARKDOWN_PUNCTUATION = LazyPattern(r"([\\`\[\]<>])")  # what could end the text or open a link


def _link_text(text: str) -> str:
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", escape_text(text))


@SHARD_CHECKS.check(
    "reference-index-missing",
    severity=Severity.DEFECT,
    summary="reference/ exists but REFERENCE.md does not",
    remedy="Create REFERENCE.md as an index with one Markdown link per topic file in reference/.",
    explanation="""
        Without an index every topic in reference/ is unreachable from session start, which
        makes sharding a way to lose content. Skipped for projects without a reference/
        directory.""",
)
def reference_index_missing(project: Project, ctx: Context) -> Iterator[Issue]:
    # Something other than a file in REFERENCE.md's place (a FIFO) is one problem, which the
    # shape finding names; "there is no index" would be a second finding for the same cause.
    misshapen = any(path == project.reference.rel_path for path, _ in project.shape_problems)
    if not project.reference.exists and not misshapen:
        links = ", ".join(f"`{_index_line(topic.rel_path)}`" for topic in project.topics[:5])
        more = f" and {len(project.topics) - 5} more" if len(project.topics) > 5 else ""
        yield Issue(
            f"reference/ holds {len(project.topics)} topic file(s) but there is no REFERENCE.md index",
            project.reference.rel_path,
            remedy=f"Create {project.reference.rel_path} as an index with one link per topic: "
            f"{links}{more}."
            if links
            else f"Create {project.reference.rel_path} as an index.",
        )
