"""The fail-closed editor (context_doctor.edit): every refusal leaves the file byte-identical.

Each rule is exercised on an LF and a CRLF copy of the same file; every success
reads back exactly the intended bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from context_doctor import edit
from context_doctor.errors import DoctorError

NEWLINES = pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])

CONTEXT = """# Atlas — Working Context

**Phase:** Build (round 3)
**Status:** Active — search index rewrite
**Last session:** 2026-06-18 (round 3)

## Current State
- Indexer rewritten; query path next.

*State as of: 2026-06-18 (round 3)*

## What's Next
1. [ ] Port the query path (as of 2026-06-18)

*State as of: 2026-06-18 (round 3)*
"""


def write(tmp_path: Path, text: str, nl: str, name: str = "CONTEXT.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.replace("\n", nl).encode("utf-8"))
    return path


def native(text: str, nl: str) -> bytes:
    return text.replace("\n", nl).encode("utf-8")


Edit = Callable[[Path], object]

REFUSALS: list[tuple[str, str, Edit]] = [
    ("replace-absent", "anchor-absent", lambda p: edit.replace_once(p, "Round 99", "x")),
    ("field-absent", "anchor-absent", lambda p: edit.set_field(p, "Owner", "me")),
    ("insert-absent", "anchor-absent", lambda p: edit.insert_before(p, "## Nope", "x\n")),
    ("replace-count", "anchor-count", lambda p: edit.replace_once(p, "*State as of", "x")),
    (
        "replace-count-declared",
        "anchor-count",
        lambda p: edit.replace_once(p, "Indexer", "Index", count=2),
    ),
    ("insert-count", "anchor-count", lambda p: edit.insert_before(p, "*State", "x\n")),
    ("no-change", "no-change", lambda p: edit.replace_once(p, "Active", "Active")),
    (
        "same-field",
        "no-change",
        lambda p: edit.set_field(p, "Status", "Active — search index rewrite"),
    ),
    (
        "max-lines",
        "max-lines",
        lambda p: edit.insert_before(p, "## What's Next", "one\ntwo\n", max_lines=16),
    ),
    (
        "mid-line",
        "anchor-not-at-line-start",
        lambda p: edit.insert_before(p, "query path next", "x\n"),
    ),
    (
        "no-final-newline",
        "text-without-newline",
        lambda p: edit.insert_before(p, "## What's Next", "## Later"),
    ),
    (
        "fuse-next-line",
        "fused-boundary",
        lambda p: edit.replace_once(p, "- Indexer rewritten; query path next.\n", "- Done."),
    ),
    (
        "fuse-previous-line",
        "fused-boundary",
        lambda p: edit.replace_once(p, "\n- Indexer rewritten", "- Indexer"),
    ),
    (
        "fuse-fragments",
        "fused-boundary",
        lambda p: edit.replace_once(p, "rewritten; query path next.\n\n*State", "x"),
    ),
    (
        "header-lag",
        "header-lag",
        lambda p: edit.set_field(p, "Phase", "Build (round 4)"),
    ),
    (
        "stale-body",
        "stale-body",
        lambda p: edit.set_field(p, "Last session", "2026-06-19 (round 4)", whole_value=True),
    ),
    (
        "stale-body-same-day",
        "stale-body",
        lambda p: edit.set_field(p, "Last session", "2026-06-18 (round 4)", whole_value=True),
    ),
    (
        "marker-without-review",
        "marker-without-review",
        lambda p: edit.replace_once(
            p,
            "\n\n*State as of: 2026-06-18 (round 3)*\n\n## What's",
            "\n\n*State as of: 2026-06-19 (round 4)*\n\n## What's",
        ),
    ),
    (
        "value-unreadable",
        "value-unreadable",
        lambda p: edit.set_field(p, "Status", "Active **Owner:** me"),
    ),
]


@NEWLINES
@pytest.mark.parametrize(
    ("rule", "attempt"),
    [(rule, attempt) for _, rule, attempt in REFUSALS],
    ids=[r[0] for r in REFUSALS],
)
def test_every_refusal_leaves_the_file_byte_identical(
    tmp_path: Path, nl: str, rule: str, attempt: Edit
) -> None:
    path = write(tmp_path, CONTEXT, nl)
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        attempt(path)
    assert refused.value.rule == rule
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]  # no temp file left behind


@NEWLINES
def test_repeated_adjacent_matches_that_would_fuse_are_refused(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, "- x\n- x\nend\n", nl, "notes.md")
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.replace_once(path, "- x\n", "- y", count=2)
    assert refused.value.rule == "fused-boundary"
    assert path.read_bytes() == before


def test_a_match_splitting_a_crlf_break_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "alpha\nbeta\n", "\r\n", "notes.md")
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.replace_once(path, "alpha\r", "ALPHA\r")
    assert refused.value.rule == "fused-boundary"
    assert "CRLF" in refused.value.message
    assert path.read_bytes() == before


@NEWLINES
def test_the_default_budget_of_a_context_file_is_150_lines(tmp_path: Path, nl: str) -> None:
    body = "# P\n\n**Status:** Active\n" + "".join(f"line {n}\n" for n in range(147))
    path = write(tmp_path, body, nl)
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.insert_before(path, "line 0", "one more\n")
    assert refused.value.rule == "max-lines"
    assert "150-line budget" in refused.value.message
    assert path.read_bytes() == before
    edit.insert_before(path, "line 0", "one more\n", max_lines=151)
    assert path.read_bytes().count(nl.encode()) == 151


@NEWLINES
def test_a_context_file_that_reads_completed_gets_80_lines(tmp_path: Path, nl: str) -> None:
    body = "# P\n\n**Status:** Active\n" + "".join(f"line {n}\n" for n in range(78))
    path = write(tmp_path, body, nl)
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.set_field(path, "Status", "Completed")
    assert refused.value.rule == "max-lines"
    assert "80-line budget" in refused.value.message
    assert path.read_bytes() == before


def test_the_budget_refusal_says_when_the_file_is_already_over(tmp_path: Path) -> None:
    path = write(tmp_path, "".join(f"line {n}\n" for n in range(10)), "\n", "notes.md")
    with pytest.raises(edit.EditRefused) as refused:
        edit.replace_once(path, "line 3\n", "", max_lines=5)
    assert "9 lines, over the 5-line budget (it is already 10)" in refused.value.message


def test_a_symlinked_target_is_refused(tmp_path: Path) -> None:
    real = write(tmp_path, CONTEXT, "\n", "real.md")
    link = tmp_path / "CONTEXT.md"
    link.symlink_to(real)
    with pytest.raises(edit.EditRefused) as refused:
        edit.set_field(link, "Status", "Paused")
    assert refused.value.rule == "symlink"
    assert real.read_text() == CONTEXT and link.is_symlink()


def test_an_edit_refusal_is_a_write_refusal_naming_its_override() -> None:
    from context_doctor.write import WriteRefused

    refused = edit.EditRefused("header-lag", "Phase ahead")
    assert isinstance(refused, WriteRefused)
    assert refused.one_line() == "refused [header-lag]: Phase ahead (override: --allow-header-lag)"
    assert edit.EditRefused("anchor-absent", "gone").override is None


# -- exit-2 material: the editor cannot even start ---------------------------------


@pytest.mark.parametrize(
    ("make", "attempt", "says"),
    [
        (lambda d: d / "missing.md", lambda p: edit.set_field(p, "Phase", "x"), "does not exist"),
        (lambda d: d, lambda p: edit.set_field(p, "Phase", "x"), ""),
        (
            lambda d: _bytes(d / "bin.md", b"**Phase:** x\x00\n"),
            lambda p: edit.set_field(p, "Phase", "y"),
            "binary",
        ),
        (
            lambda d: _bytes(d / "latin.md", b"**Phase:** caf\xe9\n"),
            lambda p: edit.set_field(p, "Phase", "y"),
            "UTF-8",
        ),
        (
            lambda d: _bytes(d / "a.md", b"text\n"),
            lambda p: edit.replace_once(p, "", "x"),
            "anchor is empty",
        ),
        (
            lambda d: _bytes(d / "a.md", b"text\n"),
            lambda p: edit.insert_before(p, "", "x\n"),
            "anchor is empty",
        ),
        (
            lambda d: _bytes(d / "a.md", b"text\n"),
            lambda p: edit.replace_once(p, "text", "x", count=0),
            "count=0",
        ),
        (
            lambda d: _bytes(d / "a.md", b"**Phase:** x\n"),
            lambda p: edit.set_field(p, "Phase", "two\nlines"),
            "line break",
        ),
    ],
    ids=[
        "missing",
        "directory",
        "binary",
        "not-utf8",
        "empty-anchor",
        "empty-insert-anchor",
        "count-0",
        "multiline-value",
    ],
)
def test_inputs_the_editor_cannot_work_on_are_doctor_errors(
    tmp_path: Path, make: Callable[[Path], Path], attempt: Edit, says: str
) -> None:
    path = make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(DoctorError) as error:
        attempt(path)
    assert says in error.value.problem
    if not path.is_file() or b"\x00" in path.read_bytes():
        assert str(path) in error.value.problem  # a file-level problem names the path
    if before is not None:
        assert path.read_bytes() == before


def _bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# -- successes read back exactly the intended bytes --------------------------------


@NEWLINES
def test_set_field_rewrites_only_the_value(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, CONTEXT, nl)
    result = edit.set_field(path, "Status", "Paused — waiting on review")
    expected = CONTEXT.replace("Active — search index rewrite", "Paused — waiting on review")
    assert path.read_bytes() == native(expected, nl) == result.after
    assert result.written and result.body_state == edit.BODY_CURRENT


STATUS = """# Status

Some prose first.

- **Last updated:** 2026-07-20 (round 2)
> _Owner: Ana_

## Last Session: 2026-04-08
"""


@NEWLINES
@pytest.mark.parametrize(
    ("field", "value", "old", "new"),
    [
        ("Last updated", "2026-08-01", "2026-07-20 (round 2)", "2026-08-01 (round 2)"),
        ("Owner", "Bo", "> _Owner: Ana_", "> _Owner: Bo_"),
        (
            "Last Session",
            "2026-04-20",
            "## Last Session: 2026-04-08",
            "## Last Session: 2026-04-20",
        ),
    ],
    ids=["list-item", "quoted-emphasis", "heading"],
)
def test_set_field_edits_a_field_read_anywhere(
    tmp_path: Path, nl: str, field: str, value: str, old: str, new: str
) -> None:
    """docs/layouts.md: a layout's field outside the header block keeps its markers and emphasis."""
    path = write(tmp_path, STATUS, nl, "STATUS.md")
    edit.set_field(path, field, value)
    assert path.read_bytes() == native(STATUS.replace(old, new), nl)


@NEWLINES
@pytest.mark.parametrize(
    ("field", "value", "rule"),
    [
        ("Last session", "2026-04-20", "field-case"),
        ("Phase", "x", "anchor-absent"),
        ("Owner", "Ana", "no-change"),
        ("Last updated", "soon", "date-led-value"),
    ],
)
def test_set_field_refusals_on_fields_read_anywhere_leave_the_file_byte_identical(
    tmp_path: Path, nl: str, field: str, value: str, rule: str
) -> None:
    path = write(tmp_path, STATUS.replace("- **Last updated:**", "- Last updated:"), nl, "S.md")
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.set_field(path, field, value)
    assert refused.value.rule == rule
    assert path.read_bytes() == before


@NEWLINES
def test_a_whole_header_advance_with_its_sections_succeeds(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, CONTEXT, nl)
    edit.replace_once(
        path,
        "- Indexer rewritten; query path next.\n\n*State as of: 2026-06-18 (round 3)*\n",
        "- Query path ported.\n\n*State as of: 2026-06-19 (round 4)*\n",
    )
    edit.replace_once(
        path,
        "1. [ ] Port the query path (as of 2026-06-18)\n\n*State as of: 2026-06-18 (round 3)*\n",
        "1. [ ] Ship it (as of 2026-06-19)\n\n*State as of: 2026-06-19 (round 4)*\n",
    )
    result = edit.set_field(path, "Last session", "2026-06-19 (round 4)", whole_value=True)
    assert result.body_state == edit.BODY_CURRENT
    result = edit.set_field(path, "Phase", "Build (round 4)")
    expected = (
        CONTEXT.replace("round 3", "round 4")
        .replace("2026-06-18", "2026-06-19")
        .replace("- Indexer rewritten; query path next.", "- Query path ported.")
        .replace("Port the query path", "Ship it")
    )
    assert path.read_bytes() == native(expected, nl)
    assert result.body_state == edit.BODY_CURRENT


@NEWLINES
def test_overrides_record_the_claim_and_the_success_names_the_body_state(
    tmp_path: Path, nl: str
) -> None:
    path = write(tmp_path, CONTEXT, nl)
    result = edit.set_field(
        path, "Last session", "2026-06-19 (round 4)", whole_value=True, allow_stale_body=True
    )
    assert result.body_state == edit.BODY_LAGS
    result = edit.set_field(path, "Phase", "Build (round 5)", allow_header_lag=True)
    assert b"**Phase:** Build (round 5)" + nl.encode() in path.read_bytes()
    reviewed = edit.replace_once(
        path,
        "*State as of: 2026-06-18 (round 3)*\n\n## What's",
        "*State as of: 2026-06-19 (round 4)*\n\n## What's",
        state_reviewed=True,
    )
    assert reviewed.body_state == edit.BODY_LAGS  # What's Next still says round 3


@NEWLINES
def test_whole_line_deletion_and_restructuring_inside_the_anchor_are_allowed(
    tmp_path: Path, nl: str
) -> None:
    path = write(tmp_path, "# N\nkeep\ndrop\nkeep too\nab\ncd\n", nl, "notes.md")
    edit.replace_once(path, "drop\n", "")
    edit.replace_once(path, "ab\ncd", "AB CD")
    edit.replace_once(path, "AB", "A\nB")
    assert path.read_bytes() == native("# N\nkeep\nkeep too\nA\nB CD\n", nl)


@NEWLINES
def test_insert_before_puts_whole_lines_before_the_anchor(tmp_path: Path, nl: str) -> None:
    log = "# June\n\n## 2026-06-20 — later\n"
    path = write(tmp_path, log, nl, "2026-06.md")
    result = edit.insert_before(path, "## 2026-06-20", "## 2026-06-19 — review\nDone.\n\n")
    expected = "# June\n\n## 2026-06-19 — review\nDone.\n\n## 2026-06-20 — later\n"
    assert path.read_bytes() == native(expected, nl)
    assert result.body_state == edit.BODY_UNVERIFIABLE


def test_a_bare_lf_stands_for_crlf_only_in_an_all_crlf_file(tmp_path: Path) -> None:
    crlf = write(tmp_path, "a\nb\n", "\r\n", "crlf.md")
    edit.insert_before(crlf, "b", "inserted\n")
    assert crlf.read_bytes() == b"a\r\ninserted\r\nb\r\n"
    mixed = tmp_path / "mixed.md"
    mixed.write_bytes(b"a\r\nb\nc\n")
    edit.insert_before(mixed, "c", "inserted\n")
    assert mixed.read_bytes() == b"a\r\nb\ninserted\nc\n"


def test_a_byte_order_mark_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_bytes(b"\xef\xbb\xbf**Status:** Active\n")
    edit.set_field(path, "Status", "Paused")
    assert path.read_bytes() == b"\xef\xbb\xbf**Status:** Paused\n"


def test_an_empty_field_gets_its_value_after_one_space(tmp_path: Path) -> None:
    path = write(tmp_path, "**Phase:**\n**Status:** Active\n", "\n", "notes.md")
    edit.set_field(path, "Phase", "Build")
    assert path.read_text() == "**Phase:** Build\n**Status:** Active\n"


def test_a_dry_run_writes_nothing_and_returns_the_diff(tmp_path: Path) -> None:
    path = write(tmp_path, CONTEXT, "\n")
    result = edit.set_field(path, "Status", "Paused", dry_run=True)
    assert path.read_text() == CONTEXT and not result.written
    assert "-**Status:** Active — search index rewrite\n+**Status:** Paused\n" in result.diff()
    with pytest.raises(edit.EditRefused):
        edit.replace_once(path, "not there", "x", dry_run=True)


def test_the_body_state_names_markers_that_lag_or_are_missing(tmp_path: Path) -> None:
    path = write(tmp_path, CONTEXT.replace("*State as of: 2026-06-18 (round 3)*\n", ""), "\n")
    result = edit.set_field(path, "Status", "Active")
    assert result.body_state == edit.BODY_UNVERIFIABLE


# -- the rules that keep every word and every structure ------------------

REAL = """# Parser — Working Context

**Phase:** Build (round 2)
**Status:** Active — parser
**Last session:** 2026-04-15 — shipped the parser **Open items added:** two
**Owner:** Ana

## Current State
| Part | State |
|---|---|
| lexer | done |
| parser \\| printer | in review |

*State as of: 2026-04-15*
"""

DATE_LED = """# P

**Status:** Active
**Last session:** 2026-04-15 — shipped the parser
**Owner:** Ana

## Notes
Plain.
"""

BLOCK = """# P

<!-- synthesis-current-state:start -->
**Phase:** Build
**Status:** Active
**Last session:** 2026-04-15
**Accepted baseline:** none recorded
**Controlling plan:** [plan.md](plan.md)
**Next actions:**
- ship it
<!-- synthesis-current-state:end -->

## Notes
Plain.
"""

NEW_RULES: list[tuple[str, str, str, Edit]] = [
    (
        "shares-line",
        REAL,
        "field-shares-line",
        lambda p: edit.set_field(p, "Last session", "2026-04-16"),
    ),
    (
        "duplicated",
        DATE_LED + "",
        "field-duplicated",
        lambda p: edit.set_field(p, "Owner", "Bo"),
    ),
    ("case", DATE_LED, "field-case", lambda p: edit.set_field(p, "last session", "2026-04-16")),
    (
        "date-led",
        DATE_LED,
        "date-led-value",
        lambda p: edit.set_field(p, "Last session", "2026-04-16 — new work"),
    ),
    (
        "row-cells",
        REAL,
        "table-broken",
        lambda p: edit.replace_once(p, "| lexer | done |", "| lexer | done | yes |"),
    ),
    (
        "escaped-pipe-cells",
        REAL,
        "table-broken",
        lambda p: edit.replace_once(p, "parser \\| printer", "parser | printer"),
    ),
    ("delimiter-cut", REAL, "table-broken", lambda p: edit.delete_line(p, "|---|")),
    (
        "header-cells",
        REAL,
        "table-broken",
        lambda p: edit.replace_once(p, "| Part | State |", "| Part | State | Who |"),
    ),
    ("block-field", BLOCK, "generated-block", lambda p: edit.set_field(p, "Phase", "Ship")),
    ("block-action", BLOCK, "generated-block", lambda p: edit.delete_line(p, "- ship it")),
    (
        "block-marker",
        BLOCK,
        "generated-block",
        lambda p: edit.delete_line(p, "<!-- synthesis-current-state:end"),
    ),
    ("delete-absent", DATE_LED, "anchor-absent", lambda p: edit.delete_line(p, "## Gone")),
    ("delete-mid-line", DATE_LED, "anchor-not-at-line-start", lambda p: edit.delete_line(p, "Ana")),
    ("delete-count", DATE_LED, "anchor-count", lambda p: edit.delete_line(p, "**")),
    ("insert-count", DATE_LED, "anchor-count", lambda p: edit.insert_before(p, "**", "x\n")),
]


@NEWLINES
@pytest.mark.parametrize(
    ("text", "rule", "attempt"),
    [(text, rule, attempt) for _, text, rule, attempt in NEW_RULES],
    ids=[r[0] for r in NEW_RULES],
)
def test_the_structure_rules_refuse_and_leave_the_file_byte_identical(
    tmp_path: Path, nl: str, text: str, rule: str, attempt: Edit
) -> None:
    if rule == "field-duplicated":
        text = text.replace("**Owner:** Ana\n", "**Owner:** Ana\n**Owner:** Bo\n")
    if rule == "field-case":
        text = text.replace("**Last session:**", "**Last Session:**")
    path = write(tmp_path, text, nl)
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        attempt(path)
    assert refused.value.rule == rule, refused.value.one_line()
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


@NEWLINES
def test_the_real_shaped_header_keeps_every_word(tmp_path: Path, nl: str) -> None:
    """A header line with two fields and a date-led value with its summary."""
    path = write(tmp_path, REAL, nl)
    before = path.read_bytes()
    with pytest.raises(edit.EditRefused) as refused:
        edit.set_field(path, "Last session", "2026-04-16")
    assert "`**Last session:**`, `**Open items added:**`" in refused.value.message
    assert "context-doctor edit replace" in (refused.value.remedy or "")
    assert path.read_bytes() == before
    # The replace it names changes that field's text and keeps the other field.
    edit.replace_once(
        path,
        "**Last session:** 2026-04-15 — shipped the parser",
        "**Last session:** 2026-04-16 — shipped the printer",
        allow_stale_body=True,
    )
    assert (
        b"**Last session:** 2026-04-16 - shipped the printer **Open items added:** two".replace(
            b" - ", " — ".encode()
        )
        in path.read_bytes()
    )


@NEWLINES
def test_a_bare_date_keeps_the_text_after_a_date_led_value(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, DATE_LED, nl)
    edit.set_field(path, "Last session", "2026-04-18")
    expected = DATE_LED.replace("2026-04-15 — shipped", "2026-04-18 — shipped")
    assert path.read_bytes() == native(expected, nl)
    edit.set_field(path, "Last session", "2026-04-19 — the printer", whole_value=True)
    assert b"**Last session:** 2026-04-19 \xe2\x80\x94 the printer" + nl.encode() in (
        path.read_bytes()
    )


@NEWLINES
def test_delete_line_removes_whole_lines_and_insert_before_counts(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, DATE_LED, nl)
    edit.delete_line(path, "**Owner:**")
    assert path.read_bytes() == native(DATE_LED.replace("**Owner:** Ana\n", ""), nl)
    listed = write(tmp_path, "- a\n- b\n", nl, "list.md")
    edit.insert_before(listed, "- ", "> note\n", count=2)
    assert listed.read_bytes() == native("> note\n- a\n> note\n- b\n", nl)


def test_a_table_with_escaped_pipes_is_edited_cell_for_cell(tmp_path: Path) -> None:
    path = write(tmp_path, REAL, "\n")
    edit.replace_once(path, "| parser \\| printer | in review |", "| parser \\| printer | done |")
    assert "| parser \\| printer | done |" in path.read_text()


@NEWLINES
def test_text_takes_the_files_line_ending_whatever_it_arrives_with(tmp_path: Path, nl: str) -> None:
    path = write(tmp_path, "# N\n\n## B\n", nl, "notes.md")
    edit.insert_before(path, "## B\r\n", "a\t \r\nb  \n")
    assert path.read_bytes() == native("# N\n\na\t \nb  \n## B\n", nl)


# Refusal rules whose LF/CRLF byte-identical tests live beside the module that raises them.
ELSEWHERE = {
    "header-ahead-of-log": "test_apply.py",
    "edits-overlap": "test_apply.py",
    "pending-batch": "test_apply.py",
    "date-in-future": "test_log.py",
    "duplicate-entry": "test_log.py",
    "index-unreadable": "test_log.py",
    "index-unwritable": "test_log.py",
    "row-label": "test_log.py",
}


def test_every_refusal_rule_has_a_byte_identical_test_on_lf_and_crlf() -> None:
    """Set coverage: a new rule in the editor fails here until it has its survival test."""
    package = Path(edit.__file__).parent / "editor"
    raised = {
        rule
        for name in ("edit.py", "gates.py", "apply.py", "log.py")
        for rule in re.findall(r'EditRefused\(\s*"([a-z-]+)"', (package / name).read_text())
    }
    covered = {rule for _, rule, _ in REFUSALS} | {rule for _, _, rule, _ in NEW_RULES}
    here = Path(__file__).parent
    for rule, module in ELSEWHERE.items():
        text = (here / module).read_text()
        assert f'"{rule}"' in text and "NEWLINES" in text, (rule, module)
    assert raised - covered - set(ELSEWHERE) == set()
    assert len(raised) >= 20
