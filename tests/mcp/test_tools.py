"""The MCP tools without the protocol: refusals name MCP parameters, never CLI flags."""

from __future__ import annotations

import pytest

from context_doctor.mcp.tools import for_agent, trim


@pytest.mark.parametrize(
    ("cli", "agent"),
    [
        (
            "refused [stale-body]: the body is older (override: --allow-stale-body)",
            "refused [stale-body]: the body is older (override: overrides.allow_stale_body=true)",
        ),
        ("(override: --max-lines 161)", "(override: overrides.max_lines=161)"),
        ("(override: --count 2)", "(override: edits[].count=2)"),
        (
            "use `context-doctor edit replace CONTEXT.md --anchor 'a' --replacement 'b'`",
            "use `edit op=replace file=CONTEXT.md edits[].anchor='a' edits[].replacement='b'`",
        ),
        ("pass allow_stale_body=True", "pass overrides.allow_stale_body=true"),
        ("with --set-header", "with set_header=true"),
    ],
)
def test_refusals_name_mcp_parameters(cli: str, agent: str) -> None:
    assert for_agent(cli) == agent


def test_trim_keeps_defects_first_and_the_verdict() -> None:
    findings = [
        {"check": "a", "severity": "warning"},
        {"check": "b", "severity": "defect"},
        {"check": "c", "severity": "warning"},
        {"check": "d", "severity": "defect"},
    ]
    data = {"ok": False, "exit": 1, "defects": 2, "warnings": 2, "findings": findings}
    data["coverage"] = {"a": {}, "b": {}}
    cut = trim(data, min_severity="warning", max_findings=3, include_coverage=True)
    assert [one["check"] for one in cut["findings"]] == ["a", "b", "d"]  # report order kept
    assert cut["omitted"] == {
        "findings": 1,
        "coverage": 0,
        "why": "left out: 1 finding past max_findings=3 (warnings first)",
    }
    assert (cut["defects"], cut["warnings"], cut["ok"]) == (2, 2, False)
    whole = trim(data, min_severity="warning", max_findings=10, include_coverage=True)
    assert "omitted" not in whole and whole["findings"] == findings
