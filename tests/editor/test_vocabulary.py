"""Refusals in a Python caller's words; ``context_doctor.edit`` takes ``str`` or ``Path`` files."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from editor.test_apply import CONTEXT, project, snapshot

from context_doctor import edit
from context_doctor.editor.vocabulary import python_words
from context_doctor.errors import DoctorError


@pytest.mark.parametrize(
    ("cli", "python"),
    [
        ("--allow-stale-body", "allow_stale_body=True"),
        ("pass --allow-header-ahead", "pass allow_header_ahead=True"),
        ("--count 3", "count=3"),
        ("--max-lines 151", "max_lines=151"),
        ("--field 'Last session'", "field='Last session'"),
        (
            "e.g. --field Phase or --field 'Last session'",
            "e.g. field='Phase' or field='Last session'",
        ),
        ("--anchor is empty", "anchor is empty"),
        ("--title must be one line", "title must be one line"),
        ("in --select", "in select"),
        # a command in backticks is run as printed: its flags stay
        (
            "use `context-doctor edit replace F --anchor A` or --whole-value",
            "use `context-doctor edit replace F --anchor A` or whole_value=True",
        ),
        ("a --- rule and a-flag", "a --- rule and a-flag"),
    ],
)
def test_python_words(cli: str, python: str) -> None:
    assert python_words(cli) == python


def test_every_verb_takes_a_str_file(tmp_path: Path) -> None:
    root = project(tmp_path)
    context = str(root / "CONTEXT.md")
    edit.set_field(context, "Phase", "Build (round 4)", allow_header_lag=True)
    edit.replace_once(context, "search index rewrite", "query path")
    edit.insert_before(context, "## Current State", "Next: ranking.\n\n")
    edit.delete_line(context, "Next: ranking.")
    text = (root / "CONTEXT.md").read_text(encoding="utf-8")
    assert "**Phase:** Build (round 4)" in text and "query path" in text
    assert "ranking" not in text


def test_apply_takes_edits_with_str_files_relative_to_a_str_cwd(tmp_path: Path) -> None:
    """`edit.apply` crashed on an `Edit` whose file was a `str`."""
    root = project(tmp_path)
    result = edit.apply(
        [edit.Edit("replace", "CONTEXT.md", anchor="search index rewrite", replacement="ranking")],
        cwd=str(root),
    )
    assert [Path(item.path) for item in result.files] == [root / "CONTEXT.md"]
    assert "ranking" in (root / "CONTEXT.md").read_text(encoding="utf-8")


def test_add_entry_takes_a_str_project(tmp_path: Path) -> None:
    root = project(tmp_path)
    entry = edit.LogEntry(str(root), date(2026, 6, 19), "query path")
    edit.add_entry(entry, today=date(2026, 6, 19))
    assert "## 2026-06-19 — query path" in (root / "sessions" / "2026-06.md").read_text("utf-8")


@pytest.mark.parametrize(
    ("attempt", "rule", "override"),
    [
        (lambda c: edit.replace_once(c, "round 3", "round 4"), "anchor-count", "count=3"),
        (
            lambda c: edit.set_field(c, "Phase", "Build (round 4)"),
            "header-lag",
            "allow_header_lag=True",
        ),
        (
            lambda c: edit.replace_once(c, "Indexer rewritten", "Indexer done", max_lines=3),
            "max-lines",
            "max_lines=",
        ),
    ],
)
def test_a_refusal_names_the_keyword_that_would_pass(
    tmp_path: Path, attempt: Any, rule: str, override: str
) -> None:
    root = project(tmp_path)
    before = snapshot(root)
    with pytest.raises(edit.EditRefused) as refused:
        attempt(str(root / "CONTEXT.md"))
    assert snapshot(root) == before
    line = refused.value.one_line()
    assert "--" not in re.sub(r"`[^`]*`", "", line), line  # a command in backticks keeps its
    assert refused.value.rule == rule, line
    assert (refused.value.override or "").startswith(override), line


def test_a_bad_argument_names_the_keyword(tmp_path: Path) -> None:
    root = project(tmp_path)
    with pytest.raises(DoctorError) as raised:
        edit.set_field(root / "CONTEXT.md", "Bad:Name", "x")
    assert raised.value.problem.startswith("field='Bad:Name' is not a header field name")


def test_the_cli_keeps_its_flags(tmp_path: Path, doctor: Any) -> None:
    root = project(tmp_path)
    run: Run = doctor(
        "edit",
        "set-field",
        str(root / "CONTEXT.md"),
        "--field",
        "Phase",
        "--value",
        "Build (round 4)",
    )
    assert run.exit_code == 1 and "(override: --allow-header-lag)" in run.stderr, run.stderr
    assert CONTEXT in (root / "CONTEXT.md").read_text("utf-8")
