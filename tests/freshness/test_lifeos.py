"""LifeOS read as LifeOS writes it (docs/checks.md "Freshness grades", "Sections").

The files are shaped like a real LifeOS install: ``LIFEOS/USER/TELOS.md`` with its
long, parenthesised section headings and per-section markers, derived files whose
``derived_from`` is written relative to the folder above ``LIFEOS/``, and a tree that
holds graded files but no ``projects/``. Everything is judged on 2026-06-20.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, write_files

from context_doctor.freshness.frontmatter import section_slug
from context_doctor.freshness.grades import section_threshold

TODAY = "2026-06-20"
NOW = "2026-06-20T07:30:00+00:00"


def telos(*, goals: str = "2026-06-10", current: str = "2026-06-15", extra: str = "") -> str:
    return f"""---
convention: pai-freshness-v1
last_updated: 2026-06-15
last_updated_by: kai
last_reviewed: 2026-06-15
last_reviewed_by: daniel
---
# TELOS

## PROBLEMS (what is wrong in the world)
<!-- updated: 2026-06-01 by:daniel -->
- P1: context evaporates between sessions

## GOALS (measurable milestones toward the problems)
<!-- updated: {goals} by:daniel -->
- G1: ship the doctor

## Current State (where you are now)
<!-- updated: {current} by:daniel -->
Shipping.
{extra}"""


def lifeos_repo(make_repo: MakeRepo, files: Mapping[str, str]) -> Path:
    """A LifeOS install as a real repository: graded files, no projects/, pushed."""
    return make_repo(
        {
            "remote": True,
            "commits": [
                {"date": "2026-06-15T10:00:00+00:00", "message": "telos", "files": dict(files)}
            ],
        }
    )


def freshness_json(doctor: Doctor, *args: str) -> dict[str, Any]:
    run = doctor("freshness", *args, "--json", "--today", TODAY)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run.json


# -- slugs and thresholds ---------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("GOALS (measurable milestones toward the problems)", "goals"),
        ("Current State (where you are now)", "current_state"),
        ("Status — Current Work", "status"),
        ("Status \u2013 Current Work", "status"),  # an en dash
        ("Self-Care", "self"),
        ("IDEAL STATE (in ten years)", "ideal_state"),
        ("Mission (why (really) I do this) — draft", "mission"),
        ("(only a parenthetical)", ""),
        ("2036", "2036"),
        ("What's  Next?", "what_s_next"),
    ],
)
def test_section_slugs_are_lifeos_own(heading: str, slug: str) -> None:
    assert section_slug(heading) == slug


def test_section_thresholds_by_slug_and_overrides() -> None:
    assert section_threshold("current_state") == 7
    assert section_threshold("status") == 14
    assert section_threshold("goals") == 30
    assert section_threshold("ideas") == 45
    assert section_threshold("challenges") == 60
    assert section_threshold("wisdom") == 90
    assert section_threshold("wrong") == 365
    assert section_threshold("principal_identity") == 180  # sections: exact slugs only
    assert section_threshold("") == 180
    assert section_threshold("goals", {"goals": 10}) == 10


def test_a_section_is_stale_strictly_past_its_threshold(tmp_path: Path, doctor: Doctor) -> None:
    # current_state is 7 days: 2026-06-13 is 7 days old (quiet), 2026-06-12 is 8 (fires).
    write_files(tmp_path, {"LIFEOS/USER/TELOS.md": telos(current="2026-06-13")})
    quiet = freshness_json(doctor, str(tmp_path))
    assert not [f for f in quiet["findings"] if f["check"] == "section-freshness-overdue"]
    write_files(tmp_path, {"LIFEOS/USER/TELOS.md": telos(current="2026-06-12")})
    [finding] = [
        f
        for f in freshness_json(doctor, str(tmp_path))["findings"]
        if f["check"] == "section-freshness-overdue"
    ]
    assert "8 days ago" in finding["message"]
    assert "7-day threshold for `current_state`" in finding["message"]
    assert finding["line"] == 18
    assert finding["remedy"].endswith(
        "`context-doctor freshness review-section LIFEOS/USER/TELOS.md current_state`."
    )


def test_the_freshness_command_reports_sections_like_check(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """A 61-day-old current_state marker said nothing under `freshness` before #18."""
    root = lifeos_repo(make_repo, {"LIFEOS/USER/TELOS.md": telos(current="2026-04-20")})
    human = doctor("freshness", str(root), "--today", TODAY)
    assert human.exit_code == 0
    assert "[section-freshness-overdue]" in human.stderr
    assert "61 days ago" in human.stderr
    from_freshness = freshness_json(doctor, str(root))["findings"]
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    from_check = [f for f in run.json["findings"] if f["check"] == "section-freshness-overdue"]
    # check's message names the file first (a graded file belongs to no project)
    assert [(f"{f['path']}: {f['message']}", f["line"], f["remedy"]) for f in from_freshness] == [
        (f["message"], f["line"], f["remedy"]) for f in from_check
    ]


def test_review_section_takes_the_short_slug_of_a_long_telos_heading(
    tmp_path: Path, doctor: Doctor
) -> None:
    path = write_files(tmp_path, {"TELOS.md": telos(goals="2026-04-01")}) / "TELOS.md"
    run = doctor("freshness", "review-section", str(path), "goals", "--by", "daniel", "--now", NOW)
    assert run.exit_code == 0, run.stderr
    assert "updated section goals" in run.stdout
    text = path.read_text()
    assert "<!-- updated: 2026-06-20 by:daniel -->\n- G1: ship the doctor" in text
    assert "<!-- updated: 2026-06-15 by:daniel -->\nShipping." in text  # the other marker stays
    # The full heading names the same section.
    again = doctor(
        "freshness",
        "review-section",
        str(path),
        "Current State (where you are now)",
        "--by",
        "daniel",
        "--now",
        NOW,
    )
    assert again.exit_code == 0, again.stderr
    assert "<!-- updated: 2026-06-20 by:daniel -->\nShipping." in path.read_text()


def test_a_heading_that_is_only_a_parenthetical_is_reported_not_a_crash(
    tmp_path: Path, doctor: Doctor
) -> None:
    extra = "\n## (scratch)\n\nno marker here\n"
    write_files(tmp_path, {"TELOS.md": telos(extra=extra)})
    findings = freshness_json(doctor, str(tmp_path))["findings"]
    [finding] = [f for f in findings if f["check"] == "section-freshness-overdue"]
    assert "`## (scratch)` has no" in finding["message"]
    assert "slug is empty" in finding["remedy"]


# -- derived_from -------------------------------------------------------------


SOURCE = """---
convention: pai-freshness-v1
last_updated: 2026-06-01
last_reviewed: 2026-06-10
last_reviewed_by: daniel
---
# Architecture
"""


def derived(source: str) -> str:
    return f"""---
convention: pai-freshness-v1
last_updated: 2026-06-15
last_updated_by: generator
derived_from: {source}
---
# Summary
"""


@pytest.mark.parametrize("given", ["", "LIFEOS", "LIFEOS/USER", "LIFEOS/USER/gen"])
def test_derived_from_resolves_against_the_folder_above_lifeos_whichever_folder_is_given(
    make_repo: MakeRepo, doctor: Doctor, given: str
) -> None:
    root = lifeos_repo(
        make_repo,
        {
            "LIFEOS/DOCUMENTATION/LifeosSystemArchitecture.md": SOURCE,
            "LIFEOS/USER/gen/SUMMARY.md": derived(
                "LIFEOS/DOCUMENTATION/LifeosSystemArchitecture.md"
            ),
        },
    )
    report = freshness_json(doctor, str(root / given) if given else str(root))
    [entry] = [f for f in report["files"] if f["path"].endswith("SUMMARY.md")]
    assert entry["why"] is None
    assert entry["reviewed_age_days"] == 10  # the source's review
    assert not [f for f in report["findings"] if f["check"] == "freshness-source-missing"]


@pytest.mark.parametrize(
    "source", ["LIFEOS/DOCUMENTATION/Gone.md", "../outside/SECRET.md", "/etc/hostname"]
)
def test_a_source_that_cannot_be_found_or_lies_outside_is_a_warning(
    make_repo: MakeRepo, doctor: Doctor, source: str
) -> None:
    root = lifeos_repo(
        make_repo,
        {"LIFEOS/DOCUMENTATION/Other.md": SOURCE, "LIFEOS/USER/SUMMARY.md": derived(source)},
    )
    outside = root.parent / "outside"
    write_files(outside, {"SECRET.md": SOURCE})  # would resolve, were `..` followed out of the repo
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 0, run.stdout + run.stderr
    [finding] = run.findings("freshness-source-missing")
    assert finding["severity"] == "warning"
    [entry] = [f for f in run.json["freshness"]["files"] if f["path"].endswith("SUMMARY.md")]
    assert entry["why"] == "source missing"


# -- conventions, registry, migrate -----------------------------------------


def test_another_freshness_convention_is_named_not_dropped(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {
            "TELOS.md": telos(),
            "OLD.md": "---\nconvention: pai-freshness-v2\nlast_reviewed: 2026-06-01\n---\n# Old\n",
            # Another tool's frontmatter that is not about freshness is not ours to judge.
            "post.md": "---\nconvention: jekyll\nlayout: post\n---\n# Post\n",
        },
    )
    report = freshness_json(doctor, str(tmp_path))
    [finding] = [f for f in report["findings"] if f["check"] == "freshness-convention-unknown"]
    assert finding["path"] == "OLD.md"
    assert finding["line"] == 2
    assert "pai-freshness-v2" in finding["message"]
    assert [f["path"] for f in report["files"]] == ["TELOS.md"]  # not graded
    assert report["total"] == 1


def test_a_registered_file_with_another_convention_is_named_and_still_graded(
    tmp_path: Path, doctor: Doctor
) -> None:
    write_files(
        tmp_path,
        {
            "ctx/GOALS.md": "---\nconvention: pai-freshness-v0\nlast_reviewed: 2026-06-10\n---\n",
            "context-doctor.toml": "[freshness]\nregistry = [{slug = 'goals', path = "
            "'ctx/GOALS.md'}]\n",
        },
    )
    report = freshness_json(doctor, str(tmp_path))
    assert [f["check"] for f in report["findings"]] == ["freshness-convention-unknown"]
    [entry] = report["files"]
    assert (entry["reviewed_age_days"], entry["threshold_days"]) == (10, 30)


def test_a_registry_threshold_holds_for_a_missing_or_bare_registered_file(
    tmp_path: Path, doctor: Doctor
) -> None:
    write_files(
        tmp_path,
        {
            "ctx/BARE.md": "# no frontmatter\n",
            "context-doctor.toml": """\
[freshness]
registry = [
  {slug = "bare", path = "ctx/BARE.md", threshold = 21},
  {slug = "gone", path = "ctx/GONE.md", threshold = 12},
  {slug = "goals", path = "ctx/GOALS.md"},
]
""",
        },
    )
    files = {f["path"]: f for f in freshness_json(doctor, str(tmp_path))["files"]}
    assert files["ctx/BARE.md"]["threshold_days"] == 21
    assert files["ctx/GONE.md"]["threshold_days"] == 12
    assert files["ctx/GOALS.md"]["threshold_days"] == 30  # the slug table, when no threshold


def test_migrate_refreshes_the_configured_statusline_cache(tmp_path: Path, doctor: Doctor) -> None:
    root = write_files(
        tmp_path / "kb",
        {
            "TELOS.md": telos(),
            "NEW.md": "# New\n",
            "context-doctor.toml": '[freshness]\ncache = "status/freshness.json"\n',
        },
    )
    run = doctor("freshness", "migrate", str(root / "NEW.md"), "--now", NOW)
    assert run.exit_code == 0, run.stderr
    assert "rewrote the statusline cache" in run.stdout
    cache = json.loads((root / "status" / "freshness.json").read_text())
    assert sorted(f["path"] for f in cache["files"]) == ["NEW.md", "TELOS.md"]
    assert cache["generated_at"] == NOW


# -- a LifeOS install is something to audit -----------------------------------


def test_check_audits_a_tree_of_graded_files_without_projects(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = lifeos_repo(make_repo, {"LIFEOS/USER/TELOS.md": telos(current="2026-04-20")})
    run: Run = doctor("check", "--today", TODAY, "--json", cwd=root)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.json["projects_audited"] == 0
    assert run.json["freshness"]["total"] == 1
    assert [f["check"] for f in run.json["findings"]] == ["section-freshness-overdue"]
    # Nothing about a projects directory it does not have: not applicable, counted.
    assert run.json["not_applicable"]["unpushed-context"] == {"count": 1, "reason": "no projects"}


def test_a_tree_with_neither_projects_nor_graded_files_is_still_nothing_to_audit(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = lifeos_repo(make_repo, {"README.md": "# just a readme\n"})
    run = doctor("check", "--today", TODAY, cwd=root)
    assert run.exit_code == 2
    assert "pai-freshness-v1" in run.stderr
