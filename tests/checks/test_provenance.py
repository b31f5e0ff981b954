"""Provenance (docs/checks.md): attribution lines where the seed puts them, in the seed's form.

Scenario ``fixtures/scenarios/hygiene.yaml`` (pv- projects); the line parser itself is
tested directly, since it is the one place the fields are read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Run
from support import assert_not_applicable, assert_quiet, line_of, scenario_audit_fixtures

from context_doctor.model.attribution import parse_attribution

TODAY = "2026-06-20"
root, corpus, one = scenario_audit_fixtures("hygiene", TODAY)

FULL = (
    "*Attribution — agent: Claude Code · model: claude-fable-5 · effort: max · "
    "scope: orchestration · verified: tests green · ref: b7c8d9e*"
)


# -- the parser ------------------------------------------------------------------------------


def test_parser_reads_the_six_fields() -> None:
    parsed = parse_attribution(FULL, 7)
    assert parsed is not None
    assert parsed.line == 7
    assert parsed.fields == {
        "agent": "Claude Code",
        "model": "claude-fable-5",
        "effort": "max",
        "scope": "orchestration",
        "verified": "tests green",
        "ref": "b7c8d9e",
    }
    assert (parsed.missing, parsed.empty, parsed.duplicated) == ((), (), ())


@pytest.mark.parametrize(
    "line",
    [
        "Attribution matters to us.",  # prose
        "*Attribution is optional in single-agent projects.*",  # italic prose, no fields
        "**Status:** Active (via Codex)",
        "*Attribution — " + "x" * 5000 + "*",  # bounded: too long to be a field list
    ],
)
def test_parser_ignores_what_is_not_an_attribution_line(line: str) -> None:
    parsed = parse_attribution(line, 1)
    assert parsed is None or not parsed.is_full


def test_parser_keeps_the_first_of_a_repeated_field_and_names_it() -> None:
    parsed = parse_attribution(
        "*Attribution - agent: A · agent: B · model: unknown · model: x · ref:*", 1
    )
    assert parsed is not None
    assert parsed.fields["agent"] == "A"
    assert parsed.duplicated == ("agent", "model")
    assert parsed.missing == ("effort", "scope", "verified")
    assert parsed.empty == ("ref",)


# -- attribution-placement ---------------------------------------------------------------------


def test_full_attribution_lines_outside_sessions_are_reported(corpus: Run, root: Path) -> None:
    found = {
        (f["path"], f["line"]) for f in corpus.findings("attribution-placement", "pv-placement")
    }
    context = "projects/pv-placement/CONTEXT.md"
    reference = "projects/pv-placement/REFERENCE.md"
    assert found == {
        (context, line_of(root, context, "agent: Codex CLI")),
        (reference, line_of(root, reference, "_Attribution")),
    }
    for finding in corpus.findings("attribution-placement", "pv-placement"):
        assert finding["severity"] == "warning"
        assert "provenance belongs in sessions/" in finding["message"]


def test_via_tag_session_logs_and_code_examples_are_quiet(one: Callable[[str], Run]) -> None:
    """pv-format keeps its attribution lines in sessions/, where they belong."""
    assert_quiet(one("pv-format"), "attribution-placement")
    assert_quiet(one("hy-ok"), "attribution-placement")


# -- attribution-format ----------------------------------------------------------------------------


def test_incomplete_attribution_lines_are_reported(corpus: Run, root: Path) -> None:
    log = "projects/pv-format/sessions/2026-06.md"
    found = {f["line"]: f["message"] for f in corpus.findings("attribution-format", "pv-format")}
    fields = "(fields: agent, model, effort, scope, verified, ref)"
    assert found == {
        line_of(root, log, "agent: Codex CLI"): f"attribution line: missing effort {fields}",
        line_of(root, log, "agent: Cursor"): (
            f"attribution line: empty model; repeated effort {fields}"
        ),
    }


def test_unknown_values_and_fenced_examples_are_accepted(one: Callable[[str], Run]) -> None:
    assert_quiet(one("hy-ok"), "attribution-format")


def test_attribution_format_skipped_without_a_log(one: Callable[[str], Run]) -> None:
    assert_not_applicable(one("pv-placement"), "attribution-format", "no log")
