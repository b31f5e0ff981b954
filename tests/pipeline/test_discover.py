"""Corpus discovery (docs/layouts.md "Sources and projects") and its exit-2 cases (docs/output.md).

Every repository here is a real git repository built from an inline scenario.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    load_report_validator,
    run_git,
    run_in_a_process,
    template_tail,
)

TODAY = "2026-06-20"


def context(title: str) -> str:
    return (
        f"# {title} — Working Context\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
        + template_tail()
    )


def one_commit(files: Mapping[str, str]) -> dict[str, Any]:
    return {
        "remote": True,
        "commits": [{"date": "2026-06-01T09:00:00+00:00", "message": "seed", "files": dict(files)}],
    }


def knowledge_base(*ids: str, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    index = "projects:\n" + "".join(f"  - id: {i}\n    status: active\n" for i in ids)
    files = {"projects/index.yaml": index}
    files.update({f"projects/{i}/CONTEXT.md": context(i.title()) for i in ids})
    files.update(extra or {})
    return one_commit(files)


SINGLE_PROJECT = one_commit({"CONTEXT.md": context("Solo")})


def check(doctor: Doctor, *args: str, cwd: Path | None = None) -> Run:
    return doctor("check", *args, "--today", TODAY, "--json", cwd=cwd)


# -- where the sources come from ---------------------------------------------------------


def test_source_option(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(knowledge_base("alpha", "beta"))
    run = check(doctor, "--source", str(root))
    assert run.exit_code == 0, run.stderr
    assert run.json["source_details"] == [
        {
            "name": root.name,
            "root": str(root.resolve()),
            "projects_dir": "projects",
            "projects": 2,
            "audited": True,
        }
    ]
    assert run.json["projects_audited"] == 2


def test_repeated_source_option(make_repo: MakeRepo, doctor: Doctor) -> None:
    first = make_repo(knowledge_base("alpha", "beta"))
    second = make_repo(knowledge_base("gamma"))
    run = check(doctor, "--source", str(first), "--source", str(second))
    assert run.exit_code == 0, run.stderr
    assert [(s["name"], s["projects"]) for s in run.json["source_details"]] == [
        (first.name, 2),
        (second.name, 1),
    ]
    assert run.json["projects_audited"] == 3


def test_the_same_source_twice_is_audited_once(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(knowledge_base("alpha", "beta"))
    run = check(doctor, "--source", str(root), "--source", str(root), str(root))
    assert run.exit_code == 0, run.stderr
    assert len(run.json["source_details"]) == 1
    assert run.json["projects_audited"] == 2


def test_project_option_inside_a_projects_directory(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        knowledge_base("alpha", "beta", extra={"projects/beta/CONTEXT.md": "# Beta\n"})
    )
    run = check(doctor, "--project", str(root / "projects" / "alpha"))
    assert run.exit_code == 0, run.stderr
    assert run.json["projects_audited"] == 1
    assert run.json["source_details"][0]["root"] == str(root.resolve())
    assert run.json["source_details"][0]["projects_dir"] == "projects"
    # beta (no Status header) is not audited: nothing about it is reported.
    assert not [f for f in run.json["findings"] if f["project"] == "beta"]
    # The narrowed project still has its index entry: status checks examined it.
    assert run.json["coverage"]["status-vocabulary"]["examined"] == 1


def test_two_project_options_in_one_source_make_one_source(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(knowledge_base("alpha", "beta", "gamma"))
    run = check(
        doctor,
        "--project",
        str(root / "projects" / "alpha"),
        "--project",
        str(root / "projects" / "gamma"),
    )
    assert run.exit_code == 0, run.stderr
    assert len(run.json["source_details"]) == 1
    assert run.json["projects_audited"] == 2


def test_project_option_on_a_single_project_repository(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(SINGLE_PROJECT)
    run = check(doctor, "--project", str(root))
    assert run.exit_code == 0, run.stderr
    # A single project is named by its origin remote, never by the checkout's folder.
    assert run.json["source_details"] == [
        {
            "name": f"{root.name}-remote",
            "root": str(root.resolve()),
            "projects_dir": None,
            "projects": 1,
            "audited": True,
            "layout": "CONTEXT.md, detected",
            "set_aside": 0,
        }
    ]
    assert run.json["not_applicable"]["status-agreement"]["reason"] == "no index"


def test_positional_path(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(knowledge_base("alpha"))
    solo = make_repo(SINGLE_PROJECT)
    run = check(doctor, str(root), str(solo))
    assert run.exit_code == 0, run.stderr
    # A single project is named by its origin remote (docs/layouts.md), a knowledge base by its folder.
    assert [(s["name"], s["projects_dir"]) for s in run.json["source_details"]] == [
        (root.name, "projects"),
        (f"{solo.name}-remote", None),
    ]
    assert run.json["projects_audited"] == 2


def write_console(home: Path, sources: list[Mapping[str, str]]) -> Path:
    lines = ["# the console's own settings are ignored", "theme: dark", "sources:"]
    for source in sources:
        lines.append(f"  - name: {source['name']}")
        lines.extend(f"    {key}: {value}" for key, value in source.items() if key != "name")
    path = home / "console.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_console_yaml_under_synthesis_home(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    work = make_repo(knowledge_base("alpha", "beta"))
    notes = make_repo(
        one_commit(
            {
                "areas/index.yaml": "- id: garden\n  status: active\n",
                "areas/garden/CONTEXT.md": context("Garden"),
            }
        )
    )
    write_console(
        isolated_home,
        [
            {"name": "work", "root": str(work), "projects_dir": "projects"},
            {"name": "notes", "root": str(notes), "projects_dir": "areas"},
        ],
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = check(doctor, cwd=elsewhere)  # cwd holds nothing: the console decides
    assert run.exit_code == 0, run.stderr
    assert [(s["name"], s["projects_dir"], s["projects"]) for s in run.json["source_details"]] == [
        ("work", "projects", 2),
        ("notes", "areas", 1),
    ]


def test_console_yaml_honours_a_custom_synthesis_home(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(knowledge_base("alpha"))
    home = tmp_path / "custom-home"
    home.mkdir()
    write_console(home, [{"name": "custom", "root": str(root), "projects_dir": "projects"}])
    run = doctor(
        "check", "--today", TODAY, "--json", cwd=tmp_path, env={"SYNTHESIS_HOME": str(home)}
    )
    assert run.exit_code == 0, run.stderr
    assert [s["name"] for s in run.json["source_details"]] == ["custom"]


def test_explicit_arguments_win_over_console_yaml(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    listed = make_repo(knowledge_base("alpha"))
    explicit = make_repo(knowledge_base("beta", "gamma"))
    write_console(
        isolated_home, [{"name": "listed", "root": str(listed), "projects_dir": "projects"}]
    )
    run = check(doctor, "--source", str(explicit))
    assert run.exit_code == 0, run.stderr
    assert [s["name"] for s in run.json["source_details"]] == [explicit.name]


def test_console_yaml_wins_over_the_current_directory(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    listed = make_repo(knowledge_base("alpha"))
    here = make_repo(knowledge_base("beta", "gamma"))
    write_console(
        isolated_home, [{"name": "listed", "root": str(listed), "projects_dir": "projects"}]
    )
    run = check(doctor, cwd=here)
    assert run.exit_code == 0, run.stderr
    assert [s["name"] for s in run.json["source_details"]] == ["listed"]


def test_no_argument_detects_projects_in_the_current_directory(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(knowledge_base("alpha", "beta"))
    run = check(doctor, cwd=root)
    assert run.exit_code == 0, run.stderr
    assert run.json["source_details"] == [
        {
            "name": root.name,
            "root": str(root.resolve()),
            "projects_dir": "projects",
            "projects": 2,
            "audited": True,
        }
    ]


def test_no_argument_detects_a_single_project_repository(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(SINGLE_PROJECT)
    run = check(doctor, cwd=root)
    assert run.exit_code == 0, run.stderr
    # A single project is named by its origin remote, never by the checkout's folder.
    assert run.json["source_details"] == [
        {
            "name": f"{root.name}-remote",
            "root": str(root.resolve()),
            "projects_dir": None,
            "projects": 1,
            "audited": True,
            "layout": "CONTEXT.md, detected",
            "set_aside": 0,
        }
    ]
    assert run.json["not_applicable"]["status-vocabulary"]["reason"] == "no index"


def test_hidden_and_underscore_directories_are_not_projects(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        knowledge_base(
            "alpha",
            extra={
                "projects/_template/CONTEXT.md": "# Template\n",
                "projects/.trash/CONTEXT.md": "# x\n",
            },
        )
    )
    run = check(doctor, "--source", str(root))
    assert run.exit_code == 0, run.stderr
    assert run.json["projects_audited"] == 1


def test_bare_list_index(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        one_commit(
            {
                "projects/index.yaml": "- id: alpha\n  status: active\n",
                "projects/alpha/CONTEXT.md": context("Alpha"),
            }
        )
    )
    run = check(doctor, "--source", str(root))
    assert run.exit_code == 0, run.stdout
    assert not run.json["findings"]


# -- exit 2: the doctor could not establish ground truth ---------------------------------------


def fails(doctor: Doctor, *args: str, needles: tuple[str, ...], cwd: Path | None = None) -> None:
    """Exit 2 with one stderr line naming ``needles``; under --json, {"ok": false, "error": ...}."""
    human = doctor("check", *args, cwd=cwd)
    assert human.exit_code == 2, human.stdout + human.stderr
    assert human.stdout == ""
    lines = human.stderr.splitlines()
    assert len(lines) == 1, human.stderr
    assert lines[0].startswith("context-doctor: error: ")
    assert "Traceback" not in human.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])

    machine = doctor("check", *args, "--json", cwd=cwd)
    assert machine.exit_code == 2
    payload = json.loads(machine.stdout)
    assert payload["ok"] is False
    for needle in needles:
        assert needle in payload["error"], (needle, payload["error"])
    assert payload["remedy"]
    assert machine.stderr.splitlines() == lines


def test_missing_source_path(doctor: Doctor, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-kb"
    fails(doctor, "--source", str(missing), needles=(str(missing), "does not exist"))


def test_missing_project_path(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(knowledge_base("alpha"))
    missing = root / "projects" / "ghost"
    fails(doctor, "--project", str(missing), needles=(str(missing), "does not exist"))


def test_missing_positional_path(doctor: Doctor, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    fails(doctor, str(missing), needles=(str(missing), "does not exist"))


def test_source_that_is_a_file(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(knowledge_base("alpha"))
    target = root / "projects" / "alpha" / "CONTEXT.md"
    fails(doctor, "--source", str(target), needles=(str(target), "not a directory"))


def test_directory_that_is_not_a_git_repository(doctor: Doctor, tmp_path: Path) -> None:
    plain = tmp_path / "not-git"
    (plain / "projects" / "alpha").mkdir(parents=True)
    (plain / "projects" / "alpha" / "CONTEXT.md").write_text(context("Alpha"), encoding="utf-8")
    fails(doctor, "--source", str(plain), needles=(str(plain), "not inside a git repository"))


def test_single_project_directory_that_is_not_a_git_repository(
    doctor: Doctor, tmp_path: Path
) -> None:
    plain = tmp_path / "solo-not-git"
    plain.mkdir()
    (plain / "CONTEXT.md").write_text(context("Solo"), encoding="utf-8")
    fails(doctor, needles=(str(plain), "not inside a git repository"), cwd=plain)


def test_source_with_neither_projects_nor_context(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(one_commit({"README.md": "# Not a knowledge base\n"}))
    fails(doctor, "--source", str(root), needles=(str(root), "matches no layout"))


def test_index_yaml_that_is_not_yaml(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        knowledge_base(
            "alpha",
            extra={"projects/index.yaml": "projects:\n  - id: [alpha\n    status: active\n"},
        )
    )
    index = root / "projects" / "index.yaml"
    fails(doctor, "--source", str(root), needles=(str(index.resolve()), "not valid YAML"))


def test_index_yaml_that_is_not_utf8(make_repo: MakeRepo, doctor: Doctor) -> None:
    scenario = knowledge_base("alpha")
    scenario["commits"][0]["files"]["projects/index.yaml"] = {"base64": "LSBpZDogYWxwaGEgI/8K"}
    root = make_repo(scenario)
    fails(doctor, "--source", str(root), needles=("index.yaml", "not valid UTF-8"))


def test_console_yaml_that_is_not_yaml(doctor: Doctor, isolated_home: Path, tmp_path: Path) -> None:
    console = isolated_home / "console.yaml"
    console.write_text("sources: [\n  {name: kb, root: /x\n", encoding="utf-8")
    fails(doctor, needles=(str(console), "not valid YAML"), cwd=tmp_path)


def test_console_source_without_projects_dir_is_nothing_to_audit(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    """A console whose only source holds no projects: exit 2, naming why."""
    root = make_repo(knowledge_base("alpha"))
    write_console(isolated_home, [{"name": "kb", "root": str(root), "lessons_dir": "lessons"}])
    fails(doctor, needles=("nothing to audit", "`kb` (no projects_dir)"), cwd=tmp_path)


def _console_as_the_synthesis_console_writes_it(home: Path, team: Path, personal: Path) -> Path:
    """The console's documented team-shared + personal overlay layout, every key it allows."""
    path = home / "console.yaml"
    path.write_text(
        "port: 8765\n"
        "sources:\n"
        "  - name: team\n"
        f"    root: {team}\n"
        "    projects_dir: projects\n"
        "    lessons_dir: lessons\n"
        "    display_name: Team knowledge base\n"
        "    default_active: true\n"
        "    demo: false\n"
        "    slack: {channel: '#kb', enabled: false}\n"
        "  - name: personal\n"
        f"    root: {personal}\n"
        "    lessons_dir: lessons\n"
        "    plans_dir: plans\n"
        "    notes_dir: notes\n"
        "    display_name: Mine\n",
        encoding="utf-8",
    )
    return path


def test_console_yaml_as_the_console_writes_it(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    team = make_repo(knowledge_base("alpha"))
    personal = tmp_path / "personal"  # not even a git repository: it is never audited
    (personal / "lessons").mkdir(parents=True)
    _console_as_the_synthesis_console_writes_it(isolated_home, team, personal)
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code in (0, 1), run.stderr
    assert run.json["projects_audited"] == 1
    by_name = {source["name"]: source for source in run.json["source_details"]}
    assert by_name["team"]["audited"] is True
    assert "reason" not in by_name["team"]
    assert by_name["personal"] == {
        "name": "personal",
        "root": str(personal),
        "projects_dir": None,
        "projects": 0,
        "audited": False,
        "reason": "no projects_dir",
    }
    load_report_validator().validate(run.raw)
    # The report cache of a console run carries the same list.
    cached = json.loads((isolated_home / "context-doctor" / "last-report.json").read_text())
    assert [s["audited"] for s in cached["source_details"]] == [True, False]


def test_console_source_whose_projects_dir_is_missing(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    root = make_repo(knowledge_base("alpha"))
    write_console(isolated_home, [{"name": "kb", "root": str(root), "projects_dir": "areas"}])
    fails(doctor, needles=("`kb`", str(root.resolve() / "areas"), "does not exist"), cwd=tmp_path)


def test_console_source_whose_root_is_missing(
    doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "gone"
    write_console(isolated_home, [{"name": "kb", "root": str(missing), "projects_dir": "projects"}])
    fails(doctor, needles=("`kb`", str(missing), "does not exist"), cwd=tmp_path)


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_check_name(make_repo: MakeRepo, doctor: Doctor, option: str) -> None:
    root = make_repo(knowledge_base("alpha"))
    fails(
        doctor,
        str(root),
        option,
        "status-agreement,no-such-check",
        needles=("`no-such-check`", option),
    )


def test_zero_projects_found(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        one_commit({"projects/_template/CONTEXT.md": "# Template\n", "projects/.keep": ""})
    )
    fails(
        doctor,
        "--source",
        str(root),
        needles=("nothing to audit", str((root / "projects").resolve())),
    )


def test_zero_projects_in_the_current_directory(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(one_commit({"projects/.keep": ""}))
    fails(doctor, needles=("nothing to audit",), cwd=root)


def test_human_output_names_the_unaudited_source(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    team = make_repo(knowledge_base("alpha"))
    _console_as_the_synthesis_console_writes_it(isolated_home, team, tmp_path / "personal")
    run = doctor("check", "--today", TODAY, cwd=tmp_path)
    assert run.exit_code in (0, 1), run.stderr
    assert "source personal: not audited (no projects_dir)" in run.stdout


# -- the Synthesis Console's sources -------------------------------------------


def test_a_demo_source_is_sample_data_and_never_audited(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    work = make_repo(knowledge_base("alpha"))
    demo = make_repo(knowledge_base("sample"))
    write_console(
        isolated_home,
        [
            {"name": "work", "root": str(work), "projects_dir": "projects"},
            {"name": "demo", "root": str(demo), "projects_dir": "projects", "demo": "true"},
        ],
    )
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    assert run.json["projects_audited"] == 1
    assert run.json["sources"] == 1
    demo_entry = run.json["source_details"][1]
    assert (demo_entry["name"], demo_entry["audited"], demo_entry["reason"]) == (
        "demo",
        False,
        "sample data",
    )
    human = doctor("check", "--today", TODAY, cwd=tmp_path)
    assert "source demo: not audited (sample data)" in human.stdout


def test_a_source_whose_root_is_missing_never_sinks_the_others(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    work = make_repo(knowledge_base("alpha", "beta"))
    missing = tmp_path / "gone"
    write_console(
        isolated_home,
        [
            {"name": "gone", "root": str(missing), "projects_dir": "projects"},
            {"name": "work", "root": str(work), "projects_dir": "projects"},
        ],
    )
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code == 2  # a source could not be audited: the exit code says so
    report = run.raw
    load_report_validator().validate(report)
    assert (report["ok"], report["exit"], report["sources"]) == (False, 2, 1)
    assert report["projects_audited"] == 2  # the rest was audited
    assert "`gone`" in report["error"] and str(missing) in report["error"]
    gone = report["source_details"][1]
    assert (gone["name"], gone["audited"], gone["reason"]) == ("gone", False, "unreachable")
    assert str(missing) in gone["error"]
    # What could be audited is the corpus state the console shows: it is cached.
    cached = json.loads((isolated_home / "context-doctor" / "last-report.json").read_text())
    assert (cached["exit"], cached["projects_audited"]) == (2, 2)
    human = doctor("check", "--today", TODAY, cwd=tmp_path)
    assert human.exit_code == 2
    assert "source gone: not audited (unreachable)" in human.stdout
    # The sources it reached are healthy; the run is not: never HEALTHY with one unread.
    assert "HEALTHY" not in human.stdout
    assert "INCOMPLETE: 2 projects audited" in human.stdout
    assert human.stderr.startswith("context-doctor: error: source `gone` could not be audited")
    assert human.stderr.count("\n") == 1


def test_a_source_with_a_broken_index_is_unreachable_and_the_rest_audited(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    work = make_repo(knowledge_base("alpha"))
    broken = make_repo(
        knowledge_base("beta", extra={"projects/index.yaml": "projects: [\n  - id: beta\n"})
    )
    write_console(
        isolated_home,
        [
            {"name": "work", "root": str(work), "projects_dir": "projects"},
            {"name": "broken", "root": str(broken), "projects_dir": "projects"},
        ],
    )
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code == 2
    assert run.raw["projects_audited"] == 1
    entry = run.raw["source_details"][1]
    assert (entry["reason"], "not valid YAML" in entry["error"]) == ("unreachable", True)


@pytest.mark.parametrize("declared", [{"project": "."}, {}, {"projects_dir": "."}])
def test_a_console_source_may_be_a_single_project_repository(
    make_repo: MakeRepo,
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
    declared: dict[str, str],
) -> None:
    # A website repository with its own context: css/, js/, sessions/ are its folders.
    solo = make_repo(
        one_commit(
            {
                "CONTEXT.md": context("Site"),
                "css/site.css": "body {}\n",
                "js/site.js": "console.log(1)\n",
                "sessions/2026-06.md": "## 2026-06-01 — work\n",
            }
        )
    )
    write_console(isolated_home, [{"name": "site", "root": str(solo), **declared}])
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code in (0, 1), run.stderr
    assert run.json["projects_audited"] == 1
    assert run.json["source_details"][0]["projects_dir"] is None
    assert {finding["project"] for finding in run.json["findings"]} <= {f"{solo.name}-remote", ""}


def test_a_console_project_without_context_is_unreachable(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    work = make_repo(knowledge_base("alpha"))
    write_console(
        isolated_home,
        [
            {"name": "work", "root": str(work), "projects_dir": "projects"},
            {"name": "odd", "root": str(work), "project": "projects"},
            {"name": "away", "root": str(work), "project": "../.."},
        ],
    )
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code == 2
    details = {entry["name"]: entry for entry in run.raw["source_details"]}
    assert "holds no CONTEXT.md" in details["odd"]["error"]
    assert "leaves the source root" in details["away"]["error"]


def workspace(home: Path, workspace_name: str, repository: Path) -> Path:
    """Put ``repository`` at ``~/workspaces/<workspace_name>/<its name>``, as a person would."""
    target = home / "workspaces" / workspace_name / repository.name
    target.parent.mkdir(parents=True, exist_ok=True)
    repository.rename(target)
    return target


def test_without_console_yaml_the_consoles_workspaces_are_found(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    user_home = Path(os.environ["HOME"])
    built = make_repo(knowledge_base("alpha", "beta"))
    team = workspace(user_home, "me", built.rename(built.parent / "ai-knowledge-team"))
    lessons_only = user_home / "workspaces" / "me" / "ai-knowledge-notes" / "lessons"
    lessons_only.mkdir(parents=True)
    (user_home / "workspaces" / "me" / "unrelated" / "projects").mkdir(parents=True)
    linked = user_home / "workspaces" / "me" / "ai-knowledge-linked"
    linked.symlink_to(team)  # the console's walk skips symlinked entries
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = check(doctor, cwd=elsewhere)
    assert run.exit_code == 0, run.stderr
    assert [(s["name"], s["audited"]) for s in run.json["source_details"]] == [
        ("team", True),
        ("notes", False),
    ]
    assert run.json["projects_audited"] == 2
    # The console's own corpus: the report cache is written, as for console.yaml.
    assert (isolated_home / "context-doctor" / "last-report.json").is_file()


# -- any folder is a place to start ---------------------------------------------------------


@pytest.mark.parametrize("where", ["projects/alpha/sessions", "projects/alpha", "projects", "docs"])
def test_a_subfolder_finds_its_source_by_walking_up(
    make_repo: MakeRepo, doctor: Doctor, where: str
) -> None:
    root = make_repo(
        knowledge_base(
            "alpha",
            "beta",
            extra={
                "projects/alpha/sessions/2026-06.md": "## 2026-06-01 — work\n",
                "docs/README.md": "# Docs\n",
            },
        )
    )
    run = check(doctor, cwd=root / where)
    assert run.exit_code in (0, 1), run.stderr
    assert [(s["root"], s["projects"]) for s in run.json["source_details"]] == [
        (str(root.resolve()), 2)
    ]


def test_a_single_project_repositorys_subfolder_finds_the_project(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        one_commit({"CONTEXT.md": context("Solo"), "sessions/2026-06.md": "## 2026-06-01 — w\n"})
    )
    run = check(doctor, cwd=root / "sessions")
    assert run.exit_code in (0, 1), run.stderr
    assert run.json["source_details"][0]["root"] == str(root.resolve())
    assert run.json["projects_audited"] == 1


def test_a_subfolder_of_a_repository_without_context_is_one_clear_line(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(one_commit({"src/main.py": "print(1)\n"}))
    fails(
        doctor, needles=(str((root / "src").resolve()), "no projects/index.yaml"), cwd=root / "src"
    )


def test_a_working_directory_outside_any_repository_is_one_clear_line(
    doctor: Doctor, tmp_path: Path
) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    fails(doctor, needles=(str(outside.resolve()), "not inside a git repository"), cwd=outside)


@pytest.mark.parametrize(
    ("file", "projects"),
    [
        ("projects/alpha/CONTEXT.md", ["alpha"]),
        ("projects/alpha/sessions/2026-06.md", ["alpha"]),
        ("projects/alpha/sessions", ["alpha"]),
        ("projects/index.yaml", ["alpha", "beta"]),
        ("docs/README.md", ["alpha", "beta"]),
    ],
)
def test_check_file_audits_the_project_holding_it(
    make_repo: MakeRepo, doctor: Doctor, file: str, projects: list[str]
) -> None:
    root = make_repo(
        knowledge_base(
            "alpha",
            "beta",
            extra={
                "projects/alpha/sessions/2026-06.md": "## 2026-06-01 — work\n",
                "docs/README.md": "# Docs\n",
            },
        )
    )
    run = check(doctor, str(root / file))
    assert run.exit_code in (0, 1), run.stderr
    assert run.json["projects_audited"] == len(projects)
    assert {f["project"] for f in run.json["findings"]} <= {*projects, ""}


def test_check_file_in_a_single_project_repository(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        one_commit({"CONTEXT.md": context("Solo"), "sessions/2026-06.md": "## 2026-06-01 — w\n"})
    )
    run = check(doctor, str(root / "sessions" / "2026-06.md"))
    assert run.exit_code in (0, 1), run.stderr
    assert run.json["projects_audited"] == 1


def test_check_file_in_no_project_is_one_clear_line(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(one_commit({"README.md": "# x\n"}))
    fails(doctor, str(root / "README.md"), needles=("in no project",))


def test_the_config_is_found_in_the_nearest_ancestor_up_to_the_repository(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    # The knowledge base lives in a subfolder of a larger repository; the config at the top.
    files = {
        "kb/projects/index.yaml": "- id: alpha\n  status: active\n",
        "kb/projects/alpha/CONTEXT.md": context("Alpha") + "line\n" * 130,
        "context-doctor.toml": '[severity]\ncontext-archive-due = "defect"\n',
    }
    root = make_repo(one_commit(files))
    run = check(doctor, cwd=root / "kb" / "projects" / "alpha")
    assert [f["severity"] for f in run.json["findings"] if f["check"] == "context-archive-due"] == [
        "defect"
    ]
    settings = doctor("check", "--show-settings", cwd=root / "kb")
    assert f"config file: {root.resolve() / 'context-doctor.toml'}" in settings.stdout


# -- memory vaults (docs/vaults.md) ---------------------------------------------------------


def _vault(make_repo: MakeRepo) -> Path:
    from vault_support import clean_vault_files, vault_scenario

    return make_repo(vault_scenario(clean_vault_files()))


def _vault_names(run: Run) -> list[str]:
    return [s["name"] for s in run.json["source_details"] if s.get("vault")]


def test_a_directory_holding_bastra_is_a_vault(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = _vault(make_repo)
    as_path = doctor("check", str(root), "--json", "--today", "2026-06-15")
    assert as_path.exit_code == 0, as_path.stderr
    assert _vault_names(as_path) == [root.name]
    below = root / "memories" / "all-projects"
    from_cwd = doctor("check", "--json", "--today", "2026-06-15", cwd=below)
    assert from_cwd.exit_code == 0, from_cwd.stderr
    assert _vault_names(from_cwd) == [root.name]  # the nearest .bastra/ above
    assert load_report_validator().is_valid(from_cwd.raw)


def test_bastra_vault_path_and_console_vault_sources(
    doctor: Doctor, make_repo: MakeRepo, isolated_home: Path, tmp_path: Path
) -> None:
    root = _vault(make_repo)
    run = doctor("check", "--json", "--today", "2026-06-15", cwd=tmp_path,
                 env={"BASTRA_VAULT_PATH": str(root)})  # fmt: skip
    assert run.exit_code == 0, run.stderr
    assert _vault_names(run) == [root.name]
    (isolated_home / "console.yaml").write_text(
        f"sources:\n  - name: memories\n    root: {root}\n    vault: true\n", encoding="utf-8"
    )
    run = doctor("check", "--json", "--today", "2026-06-15", cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    assert _vault_names(run) == ["memories"]


def test_a_vault_path_that_does_not_exist_is_exit_2(doctor: Doctor, tmp_path: Path) -> None:
    run = doctor("check", "--vault", str(tmp_path / "nowhere"))
    assert run.exit_code == 2 and "vault" in run.stderr
    run = doctor("check", cwd=tmp_path, env={"BASTRA_VAULT_PATH": str(tmp_path / "gone")})
    assert run.exit_code == 2 and "BASTRA_VAULT_PATH" in run.stderr


def test_write_baseline_for_a_vault_names_its_file(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = _vault(make_repo)
    refused = doctor("check", "--vault", str(root), "--write-baseline")
    assert refused.exit_code == 2 and "never writes inside a vault" in refused.stderr
    baseline = tmp_path / "vault-baseline.json"
    written = doctor("check", "--vault", str(root), "--write-baseline", str(baseline))
    assert written.exit_code == 0, written.stderr
    assert json.loads(baseline.read_text())["findings"] == []
    assert not (root / "context-doctor-baseline.json").exists()


def _vault_modules(imported: set[str]) -> set[str]:
    return {name for name in imported if name.startswith("context_doctor.vault.")}


def test_a_cold_check_without_a_vault_loads_no_vault_module_nor_pyyaml(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    """#32: the vault modules (PyYAML among them) load only when a vault is audited; a
    cold check of projects alone imports none of them (each run in its own interpreter).
    PyYAML's libyaml still reads an ``index.yaml`` (yamlio.careful_load), so a source with
    no index loads no ``yaml`` at all."""
    single = make_repo(SINGLE_PROJECT)
    indexed = make_repo(knowledge_base("alpha", "beta"))
    vault = _vault(make_repo)
    runs = {
        name: run_in_a_process(tmp_path, "check", *where, "--json", "--no-cache", "--today", TODAY)
        for name, where in (
            ("single", ("--source", str(single))),
            ("indexed", ("--source", str(indexed))),
            ("vault", ("--vault", str(vault))),
        )
    }
    for stdout, stderr, _ in runs.values():
        assert json.loads(stdout)["findings"] is not None, stderr
    _, _, imported = runs["single"]
    assert not _vault_modules(imported) and "yaml" not in imported
    _, _, imported = runs["indexed"]
    assert not _vault_modules(imported)
    _, _, imported = runs["vault"]  # the control: a vault loads them
    assert {"context_doctor.vault.model", "context_doctor.vault.memory", "yaml"} <= imported


# -- layouts (docs/layouts.md): projects built from a declared or detected layout ----------------

STATUS_CURRENT = (
    "# Comics — status\n\n**Last updated:** 2026-06-10\nStatus: active\n\n"
    "## Session Log\n\n### 2026-06-10\nFixed the feed parser.\n"
)


def status_repo(*later: tuple[str, dict[str, str]], status: str = STATUS_CURRENT) -> dict[str, Any]:
    """A repository keeping docs/STATUS.md with an in-file log, and ``later`` commits."""
    commits = [
        {
            "date": "2026-06-10T09:00:00+00:00",
            "message": "feed parser",
            "files": {"docs/STATUS.md": status, "src/feed.py": "parse = 1\n"},
        }
    ]
    commits += [
        {"date": f"{day}T09:00:00+00:00", "message": f"work of {day}", "files": files}
        for day, files in later
    ]
    return {"remote": True, "commits": commits}


def test_a_detected_status_file_is_one_project_named_by_its_origin(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(status_repo())
    run = check(doctor, str(root))
    assert run.exit_code == 0, run.stderr
    [source] = run.json["source_details"]
    assert source["name"] == f"{root.name}-remote"
    assert source["layout"] == "docs/STATUS.md, detected"
    assert run.json["findings"] == [] or {f["check"] for f in run.json["findings"]} <= {
        "unpushed-context"
    }
    human = doctor("check", str(root), "--today", TODAY)
    assert "layout docs/STATUS.md, detected" in human.stdout.splitlines()[-1]


def test_a_stale_status_file_under_unlogged_work_fires(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        status_repo(
            ("2026-06-14", {"src/feed.py": "parse = 2\n"}),
            ("2026-06-18", {"src/feed.py": "parse = 3\n"}),
        )
    )
    run = check(doctor, str(root))
    [unlogged] = run.findings("unlogged-session")
    assert unlogged["path"] == "docs/STATUS.md"
    assert (
        "2 commits changed the project after the newest session-log entry (2026-06-10)"
        in (unlogged["message"])
    )
    assert "the `Session Log` log in docs/STATUS.md" in unlogged["remedy"]
    assert unlogged["project"] == f"{root.name}-remote"


def test_a_daily_bot_is_never_the_newest_work(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(status_repo())
    for day in ("2026-06-15", "2026-06-16", "2026-06-17"):
        (root / "public").mkdir(exist_ok=True)
        (root / "public" / "feed.json").write_text(f'{{"day": "{day}"}}\n')
        run_git(root, "add", "-A")
        run_git(
            root,
            "-c", "user.name=github-actions[bot]",
            "-c", "user.email=41898282+github-actions[bot]@users.noreply.github.com",
            "commit", "-q", "-m", "daily data",
            when=f"{day}T04:00:00+00:00",
        )  # fmt: skip
    run = check(doctor, str(root))
    assert run.findings("unlogged-session") == []
    assert run.json["source_details"][0]["set_aside"] == 3


def test_work_ignore_sets_data_commits_aside_and_the_summary_counts_them(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    config = (
        '[layout]\ncontext = "docs/STATUS.md"\nsessions = "context"\nwork_ignore = ["data/**"]\n'
    )
    root = make_repo(
        status_repo(
            ("2026-06-09", {"context-doctor.toml": config}),
            ("2026-06-15", {"data/prices.csv": "1\n"}),
            ("2026-06-16", {"data/prices.csv": "2\n"}),
        )
    )
    run = check(doctor, str(root))
    assert run.findings("unlogged-session") == []
    assert run.json["source_details"][0]["layout"] == "docs/STATUS.md, declared"
    assert run.json["source_details"][0]["set_aside"] == 2
    human = doctor("check", str(root), "--today", TODAY)
    assert "2 commits set aside" in human.stdout.splitlines()[-1]


GLOSSARY = "# Domain glossary\n\n" + "".join(
    f"- **Term {n}**: what the team means by term {n}.\n" for n in range(424)
)


def test_a_glossary_context_is_not_working_memory_and_gets_no_finding(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {"date": "2026-01-05T09:00:00+00:00", "message": "terms", "files": {"CONTEXT.md": GLOSSARY}},
                {"date": "2026-06-01T09:00:00+00:00", "message": "code", "files": {"src/a.py": "a = 1\n"}},
            ],
        }
    )  # fmt: skip
    run = check(doctor, str(root))
    assert run.exit_code == 0, run.stderr
    project_findings = [f for f in run.json["findings"] if f["check"] != "unpushed-context"]
    assert project_findings == []
    # A shape, not a gate (docs/checks.md): counted in not_applicable, never in coverage.
    not_applicable = run.json["not_applicable"]
    for name in ("context-budget", "context-template", "active-project-idle", "record-unreadable"):
        assert not_applicable[name]["reason"] == "not working memory", name
        assert name not in run.json["coverage"], name


def test_check_project_on_a_folder_no_layout_matches_says_what_check_path_says(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(one_commit({"README.md": "# Tool\n", "src/a.py": "a = 1\n"}))
    by_project = doctor("check", "--project", str(root), "--today", TODAY)
    by_path = doctor("check", str(root), "--today", TODAY)
    assert by_project.exit_code == by_path.exit_code == 2
    assert by_project.stderr == by_path.stderr
    assert (
        "matches no layout" in by_path.stderr and "memory-bank/activeContext.md" in by_path.stderr
    )
    assert "CONTEXT.md is missing" not in by_project.stdout + by_project.stderr


def test_a_declared_glob_makes_one_project_per_folder(make_repo: MakeRepo, doctor: Doctor) -> None:
    config = '[layout]\ncontext = "services/*/STATUS.md"\nsessions = "context"\n'
    status = "# Svc\n\nLast updated: 2026-06-10\n\n## Log\n\n### 2026-06-10\nx\n"
    root = make_repo(
        one_commit(
            {
                "context-doctor.toml": config,
                "services/api/STATUS.md": status,
                "services/web/STATUS.md": status,
                "services/docs/README.md": "not a project\n",
            }
        )
    )
    run = check(doctor, str(root))
    assert run.exit_code == 0, run.stderr
    assert run.json["projects_audited"] == 2
    assert run.json["source_details"][0]["projects_dir"] == "services"


def test_two_clones_share_project_ids_and_a_baseline(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(status_repo(("2026-06-18", {"src/feed.py": "parse = 3\n"})))
    remote = root.parent / f"{root.name}-remote.git"
    run_git(root, "push", "-q", "origin", "HEAD:main")
    clone = tmp_path / "elsewhere" / "another-folder-name"
    clone.parent.mkdir()
    run_git(tmp_path, "clone", "-q", str(remote), str(clone))
    first = check(doctor, str(root))
    second = check(doctor, str(clone))
    assert (
        [f["project"] for f in first.findings("unlogged-session")]
        == [f["project"] for f in second.findings("unlogged-session")]
        == [f"{root.name}-remote"]
    )
    baseline = root / "baseline.json"
    written = doctor("check", str(root), "--today", TODAY, "--write-baseline", str(baseline))
    assert written.exit_code == 0, written.stderr
    (clone / "baseline.json").write_bytes(baseline.read_bytes())
    held = check(doctor, str(clone), "--baseline", str(clone / "baseline.json"))
    assert held.findings("unlogged-session") == []


# -- synthesis v5's own list of sources (docs/layouts.md, §7) ---------------------------------------


def v5_config(v5: Path, content: str | bytes | Mapping[str, Any]) -> Path:
    """Write ``V5/config.json`` as synthesis v5 keeps it (a JSON object, other keys too)."""
    v5.mkdir(parents=True, exist_ok=True)
    config = v5 / "config.json"
    if isinstance(content, bytes):
        config.write_bytes(content)
    else:
        text = content if isinstance(content, str) else json.dumps(content, indent=2)
        config.write_text(text, encoding="utf-8")
    return config


def test_without_console_yaml_v5s_knowledge_roots_are_audited(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    # SYNTHESIS_HOME holding config.json is v5's runtime folder: the console's files are
    # under ~/.synthesis, where there is no console.yaml.
    first = make_repo(knowledge_base("alpha", "beta"))
    second = make_repo(SINGLE_PROJECT)
    v5_config(
        isolated_home,
        {"version": 5, "knowledge_roots": [str(first), str(second), str(first)], "harness": "x"},
    )
    user_home = Path(os.environ["HOME"])
    workspace(
        user_home, "me", make_repo(knowledge_base("gamma")).rename(tmp_path / "ai-knowledge-w")
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = check(doctor, cwd=elsewhere)
    assert run.exit_code == 0, run.stderr
    # v5's list comes before the console's ~/workspaces auto-detection, each root once.
    assert [(s["root"], s["projects"]) for s in run.json["source_details"]] == [
        (str(first.resolve()), 2),
        (str(second.resolve()), 1),
    ]
    # The machine's corpus, as console.yaml's: its report cache is the console's.
    assert (user_home / ".synthesis" / "context-doctor" / "last-report.json").is_file()


def test_console_yaml_comes_before_v5s_knowledge_roots(
    make_repo: MakeRepo, doctor: Doctor, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = make_repo(knowledge_base("alpha"))
    v5_listed = make_repo(knowledge_base("beta", "gamma"))
    user_home = Path(os.environ["HOME"])
    monkeypatch.delenv("SYNTHESIS_HOME")  # the defaults: ~/.synthesis and ~/.synthesis/v5
    v5_config(user_home / ".synthesis" / "v5", {"knowledge_roots": [str(v5_listed)]})
    run = check(doctor, cwd=v5_listed)
    assert [s["root"] for s in run.json["source_details"]] == [str(v5_listed.resolve())]
    (user_home / ".synthesis" / "console.yaml").write_text(
        f"sources:\n  - name: mine\n    root: {listed}\n    projects_dir: projects\n",
        encoding="utf-8",
    )
    run = check(doctor, cwd=v5_listed)
    assert run.exit_code == 0, run.stderr
    assert [s["root"] for s in run.json["source_details"]] == [str(listed.resolve())]
    # An argument names the sources: neither list is read.
    only = check(doctor, str(v5_listed))
    assert [s["root"] for s in only.json["source_details"]] == [str(v5_listed.resolve())]


def test_a_relative_knowledge_root_is_taken_from_the_v5_folder(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    root = make_repo(knowledge_base("alpha")).rename(isolated_home / "kb")
    v5_config(isolated_home, {"knowledge_roots": ["kb"]})
    run = check(doctor, cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    assert [s["root"] for s in run.json["source_details"]] == [str(root.resolve())]


@pytest.mark.parametrize("listed", [None, []])
def test_v5_listing_no_roots_falls_through_to_the_working_directory(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, listed: list[str] | None
) -> None:
    here = make_repo(knowledge_base("alpha"))
    v5_config(
        isolated_home,
        {"update_channel": "stable"} if listed is None else {"knowledge_roots": listed},
    )
    run = check(doctor, cwd=here)
    assert run.exit_code == 0, run.stderr
    assert [s["root"] for s in run.json["source_details"]] == [str(here.resolve())]


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ('{"knowledge_roots": ["/a",', ("config.json", "is not valid JSON at line 1")),
        ("[" * 100_000 + "]" * 100_000, ("config.json", "nested too deeply")),
        ('["/a"]', ("config.json", "is not a JSON object (it holds an array)")),
        (b'{"knowledge_roots": ["\xff"]}', ("config.json", "is not valid UTF-8 (byte 22)")),
        ('{"knowledge_roots": "/a"}', ("`knowledge_roots` is not a list of paths",)),
        ('{"knowledge_roots": ["/a", 3]}', ("`knowledge_roots` is not a list of paths",)),
        ('{"knowledge_roots": [""]}', ("`knowledge_roots` is not a list of paths",)),
        ('{"knowledge_roots": ["/no/such/root"]}', ("/no/such/root", "does not exist")),
    ],
)
def test_a_v5_config_that_cannot_be_trusted_is_exit_2(
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
    content: str | bytes,
    needles: tuple[str, ...],
) -> None:
    v5_config(isolated_home, content)
    fails(doctor, needles=needles, cwd=tmp_path)


def test_a_v5_knowledge_root_that_is_a_file_or_holds_nothing_is_exit_2(
    doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "notes.md"
    plain.write_text("# notes\n", encoding="utf-8")
    v5_config(isolated_home, {"knowledge_roots": [str(plain)]})
    fails(doctor, needles=(str(plain), "is not a folder", "knowledge_roots"), cwd=tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    run_git(empty, "init", "-q")
    v5_config(isolated_home, {"knowledge_roots": [str(empty)]})
    fails(doctor, needles=(str(empty.resolve()), "matches no layout"), cwd=tmp_path)
