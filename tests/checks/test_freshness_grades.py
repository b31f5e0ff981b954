"""Freshness grades on real files (docs/checks.md "Freshness grades", §3 `freshness`).

``check`` runs audit real git repositories built with ``make_repo`` (an empty
``projects/`` directory and a pushed remote, so only the freshness checks
speak); ``freshness`` runs need no repository and grade plain directories.
Everything is judged on 2026-06-20. The writers (review, touch, migrate) are
tested in ``tests/freshness/test_writers.py``.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from jsonschema import Draft202012Validator
from support import Doctor, MakeRepo, load_report_validator, write_files

from context_doctor.freshness.files import declares_in_bytes, discover_files

TODAY = "2026-06-20"
NOW = "2026-06-20T07:30:00+00:00"
CHECKS = (
    "freshness-overdue",
    "freshness-never-reviewed",
    "freshness-malformed",
    "freshness-future",
    "freshness-source-missing",
    "freshness-derived-reviewed",
    "freshness-convention-unknown",
    "section-freshness-overdue",
)


def front(*, body: str = "# Title\n", **fields: str | int) -> str:
    """A file with a pai-freshness-v1 block: ``convention`` first, then ``fields`` in order."""
    lines = ["---", "convention: pai-freshness-v1"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "---", ""]) + body


def kb(make_repo: MakeRepo, files: Mapping[str, Any]) -> Path:
    """A real repository: ``files`` plus an empty projects directory, pushed to a remote."""
    return make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "message": "context files",
                    "files": {"projects/.keep": "", **files},
                }
            ],
        }
    )


def check(doctor: Doctor, root: Path, *extra: str) -> Run:
    return doctor("check", "--source", str(root), "--today", TODAY, "--json", *extra)


def grades(doctor: Doctor, root: Path, *extra: str) -> dict[str, dict[str, Any]]:
    """``freshness --json`` over ``root``: each file's summary entry by path."""
    run = doctor("freshness", str(root), "--json", "--today", TODAY, *extra)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return {entry["path"]: entry for entry in run.json["files"]}


@pytest.fixture(scope="module")
def report_validator() -> Draft202012Validator:
    return load_report_validator()


# -- thresholds -------------------------------------------------------------


def test_threshold_precedence_registry_then_cadence_then_slug_then_180(
    tmp_path: Path, doctor: Doctor
) -> None:
    reviewed = "2026-06-10"
    write_files(
        tmp_path,
        {
            # All three sources of a threshold: the registry entry wins.
            "ctx/PROJECTS.md": front(last_reviewed=reviewed, review_cadence_days=60),
            # Cadence beats the slug table (goals: 30).
            "ctx/GOALS.md": front(last_reviewed=reviewed, review_cadence_days=45),
            # The slug table.
            "ctx/STATUS.md": front(last_reviewed=reviewed),
            "ctx/DA_IDENTITY.md": front(last_reviewed=reviewed),
            "ctx/LIFEOS_SYSTEM_PROMPT.md": front(last_reviewed=reviewed),
            # Neither: 180.
            "ctx/NOTES.md": front(last_reviewed=reviewed),
            # A registry slug picks the table row, whatever the file is called.
            "ctx/now.md": front(last_reviewed=reviewed),
            "context-doctor.toml": """\
[freshness]
registry = [
  {slug = "projects", path = "ctx/PROJECTS.md", threshold = 12},
  {slug = "current_state", path = "ctx/now.md"},
]
""",
        },
    )
    files = grades(doctor, tmp_path)
    thresholds = {path: entry["threshold_days"] for path, entry in files.items()}
    assert thresholds == {
        "ctx/PROJECTS.md": 12,
        "ctx/now.md": 7,
        "ctx/DA_IDENTITY.md": 180,
        "ctx/GOALS.md": 45,
        "ctx/LIFEOS_SYSTEM_PROMPT.md": 90,
        "ctx/NOTES.md": 180,
        "ctx/STATUS.md": 14,
    }
    assert files["ctx/now.md"]["slug"] == "current_state"
    # 10 days against 7: the registry slug's threshold makes it overdue.
    assert files["ctx/now.md"]["grade"] == "F"
    assert files["ctx/PROJECTS.md"]["grade"] == "D"  # 10/12


@pytest.mark.parametrize("cadence", ["true", "0", "-5", "'30'", "1.5", "[30]"])
def test_a_cadence_that_is_not_a_positive_whole_number_is_ignored(
    tmp_path: Path, doctor: Doctor, cadence: str
) -> None:
    # Ignored on the file itself and when a derived file borrows it from its source.
    write_files(
        tmp_path,
        {
            "ctx/PROJECTS.md": front(last_reviewed="2026-06-10", review_cadence_days=cadence),
            "ctx/SUMMARY.md": front(derived_from="ctx/PROJECTS.md"),
        },
    )
    files = grades(doctor, tmp_path)
    assert files["ctx/PROJECTS.md"]["threshold_days"] == 30
    assert files["ctx/SUMMARY.md"]["threshold_days"] == 30
    assert files["ctx/SUMMARY.md"]["grade"] == "B"  # 10/30


def test_registry_paths_are_relative_to_the_config_file(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {
            "kb/ctx/PROJECTS.md": "# Projects, no frontmatter yet\n",
            "settings/freshness.toml": """\
[freshness]
registry = [{slug = "projects", path = "../kb/ctx/PROJECTS.md"}]
""",
        },
    )
    run = doctor(
        "freshness",
        str(tmp_path / "kb"),
        "--json",
        "--today",
        TODAY,
        "--config",
        str(tmp_path / "settings" / "freshness.toml"),
    )
    assert run.exit_code == 0, run.stderr
    [entry] = run.json["files"]
    assert entry["path"] == "ctx/PROJECTS.md"
    assert entry["why"] == "no frontmatter"
    assert entry["grade"] == "F"


# -- the two timestamps -----------------------------------------------------


@pytest.mark.parametrize("how", ["registry", "slug"])
def test_a_write_yesterday_does_not_rescue_a_40_day_old_review(
    make_repo: MakeRepo, doctor: Doctor, how: str
) -> None:
    text = front(last_updated="2026-06-19T18:00:00+02:00", last_reviewed="2026-05-11")
    if how == "registry":
        files = {
            "ctx/registry-file.md": text,
            "context-doctor.toml": "[freshness]\nregistry = [{slug = 'reg', "
            "path = 'ctx/registry-file.md', threshold = 30}]\n",
        }
        path = "ctx/registry-file.md"
    else:
        files = {"ctx/PROJECTS.md": text}
        path = "ctx/PROJECTS.md"
    run = check(doctor, kb(make_repo, files))
    assert run.exit_code == 0  # warnings only
    [entry] = run.json["freshness"]["files"]
    assert entry["path"] == path
    assert entry["age_days"] == 1
    assert entry["reviewed_age_days"] == 40
    assert entry["threshold_days"] == 30
    assert (entry["grade"], entry["pct"], entry["stale"], entry["why"]) == (
        "F",
        0,
        True,
        "review overdue",
    )
    [finding] = run.findings("freshness-overdue")
    assert finding["severity"] == "warning"
    assert finding["path"] == path
    assert finding["line"] == 4  # the last_reviewed line
    assert "40 days" in finding["message"] and "30-day" in finding["message"]
    assert [f["check"] for f in run.json["findings"]] == ["freshness-overdue"]


def test_a_recent_review_of_an_old_write_is_a(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path, {"PROJECTS.md": front(last_updated="2025-01-01", last_reviewed="2026-06-19")}
    )
    entry = grades(doctor, tmp_path)["PROJECTS.md"]
    assert (entry["age_days"], entry["reviewed_age_days"], entry["grade"]) == (535, 1, "A")
    assert entry["why"] is None and entry["stale"] is False


def test_a_file_without_last_updated_still_grades(tmp_path: Path, doctor: Doctor) -> None:
    write_files(tmp_path, {"PROJECTS.md": front(last_reviewed="2026-06-13")})
    entry = grades(doctor, tmp_path)["PROJECTS.md"]
    assert entry["age_days"] is None
    assert (entry["reviewed_age_days"], entry["grade"], entry["pct"]) == (7, "A", 77)


# -- derived files ----------------------------------------------------------

MISSION = front(last_updated="2026-06-01", last_reviewed="2026-03-17")  # 95 days before TODAY
SUMMARY = front(
    last_updated="2026-06-19T05:37:23.268Z",
    last_updated_by="GenerateTelosSummary",
    derived_from="ctx/MISSION.md",
    generator="tools/generate.py",
)


def test_a_derived_file_is_graded_from_its_source(make_repo: MakeRepo, doctor: Doctor) -> None:
    run = check(
        doctor, kb(make_repo, {"ctx/MISSION.md": MISSION, "ctx/PRINCIPAL_TELOS.md": SUMMARY})
    )
    files = {entry["path"]: entry for entry in run.json["freshness"]["files"]}
    derived = files["ctx/PRINCIPAL_TELOS.md"]
    # Its own slug would be 180 days; its source's (mission) is 90.
    assert derived["threshold_days"] == 90
    assert derived["reviewed_age_days"] == 95
    assert derived["age_days"] == 1  # its own write: a regenerated file is not a reviewed one
    assert (derived["grade"], derived["stale"], derived["why"]) == ("F", True, "review overdue")
    assert files["ctx/MISSION.md"]["grade"] == "F"
    overdue = {f["path"]: f["message"] for f in run.findings("freshness-overdue")}
    assert set(overdue) == {"ctx/MISSION.md", "ctx/PRINCIPAL_TELOS.md"}
    assert "ctx/MISSION.md" in overdue["ctx/PRINCIPAL_TELOS.md"]
    assert "90-day" in overdue["ctx/PRINCIPAL_TELOS.md"]
    assert not run.findings("freshness-never-reviewed")
    assert run.exit_code == 0


def test_a_derived_file_uses_its_registered_sources_threshold(
    tmp_path: Path, doctor: Doctor
) -> None:
    write_files(
        tmp_path,
        {
            "ctx/MISSION.md": MISSION,
            "ctx/PRINCIPAL_TELOS.md": SUMMARY,
            "context-doctor.toml": "[freshness]\nregistry = [{slug = 'mission', "
            "path = 'ctx/MISSION.md', threshold = 120}]\n",
        },
    )
    files = grades(doctor, tmp_path)
    assert files["ctx/PRINCIPAL_TELOS.md"]["threshold_days"] == 120
    assert files["ctx/PRINCIPAL_TELOS.md"]["grade"] == "D"  # 95/120


def test_a_derived_file_whose_source_is_gone_is_a_warning(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    # Upstream's grader ignores derived_from: a source it cannot find is no defect.
    run = check(doctor, kb(make_repo, {"ctx/PRINCIPAL_TELOS.md": SUMMARY}))
    assert run.exit_code == 0
    [finding] = run.findings("freshness-source-missing")
    assert finding["severity"] == "warning"
    assert finding["path"] == "ctx/PRINCIPAL_TELOS.md"
    assert finding["line"] == 5  # the derived_from line
    assert "ctx/MISSION.md" in finding["message"]
    [entry] = run.json["freshness"]["files"]
    assert entry["why"] == "source missing"
    assert (entry["grade"], entry["pct"], entry["stale"]) == ("F", 0, True)
    assert entry["reviewed_age_days"] is None
    assert run.json["ok"] is True


def test_the_freshness_command_names_a_missing_source(tmp_path: Path, doctor: Doctor) -> None:
    write_files(tmp_path, {"ctx/PRINCIPAL_TELOS.md": SUMMARY})
    run = doctor("freshness", str(tmp_path), "--today", TODAY)
    assert run.exit_code == 0
    assert "[freshness-source-missing]" in run.stderr


def test_a_derived_file_with_its_own_review_is_warned_and_ignores_it(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    derived = front(derived_from="ctx/MISSION.md", last_reviewed="2026-06-19")
    run = check(
        doctor, kb(make_repo, {"ctx/MISSION.md": MISSION, "ctx/PRINCIPAL_TELOS.md": derived})
    )
    [finding] = run.findings("freshness-derived-reviewed")
    assert finding["path"] == "ctx/PRINCIPAL_TELOS.md"
    assert finding["line"] == 4
    assert finding["severity"] == "warning"
    entry = next(e for e in run.json["freshness"]["files"] if e["name"] == "PRINCIPAL_TELOS.md")
    assert (entry["reviewed_age_days"], entry["grade"]) == (95, "F")  # still the source's review


def test_a_derived_file_of_a_never_reviewed_source(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {"ctx/MISSION.md": front(last_updated="2026-06-01"), "ctx/PRINCIPAL_TELOS.md": SUMMARY},
    )
    files = grades(doctor, tmp_path)
    assert files["ctx/PRINCIPAL_TELOS.md"]["why"] == "never reviewed"
    assert files["ctx/PRINCIPAL_TELOS.md"]["threshold_days"] == 90
    run = doctor("freshness", str(tmp_path), "--today", TODAY)
    assert (
        "ctx/PRINCIPAL_TELOS.md:1:1  warn  [freshness-never-reviewed] no last_reviewed "
        "(of its source ctx/MISSION.md): never reviewed"
    ) in run.stderr


# -- unreadable and impossible timestamps -----------------------------------


def test_the_1970_placeholder_is_never_reviewed_and_named(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    text = front(last_updated="2026-06-19", last_reviewed="1970-01-01T00:00:00Z")
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": text}))
    assert run.exit_code == 0
    [finding] = run.findings("freshness-never-reviewed")
    assert "placeholder" in finding["message"]
    assert "1970-01-01" in finding["message"]
    assert finding["line"] == 4
    assert not run.findings("freshness-malformed")
    assert not run.findings("freshness-overdue")  # never reviewed, not 20,000 days overdue
    [entry] = run.json["freshness"]["files"]
    assert (entry["why"], entry["reviewed_age_days"], entry["grade"]) == (
        "never reviewed",
        None,
        "F",
    )


def test_no_last_reviewed_is_never_reviewed(make_repo: MakeRepo, doctor: Doctor) -> None:
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": front(last_updated="2026-06-19")}))
    [finding] = run.findings("freshness-never-reviewed")
    assert finding["path"] == "ctx/PROJECTS.md"
    assert "never reviewed" in finding["message"]


def test_an_impossible_review_date_is_malformed(make_repo: MakeRepo, doctor: Doctor) -> None:
    text = front(last_updated="2026-06-19", last_reviewed="2026-13-01")
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": text}))
    assert run.exit_code == 1
    [finding] = run.findings("freshness-malformed")
    assert finding["severity"] == "defect"
    assert finding["line"] == 4
    assert "2026-13-01" in finding["message"] and "not a real date" in finding["message"]
    [entry] = run.json["freshness"]["files"]
    assert (entry["grade"], entry["why"], entry["reviewed_age_days"]) == (
        "F",
        "never reviewed",
        None,
    )


def test_an_impossible_last_updated_is_malformed_too(make_repo: MakeRepo, doctor: Doctor) -> None:
    text = front(last_updated="2026-02-30", last_reviewed="2026-06-19")
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": text}))
    [finding] = run.findings("freshness-malformed")
    assert finding["line"] == 3 and "last_updated" in finding["message"]
    [entry] = run.json["freshness"]["files"]
    assert entry["grade"] == "A"  # last_updated never moves the grade


def test_a_review_after_today_is_future(make_repo: MakeRepo, doctor: Doctor) -> None:
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": front(last_reviewed="2026-07-04")}))
    assert run.exit_code == 0
    [finding] = run.findings("freshness-future")
    assert finding["severity"] == "warning"
    assert finding["line"] == 3
    assert "2026-07-04" in finding["message"] and TODAY in finding["message"]
    [entry] = run.json["freshness"]["files"]
    assert (entry["grade"], entry["pct"], entry["stale"]) == ("A", 100, False)


def test_a_review_of_today_is_not_future(make_repo: MakeRepo, doctor: Doctor) -> None:
    text = front(last_reviewed="2026-06-20T23:59:00-10:00")  # still the 20th where it was written
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": text}))
    assert run.json["findings"] == []


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "---\nconvention: pai-freshness-v1\nlast_reviewed: [2026-06-01\n---\n# T\n",
            "not valid YAML",
        ),
        (
            "---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-06-01\n# Title\n\nbody\n",
            "never closed",
        ),
        ("---\n- convention: pai-freshness-v1\n---\n# T\n", "not a mapping"),
    ],
    ids=["yaml", "unclosed", "list"],
)
def test_unreadable_frontmatter_is_malformed(
    make_repo: MakeRepo, doctor: Doctor, text: str, says: str
) -> None:
    run = check(doctor, kb(make_repo, {"ctx/PROJECTS.md": text}))
    assert run.exit_code == 1
    [finding] = run.findings("freshness-malformed")
    assert says in finding["message"]
    assert finding["path"] == "ctx/PROJECTS.md"
    [entry] = run.json["freshness"]["files"]
    assert (entry["grade"], entry["why"]) == ("F", "never reviewed")


def test_a_file_that_is_not_utf8_is_malformed(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path, {"PROJECTS.md": b"---\nconvention: pai-freshness-v1\ntitle: caf\xe9\n---\n"}
    )
    run = doctor("freshness", str(tmp_path), "--today", TODAY)
    assert run.exit_code == 1
    assert "[freshness-malformed]" in run.stderr and "UTF-8" in run.stderr


# -- what counts as frontmatter ---------------------------------------------

QUOTED = """\
# How the convention looks

```yaml
---
convention: pai-freshness-v1
last_reviewed: 2026-06-19
---
```
"""


def test_a_body_quoting_frontmatter_is_not_graded(tmp_path: Path, doctor: Doctor) -> None:
    write_files(tmp_path, {"docs/CONVENTION.md": QUOTED})
    run = doctor("freshness", str(tmp_path), "--json", "--today", TODAY)
    assert run.exit_code == 2  # nothing declares the convention
    assert "nothing to grade" in run.json["error"]


def test_a_registered_file_quoting_frontmatter_has_none(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {
            "docs/CONVENTION.md": QUOTED,
            "context-doctor.toml": "[freshness]\nregistry = [{slug = 'convention', "
            "path = 'docs/CONVENTION.md'}]\n",
        },
    )
    entry = grades(doctor, tmp_path)["docs/CONVENTION.md"]
    assert (entry["why"], entry["grade"], entry["reviewed_age_days"]) == (
        "no frontmatter",
        "F",
        None,
    )


def test_another_tools_frontmatter_with_a_quoted_example_is_not_graded(
    tmp_path: Path, doctor: Doctor
) -> None:
    # The leading block is someone else's (a static site's); the convention only appears in
    # the body's example, so the file does not carry pai-freshness-v1 frontmatter.
    write_files(
        tmp_path,
        {
            "docs/CONVENTION.md": "---\ntitle: The convention\n---\n" + QUOTED,
            "PROJECTS.md": front(last_reviewed="2026-06-19"),
        },
    )
    assert list(grades(doctor, tmp_path)) == ["PROJECTS.md"]


def test_only_the_first_block_counts(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {"PROJECTS.md": front(body="# Projects\n\n---\nlast_reviewed: 2026-06-19\n---\n")},
    )
    entry = grades(doctor, tmp_path)["PROJECTS.md"]
    assert (entry["why"], entry["reviewed_age_days"]) == ("never reviewed", None)


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.replace("\n", "\r\n").encode(),
        lambda text: ("\ufeff" + text).encode(),
        lambda text: ("\ufeff" + text.replace("\n", "\r\n")).encode(),
    ],
    ids=["crlf", "bom", "bom-crlf"],
)
def test_bom_and_crlf_frontmatter_are_read(
    doctor: Doctor, tmp_path: Path, encode: Callable[[str], bytes]
) -> None:
    text = front(last_updated="2026-06-19", last_reviewed="2026-05-11", body="# P\n\n## Goals\n")
    write_files(tmp_path, {"PROJECTS.md": encode(text)})
    entry = grades(doctor, tmp_path)["PROJECTS.md"]
    assert (entry["reviewed_age_days"], entry["age_days"], entry["grade"]) == (40, 1, "F")


def test_directories_that_are_not_content_are_skipped(tmp_path: Path, doctor: Doctor) -> None:
    marked = front(last_reviewed="2026-06-19")
    write_files(
        tmp_path,
        {
            "PROJECTS.md": marked,
            "Backups/PROJECTS.md": marked,
            ".hidden/PROJECTS.md": marked,
            "node_modules/pkg/README.md": marked,
        },
    )
    assert list(grades(doctor, tmp_path)) == ["PROJECTS.md"]


# -- section markers --------------------------------------------------------

TELOS = """\
---
convention: pai-freshness-v1
last_updated: 2026-06-19
last_reviewed: 2026-06-19
---
# TELOS

## Current State
<!-- updated: 2026-06-10 by:kai -->

Shipping the linter.

## Goals

<!-- updated: 2026-06-01 by:kai.bot@example -->
G1: ...

## Mission

M0: ...

## Status
<!-- updated: 2026-06-06 by:kai -->
### Detail without a marker
"""


def _line_of(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


def test_section_markers_older_than_their_slug_or_missing(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = check(doctor, kb(make_repo, {"TELOS.md": TELOS}))
    found = {(f["line"], f["message"]) for f in run.findings("section-freshness-overdue")}
    assert found == {
        (
            _line_of(TELOS, "## Current State"),
            "TELOS.md: section `## Current State` was last updated 10 days ago (2026-06-10), over the "
            "7-day threshold for `current_state`",
        ),
        (
            _line_of(TELOS, "## Mission"),
            "TELOS.md: section `## Mission` has no `<!-- updated: -->` marker",
        ),
    }
    # Goals (19 of 30 days, its marker two lines down) and Status (14 of 14) are quiet;
    # a ### heading is not a section.
    assert all(f["path"] == "TELOS.md" for f in run.findings("section-freshness-overdue"))
    assert run.exit_code == 0


def test_fresh_markers_are_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    fresh = TELOS.replace("2026-06-10 by", "2026-06-15 by").replace(
        "## Mission\n", "## Mission\n<!-- updated: 2026-04-01 by:kai -->\n"
    )
    run = check(doctor, kb(make_repo, {"TELOS.md": fresh}))
    assert run.json["findings"] == []


def test_a_marker_further_than_three_lines_down_does_not_count(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    text = front(
        last_reviewed="2026-06-19",
        body="## Mission\n<!-- updated: 2026-06-19 by:kai -->\n\n"
        "## Goals\n\n\n\n<!-- updated: 2026-06-19 by:kai -->\n",
    )
    run = check(doctor, kb(make_repo, {"TELOS.md": text}))
    [finding] = run.findings("section-freshness-overdue")
    assert finding["message"] == "TELOS.md: section `## Goals` has no `<!-- updated: -->` marker"


def test_an_unreadable_marker_date_is_named(make_repo: MakeRepo, doctor: Doctor) -> None:
    text = front(
        last_reviewed="2026-06-19",
        body="## Goals\n<!-- updated: 2026-06-31 by:kai -->\n\n## Mission\n"
        "<!-- updated: 2026-06-19 by:kai -->\n",
    )
    run = check(doctor, kb(make_repo, {"TELOS.md": text}))
    [finding] = run.findings("section-freshness-overdue")
    assert "unreadable marker" in finding["message"] and "2026-06-31" in finding["message"]


def test_a_heading_in_a_code_block_is_not_a_section(make_repo: MakeRepo, doctor: Doctor) -> None:
    text = front(
        last_reviewed="2026-06-19",
        body="## Goals\n<!-- updated: 2026-06-19 by:kai -->\n\n```markdown\n## Example\n```\n",
    )
    run = check(doctor, kb(make_repo, {"TELOS.md": text}))
    assert run.json["findings"] == []


def test_unmarked_files_have_no_section_findings(make_repo: MakeRepo, doctor: Doctor) -> None:
    unmarked = front(
        last_reviewed="2026-06-19",
        body="# Projects\n\n## Current State\n\nold\n\n## Goals\n\nmore\n",
    )
    run = check(doctor, kb(make_repo, {"PROJECTS.md": unmarked}))
    assert run.json["findings"] == []
    assert run.json["coverage"]["section-freshness-overdue"]["examined"] == 1


def test_the_frontmatter_is_not_a_heading(make_repo: MakeRepo, doctor: Doctor) -> None:
    # The block's last line followed by `---` reads as a setext H2 if the block is not cut off.
    text = (
        "---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-06-19\n---\n"
        "Intro paragraph\n---\n\n"  # a setext heading in the body: a real section
        "## Goals\n<!-- updated: 2026-06-19 by:kai -->\n\n## Mission\n"
    )
    run = check(doctor, kb(make_repo, {"TELOS.md": text}))
    found = sorted((f["line"], f["message"]) for f in run.findings("section-freshness-overdue"))
    assert found == [
        (5, "TELOS.md: section `## Intro paragraph` has no `<!-- updated: -->` marker"),
        (11, "TELOS.md: section `## Mission` has no `<!-- updated: -->` marker"),
    ]
    assert "last_reviewed" not in json.dumps(run.json["findings"])


def test_section_lines_count_a_bom_and_crlf_frontmatter(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    text = front(last_reviewed="2026-06-19", body="\n## Goals\n<!-- updated: 2026-01-01 by:k -->\n")
    data = ("\ufeff" + text.replace("\n", "\r\n")).encode()
    run = check(doctor, kb(make_repo, {"TELOS.md": {"base64": base64.b64encode(data).decode()}}))
    [finding] = run.findings("section-freshness-overdue")
    assert finding["line"] == 6
    assert "`## Goals`" in finding["message"] and "170 days" in finding["message"]


# -- the summary: check --json, freshness --json, human ----------------------

CORPUS = {
    "ctx/PROJECTS.md": front(last_updated="2026-06-19", last_reviewed="2026-05-11"),  # F 40/30
    "ctx/MISSION.md": front(last_reviewed="2026-06-13"),  # A 7/90
    "ctx/GOALS.md": front(last_reviewed="2026-06-05"),  # B 15/30
    "ctx/STATUS.md": front(last_updated="2026-06-19"),  # never reviewed
    "ctx/PRINCIPAL_TELOS.md": front(derived_from="ctx/MISSION.md"),  # A via its source
    "context-doctor.toml": """\
[freshness]
registry = [
  {slug = "status", path = "ctx/STATUS.md"},
  {slug = "orphan", path = "ctx/ORPHAN.md"},
  {slug = "projects", path = "ctx/PROJECTS.md"},
]
""",
}


def test_the_summary_in_check_json_matches_the_freshness_command(
    make_repo: MakeRepo, doctor: Doctor, report_validator: Draft202012Validator
) -> None:
    root = kb(make_repo, CORPUS)
    report = check(doctor, root)
    report_validator.validate(report.raw)
    summary = doctor("freshness", str(root), "--json", "--today", TODAY)
    assert summary.exit_code == 0
    # `freshness --json` is the summary plus the findings `check` reports for these files.
    data = summary.json
    findings = data.pop("findings")
    assert report.json["freshness"] == data
    assert list(data) == [
        "total",
        "fresh_count",
        "stale_count",
        "overall_pct",
        "overall_grade",
        "most_stale",
        "files",
    ]
    freshness_checks = {f["check"] for f in report.json["findings"]} & set(CHECKS)
    assert {f["check"] for f in findings} == freshness_checks
    assert summary.json["total"] == 6
    assert summary.json["stale_count"] == 3  # projects, status, the missing orphan
    assert summary.json["fresh_count"] == 3
    # A, B, F, F, F, A -> 11/6 = 1.83 -> C; pct (92 + 50 + 0 + 0 + 0 + 92)/6 = 39
    assert summary.json["overall_grade"] == "C"
    assert summary.json["overall_pct"] == 39
    # status and the orphan are both never reviewed: the first registry entry leads.
    assert summary.json["most_stale"] == {"slug": "status", "path": "ctx/STATUS.md"}
    # Registry order first, then discovered files by path.
    assert [entry["path"] for entry in summary.json["files"]] == [
        "ctx/STATUS.md",
        "ctx/ORPHAN.md",
        "ctx/PROJECTS.md",
        "ctx/GOALS.md",
        "ctx/MISSION.md",
        "ctx/PRINCIPAL_TELOS.md",
    ]
    orphan = summary.json["files"][1]
    assert orphan == {
        "slug": "orphan",
        "path": "ctx/ORPHAN.md",
        "name": "ORPHAN.md",
        "age_days": None,
        "threshold_days": 180,
        "reviewed_age_days": None,
        "pct": 0,
        "grade": "F",
        "stale": True,
        "why": "no frontmatter",
    }
    assert [entry["why"] for entry in summary.json["files"]] == [
        "never reviewed",
        "no frontmatter",
        "review overdue",
        None,
        None,
        None,
    ]


def test_most_stale_ties_among_discovered_files_go_by_path(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {
            "b/NOTES.md": front(last_updated="2026-06-19"),
            "a/NOTES.md": front(last_updated="2026-06-19"),
            "c/PROJECTS.md": front(last_reviewed="2026-01-01"),
        },
    )
    run = doctor("freshness", str(tmp_path), "--json", "--today", TODAY)
    assert run.json["most_stale"] == {"slug": "notes", "path": "a/NOTES.md"}


def test_the_human_table(tmp_path: Path, doctor: Doctor) -> None:
    write_files(tmp_path, {name: text for name, text in CORPUS.items()})
    run = doctor("freshness", str(tmp_path), "--today", TODAY)
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert lines[0].split() == ["grade", "reviewed", "threshold", "why", "file"]
    rows = [line.split() for line in lines[1:-1]]
    # Most stale first.
    assert rows == [
        ["F", "never", "14", "d", "never", "reviewed", "ctx/STATUS.md"],
        ["F", "never", "180", "d", "no", "frontmatter", "ctx/ORPHAN.md"],
        ["F", "40", "d", "30", "d", "review", "overdue", "ctx/PROJECTS.md"],
        ["B", "15", "d", "30", "d", "-", "ctx/GOALS.md"],
        ["A", "7", "d", "90", "d", "-", "ctx/MISSION.md"],
        ["A", "7", "d", "90", "d", "-", "ctx/PRINCIPAL_TELOS.md"],
    ]
    assert lines[-1] == "overall C (39%): 3 fresh, 3 stale of 6; most stale: ctx/STATUS.md"
    assert "ctx/PROJECTS.md:4:1  warn  [freshness-overdue]" in run.stderr
    assert "\x1b[" not in run.stdout


def test_the_freshness_command_defaults_to_the_current_directory(
    tmp_path: Path, doctor: Doctor
) -> None:
    write_files(tmp_path, {"PROJECTS.md": front(last_reviewed="2026-06-19")})
    run = doctor("freshness", "--json", "--today", TODAY, cwd=tmp_path)
    assert run.exit_code == 0
    assert [entry["path"] for entry in run.json["files"]] == ["PROJECTS.md"]


def test_a_file_given_by_name_is_graded_alone(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {"PROJECTS.md": front(last_reviewed="2026-06-19"), "GOALS.md": front(last_reviewed="x")},
    )
    run = doctor("freshness", str(tmp_path / "PROJECTS.md"), "--json", "--today", TODAY)
    assert run.exit_code == 0
    assert [entry["path"] for entry in run.json["files"]] == ["PROJECTS.md"]


@pytest.mark.parametrize("as_json", [True, False])
def test_nothing_to_grade_is_exit_2(tmp_path: Path, doctor: Doctor, as_json: bool) -> None:
    write_files(tmp_path, {"README.md": "# Nothing here declares the convention\n"})
    run = doctor("freshness", str(tmp_path), "--today", TODAY, *(["--json"] if as_json else []))
    assert run.exit_code == 2
    if as_json:
        assert run.json["ok"] is False
        assert "nothing to grade" in run.json["error"]
    else:
        assert "nothing to grade" in run.stderr


def test_a_missing_path_is_exit_2(tmp_path: Path, doctor: Doctor) -> None:
    run = doctor("freshness", str(tmp_path / "nope"), "--json", "--today", TODAY)
    assert run.exit_code == 2
    assert "does not exist" in run.json["error"]


def test_check_with_no_projects_and_no_graded_files_is_exit_2(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = check(doctor, kb(make_repo, {"README.md": "# plain\n"}))
    assert run.exit_code == 2
    assert "nothing to audit" in run.json["error"]


def test_check_with_graded_files_and_no_projects_audits_them(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = check(doctor, kb(make_repo, {"PROJECTS.md": front(last_reviewed="2026-06-19")}))
    assert run.exit_code == 0
    assert run.json["projects_audited"] == 0
    assert run.json["freshness"]["total"] == 1
    assert run.json["findings"] == []


# -- the statusline cache ---------------------------------------------------


def test_write_cache_is_the_summary_plus_generated_at(tmp_path: Path, doctor: Doctor) -> None:
    corpus = write_files(tmp_path / "kb", CORPUS)
    cache = tmp_path / "cache" / "freshness.json"
    run = doctor(
        "freshness",
        str(corpus),
        "--json",
        "--today",
        TODAY,
        "--write-cache",
        str(cache),
        "--now",
        NOW,
    )
    assert run.exit_code == 0
    data = cache.read_bytes()
    assert len(data) < 4096
    summary = {key: value for key, value in run.json.items() if key != "findings"}
    assert json.loads(data) == {**summary, "generated_at": NOW}
    assert sorted(os.listdir(cache.parent)) == ["freshness.json"]


def test_write_cache_without_json_still_prints_the_table(tmp_path: Path, doctor: Doctor) -> None:
    corpus = write_files(tmp_path / "kb", {"PROJECTS.md": front(last_reviewed="2026-06-19")})
    cache = tmp_path / "freshness.json"
    run = doctor(
        "freshness", str(corpus), "--today", TODAY, "--write-cache", str(cache), "--now", NOW
    )
    assert run.exit_code == 0
    assert run.stdout.startswith("grade")
    assert json.loads(cache.read_text())["generated_at"] == NOW


def test_a_failed_rename_leaves_no_cache_and_no_temporary(
    tmp_path: Path, doctor: Doctor, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_files(tmp_path / "kb", {"PROJECTS.md": front(last_reviewed="2026-06-19")})
    folder = tmp_path / "cache"
    folder.mkdir()

    def refuse(source: str, target: str, **_dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", refuse)  # the write path's rename
    run = doctor(
        "freshness",
        str(corpus),
        "--json",
        "--today",
        TODAY,
        "--write-cache",
        str(folder / "freshness.json"),
        "--now",
        NOW,
    )
    assert run.exit_code == 2
    assert "No space left on device" in run.json["error"]
    assert list(folder.iterdir()) == []


def test_a_failed_rename_keeps_the_previous_cache(
    tmp_path: Path, doctor: Doctor, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_files(tmp_path / "kb", {"PROJECTS.md": front(last_reviewed="2026-06-19")})
    cache = tmp_path / "freshness.json"
    cache.write_text('{"previous": true}')

    def refuse(source: str, target: str, **_dir_fds: int) -> None:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)  # the write path's rename
    run = doctor("freshness", str(corpus), "--today", TODAY, "--write-cache", str(cache))
    assert run.exit_code == 2
    assert cache.read_text() == '{"previous": true}'
    assert sorted(path.name for path in tmp_path.iterdir()) == ["freshness.json", "kb"]


def test_a_cache_for_200_files_keeps_the_stalest_under_4_kib(
    tmp_path: Path, doctor: Doctor
) -> None:
    # Reviewed 0..199 days ago against a 100-day cadence: the oldest are the stalest.
    files = {
        f"area-{n:03d}/CONTEXT_FILE_{n:03d}.md": front(
            last_reviewed=f"'{_days_before(n)}'", review_cadence_days=100
        )
        for n in range(200)
    }
    corpus = write_files(tmp_path / "kb", files)
    cache = tmp_path / "freshness.json"
    run = doctor(
        "freshness",
        str(corpus),
        "--json",
        "--today",
        TODAY,
        "--write-cache",
        str(cache),
        "--now",
        NOW,
    )
    assert run.exit_code == 0
    assert len(run.json["files"]) == 200  # the printed summary is whole
    data = cache.read_bytes()
    assert len(data) < 4096
    payload = json.loads(data)
    ages = [entry["reviewed_age_days"] for entry in payload["files"]]
    assert ages, "the stalest files still fit"
    assert sorted(ages) == list(range(200 - len(ages), 200))
    assert payload["files_omitted"] == 200 - len(ages)
    assert payload["total"] == 200
    assert payload["stale_count"] == 99  # 101..199 days
    assert payload["most_stale"]["path"] == "area-199/CONTEXT_FILE_199.md"
    assert payload["generated_at"] == NOW


def _days_before(days: int) -> str:
    return (date.fromisoformat(TODAY) - timedelta(days=days)).isoformat()


# -- coverage ---------------------------------------------------------------


def test_coverage_of_the_freshness_checks_counts_graded_files(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = check(doctor, kb(make_repo, {**CORPUS, "README.md": "# not graded\n"}))
    coverage = run.json["coverage"]
    for name in CHECKS:
        assert coverage[name] == {"examined": 6, "skipped": 0, "reasons": {}}, name


def test_no_coverage_line_when_nothing_is_graded(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    """Nothing to examine is not "examined 0, skipped 0" (docs/checks.md): the check is not listed."""
    run = check(doctor, scenario_repo("structure"))
    for name in CHECKS:
        assert name not in run.json["coverage"], name
        assert name not in run.json["not_applicable"], name
    assert run.json["freshness"] is None


# -- [freshness.thresholds]: the slug table overridden ------------------------

THRESHOLDS = """\
[freshness.thresholds]
current_state = 14
projects = 60
goals = 10
"""


def test_thresholds_override_the_slug_table_for_files_and_sections(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    reviewed = front(last_reviewed="2026-05-11")  # 40 days before TODAY
    root = kb(
        make_repo,
        {
            "TELOS.md": TELOS,
            "PROJECTS.md": reviewed,
            "pai_system_prompt.md": reviewed,
            "context-doctor.toml": THRESHOLDS + "system_prompt = 30\n",
        },
    )
    files = grades(doctor, root)
    assert files["PROJECTS.md"]["threshold_days"] == 60  # the table says 30
    assert files["PROJECTS.md"]["grade"] == "C"  # 40/60
    assert files["pai_system_prompt.md"]["threshold_days"] == 30  # suffix match, overridden
    run = check(doctor, root)
    found = {f["message"] for f in run.findings("section-freshness-overdue")}
    # Current State (10 days) is quiet under 14; Goals (19 days) now over 10.
    assert found == {
        "TELOS.md: section `## Goals` was last updated 19 days ago (2026-06-01), over the 10-day "
        "threshold for `goals`",
        "TELOS.md: section `## Mission` has no `<!-- updated: -->` marker",
    }
    overdue = {f["path"] for f in run.findings("freshness-overdue")}
    assert overdue == {"pai_system_prompt.md"}  # PROJECTS.md is within its 60 days
    shown = doctor("check", "--source", str(root), "--show-settings").stdout.splitlines()
    config = root / "context-doctor.toml"
    assert f"freshness.thresholds.projects = 60  # {config}" in shown


def test_a_registry_threshold_still_beats_an_override(tmp_path: Path, doctor: Doctor) -> None:
    write_files(
        tmp_path,
        {
            "PROJECTS.md": front(last_reviewed="2026-06-10"),
            "context-doctor.toml": THRESHOLDS
            + '[freshness]\nregistry = [{slug = "projects", path = "PROJECTS.md", threshold = 12}]\n',
        },
    )
    assert grades(doctor, tmp_path)["PROJECTS.md"]["threshold_days"] == 12


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("projects = 0", "freshness.thresholds.projects"),
        ('goals = "30"', "freshness.thresholds.goals"),
    ],
)
def test_a_bad_threshold_is_exit_2_naming_the_key(
    tmp_path: Path, doctor: Doctor, table: str, key: str
) -> None:
    write_files(
        tmp_path,
        {
            "PROJECTS.md": front(last_reviewed="2026-06-10"),
            "context-doctor.toml": f"[freshness.thresholds]\n{table}\n",
        },
    )
    run = doctor("freshness", str(tmp_path), "--today", TODAY)
    assert run.exit_code == 2
    assert f"key `{key}`" in run.stderr


def test_tier_files_are_graded_from_the_bytes_the_run_already_read(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The walk takes each tier file's first look from the bytes ``prepare`` read: a
    tier file declaring the convention is graded, one that does not is not, cache or not."""
    files = {
        "projects/alpha/CONTEXT.md": front(last_reviewed="2026-06-01"),
        "projects/alpha/sessions/2026-06.md": "# Log\n\n## 2026-06-01\n",
        "projects/index.yaml": "projects:\n  - id: alpha\n    status: active\n",
        "ctx/NOTES.md": front(last_reviewed="2026-06-01"),
    }
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {"date": "2026-06-01T10:00:00+00:00", "message": "context", "files": files}
            ],
        }
    )
    reports = [check(doctor, root, *extra) for extra in (("--no-cache",), (), ())]
    graded = [[entry["path"] for entry in run.json["freshness"]["files"]] for run in reports]
    assert graded[0] == ["ctx/NOTES.md", "projects/alpha/CONTEXT.md"]
    assert graded[1] == graded[2] == graded[0]


def test_a_known_first_look_is_not_taken_again(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.md": front(last_reviewed="2026-06-01"), "b.md": "# plain\n"})
    assert [p.name for p in discover_files(tmp_path)] == ["a.md"]
    known = {str(tmp_path / "a.md"): False, str(tmp_path / "b.md"): True}
    assert [p.name for p in discover_files(tmp_path, known)] == ["b.md"]  # the map decides
    assert declares_in_bytes(front(last_reviewed="2026-06-01").encode())
    assert not declares_in_bytes(b"# plain\n")
