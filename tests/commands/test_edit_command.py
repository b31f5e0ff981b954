"""``context-doctor edit``: exit 0 written, 1 refused (one line, file untouched), 2 usage or file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import Doctor

NEWLINES = pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])

CONTEXT = """# Dial — Working Context

**Phase:** Rollout (wave 3)
**Status:** Active
**Last session:** 2026-06-17 (wave 3)

## Current State
Wave 3 is live.

*State as of: 2026-06-17 (wave 3)*
"""


def context_file(tmp_path: Path, nl: str) -> Path:
    path = tmp_path / "CONTEXT.md"
    path.write_bytes(CONTEXT.replace("\n", nl).encode())
    return path


REFUSED = [
    (["replace", "--anchor", "wave 9", "--replacement", "x"], "anchor-absent", None),
    (["replace", "--anchor", "wave 3", "--replacement", "x"], "anchor-count", "--count 3"),
    (["set-field", "--field", "Status", "--value", "Active"], "no-change", None),
    (
        ["set-field", "--field", "Status", "--value", "Paused", "--max-lines", "5"],
        "max-lines",
        "--max-lines 10",
    ),
    (["insert-before", "--anchor", "is live", "--text", "x\n"], "anchor-not-at-line-start", None),
    (
        ["insert-before", "--anchor", "## Current", "--text", "## Later"],
        "text-without-newline",
        None,
    ),
    (
        ["replace", "--anchor", "Wave 3 is live.\n", "--replacement", "Done."],
        "fused-boundary",
        None,
    ),
    (
        ["set-field", "--field", "Phase", "--value", "Rollout (wave 4)"],
        "header-lag",
        "--allow-header-lag",
    ),
    (
        ["set-field", "--field", "Last session", "--value", "2026-06-18 (wave 4)", "--whole-value"],
        "stale-body",
        "--allow-stale-body",
    ),
    (
        [
            "replace",
            "--anchor",
            "*State as of: 2026-06-17 (wave 3)*",
            "--replacement",
            "*State as of: 2026-06-18 (wave 4)*",
        ],
        "marker-without-review",
        "--state-reviewed",
    ),
]


@NEWLINES
@pytest.mark.parametrize(("args", "rule", "override"), REFUSED, ids=[r[1] for r in REFUSED])
def test_a_refusal_is_one_line_exit_1_and_leaves_the_file_as_it_was(
    doctor: Doctor, tmp_path: Path, nl: str, args: list[str], rule: str, override: str | None
) -> None:
    path = context_file(tmp_path, nl)
    before = path.read_bytes()
    for dry_run in ([], ["--dry-run"]):  # a dry run still refuses
        run = doctor("edit", args[0], str(path), *args[1:], *dry_run)
        assert run.exit_code == 1, run.stderr
        assert run.stdout == ""
        lines = run.stderr.splitlines()
        assert len(lines) == 1 and f"refused [{rule}]" in lines[0]
        assert (f"(override: {override})" in lines[0]) == (override is not None)
        assert path.read_bytes() == before


@NEWLINES
def test_a_success_writes_exactly_the_edit_and_names_the_body_state(
    doctor: Doctor, tmp_path: Path, nl: str
) -> None:
    path = context_file(tmp_path, nl)
    run = doctor("edit", "set-field", str(path), "--field", "Status", "--value", "Paused")
    assert run.exit_code == 0, run.stderr
    assert run.stdout == f"wrote {path} (as-of markers current)\n"
    assert path.read_bytes() == CONTEXT.replace("Active", "Paused").replace("\n", nl).encode()

    run = doctor(
        "edit",
        "set-field",
        str(path),
        "--field",
        "Last session",
        "--value",
        "2026-06-18 (wave 4)",
        "--whole-value",
        "--allow-stale-body",
    )
    assert (run.exit_code, run.stdout) == (0, f"wrote {path} (body lags)\n")

    run = doctor(
        "edit", "insert-before", str(path), "--anchor", "## Current", "--text", "## Log\n\n"
    )
    assert (run.exit_code, run.stdout) == (0, f"wrote {path} (body lags)\n")
    assert f"## Log{nl}{nl}## Current State{nl}".encode() in path.read_bytes()


def test_a_dry_run_prints_the_diff_and_writes_nothing(doctor: Doctor, tmp_path: Path) -> None:
    path = context_file(tmp_path, "\n")
    run = doctor(
        "edit",
        "replace",
        str(path),
        "--anchor",
        "Wave 3 is live.",
        "--replacement",
        "Wave 3 done.",
        "--dry-run",
    )
    assert run.exit_code == 0
    assert "-Wave 3 is live.\n+Wave 3 done.\n" in run.stdout
    assert run.stdout.endswith(f"would write {path} (dry run; as-of markers current)\n")
    assert path.read_text() == CONTEXT


def test_a_symlinked_target_is_refused(doctor: Doctor, tmp_path: Path) -> None:
    real = context_file(tmp_path, "\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    run = doctor("edit", "set-field", str(link), "--field", "Status", "--value", "Paused")
    assert run.exit_code == 1 and "refused [symlink]" in run.stderr
    assert real.read_text() == CONTEXT


@pytest.mark.parametrize(
    ("target", "args", "says"),
    [
        ("missing.md", ["--field", "Status", "--value", "x"], "missing.md"),
        (".", ["--field", "Status", "--value", "x"], "directory"),
        ("binary.md", ["--field", "Status", "--value", "x"], "binary"),
    ],
    ids=["missing", "directory", "binary"],
)
def test_a_file_the_editor_cannot_read_is_exit_2_naming_it(
    doctor: Doctor, tmp_path: Path, target: str, args: list[str], says: str
) -> None:
    (tmp_path / "binary.md").write_bytes(b"**Status:** a\x00\n")
    run = doctor("edit", "set-field", str(tmp_path / target), *args)
    assert run.exit_code == 2
    assert says in run.stderr and len(run.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["replace", "--anchor", "", "--replacement", "x"],
        ["replace", "--anchor", "Active", "--replacement", "x", "--count", "0"],
        ["insert-before", "--anchor", "", "--text", "x\n"],
        ["set-field", "--field", "Status", "--value", "x", "--max-lines", "0"],
        ["set-field", "--field", "Status"],
    ],
    ids=["empty-anchor", "count-0", "empty-insert-anchor", "max-lines-0", "no-value"],
)
def test_usage_errors_are_exit_2_and_touch_nothing(
    doctor: Doctor, tmp_path: Path, args: list[str]
) -> None:
    path = context_file(tmp_path, "\n")
    run = doctor("edit", args[0], str(path), *args[1:])
    assert run.exit_code == 2
    assert path.read_text() == CONTEXT


def test_every_edit_subcommand_lists_its_options(doctor: Doctor) -> None:
    for command in ("set-field", "replace", "insert-before"):
        help_text = doctor("edit", command, "--help").stdout
        for option in (
            "--max-lines",
            "--allow-header-lag",
            "--allow-stale-body",
            "--state-reviewed",
            "--dry-run",
        ):
            assert option in help_text


def test_every_override_a_refusal_names_is_an_option_of_its_verb(
    doctor: Doctor, tmp_path: Path
) -> None:
    from context_doctor.commands.edit import edit_group

    for args, _rule, override in REFUSED:
        if override is None:
            continue
        command = edit_group.commands[args[0]]
        flags = {flag for param in command.params for flag in getattr(param, "opts", [])}
        assert override.split()[0] in flags, (args[0], override)


@pytest.mark.parametrize(
    "command", ["set-field", "replace", "insert-before", "delete-line", "apply"]
)
def test_every_edit_verb_shows_a_worked_example(doctor: Doctor, command: str) -> None:
    help_text = doctor("edit", command, "--help").stdout
    assert "Example" in help_text and "context-doctor edit" in help_text
    assert "--allow-header-ahead" in help_text


# -- exact bytes in: `-` (stdin) and the --…-file twins -------------------------------


@NEWLINES
def test_stdin_and_file_twins_carry_exact_bytes_in_the_files_line_ending(
    doctor: Doctor, tmp_path: Path, nl: str
) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(f"# N{nl}{nl}## B{nl}".encode())
    text = b"a\t \r\nb  \n"
    run = doctor("edit", "insert-before", str(path), "--anchor", "## B", "--text", "-", input=text)
    assert run.exit_code == 0, run.stderr
    assert path.read_bytes() == f"# N{nl}{nl}a\t {nl}b  {nl}## B{nl}".encode()
    (tmp_path / "anchor.txt").write_bytes(b"a\t \n")
    (tmp_path / "new.txt").write_bytes(b"c\t\t\n")
    run = doctor(
        "edit",
        "replace",
        str(path),
        "--anchor-file",
        str(tmp_path / "anchor.txt"),
        "--replacement-file",
        str(tmp_path / "new.txt"),
    )
    assert run.exit_code == 0, run.stderr
    assert path.read_bytes() == f"# N{nl}{nl}c\t\t{nl}b  {nl}## B{nl}".encode()
    run = doctor(
        "edit",
        "set-field",
        str(context_file(tmp_path, nl)),
        "--field",
        "Status",
        "--value",
        "-",
        input=b"Paused\n",
    )
    assert run.exit_code == 0, run.stderr
    assert f"**Status:** Paused{nl}".encode() in (tmp_path / "CONTEXT.md").read_bytes()


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (["--anchor", "-", "--replacement", "x"], b"\xff\xfeActive", "not UTF-8"),
        (["--anchor", "-", "--replacement", "-"], b"Active", "stdin was already read"),
        (
            ["--anchor", "Active", "--anchor-file", "a.txt", "--replacement", "x"],
            b"",
            "cannot both",
        ),
        (["--replacement", "x"], b"", "missing option '--anchor'"),
        (["--anchor-file", "missing.txt", "--replacement", "x"], b"", "missing.txt"),
    ],
    ids=["not-utf8", "stdin-twice", "both", "neither", "missing-file"],
)
def test_text_that_cannot_be_read_is_exit_2_and_touches_nothing(
    doctor: Doctor, tmp_path: Path, args: list[str], stdin: bytes, says: str
) -> None:
    path = context_file(tmp_path, "\n")
    (tmp_path / "a.txt").write_text("Active")
    run = doctor("edit", "replace", str(path), *args, input=stdin, cwd=tmp_path)
    assert run.exit_code == 2
    assert says in run.stderr
    assert path.read_text() == CONTEXT


# -- edit apply ----------------------------------------------------------------------


def _edits(tmp_path: Path, edits: object) -> Path:
    path = tmp_path / "EDITS.json"
    path.write_text(json.dumps(edits))
    return path


@NEWLINES
def test_apply_writes_the_batch_and_names_the_body_state(
    doctor: Doctor, tmp_path: Path, nl: str
) -> None:
    path = context_file(tmp_path, nl)
    edits = _edits(
        tmp_path,
        [
            {
                "op": "set-field",
                "file": "CONTEXT.md",
                "field": "Last session",
                "value": "2026-06-18 (wave 4)",
                "whole_value": True,
            },
            {
                "op": "replace",
                "file": "CONTEXT.md",
                "anchor": "Wave 3 is live.\n\n*State as of: 2026-06-17 (wave 3)*",
                "replacement": "Wave 4 is live.\n\n*State as of: 2026-06-18 (wave 4)*",
            },
        ],
    )
    before = path.read_bytes()
    run = doctor("edit", "apply", "--edits", str(edits), "--dry-run", cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    assert "+*State as of: 2026-06-18 (wave 4)*" in run.stdout
    assert run.stdout.endswith("would write CONTEXT.md (as-of markers current) (dry run)\n")
    assert path.read_bytes() == before
    run = doctor("edit", "apply", "--edits", "-", input=edits.read_bytes(), cwd=tmp_path)
    assert (run.exit_code, run.stdout) == (0, "wrote CONTEXT.md (as-of markers current)\n")
    assert f"Wave 4 is live.{nl}".encode() in path.read_bytes()


@pytest.mark.parametrize(
    ("edits", "code", "says"),
    [
        ('{"op": "replace"}', 2, "not a list"),
        ("[1, 2", 2, "not JSON"),
        (b"\xff[]", 2, "not UTF-8"),
        (
            '[{"op": "replace", "file": "/etc/hostname", "anchor": "a", "replacement": "b"},'
            ' {"op": "replace", "file": "CONTEXT.md", "anchor": "a", "replacement": "b"}]',
            2,
            "outside the project",
        ),
        (
            '[{"op": "replace", "file": "CONTEXT.md", "anchor": "wave 3", "replacement": "x"}]',
            1,
            "refused [anchor-count]",
        ),
        (
            '[{"op": "replace", "file": "CONTEXT.md", "anchor": "Active", "replacement": "x"},'
            ' {"op": "set-field", "file": "CONTEXT.md", "field": "Status", "value": "y"}]',
            1,
            "refused [edits-overlap]",
        ),
        (
            json.dumps([{"op": "delete-line", "file": "CONTEXT.md", "anchor": "x"}] * 10_000),
            2,
            "10000 edits",
        ),
        (
            '[{"op": "set-field", "file": "CONTEXT.md", "field": "status", "value": "Paused"}]',
            1,
            "refused [field-case]",
        ),
    ],
    ids=["not-a-list", "not-json", "not-utf8", "outside", "refused", "overlap", "10000", "case"],
)
def test_apply_bad_input_is_one_line_and_every_file_is_byte_identical(
    doctor: Doctor, tmp_path: Path, edits: str | bytes, code: int, says: str
) -> None:
    path = context_file(tmp_path, "\n")
    target = tmp_path / "EDITS.json"
    target.write_bytes(edits if isinstance(edits, bytes) else edits.encode())
    run = doctor("edit", "apply", "--edits", str(target), cwd=tmp_path)
    assert run.exit_code == code
    assert says in run.stderr and len(run.stderr.splitlines()) == 1
    assert path.read_text() == CONTEXT


def test_apply_help_shows_the_docs_tested_example(doctor: Doctor) -> None:
    help_text = doctor("edit", "apply", "--help").stdout
    example_at = help_text.index("Example")
    shown = help_text[help_text.index("[", example_at) : help_text.index("]\n", example_at) + 1]
    page = (Path(__file__).resolve().parents[2] / "docs" / "editor.md").read_text()
    section = page[page.index("### A session in one write") :]
    example = section[section.index("```json\n") + 8 :]
    assert json.loads(shown) == json.loads(example[: example.index("```")])


def test_set_field_takes_the_seeds_file_option(doctor: Doctor, tmp_path: Path) -> None:
    path = context_file(tmp_path, "\n")
    run = doctor("edit", "set-field", "--file", str(path), "--field", "Status", "--value", "Paused")
    assert (run.exit_code, run.stdout) == (0, f"wrote {path} (as-of markers current)\n")
    assert path.read_text() == CONTEXT.replace("Active", "Paused")


@pytest.mark.parametrize(
    ("twice", "says"),
    [(True, "FILE given twice"), (False, "missing FILE")],
    ids=["both", "neither"],
)
def test_set_field_wants_file_exactly_once(
    doctor: Doctor, tmp_path: Path, twice: bool, says: str
) -> None:
    path = context_file(tmp_path, "\n")
    where = [str(path), "--file", str(path)] if twice else []
    run = doctor("edit", "set-field", *where, "--field", "Status", "--value", "Paused")
    assert run.exit_code == 2
    assert says in run.stderr and "--file" in run.stderr
    assert path.read_text() == CONTEXT
