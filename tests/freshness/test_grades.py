"""pai-freshness-v1 grading as pure functions (docs/checks.md "Freshness grades").

Grades, pct, the overall grade, slugs and thresholds, frontmatter splitting and
timestamps, the summary and the statusline cache: each is a function of text,
numbers and dates, tested here without touching the disk (only the walk that
discovers graded files, at the end, builds a tree). Grading real files,
the checks and the ``freshness`` command are in ``tests/checks/test_freshness_grades.py``.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from context_doctor.freshness import (
    DEFAULT_THRESHOLD,
    GradedFile,
    grade_for,
    overall_grade,
    parse_timestamp,
    pct_for,
    read_frontmatter,
    slug_of,
    split_frontmatter,
    summarize,
    threshold_for_slug,
)
from context_doctor.freshness.files import discover_files
from context_doctor.freshness.summary import CACHE_LIMIT, statusline_cache
from context_doctor.guards.yamlio import nesting_depth

# -- the grade table ---------------------------------------------------------


@pytest.mark.parametrize(
    ("age", "grade", "pct"),
    [
        (0, "A", 100),
        (7, "A", 77),  # 7/30 = 0.233; 100*23/30 = 76.67
        (8, "B", 73),  # 8/30 = 0.267
        (15, "B", 50),  # exactly 0.50
        (16, "C", 47),
        (22, "C", 27),  # 22/30 = 0.733
        (23, "D", 23),  # 23/30 = 0.767
        (30, "D", 0),  # exactly the threshold: D, not yet F
        (31, "F", 0),  # over it; pct clamps at 0
        (400, "F", 0),
    ],
)
def test_grade_and_pct_for_a_30_day_threshold(age: int, grade: str, pct: int) -> None:
    assert grade_for(age, 30) == grade
    assert pct_for(age, 30) == pct


def test_never_reviewed_is_f_with_pct_0() -> None:
    assert grade_for(None, 30) == "F"
    assert pct_for(None, 30) == 0
    assert grade_for(None, 365) == "F"


def test_a_year_threshold_at_92_days_is_b_75() -> None:
    # 92/365 = 0.252: just past a quarter; 100*273/365 = 74.79 rounds to 75.
    assert grade_for(92, 365) == "B"
    assert pct_for(92, 365) == 75
    assert grade_for(91, 365) == "A"  # 91/365 = 0.249


@pytest.mark.parametrize(
    ("age", "threshold", "pct"),
    [
        (1, 8, 88),  # 87.5 rounds half up, not to even
        (3, 8, 63),  # 62.5
        (5, 8, 38),  # 37.5
        (1, 200, 100),  # 99.5
        (199, 200, 1),  # 0.5
    ],
)
def test_pct_rounds_half_up(age: int, threshold: int, pct: int) -> None:
    assert pct_for(age, threshold) == pct


def test_a_future_review_grades_a_and_pct_clamps_at_100() -> None:
    # A negative age (review after today) is its own finding; the grade does not go past A.
    assert grade_for(-5, 30) == "A"
    assert pct_for(-5, 30) == 100


def test_grade_boundaries_are_exact_fractions() -> None:
    # 25/100 is A and 26/100 is B: no float rounding at the quarter marks.
    assert [grade_for(age, 100) for age in (25, 26, 50, 51, 75, 76, 100, 101)] == [
        "A",
        "B",
        "B",
        "C",
        "C",
        "D",
        "D",
        "F",
    ]
    assert [grade_for(age, 7) for age in (1, 2, 3, 4, 5, 6, 7, 8)] == list("ABBCCDDF")


# -- the overall grade -------------------------------------------------------


@pytest.mark.parametrize(
    ("grades", "overall"),
    [
        (["A", "A", "F"], "B"),  # 8/3 = 2.67
        (["A", "F"], "C"),  # 2.0
        ([], "F"),
        (["A"], "A"),
        (["A", "B"], "A"),  # 3.5 is A
        (["B", "C"], "B"),  # 2.5 is B
        (["C", "D"], "C"),  # 1.5 is C
        (["D", "F"], "D"),  # 0.5 is D
        (["D", "F", "F"], "F"),  # 0.33
        (["B", "B", "B", "A"], "B"),  # 3.25
        (["F", "F"], "F"),
    ],
)
def test_overall_grade_is_the_mean_mapped_back(grades: list[str], overall: str) -> None:
    assert overall_grade(grades) == overall
    assert overall_grade(iter(grades)) == overall  # any iterable, e.g. a generator


# -- slugs and thresholds ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("PRINCIPAL_IDENTITY.md", "principal_identity"),
        ("DA_IDENTITY.md", "da_identity"),
        ("LIFEOS_SYSTEM_PROMPT.md", "lifeos_system_prompt"),
        ("Current State", "current_state"),
        ("Goals", "goals"),
        ("2036", "2036"),
        ("What I was Wrong About", "what_i_was_wrong_about"),
        ("notes.MD", "notes"),
        ("  Status  ", "status"),
    ],
)
def test_slug_of(name: str, slug: str) -> None:
    assert slug_of(name) == slug


@pytest.mark.parametrize(
    ("slug", "days"),
    [
        ("current_state", 7),
        ("status", 14),
        ("projects", 30),
        ("goals", 30),
        ("strategies", 30),
        ("identity", 90),
        ("principal_identity", 90),
        ("mission", 90),
        ("beliefs", 90),
        ("models", 90),
        ("frames", 90),
        ("wisdom", 90),
        ("ideal_state", 90),
        ("system_prompt", 90),
        ("da_identity", 180),
        ("preferences", 180),
        ("traumas", 365),
        ("wrong", 365),
        ("2036", 365),
    ],
)
def test_the_slug_table(slug: str, days: int) -> None:
    assert threshold_for_slug(slug) == days


def test_slug_suffixes_and_the_default() -> None:
    # The file names of the seed: the table key the slug ends with applies.
    assert threshold_for_slug(slug_of("LIFEOS_SYSTEM_PROMPT.md")) == 90
    assert threshold_for_slug("pai_system_prompt") == 90
    # The longest matching key wins: da_identity (180), not identity (90).
    assert threshold_for_slug("my_da_identity") == 180
    assert threshold_for_slug("principal_identity") == 90
    # Only whole words: `unstatus` is not `status`.
    assert threshold_for_slug("unstatus") == DEFAULT_THRESHOLD == 180
    assert threshold_for_slug("principal_telos") == 180
    assert threshold_for_slug("architecture_summary") == 180


# -- frontmatter -------------------------------------------------------------

BLOCK = "---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-06-01\n---\n"


def test_split_frontmatter_returns_head_block_and_body() -> None:
    parts = split_frontmatter(BLOCK + "# Title\n")
    assert parts == (
        BLOCK,
        "convention: pai-freshness-v1\nlast_reviewed: 2026-06-01\n",
        "# Title\n",
    )


def test_a_body_mention_in_a_code_block_is_not_frontmatter() -> None:
    text = (
        "# How to mark a file\n\n"
        "```yaml\n---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-06-01\n---\n```\n"
    )
    assert split_frontmatter(text) is None
    assert read_frontmatter(text) == (None, None)


def test_only_the_first_block_counts() -> None:
    text = "---\nconvention: pai-freshness-v1\n---\n# Body\n\n---\nlast_reviewed: 2026-06-01\n---\n"
    front, problem = read_frontmatter(text)
    assert problem is None and front is not None
    assert front.data == {"convention": "pai-freshness-v1"}
    assert "last_reviewed" not in front.data


def test_bom_and_crlf_frontmatter_are_read() -> None:
    text = (
        "\ufeff---\r\nconvention: pai-freshness-v1\r\nlast_reviewed: 2026-06-01\r\n---\r\nbody\r\n"
    )
    front, problem = read_frontmatter(text)
    assert problem is None and front is not None
    assert front.data == {"convention": "pai-freshness-v1", "last_reviewed": "2026-06-01"}
    assert front.lines == {"convention": 2, "last_reviewed": 3}
    assert front.end_line == 4


def test_a_closing_fence_may_be_dots_or_carry_trailing_spaces() -> None:
    assert read_frontmatter("---\na: 1\n...\nbody\n")[0] is not None
    assert read_frontmatter("---  \na: 1\n---  \nbody\n")[0] is not None


def test_an_empty_block_is_an_empty_mapping() -> None:
    front, problem = read_frontmatter("---\n---\nbody\n")
    assert problem is None and front is not None and front.data == {}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("---\nconvention: pai-freshness-v1\n# no closing fence\n", "never closed"),
        ("---\nconvention: [pai-freshness-v1\n---\n", "not valid YAML"),
        ("---\nlast_reviewed: 2026-06-01\n  bad: indent\n---\n", "not valid YAML"),
        ("---\n- a list\n- not a mapping\n---\n", "not a mapping"),
        ("---\njust a string\n---\n", "not a mapping"),
    ],
)
def test_unreadable_frontmatter_says_why(text: str, says: str) -> None:
    front, problem = read_frontmatter(text)
    assert front is None
    assert problem is not None and says in problem


def test_key_lines_count_from_the_top_of_the_file() -> None:
    front, _ = read_frontmatter(
        "---\n# a comment\nconvention: pai-freshness-v1\n\nlast_reviewed: 2026-06-01\n---\n"
    )
    assert front is not None
    assert front.lines == {"convention": 3, "last_reviewed": 5}


@pytest.mark.parametrize(
    ("value", "day"),
    [
        ("2026-06-01", date(2026, 6, 1)),
        ("2026-05-04T18:27:00.868Z", date(2026, 5, 4)),
        ("2026-05-04T23:30:00-07:00", date(2026, 5, 4)),  # the calendar day in its own offset
        ("2026-05-04T03:00:00+09:00", date(2026, 5, 4)),
        ("2026-05-04 10:00:00", date(2026, 5, 4)),
        (date(2026, 6, 1), date(2026, 6, 1)),
    ],
)
def test_timestamps_are_dates_or_datetimes(value: object, day: date) -> None:
    stamp = parse_timestamp(value)
    assert stamp is not None
    assert stamp.day == day
    assert stamp.problem is None


@pytest.mark.parametrize(
    "value", ["2026-13-01", "2026-02-30", "yesterday", "2026-05-04T25:00Z", 2026]
)
def test_impossible_timestamps_are_not_real_dates(value: object) -> None:
    stamp = parse_timestamp(value)
    assert stamp is not None
    assert stamp.day is None
    assert stamp.problem == "not a real date"
    assert stamp.raw == str(value)


@pytest.mark.parametrize("value", [None, ""])
def test_an_absent_timestamp_is_none(value: object) -> None:
    assert parse_timestamp(value) is None


def test_yaml_timestamps_keep_their_offset_through_the_frontmatter() -> None:
    # ruamel must not shift 23:30 at -07:00 into the next UTC day.
    front, _ = read_frontmatter("---\nlast_reviewed: 2026-05-04T23:30:00-07:00\n---\n")
    assert front is not None
    stamp = parse_timestamp(front.data["last_reviewed"])
    assert stamp is not None and stamp.day == date(2026, 5, 4)


def test_an_impossible_yaml_date_stays_a_string() -> None:
    front, problem = read_frontmatter("---\nlast_reviewed: 2026-13-01\n---\n")
    assert problem is None and front is not None
    assert front.data["last_reviewed"] == "2026-13-01"


# -- the summary -------------------------------------------------------------


def _graded(
    rel: str,
    order: int,
    reviewed: int | None,
    threshold: int = 30,
    slug: str | None = None,
    why: str | None = None,
) -> GradedFile:
    item = GradedFile(
        slug=slug or slug_of(Path(rel).name),
        path=Path("/kb") / rel,
        rel_path=rel,
        order=order,
        threshold_days=threshold,
        age_days=1,
        reviewed_age_days=reviewed,
        grade=grade_for(reviewed, threshold),
        pct=pct_for(reviewed, threshold),
        stale=reviewed is None or reviewed > threshold,
    )
    item.why = why or (
        "never reviewed" if reviewed is None else "review overdue" if item.stale else None
    )
    return item


def test_summary_fields() -> None:
    files = [
        _graded("ctx/PROJECTS.md", 0, 40),
        _graded("ctx/MISSION.md", 1, 3, threshold=90),
        _graded("ctx/STATUS.md", 2, None),
    ]
    summary = summarize(files)
    assert list(summary) == [
        "total",
        "fresh_count",
        "stale_count",
        "overall_pct",
        "overall_grade",
        "most_stale",
        "files",
    ]
    assert summary["total"] == 3
    assert summary["fresh_count"] == 1
    assert summary["stale_count"] == 2
    assert summary["overall_pct"] == 32  # (0 + 97 + 0) / 3 = 32.3
    assert summary["overall_grade"] == "D"  # F, A, F: 4/3 = 1.33
    assert summary["most_stale"] == {"slug": "status", "path": "ctx/STATUS.md"}
    assert summary["files"][0] == {
        "slug": "projects",
        "path": "ctx/PROJECTS.md",
        "name": "PROJECTS.md",
        "age_days": 1,
        "threshold_days": 30,
        "reviewed_age_days": 40,
        "pct": 0,
        "grade": "F",
        "stale": True,
        "why": "review overdue",
    }
    assert [entry["why"] for entry in summary["files"]] == [
        "review overdue",
        None,
        "never reviewed",
    ]
    json.dumps(summary)  # plain JSON data


def test_files_keep_registry_order_not_staleness_order() -> None:
    files = [_graded("b.md", 1, None), _graded("a.md", 0, 1), _graded("c.md", 2, 40)]
    assert [entry["path"] for entry in summarize(files)["files"]] == ["a.md", "b.md", "c.md"]


def test_most_stale_is_the_highest_age_to_threshold_ratio() -> None:
    files = [
        _graded("projects.md", 0, 40, threshold=30),  # 1.33
        _graded("mission.md", 1, 180, threshold=90),  # 2.0
        _graded("goals.md", 2, 10, threshold=30),
    ]
    assert summarize(files)["most_stale"] == {"slug": "mission", "path": "mission.md"}


def test_never_reviewed_outranks_any_age() -> None:
    files = [_graded("old.md", 0, 10_000, threshold=7), _graded("never.md", 1, None)]
    assert summarize(files)["most_stale"]["path"] == "never.md"


def test_most_stale_ties_go_to_registry_order_then_path() -> None:
    # Equal ratios (60/30 and 180/90; two never reviewed): the earlier registry entry wins,
    # whatever the path.
    tie = [_graded("z.md", 0, 60, threshold=30), _graded("a.md", 1, 180, threshold=90)]
    assert summarize(tie)["most_stale"]["path"] == "z.md"
    assert summarize(list(reversed(tie)))["most_stale"]["path"] == "z.md"
    never = [_graded("y.md", 3, None), _graded("x.md", 3, None)]
    assert summarize(never)["most_stale"]["path"] == "x.md"


def test_most_stale_is_null_when_nothing_is_stale() -> None:
    summary = summarize([_graded("a.md", 0, 30), _graded("b.md", 1, 0)])
    assert summary["most_stale"] is None
    assert summary["stale_count"] == 0
    assert summary["fresh_count"] == 2
    assert summary["overall_grade"] == "B"  # D and A: 2.5


def test_overall_pct_rounds_half_up() -> None:
    # 100 and 75 (8/32 days): mean 87.5 -> 88.
    files = [_graded("a.md", 0, 0, threshold=32), _graded("b.md", 1, 8, threshold=32)]
    assert [item.pct for item in files] == [100, 75]
    assert summarize(files)["overall_pct"] == 88


def test_an_empty_summary() -> None:
    assert summarize([]) == {
        "total": 0,
        "fresh_count": 0,
        "stale_count": 0,
        "overall_pct": 0,
        "overall_grade": "F",
        "most_stale": None,
        "files": [],
    }


# -- the statusline cache ----------------------------------------------------

NOW = "2026-06-20T08:00:00+00:00"


def test_the_cache_is_the_summary_plus_generated_at() -> None:
    files = [_graded("ctx/PROJECTS.md", 0, 40), _graded("ctx/MISSION.md", 1, 3, threshold=90)]
    summary = summarize(files)
    payload = json.loads(statusline_cache(summary, files, NOW))
    assert payload == {**summary, "generated_at": NOW}
    assert "files_omitted" not in payload


def test_a_large_summary_keeps_the_stalest_files_under_4_kib() -> None:
    files = [
        _graded(f"context/area-{n:03d}/FILE_{n:03d}.md", n, n, threshold=100) for n in range(200)
    ]
    summary = summarize(files)
    encoded = statusline_cache(summary, files, NOW)
    assert len(encoded) < CACHE_LIMIT == 4096
    payload = json.loads(encoded)
    kept = [entry["reviewed_age_days"] for entry in payload["files"]]
    assert kept, "some files still fit"
    # The stalest files are kept (ages 199, 198, ...), in registry order.
    assert kept == list(range(200 - len(kept), 200))
    assert payload["files_omitted"] == 200 - len(kept)
    # The totals still describe every file.
    for key in ("total", "fresh_count", "stale_count", "overall_pct", "overall_grade"):
        assert payload[key] == summary[key]
    assert payload["most_stale"] == summary["most_stale"]
    assert payload["generated_at"] == NOW
    # As many as fit: one more would not.
    one_more = {**payload, "files": summary["files"][-len(kept) - 1 :]}
    assert len(json.dumps(one_more, separators=(",", ":")).encode()) >= CACHE_LIMIT


# -- discovering graded files -------------------------------------------------

GRADED = "---\nconvention: pai-freshness-v1\nlast_reviewed: 2025-01-01\n---\nbody\n"


def test_discovery_finds_declaring_files_in_path_order_and_never_leaves_the_tree(
    tmp_path: Path,
) -> None:
    """Symlinks are followed only to files inside; pruned and symlinked folders stay unwalked."""
    root = tmp_path / "tree"
    outside = tmp_path / "outside"
    for folder in ("a", "a-c/d", ".hidden", "node_modules", "b", "dir.md", "outside"):
        (root / folder if folder != "outside" else outside).mkdir(parents=True, exist_ok=True)
    for name in ("a/x.md", "a-c/d/y.md", "a-c/z.md", ".hidden/h.md", "node_modules/n.md"):
        (root / name).write_text(GRADED, encoding="utf-8")
    for name in ("b/.dot.md", "dir.md/inner.md", "top.md"):
        (root / name).write_text(GRADED, encoding="utf-8")
    (root / "bom.md").write_bytes(b"\xef\xbb\xbf" + GRADED.encode())
    (root / "a/plain.md").write_text("# no frontmatter\n", encoding="utf-8")
    (root / "a/other.md").write_text("---\ntitle: x\n---\npai-freshness-v1\n", encoding="utf-8")
    (outside / "o.md").write_text(GRADED, encoding="utf-8")
    (root / "a/link-out.md").symlink_to(outside / "o.md")
    (root / "b/link-in.md").symlink_to(root / "a/x.md")
    (root / "b/folder-out").symlink_to(outside)
    (root / "broken.md").symlink_to(root / "nowhere.md")
    found = [path.relative_to(root).as_posix() for path in discover_files(root)]
    assert found == [
        "a/x.md",
        "a-c/d/y.md",  # component by component: "a-c" after "a", as Path sorts
        "a-c/z.md",
        "b/.dot.md",
        "b/link-in.md",
        "bom.md",
        "dir.md/inner.md",
        "top.md",
    ]
    # Through a symlinked root, the same files, named under that root.
    link = tmp_path / "link"
    link.symlink_to(root)
    assert [p.relative_to(link).as_posix() for p in discover_files(link)] == found


# -- bounded: nesting is measured before the YAML is parsed ----------------

DEEP = 3000


@pytest.mark.parametrize(
    "block",
    [
        "x: " + "[" * DEEP + "]" * DEEP + "\n",
        "x: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
        "x:\n" + "- " * DEEP + "leaf\n",
        "".join(" " * level + f"k{level}:\n" for level in range(DEEP)) + " " * DEEP + "v: 1\n",
    ],
    ids=["flow sequences", "flow mappings", "compact sequences", "indented mappings"],
)
def test_deeply_nested_frontmatter_is_refused_before_it_is_parsed(block: str) -> None:
    text = f"---\nconvention: pai-freshness-v1\n{block}---\n# Doc\n"
    front, problem = read_frontmatter(text)
    assert front is None
    assert problem is not None and "nests more than 32 levels" in problem


@pytest.mark.parametrize(
    "block",
    [
        'tags: [a, [b, [c]]]\nnote: "brackets [[[[ in a string"\nit: it\'s [fine]\n',
        "owners:\n  - name: a\n    roles:\n      - - x\n        - y\n",
        "# a comment with [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ brackets\nok: 1\n",
    ],
)
def test_ordinary_nesting_is_read(block: str) -> None:
    front, problem = read_frontmatter(f"---\nconvention: pai-freshness-v1\n{block}---\n")
    assert problem is None and front is not None


def test_nesting_depth_counts_each_kind_of_level() -> None:
    assert nesting_depth("a: 1\n", 32) == 1
    assert nesting_depth("a:\n  b:\n    c: 1\n", 32) == 3
    assert nesting_depth("a: [[1]]\n", 32) == 3
    assert nesting_depth("- - - x\n", 32) == 4
    assert nesting_depth("a: '[[[['\n", 32) == 1
