"""pai-freshness-v1: review-age grades of Markdown files, and the writers of their markers.

* :mod:`.frontmatter` - the syntax on a file (frontmatter block, timestamps, slugs, markers);
* :mod:`.files` - which files of a tree follow the convention, and each one's frontmatter;
* :mod:`.grades` - thresholds, A-F grades, and the graded files of a tree;
* :mod:`.remedies` - what a freshness finding proposes;
* :mod:`.summary` - the ``freshness`` summary of paths and its statusline cache;
* :mod:`.writers` - ``review``, ``touch``, ``review-section`` and ``migrate``.

The names other modules use are re-exported here.
"""

from __future__ import annotations

from context_doctor.config.settings import RegistryEntry
from context_doctor.freshness.frontmatter import (
    CONVENTION,
    SECTION_MARKER,
    Frontmatter,
    Timestamp,
    parse_timestamp,
    read_frontmatter,
    slug_of,
    split_frontmatter,
)
from context_doctor.freshness.grades import (
    DEFAULT_THRESHOLD,
    SLUG_THRESHOLDS,
    GradedFile,
    Problem,
    SectionMark,
    grade_files,
    grade_for,
    overall_grade,
    pct_for,
    summarize,
    threshold_for_slug,
)

__all__ = [
    "CONVENTION",
    "DEFAULT_THRESHOLD",
    "SECTION_MARKER",
    "SLUG_THRESHOLDS",
    "Frontmatter",
    "GradedFile",
    "Problem",
    "RegistryEntry",
    "SectionMark",
    "Timestamp",
    "grade_files",
    "grade_for",
    "overall_grade",
    "parse_timestamp",
    "pct_for",
    "read_frontmatter",
    "slug_of",
    "split_frontmatter",
    "summarize",
    "threshold_for_slug",
]
