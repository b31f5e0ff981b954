"""One path, one project (docs/layouts.md "Sources and projects"): a folder, ``--project`` and a
file inside the folder find the same project, walking up to the corpus or layout holding it.

A subfolder of a corpus is never a single-project repository of its own: ``check
projects/meridian`` once audited the folder as a repository with a root ``CONTEXT.md``
(index checks never ran, exit 0), while ``--project`` found the index's defect (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import Doctor, MakeRepo

from context_doctor.scenarios import scenario_today

TODAY = str(scenario_today("demo"))


@pytest.mark.parametrize("project", ["meridian", "atlas"])
def test_a_folder_a_project_and_a_file_in_it_give_one_report(
    scenario_repo: Callable[[str], Path], doctor: Doctor, project: str
) -> None:
    root = scenario_repo("demo")
    folder = f"projects/{project}"
    forms = (
        (folder,),
        (f"{folder}/",),
        ("--project", folder),
        (f"{folder}/CONTEXT.md",),
    )
    runs = [doctor("check", *form, "--today", TODAY, "--no-cache", cwd=root) for form in forms]
    first = runs[0]
    assert first.exit_code in (0, 1), first.stderr
    for form, run in zip(forms, runs, strict=True):
        assert (run.exit_code, run.stdout) == (first.exit_code, first.stdout), form
    assert "1 project audited" in first.stdout.splitlines()[-1]


def test_meridian_folder_reports_the_index_defect(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    """The replayed symptom: the folder form passed (exit 0) with a real status-agreement defect."""
    root = scenario_repo("demo")
    run = doctor("check", "projects/meridian", "--today", TODAY, "--json", cwd=root)
    assert run.exit_code == 1, run.stdout
    assert run.findings("status-agreement", "meridian")
    assert all(f["project"] in ("meridian", f"({root.name})") for f in run.json["findings"])


def test_layout_of_a_project_folder_is_the_corpus_layout(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    root = scenario_repo("demo")
    inside = doctor("layout", "projects/atlas", cwd=root)
    whole = doctor("layout", cwd=root)
    assert inside.exit_code == 0, inside.stderr
    assert "at the repository root" not in inside.stdout
    assert 'context = "projects/*/CONTEXT.md"' in inside.stdout
    assert inside.stdout == whole.stdout


def _commit(files: dict[str, str]) -> dict[str, object]:
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "message": "m", "files": files}]}


CONTEXT = """\
# Tool

**Last session:** 2026-06-01
**Status:** Active

## Current State

Working.
"""


def test_a_subfolder_of_a_single_project_repository_is_that_project(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """A folder inside a repository whose root holds the record is the root's project,
    even when the folder holds a CONTEXT.md of its own."""
    root = make_repo(_commit({"CONTEXT.md": CONTEXT, "docs/CONTEXT.md": CONTEXT}))
    top = doctor("check", "--today", "2026-06-02", "--json", cwd=root)
    folder = doctor("check", "docs", "--today", "2026-06-02", "--json", cwd=root)
    assert top.exit_code in (0, 1), top.stderr
    assert folder.exit_code == top.exit_code, folder.stderr
    assert [f["path"] for f in folder.json["findings"]] == [f["path"] for f in top.json["findings"]]
    assert folder.json["source_details"][0]["root"] == top.json["source_details"][0]["root"]


def test_a_folder_with_no_layout_above_it_is_still_its_own_project(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """Nothing above it holds a layout: the folder's own record is the project (a monorepo's
    tool keeping its CONTEXT.md), by folder, by --project and by file alike."""
    root = make_repo(_commit({"README.md": "# Mono\n", "tools/fmt/CONTEXT.md": CONTEXT}))
    forms = (("tools/fmt",), ("--project", "tools/fmt"), ("tools/fmt/CONTEXT.md",))
    runs = [doctor("check", *f, "--today", "2026-06-02", "--no-cache", cwd=root) for f in forms]
    assert runs[0].exit_code in (0, 1), runs[0].stderr
    for form, run in zip(forms, runs, strict=True):
        assert (run.exit_code, run.stdout) == (runs[0].exit_code, runs[0].stdout), form
