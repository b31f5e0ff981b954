"""The pai-freshness-v1 grades: thresholds, A-F grades, and the graded files of a tree.

A grade comes from when a person last vouched for a file (``last_reviewed``),
never from when its bytes last changed (``last_updated``).  Everything here
is a pure function of text and dates; reading files from disk is done once,
by :func:`grade_files`, and checks only look at the result.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from context_doctor.config.settings import RegistryEntry
from context_doctor.freshness.files import FileRead, discover_files, read_file
from context_doctor.freshness.frontmatter import (
    CONVENTION,
    SECTION_MARKER,
    Timestamp,
    parse_timestamp,
    section_slug,
    slug_of,
    split_frontmatter,
)
from context_doctor.freshness.remedies import (
    derived_reviewed_remedy,
    malformed_remedy,
    review_command,
    review_remedy,
    section_remedy,
)
from context_doctor.guards.contain import inside, repository_root
from context_doctor.model.documents import Document

if TYPE_CHECKING:
    from context_doctor.model.source import Source

DEFAULT_THRESHOLD = 180
PLACEHOLDER = date(1970, 1, 1)
GRADES = ("A", "B", "C", "D", "F")
GRADE_POINTS = {"A": 4, "B": 3, "C": 2, "D": 1, "F": 0}
# Review cadence by slug: "when do I want to be reminded to look?"
SLUG_THRESHOLDS: dict[str, int] = {
    "current_state": 7,
    "status": 14,
    "projects": 30,
    "goals": 30,
    "strategies": 30,
    "identity": 90,
    "principal_identity": 90,
    "mission": 90,
    "beliefs": 90,
    "models": 90,
    "frames": 90,
    "wisdom": 90,
    "ideal_state": 90,
    "system_prompt": 90,
    "da_identity": 180,
    "preferences": 180,
    "traumas": 365,
    "wrong": 365,
    "2036": 365,
}
# Review cadence of a ``##`` section by its LifeOS slug (exact slugs only; else 180).
SECTION_THRESHOLDS: dict[str, int] = {
    "current_state": 7,
    "status": 14,
    **dict.fromkeys(("goals", "strategies", "projects"), 30),
    "ideas": 45,
    **dict.fromkeys(("problems", "challenges", "narratives", "predictions"), 60),
    **dict.fromkeys(("mission", "beliefs", "models", "frames", "wisdom", "ideal_state"), 90),
    **dict.fromkeys(("2036", "traumas", "wrong"), 365),
}


# -- grading ----------------------------------------------------------------


def grade_for(reviewed_age: int | None, threshold: int) -> str:
    """A-F from review age against the threshold; never reviewed is F."""
    if reviewed_age is None:
        return "F"
    ratio = Fraction(max(reviewed_age, 0), threshold)
    for grade, limit in zip(
        GRADES, (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1)), strict=False
    ):
        if ratio <= limit:
            return grade
    return "F"


def pct_for(reviewed_age: int | None, threshold: int) -> int:
    """Round-half-up of 100*(T-age)/T, clamped to 0..100; never reviewed is 0."""
    if reviewed_age is None:
        return 0
    exact = Fraction(100 * (threshold - reviewed_age), threshold)
    return max(0, min(100, math.floor(exact + Fraction(1, 2))))


def overall_grade(grades: Iterable[str]) -> str:
    points = [GRADE_POINTS[grade] for grade in grades]
    if not points:
        return "F"
    mean = Fraction(sum(points), len(points))
    for grade, floor in (
        ("A", Fraction(7, 2)),
        ("B", Fraction(5, 2)),
        ("C", Fraction(3, 2)),
        ("D", Fraction(1, 2)),
    ):
        if mean >= floor:
            return grade
    return "F"


def threshold_for_slug(slug: str, overrides: Mapping[str, int] | None = None) -> int:
    """Exact slug first, then the longest table key it ends with (``pai_system_prompt``).

    ``overrides`` (``[freshness.thresholds]``) replace or extend the built-in table.
    """
    table = {**SLUG_THRESHOLDS, **overrides} if overrides else SLUG_THRESHOLDS
    if slug in table:
        return table[slug]
    suffixes = [key for key in table if slug.endswith(f"_{key}")]
    return table[max(suffixes, key=len)] if suffixes else DEFAULT_THRESHOLD


def section_threshold(slug: str, overrides: Mapping[str, int] | None = None) -> int:
    """A section slug's threshold: ``[freshness.thresholds]``, else the section table, else 180."""
    if overrides and slug in overrides:
        return overrides[slug]
    return SECTION_THRESHOLDS.get(slug, DEFAULT_THRESHOLD)


# -- graded files -----------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    check: str
    message: str
    line: int | None = None
    remedy: str | None = None  # the concrete command, where the problem knows one


@dataclass
class SectionMark:
    heading: str
    slug: str
    line: int
    marked: date | None
    raw: str | None


@dataclass
class GradedFile:
    slug: str
    path: Path
    rel_path: str
    order: int  # registry position, or after the registry for discovered files
    threshold_days: int = DEFAULT_THRESHOLD
    age_days: int | None = None
    reviewed_age_days: int | None = None
    grade: str = "F"
    pct: int = 0
    stale: bool = True
    why: str | None = None
    derived_from: str | None = None
    problems: list[Problem] = field(default_factory=list)
    sections: list[SectionMark] = field(default_factory=list)
    # False for a file found declaring another convention: named in a finding, not graded.
    graded: bool = True

    def summary(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "path": self.rel_path,
            "name": self.path.name,
            "age_days": self.age_days,
            "threshold_days": self.threshold_days,
            "reviewed_age_days": self.reviewed_age_days,
            "pct": self.pct,
            "grade": self.grade,
            "stale": self.stale,
            "why": self.why,
        }

    def staleness(self) -> tuple[Fraction, int, str]:
        """Sort key, most stale first: never-reviewed and unreadable files lead."""
        if self.reviewed_age_days is None:
            ratio = Fraction(10**9)
        else:
            ratio = Fraction(self.reviewed_age_days, self.threshold_days)
        return (-ratio, self.order, self.rel_path)


def _days(today: date, day: date | None) -> int | None:
    return None if day is None else (today - day).days


def _section_marks(text: str, path: Path) -> list[SectionMark]:
    """``##`` sections of the body; the frontmatter is cut off first (its closing ``---``
    would otherwise make the block's last line a setext heading)."""
    parts = split_frontmatter(text)
    offset = parts[0].count("\n") if parts else 0
    body = parts[2] if parts else text
    document = Document.from_text(body, path, path.name)
    marks: list[SectionMark] = []
    headings = document.headings
    for position, heading in enumerate(headings):
        if heading.level != 2:
            continue
        following = (
            headings[position + 1].line - 1 if position + 1 < len(headings) else len(document.lines)
        )
        # Within the three lines under the heading, and never past the next heading.
        window = document.lines[heading.line : min(heading.line + 3, following)]
        found = next((m for m in (SECTION_MARKER.search(line) for line in window) if m), None)
        stamp = parse_timestamp(found.group(1)) if found else None
        marks.append(
            SectionMark(
                heading=heading.text,
                slug=section_slug(heading.text),
                line=heading.line + offset,
                marked=stamp.day if stamp else None,
                raw=found.group(0) if found else None,
            )
        )
    return marks


def grade_files(
    root: Path,
    registry: list[RegistryEntry],
    today: date,
    relative: Any = None,
    *,
    discover: bool = True,
    thresholds: Mapping[str, int] | None = None,
    known: Mapping[str, bool] | None = None,
) -> list[GradedFile]:
    """Read and grade the registry's files plus every file under ``root`` declaring the convention.

    ``relative`` maps an absolute path to the path findings carry (defaults to
    the path relative to ``root``); ``known``: see :func:`discover_files`.
    """

    def rel(path: Path) -> str:
        if relative is not None:
            return str(relative(path))
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.as_posix()

    entries: list[tuple[RegistryEntry | None, Path]] = []
    seen: set[Path] = set()
    for registered in registry:
        path = (root / registered.path).resolve()
        seen.add(path)
        entries.append((registered, path))
    for path in discover_files(root, known) if discover else ():
        if path.resolve() not in seen:
            seen.add(path.resolve())
            entries.append((None, path))

    reads: dict[Path, FileRead] = {}

    def read_once(path: Path) -> FileRead:
        key = path.resolve()
        if key not in reads:
            reads[key] = read_file(path)
        return reads[key]

    graded: list[GradedFile] = []
    for order, (entry, path) in enumerate(entries):
        slug = entry.slug if entry else slug_of(path.name)
        item = GradedFile(slug=slug, path=path, rel_path=rel(path), order=order)
        graded.append(item)
        # The registry's (else the slug table's) threshold holds even when the file cannot
        # say its own: a missing file or one without frontmatter is still judged against it.
        item.threshold_days = (
            entry.threshold if entry and entry.threshold else threshold_for_slug(slug, thresholds)
        )
        if not path.is_file():
            item.why = "no frontmatter"
            item.problems.append(
                Problem(
                    "freshness-never-reviewed",
                    "the registered file does not exist",
                    remedy=f"Create {item.rel_path} (then review it with its owner), or remove "
                    "its entry from the [freshness] registry.",
                )
            )
            continue
        read = read_once(path)
        if read.problem is not None:
            item.why = "never reviewed"
            item.problems.append(
                Problem(
                    "freshness-malformed",
                    f"frontmatter: {read.problem}",
                    1,
                    remedy=malformed_remedy(item.rel_path),
                )
            )
            continue
        front = read.frontmatter
        if front is None:
            item.why = "no frontmatter"
            item.problems.append(
                Problem(
                    "freshness-never-reviewed",
                    "the file has no freshness frontmatter",
                    1,
                    remedy=review_remedy(item.rel_path, None, "Review it"),
                )
            )
            continue
        data = front.data
        declared = data.get("convention")
        if declared is not None and declared != CONVENTION:
            item.problems.append(
                Problem(
                    "freshness-convention-unknown",
                    f"declares `convention: {declared}`, not `{CONVENTION}`"
                    + (": graded as registered" if entry else ": not graded"),
                    front.lines.get("convention"),
                    remedy=f"Decide which convention {item.rel_path} follows: if "
                    f"{CONVENTION}, change its `convention:` line to `{CONVENTION}` by hand "
                    "and check its review dates; if another, leave it (ignore this check for "
                    "the file in `[per-path-ignores]`).",
                )
            )
            if entry is None:
                item.graded, item.stale, item.why = False, False, None
                continue
        cadence = _cadence(data)
        own_threshold = (
            entry.threshold
            if entry and entry.threshold
            else cadence
            if cadence is not None
            else threshold_for_slug(slug, thresholds)
        )
        item.threshold_days = own_threshold
        updated = parse_timestamp(data.get("last_updated"))
        if updated is not None and updated.problem:
            item.problems.append(
                Problem(
                    "freshness-malformed",
                    f"last_updated `{updated.raw}` is not a real date",
                    front.lines.get("last_updated"),
                    remedy=malformed_remedy(item.rel_path),
                )
            )
        item.age_days = _days(today, updated.day if updated else None)
        if read.text is not None and any(
            SECTION_MARKER.search(line) for line in read.text.splitlines()
        ):
            item.sections = _section_marks(read.text, path)
            item.problems += _section_problems(item.sections, today, thresholds, item.rel_path)

        derived = (entry.derived_from if entry else None) or data.get("derived_from")
        reviewed_field_line = front.lines.get("last_reviewed")
        if derived:
            item.derived_from = str(derived)
            source_path = _resolve_source(root, path, str(derived))
            if data.get("last_reviewed") is not None:
                item.problems.append(
                    Problem(
                        "freshness-derived-reviewed",
                        f"a derived file carries its own last_reviewed; reviews belong on {derived}",
                        reviewed_field_line,
                        remedy=derived_reviewed_remedy(
                            item.rel_path,
                            (rel(source_path), source_path)
                            if isinstance(source_path, Path)
                            else None,
                            read_once,
                        ),
                    )
                )
            if isinstance(source_path, _Outside):
                item.why = "source missing"
                item.problems.append(
                    Problem(
                        "freshness-source-missing",
                        f"derived_from `{derived}` leads outside the repository; the doctor "
                        "does not read it",
                        front.lines.get("derived_from"),
                        remedy=f"Point `derived_from` in {item.rel_path} at the generator's real "
                        "source inside the repository (LifeOS writes it relative to the folder "
                        "above `LIFEOS/`), or regenerate the file.",
                    )
                )
                continue
            if source_path is None:
                item.why = "source missing"
                item.problems.append(
                    Problem(
                        "freshness-source-missing",
                        f"derived_from `{derived}` cannot be found (looked for it under the "
                        "nearest folder above the file that holds its first component, inside "
                        "the repository): the file is graded as its source's review is unknown",
                        front.lines.get("derived_from"),
                        remedy=f"Point `derived_from` in {item.rel_path} at the generator's real "
                        "source inside the repository (LifeOS writes it relative to the folder "
                        "above `LIFEOS/`), or regenerate the file.",
                    )
                )
                continue
            source_read = read_once(source_path)
            source_front = source_read.frontmatter
            source_slug = slug_of(source_path.name)
            source_entry = next((e for e, p in entries if e and p == source_path.resolve()), None)
            source_cadence = _cadence(source_front.data) if source_front else None
            item.threshold_days = (
                source_entry.threshold
                if source_entry and source_entry.threshold
                else source_cadence
                if source_cadence is not None
                else threshold_for_slug(
                    source_entry.slug if source_entry else source_slug, thresholds
                )
            )
            reviewed = (
                parse_timestamp(source_front.data.get("last_reviewed")) if source_front else None
            )
            _judge_review(
                item,
                reviewed,
                today,
                None,
                of_source=str(derived),
                target=(
                    rel(source_path),
                    source_front.data if source_front else None,
                    source_read.problem is None,
                ),
            )
            continue
        reviewed = parse_timestamp(data.get("last_reviewed"))
        _judge_review(
            item, reviewed, today, reviewed_field_line, target=(item.rel_path, data, True)
        )
    return graded


def _section_problems(
    sections: list[SectionMark],
    today: date,
    thresholds: Mapping[str, int] | None,
    rel_path: str,
) -> list[Problem]:
    """``section-freshness-overdue`` for a marked file: each section against its slug's
    threshold (stale is strictly older), and every section without a readable marker."""
    if not any(section.raw for section in sections):
        return []
    found: list[Problem] = []
    for section in sections:
        if section.marked is None:
            what = (
                "has no `<!-- updated: -->` marker"
                if section.raw is None
                else f"has an unreadable marker `{section.raw}`"
            )
            found.append(
                Problem(
                    "section-freshness-overdue",
                    f"section `## {section.heading}` {what}",
                    section.line,
                    section_remedy(rel_path, section.slug),
                )
            )
            continue
        threshold = section_threshold(section.slug, thresholds)
        age = (today - section.marked).days
        if age > threshold:
            found.append(
                Problem(
                    "section-freshness-overdue",
                    f"section `## {section.heading}` was last updated {age} days ago "
                    f"({section.marked}), over the {threshold}-day threshold for "
                    f"`{section.slug or '(no slug)'}`",
                    section.line,
                    section_remedy(rel_path, section.slug),
                )
            )
    return found


def _cadence(data: dict[str, Any]) -> int | None:
    """``review_cadence_days`` when it is a positive whole number (``true`` is not 1)."""
    value = data.get("review_cadence_days")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


class _Outside:
    """``derived_from`` leads out of the file's repository: never looked at (docs/caches.md)."""


OUTSIDE = _Outside()


def _resolve_source(root: Path, path: Path, derived: str) -> Path | _Outside | None:
    """The file ``derived_from`` names, :data:`OUTSIDE`, or None when it cannot be found.

    LifeOS writes the field relative to the directory above ``LIFEOS/``
    (``LIFEOS/DOCUMENTATION/x.md``), whichever folder the doctor was given: it is
    resolved against the nearest ancestor of the file that holds its first component.
    The boundary is the file's repository (outside one, ``root``): a path that climbs or
    links out of it is not even looked up.
    """
    tree = repository_root(path) or root
    relative = PurePosixPath(derived.replace("\\", "/"))
    if not relative.parts:
        return None
    first = relative.parts[0]
    outside = False
    for base in (path.parent, *path.parent.parents):
        if not base.is_relative_to(tree):
            break
        candidate = Path(os.path.normpath(base / derived))
        if not inside(candidate, tree):
            outside = True  # not even whether it exists is looked up
            continue
        if (base / first).exists() and candidate.is_file():
            return candidate.resolve()
    return OUTSIDE if outside else None


def _judge_review(
    item: GradedFile,
    reviewed: Timestamp | None,
    today: date,
    line: int | None,
    of_source: str | None = None,
    *,
    target: tuple[str, Mapping[str, Any] | None, bool],
) -> None:
    """Grade ``item`` from ``reviewed``; ``target`` is the file a review is recorded on (the
    file itself, or a derived file's source) and its frontmatter, for the remedies."""
    whose = f" (of its source {of_source})" if of_source else ""
    target_path, target_data, readable = target
    review = review_remedy(
        target_path,
        target_data,
        "Review it" if of_source is None else f"Review {target_path}",
        readable,
    )
    if reviewed is not None and reviewed.problem:
        item.problems.append(
            Problem(
                "freshness-malformed",
                f"last_reviewed{whose} `{reviewed.raw}` is not a real date",
                line,
                remedy=malformed_remedy(target_path),
            )
        )
        reviewed = None
    elif reviewed is not None and reviewed.day == PLACEHOLDER:
        item.problems.append(
            Problem(
                "freshness-never-reviewed",
                f"last_reviewed{whose} is the placeholder `{reviewed.raw}`: never reviewed",
                line,
                remedy=review,
            )
        )
        reviewed = None
    elif reviewed is None:
        item.problems.append(
            Problem(
                "freshness-never-reviewed",
                f"no last_reviewed{whose}: never reviewed",
                line,
                remedy=review,
            )
        )
    day = reviewed.day if reviewed else None
    age = _days(today, day)
    if age is not None and age < 0:
        command = review_command(target_path, target_data, readable)
        now = f", or, if it is being reviewed now, run `{command}`" if command else ""
        item.problems.append(
            Problem(
                "freshness-future",
                f"last_reviewed{whose} {day} is after today ({today})",
                line,
                remedy=f"Correct `last_reviewed` in {target_path} to the day it was really "
                f"reviewed{now}.",
            )
        )
    item.reviewed_age_days = age
    item.grade = grade_for(age, item.threshold_days)
    item.pct = pct_for(age, item.threshold_days)
    item.stale = age is None or age > item.threshold_days
    if age is None:
        item.why = "source missing" if item.why == "source missing" else "never reviewed"
    elif item.stale:
        item.why = "review overdue"
        item.problems.append(
            Problem(
                "freshness-overdue",
                f"last reviewed{whose} {age} days ago ({day}), over its {item.threshold_days}-day "
                "threshold: grade F",
                line,
                remedy=review.replace("Review it with", "Review its content with", 1),
            )
        )
    else:
        item.why = None


def summarize(files: list[GradedFile]) -> dict[str, Any]:
    files = [item for item in files if item.graded]
    ranked = sorted(files, key=GradedFile.staleness)
    stale = [item for item in files if item.stale]
    pct = (
        math.floor(Fraction(sum(item.pct for item in files), len(files)) + Fraction(1, 2))
        if files
        else 0
    )
    most = ranked[0] if ranked and ranked[0].stale else None
    return {
        "total": len(files),
        "fresh_count": len(files) - len(stale),
        "stale_count": len(stale),
        "overall_pct": pct,
        "overall_grade": overall_grade(item.grade for item in files),
        "most_stale": None if most is None else {"slug": most.slug, "path": most.rel_path},
        "files": [
            item.summary() for item in sorted(files, key=lambda item: (item.order, item.rel_path))
        ],
    }


def graded_files(source: Source, today: date) -> list[GradedFile]:
    """Freshness-graded files under ``source``, read and graded once per run (kept on it)."""
    if source._graded is None:
        source._graded = grade_files(
            source.root,
            source.registry,
            today,
            relative=source.repository.relative,
            thresholds=source.thresholds,
            known=source.known_heads,
        )
    return source._graded
