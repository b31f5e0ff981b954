"""The JSON report is exactly ``json.dumps(report.to_json(), indent=2, ensure_ascii=False)``.

``report_json`` writes the findings itself (faster than the standard library's
indenting encoder); these tests hold it to the plain rendering byte for byte,
whatever the findings hold: fixes, control characters, quotes, non-ASCII text,
undecodable bytes (lone surrogates), none at all.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_doctor.render.jsonout import _BLOCK, report_json, report_json_bytes
from context_doctor.report.findings import (
    AppendLine,
    Applicability,
    Finding,
    Fix,
    SetEntryField,
    Severity,
)
from context_doctor.report.report import Coverage, Report, SourceSummary


def plain(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def a_report(findings: list[Finding], source_name: str = "kb") -> Report:
    return Report(
        today=date(2025, 12, 1),
        readiness="local",
        generated_at="2025-12-01T00:00:00Z",
        sources=[SourceSummary(source_name, "/repo", "projects", 2)],
        projects_audited=2,
        findings=findings,
        coverage={"a-check": Coverage(2, 1, Counter({"why \x1b": 1}))},
        freshness={"total": 1, "files": [{"slug": "s", "pct": 50}]},
    )


def a_finding(message: str = "m", fix: Fix | None = None, line: int | None = 3) -> Finding:
    return Finding(
        "a-check", Severity.WARNING, "kb", "p1", "projects/p1/CONTEXT.md", line, message, "r", fix
    )


FIX = Fix(
    "projects/index.yaml",
    Applicability.SAFE,
    "set status",
    (SetEntryField(1, "p1", "status", True), AppendLine('x "quoted"')),
)


@pytest.mark.parametrize(
    "findings",
    [
        [],
        [a_finding()],
        [a_finding(fix=FIX), a_finding(line=None), a_finding('tab\t "q" \\ é ✓ \x7f \u2028')],
        [a_finding("undecodable \udcff byte")],
    ],
    ids=["none", "one", "fix-and-escapes", "surrogate"],
)
def test_the_report_is_the_plain_rendering(findings: list[Finding]) -> None:
    report = a_report(findings)
    assert report_json(report) == plain(report)


def test_an_undecodable_name_outside_the_findings_is_cleaned_too() -> None:
    report = a_report([a_finding()], source_name="kb-\udcfe")
    text = report_json(report)
    assert text == plain(report)
    assert "\\xfe" in text
    text.encode("utf-8")  # valid UTF-8


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(), st.one_of(st.none(), st.integers(-5, 10**12)), st.booleans()),
        max_size=5,
    )
)
def test_any_findings_render_as_json_would(cases: list[tuple[str, int | None, bool]]) -> None:
    findings = [a_finding(text, FIX if fixed else None, line) for text, line, fixed in cases]
    report = a_report(findings)
    assert report_json(report) == plain(report)


@pytest.mark.parametrize("surrogate_at", [None, 0, _BLOCK + 5])
def test_the_bytes_are_the_plain_rendering_across_blocks(surrogate_at: int | None) -> None:
    """Encoded a block of findings at a time: the UTF-8 of the plain rendering, an
    undecodable byte in any block cleaned as the plain way cleans it."""
    findings = [a_finding(f"finding {n} é") for n in range(2 * _BLOCK + 3)]
    if surrogate_at is not None:
        findings[surrogate_at] = a_finding("undecodable \udcff byte")
    report = a_report(findings)
    assert report_json_bytes(report) == plain(report).encode("utf-8")
