"""The marker writers: `freshness review|touch|review-section|migrate`, run through click."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from support import git

from context_doctor.commands.freshness import (
    freshness_group,
    migrate_command,
    review_command,
    review_section_command,
    touch_command,
)
from context_doctor.freshness import grade_files, read_frontmatter
from context_doctor.freshness import writers as freshness_writers

NOW = "2026-06-10T09:30:00+02:00"
LATER = "2026-06-11T08:00:00+02:00"
TODAY = date(2026, 6, 10)

# last_updated yesterday, last_reviewed 40 days ago: a 30-day file that grades F.
PROJECTS = """\
---
# freshness block (keep this comment)
title: 'Projects registry'
last_updated: "2026-06-09T18:00:00+02:00"   # yesterday
last_updated_by: kai
convention: pai-freshness-v1
last_reviewed: 2026-05-01T10:00:00+02:00
last_reviewed_by: 'daniel'
tags: [alpha, beta]
---
<!-- the projects table; edit through /interview -->
# Projects

## Goals
<!-- updated: 2026-05-01 by:kai -->

G1: ship the doctor.

## Current State

Writing the writers.

```markdown
## Not A Section
```
"""


def invoke(command: click.Command, *args: str | Path) -> Result:
    return CliRunner().invoke(command, [str(arg) for arg in args])


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def backups(directory: Path) -> list[str]:
    folder = directory / "Backups"
    return sorted(entry.name for entry in folder.iterdir()) if folder.is_dir() else []


def grade(root: Path, name: str) -> str:
    return next(item.grade for item in grade_files(root, [], TODAY) if item.path.name == name)


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    return write(tmp_path / "PROJECTS.md", PROJECTS)


def test_the_writers_are_registered_on_the_freshness_group() -> None:
    for command in (review_command, touch_command, review_section_command, migrate_command):
        assert isinstance(command, click.Command)
        assert command.name is not None
        assert freshness_group.commands[command.name] is command


# -- touch ---------------------------------------------------------------------


def test_touch_changes_only_last_updated_and_keeps_order_comments_and_quoting(
    projects: Path, tmp_path: Path
) -> None:
    assert grade(tmp_path, "PROJECTS.md") == "F"
    result = invoke(touch_command, projects, "--by", "generator", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert "touched" in result.stdout
    expected = PROJECTS.replace(
        'last_updated: "2026-06-09T18:00:00+02:00"   # yesterday',
        f'last_updated: "{NOW}"   # yesterday',
    ).replace("last_updated_by: kai", "last_updated_by: generator")
    assert projects.read_text(encoding="utf-8") == expected
    assert grade(tmp_path, "PROJECTS.md") == "F"  # bytes changed is not a human looked


def test_touch_twice_with_the_same_time_writes_nothing(projects: Path) -> None:
    assert invoke(touch_command, projects, "--by", "gen", "--now", NOW).exit_code == 0
    before = projects.read_bytes()
    again = invoke(touch_command, projects, "--by", "gen", "--now", NOW)
    assert again.exit_code == 0
    assert "nothing written" in again.stdout
    assert projects.read_bytes() == before


def test_touch_is_allowed_on_a_derived_file(tmp_path: Path) -> None:
    derived = _derived(tmp_path)
    result = invoke(touch_command, derived, "--by", "GenerateTelosSummary", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert f"last_updated: {NOW}" in derived.read_text(encoding="utf-8")


def test_by_defaults_to_user(projects: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "robin")
    assert invoke(touch_command, projects, "--now", NOW).exit_code == 0
    assert "last_updated_by: robin" in projects.read_text(encoding="utf-8")
    monkeypatch.delenv("USER")
    assert invoke(touch_command, projects, "--now", LATER).exit_code == 0
    assert "last_updated_by: unknown" in projects.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["true", "123", "null", "a: b", "#hash", "[x]"])
def test_a_name_that_is_not_plain_yaml_is_quoted(projects: Path, name: str) -> None:
    assert invoke(touch_command, projects, "--by", name, "--now", NOW).exit_code == 0
    text = projects.read_text(encoding="utf-8")
    front, problem = read_frontmatter(text)
    assert problem is None and front is not None
    assert front.data["last_updated_by"] == name  # a string, never a boolean or a number
    assert f'last_updated_by: "{name}"' in text


# -- review --------------------------------------------------------------------


def test_review_sets_last_reviewed_and_resets_the_grade(projects: Path, tmp_path: Path) -> None:
    result = invoke(review_command, projects, "--by", "principal", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert "reviewed" in result.stdout
    expected = PROJECTS.replace(
        "last_reviewed: 2026-05-01T10:00:00+02:00", f"last_reviewed: {NOW}"
    ).replace("last_reviewed_by: 'daniel'", "last_reviewed_by: 'principal'")
    assert projects.read_text(encoding="utf-8") == expected
    assert grade(tmp_path, "PROJECTS.md") == "A"


def test_review_records_the_reviewer_in_the_quoting_the_file_used(projects: Path) -> None:
    assert invoke(review_command, projects, "--by", "o'neil", "--now", NOW).exit_code == 0
    text = projects.read_text(encoding="utf-8")
    assert "last_reviewed_by: 'o''neil'" in text
    front, _ = read_frontmatter(text)
    assert front is not None and front.data["last_reviewed_by"] == "o'neil"


def test_review_adds_missing_by_right_after_its_timestamp(tmp_path: Path) -> None:
    target = write(
        tmp_path / "ME.md",
        "---\nconvention: pai-freshness-v1\nlast_reviewed:   # never\nother: 1\n---\nBody\n",
    )
    assert invoke(review_command, target, "--by", "me", "--now", NOW).exit_code == 0
    assert target.read_text(encoding="utf-8") == (
        f"---\nconvention: pai-freshness-v1\nlast_reviewed: {NOW}   # never\n"
        "last_reviewed_by: me\nother: 1\n---\nBody\n"
    )


def _derived(root: Path) -> Path:
    write(
        root / "TELOS" / "TELOS.md",
        "---\nlast_updated: 2026-06-01\nconvention: pai-freshness-v1\n---\n# TELOS\n",
    )
    return write(
        root / "PRINCIPAL_TELOS.md",
        "---\nlast_updated: 2026-06-01T05:37:23.268Z\nlast_updated_by: GenerateTelosSummary\n"
        "convention: pai-freshness-v1\nderived_from: TELOS/TELOS.md\n"
        "generator: TOOLS/GenerateTelosSummary.ts\n---\n# Summary\n",
    )


def test_review_on_a_derived_file_refuses_naming_the_source(tmp_path: Path) -> None:
    derived = _derived(tmp_path)
    before = derived.read_bytes()
    result = invoke(review_command, derived, "--by", "daniel", "--now", NOW)
    assert result.exit_code == 2
    assert result.stderr.startswith("context-doctor: error: ")
    assert "derived from TELOS/TELOS.md" in result.stderr
    assert f"freshness review {tmp_path / 'TELOS' / 'TELOS.md'}" in result.stderr
    assert derived.read_bytes() == before


def test_review_without_frontmatter_says_migrate_first(tmp_path: Path) -> None:
    target = write(tmp_path / "PLAIN.md", "# Plain\n\nNo block.\n")
    result = invoke(review_command, target, "--now", NOW)
    assert result.exit_code == 2
    assert f"run `context-doctor freshness migrate {target}` first" in result.stderr
    assert target.read_text(encoding="utf-8") == "# Plain\n\nNo block.\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("---\ntitle: x\n---\nbody\n", "does not declare convention"),
        ("---\nconvention: pai-freshness-v0\n---\nbody\n", "pai-freshness-v0"),
        ("---\nconvention: pai-freshness-v1\nbody\n", "never closed"),
        ("---\nconvention: [pai\n---\nbody\n", "not valid YAML"),
        ("---\nconvention: pai-freshness-v1\nlast_reviewed:\n  - a\n---\n", "not a single value"),
    ],
)
def test_review_refuses_what_it_cannot_edit_safely(tmp_path: Path, text: str, says: str) -> None:
    target = write(tmp_path / "X.md", text)
    result = invoke(review_command, target, "--now", NOW)
    assert result.exit_code == 2
    assert says in result.stderr
    assert target.read_text(encoding="utf-8") == text


def test_a_missing_file_or_a_naive_now_exits_2(tmp_path: Path, projects: Path) -> None:
    missing = invoke(review_command, tmp_path / "NOPE.md", "--now", NOW)
    assert missing.exit_code == 2 and "does not exist" in missing.stderr
    naive = invoke(review_command, projects, "--now", "2026-06-10T09:30:00")
    assert naive.exit_code == 2 and "offset" in naive.stderr
    assert projects.read_text(encoding="utf-8") == PROJECTS


@pytest.mark.parametrize("command", ["review", "touch", "review-section", "migrate"])
def test_a_symlinked_file_is_refused_and_neither_link_nor_target_changes(
    projects: Path, tmp_path: Path, command: str
) -> None:
    link = tmp_path / "link.md"
    link.symlink_to(projects)
    args = {"review-section": ("goals",)}.get(command, ())
    writer = freshness_group.commands[command]
    result = invoke(writer, link, *args, "--now", NOW)
    assert result.exit_code == 1
    assert "refused [symlink]" in result.stderr
    assert link.is_symlink() and projects.read_text(encoding="utf-8") == PROJECTS


def test_writes_keep_the_files_permissions(projects: Path) -> None:
    projects.chmod(0o640)
    assert invoke(review_command, projects, "--by", "me", "--now", NOW).exit_code == 0
    assert projects.stat().st_mode & 0o777 == 0o640


# -- review-section --------------------------------------------------------------


def test_review_section_updates_the_marker_and_last_updated(projects: Path) -> None:
    result = invoke(review_section_command, projects, "goals", "--by", "tess", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    expected = (
        PROJECTS.replace(
            "<!-- updated: 2026-05-01 by:kai -->", "<!-- updated: 2026-06-10 by:tess -->"
        )
        .replace('"2026-06-09T18:00:00+02:00"', f'"{NOW}"')
        .replace("last_updated_by: kai", "last_updated_by: tess")
    )
    assert projects.read_text(encoding="utf-8") == expected


def test_review_section_inserts_a_missing_marker_under_the_heading(projects: Path) -> None:
    result = invoke(review_section_command, projects, "Current State", "--by", "kai", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    text = projects.read_text(encoding="utf-8")
    assert "## Current State\n<!-- updated: 2026-06-10 by:kai -->\n\nWriting" in text
    assert (
        text.replace("<!-- updated: 2026-06-10 by:kai -->\n", "", 1).replace(
            f'"{NOW}"', '"2026-06-09T18:00:00+02:00"'
        )
        == PROJECTS
    )
    again = invoke(review_section_command, projects, "current_state", "--by", "kai", "--now", NOW)
    assert again.exit_code == 0 and "nothing written" in again.stdout
    assert projects.read_text(encoding="utf-8") == text


def test_review_section_marks_a_heading_that_ends_the_file(tmp_path: Path) -> None:
    target = write(tmp_path / "T.md", "---\nconvention: pai-freshness-v1\n---\n## Goals")
    assert invoke(review_section_command, target, "goals", "--by", "k", "--now", NOW).exit_code == 0
    assert target.read_text(encoding="utf-8").endswith(
        "---\n## Goals\n<!-- updated: 2026-06-10 by:k -->"
    )


@pytest.mark.parametrize("slug", ["nope", "not_a_section"])
def test_review_section_with_an_unknown_slug_changes_nothing(projects: Path, slug: str) -> None:
    result = invoke(review_section_command, projects, slug, "--now", NOW)
    assert result.exit_code == 2
    assert "known slugs: goals, current_state" in result.stderr
    assert projects.read_text(encoding="utf-8") == PROJECTS


def test_review_section_refuses_a_name_with_spaces(projects: Path) -> None:
    result = invoke(review_section_command, projects, "goals", "--by", "Daniel M", "--now", NOW)
    assert result.exit_code == 2
    assert projects.read_text(encoding="utf-8") == PROJECTS


def test_review_section_refuses_an_ambiguous_slug(tmp_path: Path) -> None:
    text = "---\nconvention: pai-freshness-v1\n---\n## Goals\n\n## goals\n"
    target = write(tmp_path / "T.md", text)
    result = invoke(review_section_command, target, "goals", "--now", NOW)
    assert result.exit_code == 2 and "2 `##` sections" in result.stderr
    assert target.read_text(encoding="utf-8") == text


# -- migrate ---------------------------------------------------------------------

DA_IDENTITY = "---\nname: Kai  # the DA\nvoice: 'warm'\n---\n# Identity\n\nI am Kai.\n"
HTML_FIRST = "<!-- generated table: keep -->\n# Projects\n\n| a | b |\n"
BARE = "# Principal\n\nWho I am.\n"


def test_migrate_injects_into_an_existing_block(tmp_path: Path) -> None:
    target = write(tmp_path / "DA_IDENTITY.md", DA_IDENTITY)
    result = invoke(migrate_command, target, "--now", NOW)
    assert result.exit_code == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert text == (
        f"---\nname: Kai  # the DA\nvoice: 'warm'\nlast_updated: {NOW}\n"
        "last_updated_by: migration\nconvention: pai-freshness-v1\n---\n# Identity\n\nI am Kai.\n"
    )
    assert [line for line in text.splitlines() if line == "---"] == ["---", "---"]
    assert "last_reviewed" not in text


def test_migrate_puts_the_block_above_a_leading_html_comment(tmp_path: Path) -> None:
    target = write(tmp_path / "PROJECTS.md", HTML_FIRST)
    assert invoke(migrate_command, target, "--now", NOW).exit_code == 0
    assert target.read_text(encoding="utf-8") == (
        f"---\nlast_updated: {NOW}\nlast_updated_by: migration\n"
        f"convention: pai-freshness-v1\n---\n{HTML_FIRST}"
    )


def test_migrate_adds_a_block_to_a_bare_file_and_it_grades_never_reviewed(tmp_path: Path) -> None:
    target = write(tmp_path / "PRINCIPAL_IDENTITY.md", BARE)
    result = invoke(migrate_command, target, "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"migrated {target} (backup: ")
    assert target.read_text(encoding="utf-8").endswith(f"convention: pai-freshness-v1\n---\n{BARE}")
    graded = grade_files(tmp_path, [], TODAY)
    assert [(item.path.name, item.grade, item.why) for item in graded] == [
        ("PRINCIPAL_IDENTITY.md", "F", "never reviewed")
    ]


@pytest.mark.parametrize("text", [DA_IDENTITY, HTML_FIRST, BARE, PROJECTS])
def test_a_second_migration_changes_nothing(tmp_path: Path, text: str) -> None:
    target = write(tmp_path / "F.md", text)
    assert invoke(migrate_command, target, "--now", NOW).exit_code == 0
    after_first, first_backups = target.read_bytes(), backups(tmp_path)
    second = invoke(migrate_command, target, "--now", LATER)
    assert second.exit_code == 0
    assert second.stdout == f"already migrated {target}\n"
    assert target.read_bytes() == after_first
    assert backups(tmp_path) == first_backups


def test_a_file_already_on_the_convention_is_not_touched(projects: Path, tmp_path: Path) -> None:
    result = invoke(migrate_command, projects, "--now", NOW)
    assert result.stdout == f"already migrated {projects}\n"
    assert projects.read_text(encoding="utf-8") == PROJECTS
    assert backups(tmp_path) == []


def test_backups_hold_the_original_under_unique_names(tmp_path: Path) -> None:
    target = write(tmp_path / "DA_IDENTITY.md", DA_IDENTITY)
    assert invoke(migrate_command, target, "--now", NOW).exit_code == 0
    write(target, BARE)  # someone strips the block again within the same second
    assert invoke(migrate_command, target, "--now", NOW).exit_code == 0
    names = backups(tmp_path)
    assert names == [
        "DA_IDENTITY.md.20260610T093000+0200.1.bak",
        "DA_IDENTITY.md.20260610T093000+0200.bak",
    ]
    folder = tmp_path / "Backups"
    assert (folder / names[1]).read_text(encoding="utf-8") == DA_IDENTITY
    assert (folder / names[0]).read_text(encoding="utf-8") == BARE


def test_migrate_backups_go_in_each_files_own_directory(tmp_path: Path) -> None:
    one = write(tmp_path / "a" / "X.md", BARE)
    two = write(tmp_path / "b" / "X.md", BARE)
    assert invoke(migrate_command, one, two, "--now", NOW).exit_code == 0
    assert backups(tmp_path / "a") == backups(tmp_path / "b") == ["X.md.20260610T093000+0200.bak"]


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    bare = write(tmp_path / "BARE.md", BARE)
    done = write(tmp_path / "PROJECTS.md", PROJECTS)
    result = invoke(migrate_command, bare, done, "--dry-run", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"would migrate {bare}: add last_updated, last_updated_by, convention as a new block "
        f"on top (backup under {tmp_path / 'Backups'}/)",
        f"already migrated {done}",
    ]
    assert bare.read_text(encoding="utf-8") == BARE
    assert not (tmp_path / "Backups").exists()


def test_migrate_refuses_a_change_to_the_body_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def tampering(bom: str, head: str, body: str) -> str:
        return bom + head + body.replace("Who I am.", "Who I was.")

    monkeypatch.setattr(freshness_writers, "_assemble", tampering)
    target = write(tmp_path / "P.md", BARE)
    result = invoke(migrate_command, target, "--now", NOW)
    assert result.exit_code == 2
    assert "outside the frontmatter block would change" in result.stderr
    assert target.read_text(encoding="utf-8") == BARE
    assert not (tmp_path / "Backups").exists()


@pytest.mark.parametrize("command", [review_command, touch_command])
def test_review_and_touch_refuse_a_change_to_the_body(
    projects: Path, monkeypatch: pytest.MonkeyPatch, command: click.Command
) -> None:
    monkeypatch.setattr(
        freshness_writers, "_assemble", lambda bom, head, body: bom + head + body + "\n"
    )
    result = invoke(command, projects, "--now", NOW)
    assert result.exit_code == 2
    assert projects.read_text(encoding="utf-8") == PROJECTS


def test_review_section_refuses_any_other_change(
    projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        freshness_writers,
        "_assemble",
        lambda bom, head, body: bom + head + body.replace("G1:", "G2:"),
    )
    result = invoke(review_section_command, projects, "goals", "--now", NOW)
    assert result.exit_code == 2 and "other than the marker" in result.stderr
    assert projects.read_text(encoding="utf-8") == PROJECTS


def test_one_refusal_stops_the_whole_migration(tmp_path: Path) -> None:
    good = write(tmp_path / "GOOD.md", BARE)
    bad = write(tmp_path / "BAD.md", "---\nname: x\nno closing fence\n")
    result = invoke(migrate_command, good, bad, "--now", NOW)
    assert result.exit_code == 2 and str(bad) in result.stderr
    assert good.read_text(encoding="utf-8") == BARE
    assert not (tmp_path / "Backups").exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("---\nconvention: other-v2\n---\n", "other-v2"),
        ("\n\n---\nname: x\n---\nbody\n", "blank lines above"),
    ],
)
def test_migrate_refuses_files_it_would_misread(tmp_path: Path, text: str, says: str) -> None:
    target = write(tmp_path / "X.md", text)
    result = invoke(migrate_command, target, "--now", NOW)
    assert result.exit_code == 2 and says in result.stderr
    assert target.read_text(encoding="utf-8") == text


def test_migrate_refuses_a_directory(tmp_path: Path) -> None:
    result = invoke(migrate_command, tmp_path, "--now", NOW)
    assert result.exit_code == 2 and "is a directory" in result.stderr


# -- line ends, BOM, atomicity ------------------------------------------------------


def _crlf_bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")


@pytest.mark.parametrize(
    ("command", "args"),
    [
        (touch_command, ()),
        (review_command, ()),
        (review_section_command, ("goals",)),
        (review_section_command, ("current_state",)),
    ],
)
def test_crlf_and_bom_round_trip_through_the_writers(
    tmp_path: Path, command: click.Command, args: tuple[str, ...]
) -> None:
    target = write(tmp_path / "PROJECTS.md", _crlf_bom(PROJECTS))
    result = invoke(command, target, *args, "--by", "kai", "--now", NOW)
    assert result.exit_code == 0, result.stderr
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf---\r\n")
    assert raw.count(b"\n") == raw.count(b"\r\n")
    assert raw.count(b"\r\n") >= PROJECTS.count("\n")
    front, problem = read_frontmatter(raw.decode("utf-8"))
    assert problem is None and front is not None and front.data["convention"] == "pai-freshness-v1"


@pytest.mark.parametrize("text", [BARE, DA_IDENTITY, HTML_FIRST])
def test_crlf_and_bom_round_trip_through_migrate(tmp_path: Path, text: str) -> None:
    original = _crlf_bom(text)
    target = write(tmp_path / "F.md", original)
    assert invoke(migrate_command, target, "--now", NOW).exit_code == 0
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf---\r\n")
    assert raw.count(b"\n") == raw.count(b"\r\n")
    body = text.split("---\n")[-1] if text.startswith("---") else text
    assert raw.endswith(body.replace("\n", "\r\n").encode("utf-8"))
    assert (tmp_path / "Backups" / backups(tmp_path)[0]).read_bytes() == original
    assert invoke(migrate_command, target, "--now", LATER).stdout.startswith("already migrated")
    assert target.read_bytes() == raw


@pytest.mark.parametrize(
    ("command", "args"),
    [
        (touch_command, ()),
        (review_command, ()),
        (review_section_command, ("goals",)),
        (migrate_command, ()),
    ],
)
def test_a_failed_rename_leaves_the_original_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: click.Command, args: tuple[str, ...]
) -> None:
    text = BARE if command is migrate_command else PROJECTS
    target = write(tmp_path / "PROJECTS.md", text)

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", refuse)  # the write path's rename
    result = invoke(command, target, *args, "--now", NOW)
    assert result.exit_code == 2
    assert "cannot write" in result.stderr and "No space left" in result.stderr
    assert target.read_text(encoding="utf-8") == text
    assert sorted(entry.name for entry in tmp_path.iterdir() if entry.is_file()) == ["PROJECTS.md"]


# -- docs/editor.md follow-ups: statusline cache, backups outside the work tree --------


def repository(root: Path, files: dict[str, str]) -> Path:
    """A real git repository holding ``files``, committed."""
    for name, text in files.items():
        write(root / name, text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "context files", identity=True, when=NOW)
    return root


@pytest.mark.parametrize(
    ("command", "args"),
    [
        (review_command, ()),
        (touch_command, ()),
        (review_section_command, ("goals",)),
    ],
)
def test_every_bump_rewrites_the_configured_statusline_cache(
    tmp_path: Path, command: click.Command, args: tuple[str, ...]
) -> None:
    root = repository(
        tmp_path / "kb",
        {
            "context/PROJECTS.md": PROJECTS,
            # A repository's own config may name a cache inside the repository only.
            "context-doctor.toml": '[freshness]\ncache = "state/freshness.json"\n',
        },
    )
    result = invoke(command, root / "context" / "PROJECTS.md", *args, "--by", "me", "--now", NOW)
    assert result.exit_code == 0, result.output
    cache = root / "state" / "freshness.json"
    assert f"rewrote the statusline cache {cache}" in result.stdout
    data = json.loads(cache.read_bytes())
    assert data["generated_at"] == NOW
    assert [entry["path"] for entry in data["files"]] == ["context/PROJECTS.md"]
    expected = "A" if command is review_command else "F"  # only a review moves the grade
    assert data["files"][0]["grade"] == expected
    # A second, later bump rewrites it again.
    assert invoke(command, root / "context" / "PROJECTS.md", *args, "--now", LATER).exit_code == 0
    assert json.loads(cache.read_bytes())["generated_at"] == LATER


def test_no_cache_configured_writes_none_and_an_explicit_config_is_used(tmp_path: Path) -> None:
    target = write(tmp_path / "PROJECTS.md", PROJECTS)
    result = invoke(review_command, target, "--by", "me", "--now", NOW)
    assert result.exit_code == 0 and "statusline" not in result.stdout
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["PROJECTS.md"]
    config = write(tmp_path / "elsewhere" / "cd.toml", '[freshness]\ncache = "line.json"\n')
    result = invoke(touch_command, target, "--by", "me", "--now", NOW, "--config", config)
    assert result.exit_code == 0, result.output
    assert json.loads((config.parent / "line.json").read_bytes())["generated_at"] == NOW


def test_migrate_keeps_its_backup_under_the_git_directory_not_the_work_tree(
    tmp_path: Path,
) -> None:
    original = b"# Notes\r\n\r\nbody\r\n"
    root = repository(tmp_path / "kb", {"context/NOTES.md": original.decode()})
    target = root / "context" / "NOTES.md"
    result = invoke(migrate_command, target, "--now", NOW)
    assert result.exit_code == 0, result.output
    folder = root / ".git" / "context-doctor" / "backups" / "context"
    (backup,) = folder.iterdir()
    assert backup.name == "NOTES.md.20260610T093000+0200.bak"
    assert backup.read_bytes() == original
    assert f"(backup: {backup})" in result.stdout
    assert not any(path.name == "Backups" for path in root.rglob("*"))
    assert git(root, "status", "--porcelain", "--untracked-files=all") == "M context/NOTES.md"


def test_migrate_in_a_linked_worktree_backs_up_into_the_common_git_directory(
    tmp_path: Path,
) -> None:
    main = repository(tmp_path / "main", {"NOTES.md": "# Notes\n"})
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"))
    linked = tmp_path / "linked" / "NOTES.md"
    dry = invoke(migrate_command, linked, "--dry-run", "--now", NOW)
    common = (main / ".git" / "context-doctor" / "backups").resolve()
    assert f"(backup under {common}/)" in dry.stdout
    assert invoke(migrate_command, linked, "--now", NOW).exit_code == 0
    assert [path.name for path in common.iterdir()] == ["NOTES.md.20260610T093000+0200.bak"]
