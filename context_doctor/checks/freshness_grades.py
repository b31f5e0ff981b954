"""Freshness grades (pai-freshness-v1): how long since a person vouched for each file.

These checks are asked once per source, over the files it grades (the
configured registry plus every Markdown file declaring the convention); their
coverage counts graded files.  Reading and grading happen once, in
``context_doctor.freshness``; each check reports its own kind of problem.
"""

from __future__ import annotations

from collections.abc import Iterator

from context_doctor.checks.registry import CheckFamily, Context
from context_doctor.freshness.grades import graded_files
from context_doctor.model.source import Source
from context_doctor.report.findings import Applicability, Fix, Issue, RemoveFrontmatterKey, Severity

GROUP = "freshness-grades"


def _graded(source: Source, ctx: Context) -> int:
    return len(graded_files(source, ctx.today))


GRADE_CHECKS = CheckFamily(scope="source", units=_graded)
"""Asked once per source over the files it grades; coverage counts graded files."""


def _problems(source: Source, ctx: Context, name: str) -> Iterator[Issue]:
    for graded in graded_files(source, ctx.today):
        for problem in graded.problems:
            if problem.check != name:
                continue
            fix = None
            if name == "freshness-derived-reviewed":
                # A review recorded on a derived file is ignored and overwritten by the
                # next generator run: dropping it is a fact, not a claim.
                fix = Fix(
                    graded.rel_path,
                    Applicability.SAFE,
                    "remove the derived file's own `last_reviewed`",
                    (RemoveFrontmatterKey("last_reviewed"),),
                )
            # A graded file belongs to no project: the message names it, so a
            # row that shows only the source and the message still says which file.
            yield Issue(
                f"{graded.rel_path}: {problem.message}",
                graded.rel_path,
                problem.line,
                remedy=problem.remedy,
                fix=fix,
            )


def _freshness_check(
    name: str, severity: Severity, summary: str, remedy: str, explanation: str
) -> None:
    def function(source: Source, ctx: Context) -> Iterator[Issue]:
        return _problems(source, ctx, name)

    function.__module__ = __name__
    GRADE_CHECKS.check(
        name, severity=severity, summary=summary, remedy=remedy, explanation=explanation
    )(function)


_freshness_check(
    "freshness-overdue",
    Severity.WARNING,
    "a file's last review is older than its threshold (grade F)",
    "Review the file's content with its owner, then run `context-doctor freshness review` on it.",
    """A graded file's freshness comes from `last_reviewed`, when a person last vouched for it,
    never from `last_updated`. Past its threshold (registry entry, else `review_cadence_days`,
    else the slug table, else 180 days) it grades F: the content may describe someone or
    something that no longer exists. Derived files are graded from their source.""",
)
_freshness_check(
    "freshness-never-reviewed",
    Severity.WARNING,
    "a graded file has never been reviewed",
    "Review the file, then run `context-doctor freshness review` on it (`context-doctor freshness "
    "migrate` it first if it has no frontmatter).",
    """A file with no `last_reviewed` (or the `1970-01-01` placeholder, named as such), a
    registered file with no frontmatter, or one that does not exist grades F: a write is not
    a review, and a file nobody has vouched for is not fresh however recently it changed.""",
)
_freshness_check(
    "freshness-malformed",
    Severity.DEFECT,
    "freshness frontmatter cannot be read, or a timestamp is not a real date",
    "Fix the frontmatter: a leading `---` YAML block with ISO-8601 dates (a day, or a "
    "datetime with its offset).",
    """Frontmatter that is not YAML, a block that is never closed, or a `last_reviewed` /
    `last_updated` that is not a real date (2026-13-01) leaves the grade unknowable; the file is
    graded as never reviewed and this defect says why.""",
)
_freshness_check(
    "freshness-future",
    Severity.WARNING,
    "last_reviewed is after today",
    "Correct `last_reviewed` to the real review date (or run `context-doctor freshness review` on "
    "the file when it is reviewed now).",
    """A review dated in the future keeps a file graded A for longer than any review earned; it
    is usually a typo or a clock error.""",
)
_freshness_check(
    "freshness-source-missing",
    Severity.WARNING,
    "a derived file's derived_from names a file that cannot be found",
    "Point `derived_from` at the generator's real source (LifeOS writes it relative to the "
    "folder above `LIFEOS/`, e.g. `LIFEOS/DOCUMENTATION/x.md`), or regenerate the file.",
    """A derived file (`derived_from`) is graded from its source, since a regenerated file is
    not a reviewed file. The path is resolved against the nearest folder above the file that
    holds its first component, whichever folder the doctor was given, and never outside the
    repository. A source that cannot be found leaves the grade without ground (`why: source
    missing`); upstream's own grader ignores the field, so this is a warning, not a defect.""",
)
_freshness_check(
    "freshness-convention-unknown",
    Severity.WARNING,
    "a file's frontmatter declares a freshness convention other than pai-freshness-v1",
    "Decide which convention the file follows: if pai-freshness-v1, change its `convention:` "
    "line to `pai-freshness-v1` by hand and check its review dates; if another, leave it "
    "(ignore this check for the file in `[per-path-ignores]`).",
    """Only `convention: pai-freshness-v1` files are graded. A file whose frontmatter declares
    another freshness convention (or a `convention:` beside review dates) is named here rather
    than dropped in silence: a typo such as `pai-freshness-v2` would otherwise take the file
    out of every grade. A registered file is still graded.""",
)
_freshness_check(
    "freshness-derived-reviewed",
    Severity.WARNING,
    "a derived file carries its own last_reviewed",
    "Remove `last_reviewed` from the derived file and review its source instead.",
    """Reviews belong on the source of a generated file: a review recorded on the derivative
    is ignored for grading and will be overwritten the next time the generator runs.""",
)


@GRADE_CHECKS.check(
    "section-freshness-overdue",
    severity=Severity.WARNING,
    summary="a section's `<!-- updated: -->` marker is older than its threshold, or missing",
    remedy="Review the section, then run `context-doctor freshness review-section` with the file "
    "and the section's slug.",
    explanation="""
        Files that carry per-section markers (`<!-- updated: YYYY-MM-DD by:NAME -->` within the
        three lines under a `##` heading) let sections drift independently: each is graded
        against its own slug's threshold, the slug computed as LifeOS computes it (parentheticals
        removed, cut at the first dash: `## GOALS (measurable milestones)` -> goals, 30 days;
        `## Current State (where you are now)` -> current_state, 7). Stale is strictly older
        than the threshold. In a marked file, a `##` section without a marker is reported too.
        Coverage counts graded files.""",
)
def section_freshness_overdue(source: Source, ctx: Context) -> Iterator[Issue]:
    # Judged while grading (freshness.grades), so `freshness` reports the same findings.
    return _problems(source, ctx, "section-freshness-overdue")
