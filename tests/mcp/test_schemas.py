"""The MCP tools' schemas follow the protocol's conventions; a bad call is one line (docs/surfaces.md)."""

from __future__ import annotations

from typing import Any

import pytest

from context_doctor.checks.registry import GROUPS, load_checks
from context_doctor.mcp.schemas import DATE, TOOL_SCHEMAS, check_output_schema, first_problem


def parameters(schema: dict[str, Any], where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every parameter (and nested key) of a schema, with its path."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, sub in schema.get("properties", {}).items():
        path = f"{where}.{name}" if where else name
        found.append((path, sub))
        found += parameters(sub, path)
        for branch in sub.get("items", {}).get("oneOf", []):
            found += parameters(branch, f"{path}[{branch['title']}]")
    return found


@pytest.mark.parametrize("tool", sorted(TOOL_SCHEMAS))
def test_every_parameter_is_described_and_closed(tool: str) -> None:
    schema = TOOL_SCHEMAS[tool]()
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    for path, sub in parameters(schema):
        assert sub.get("description"), f"{tool}: {path} has no description"
        if path.split(".")[-1] in ("today", "date"):
            assert sub["pattern"] == DATE, path
        if sub.get("type") == "object":
            assert sub["additionalProperties"] is False, path


def test_closed_sets_are_enums() -> None:
    check = TOOL_SCHEMAS["check"]()["properties"]
    assert check["readiness"]["enum"] == ["local", "remote"]
    assert check["min_severity"]["enum"] == ["warning", "defect"]
    names = set(check["select"]["items"]["enum"])
    assert set(load_checks()) <= names
    assert set(GROUPS) <= names and "freshness" in names  # groups and their aliases
    assert check["ignore"]["items"]["enum"] == check["select"]["items"]["enum"]
    assert set(TOOL_SCHEMAS["explain"]()["properties"]["name"]["enum"]) == names
    items = TOOL_SCHEMAS["edit"]()["properties"]["edits"]["items"]["oneOf"]
    ops = {branch["properties"]["op"]["const"]: branch for branch in items}
    assert set(ops) == {"set-field", "replace", "insert-before", "delete-line"}
    assert ops["replace"]["required"] == ["op", "file", "anchor", "replacement"]
    assert set(ops["delete-line"]["properties"]) == {"op", "file", "anchor", "count"}


def test_check_output_schema_is_the_report_schema() -> None:
    schema = check_output_schema()
    assert schema["type"] == "object"
    assert schema["$id"].endswith("report.schema.json")
    assert "omitted" in schema["$defs"]["report"]["properties"]


CHECK = TOOL_SCHEMAS["check"]()
EDIT = TOOL_SCHEMAS["edit"]()


@pytest.mark.parametrize(
    ("tool", "schema", "arguments", "said"),
    [
        ("check", CHECK, {"readiness": "everywhere"}, "`readiness`: 'everywhere' is not allowed"),
        ("check", CHECK, {"today": "June 2"}, "`today` must be a YYYY-MM-DD date"),
        ("check", CHECK, {"select": ["context-budgett"]}, "did you mean `context-budget`?"),
        ("check", CHECK, {"max_findings": -1}, "`max_findings` must be at least 0"),
        ("check", CHECK, {"max_findings": "ten"}, "`max_findings` must be of type integer"),
        ("check", CHECK, {"dry_run": True}, "tool `check` takes no argument 'dry_run'"),
        ("edit", EDIT, {}, "missing required argument `edits`"),
        ("edit", EDIT, {"edits": [{"op": "rename", "file": "x"}]}, "`edits[0].op`"),
        (
            "edit",
            EDIT,
            {"edits": [{"op": "replace", "file": "CONTEXT.md", "anchor": "a"}]},
            "missing required argument `replacement` in `edits[0]`",
        ),
        (
            "edit",
            EDIT,
            {
                "edits": [{"op": "set-field", "file": "C", "field": "F", "value": "v"}],
                "overrides": {"all": True},
            },
            "`overrides` takes no key 'all'",
        ),
    ],
    ids=[
        "readiness",
        "date",
        "check-name",
        "minimum",
        "type",
        "unknown-argument",
        "required",
        "op",
        "op-key",
        "override",
    ],
)
def test_a_bad_call_is_one_line_naming_the_parameter(
    tool: str, schema: dict[str, Any], arguments: dict[str, Any], said: str
) -> None:
    problem = first_problem(tool, schema, arguments)
    assert problem is not None
    assert said in problem
    assert "\n" not in problem
    assert " --" not in problem  # never a CLI flag


def test_allowed_values_are_named() -> None:
    problem = first_problem("edit", EDIT, {"edits": [{"op": "rename", "file": "x"}]})
    assert problem is not None
    assert problem.endswith("allowed: set-field, replace, insert-before, delete-line")
    assert first_problem("check", CHECK, {"path": "kb", "min_severity": "defect"}) is None
