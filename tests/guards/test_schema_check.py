"""The schema walk that spares jsonschema's import: never "valid" where jsonschema says
invalid, never "invalid" where it says valid, and "valid" for the documents users write."""

from __future__ import annotations

import copy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from support import Doctor

from context_doctor.guards.schema_check import schema, validator, verdict

SHA = "0123456789abcdef0123456789abcdef01234567"
SHA256 = SHA + "0123456789abcdef01234567"

VALID: dict[str, list[Any]] = {
    "index.schema.json": [
        {
            "projects": [
                {"id": "atlas", "status": "active", "last_session": "2026-03-02"},
                {"id": "borealis", "status": "completed", "completed_date": "2026-01-31"},
            ]
        },
        [{"id": "atlas", "status": "paused"}],
    ],
    "current-state.schema.json": [
        {
            "schema_version": 1,
            "project_id": "atlas",
            "phase": "Build",
            "status": "active",
            "controlling_plan": "plans/importer.md",
            "accepted_baseline": "The importer reads v2 exports",
            "next_actions": ["Ship the importer"],
            "last_session": "2026-03-02",
            "session_id": None,
            "content_hashes": {"CONTEXT.md": SHA256},
            "repository": "knowledge",
            "project_path": "projects/atlas",
            "git_head": SHA,
            "source_heads": {"main": SHA},
            "updated_at": "2026-03-02T09:00:00+00:00",
        }
    ],
    "config.schema.json": [
        {"select": ["context-present"], "ignore": ["secret-in-context"], "budgets": {}},
        {"severity": {"secret-in-context": "warning"}, "budgets": {"context_lines": 120}},
    ],
    "console.schema.json": [
        {"sources": [{"name": "kb", "root": "~/kb", "projects_dir": "projects"}]}
    ],
    "report.schema.json": [
        {"ok": False, "exit": 2, "error": "no index", "remedy": "write one"},
    ],
}
"""Documents in the shapes users write (or the doctor writes): not all need be valid (the
test below says which are); each is the seed its mutations start from."""

VOCABULARY: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    "",
    "a",
    "active",
    "paused",
    "completed",
    "2026-03-02",
    "2026-02-30",
    "2026-03-02T09:00:00+00:00",
    "2026-03-02t09:00:00z",
    "x" * 500,
    "line\nbreak",
    SHA,
    SHA[:7],
    [],
    {},
    ["a", "a"],
    ["a", "b"],
]


def _names(node: Any) -> set[str]:
    """Every property name a schema mentions, and its enum and const strings."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("properties", "$defs") and isinstance(value, dict):
                found |= set(value)
            if key == "required" and isinstance(value, list):
                found |= {str(item) for item in value}
            if key in ("enum", "const"):
                found |= {
                    item for item in (value if key == "enum" else [value]) if isinstance(item, str)
                }
            found |= _names(value)
    elif isinstance(node, list):
        for item in node:
            found |= _names(item)
    return found


def _jsonschema(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def _agrees(name: str, document: Any) -> None:
    root = schema(name)
    answer = verdict(root, document, root)
    valid = _jsonschema(name).is_valid(document)
    if answer is True:
        assert valid, (name, document)
    if answer is False:
        assert not valid, (name, document)
    assert (not list(validator(name).iter_errors(document))) == valid


def _mutated(name: str) -> st.SearchStrategy[Any]:
    words = sorted(_names(schema(name)))
    leaves = st.sampled_from(VOCABULARY + words)
    values = st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(words), inner, max_size=4)
        ),
        max_leaves=8,
    )

    def mutate(seed: Any, path: list[int], value: Any, delete: bool) -> Any:
        document = copy.deepcopy(seed)
        node = document
        for step in path:
            if isinstance(node, dict) and node:
                key = sorted(node)[step % len(node)]
                if delete or not isinstance(node[key], dict | list):
                    if delete:
                        del node[key]
                    else:
                        node[key] = value
                    return document
                node = node[key]
            elif isinstance(node, list) and node:
                index = step % len(node)
                if delete or not isinstance(node[index], dict | list):
                    node[index] = value
                    return document
                node = node[index]
        if isinstance(node, dict):
            node[words[len(path) % len(words)]] = value
        elif isinstance(node, list):
            node.append(value)
        return document

    return st.builds(
        mutate,
        st.sampled_from(VALID[name]),
        st.lists(st.integers(0, 20), max_size=4),
        values,
        st.booleans(),
    )


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_walk_never_contradicts_jsonschema(name: str) -> None:
    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_mutated(name))
    def agrees(document: Any) -> None:
        _agrees(name, document)

    agrees()


@pytest.mark.parametrize(
    ("name", "document"), [(name, document) for name, seeds in VALID.items() for document in seeds]
)
def test_a_document_users_write_is_proven_valid_without_jsonschema(
    name: str, document: Any
) -> None:
    root = schema(name)
    assert _jsonschema(name).is_valid(document)
    assert verdict(root, document, root) is True


def test_an_invalid_document_gets_jsonschemas_own_errors() -> None:
    document = {"projects": [{"status": "active"}, {"id": "..", "last_session": "2026-02-30"}]}
    ours = [error.message for error in validator("index.schema.json").iter_errors(document)]
    theirs = [error.message for error in _jsonschema("index.schema.json").iter_errors(document)]
    assert ours == theirs and ours


def test_a_report_the_doctor_writes_is_proven_valid(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    report = doctor("check", "--today", "2026-06-20", "--json", str(scenario_repo("demo"))).raw
    root = schema("report.schema.json")
    assert _jsonschema("report.schema.json").is_valid(report)
    assert verdict(root, report, root) is True


_VALID_INDEX_ALONE = """
import sys
from context_doctor.guards.schema_check import validator
errors = list(validator("index.schema.json").iter_errors({"projects": [{"id": "a"}]}))
print(len(errors), "jsonschema" in sys.modules)
"""


def test_a_valid_document_never_imports_jsonschema() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _VALID_INDEX_ALONE], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["0", "False"]
