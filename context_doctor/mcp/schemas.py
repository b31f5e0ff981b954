"""The MCP tools' input schemas, written by hand, and the one-line answer to a bad call.

A schema is what an agent reads before it calls: every parameter has a
description, every date a pattern, every closed set an enum (readiness, check and
group names, severities, edit ops), and each edit op lists exactly its own keys.
:func:`first_problem` validates a call against the same schema and says what is
wrong in one line naming the MCP parameter (``edits[0].op``) and the values it
allows; no call reaches a tool with an argument its schema refuses.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from context_doctor.editor.edits_file import MAX_EDITS, OPS

DATE = r"^\d{4}-\d{2}-\d{2}$"
PATH_MAX = 4095


class ArgumentProblem(Exception):
    """A call its tool's input schema refuses; the message is one line."""


def _names() -> list[str]:
    from context_doctor.checks.registry import load_checks, selectable_names

    return selectable_names(load_checks())


def _path(description: str) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": PATH_MAX, "description": description}


def _date(description: str) -> dict[str, Any]:
    return {"type": "string", "pattern": DATE, "description": description}


def _check_names(description: str) -> dict[str, Any]:
    names = _names()
    return {
        "type": "array",
        "items": {"type": "string", "enum": names},
        "uniqueItems": True,
        "maxItems": len(names),  # each name at most once
        "description": description,
    }


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


TODAY = _date("the day to audit as, YYYY-MM-DD (default: today on the server's clock)")


def check_input() -> dict[str, Any]:
    return _object(
        {
            "path": _path(
                "a knowledge repository (holding projects/), a project directory or a "
                "single-project repository; relative: against the client's roots; omitted: "
                "every root (without roots: the console.yaml sources, else the server's "
                "working directory)"
            ),
            "select": _check_names("only these checks or groups (default: all)"),
            "ignore": _check_names("leave out these checks or groups"),
            "readiness": {
                "type": "string",
                "enum": ["local", "remote"],
                "default": "local",
                "description": "`remote` also makes uncommitted and unpushed context defects",
            },
            "today": TODAY,
            "min_severity": {
                "type": "string",
                "enum": ["warning", "defect"],
                "default": "warning",
                "description": "leave out findings below this severity (`defect`: defects only)",
            },
            "max_findings": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100000,
                "default": 50,
                "description": "return at most this many findings, defects first; `omitted` "
                "says how many were left out",
            },
            "include_coverage": {
                "type": "boolean",
                "default": False,
                "description": "include the per-check coverage (examined, skipped and why)",
            },
        }
    )


def explain_input() -> dict[str, Any]:
    return _object(
        {
            "name": {
                "type": "string",
                "enum": _names(),
                "description": "a check name (as in a finding's `check`) or a group name",
            }
        },
        ["name"],
    )


def status_input() -> dict[str, Any]:
    return _object({})


OVERRIDES = _object(
    {
        "max_lines": {
            "type": "integer",
            "minimum": 1,
            "description": "allow a CONTEXT.md up to this many lines (the budget otherwise)",
        },
        "allow_header_lag": {
            "type": "boolean",
            "description": "claim: the header may stay behind the newest logged session",
        },
        "allow_stale_body": {
            "type": "boolean",
            "description": "claim: the body was reviewed and is current though older than "
            "the header",
        },
        "state_reviewed": {
            "type": "boolean",
            "description": "claim: the state the as-of marker dates was reviewed",
        },
        "allow_header_ahead": {
            "type": "boolean",
            "description": "claim: Last session may name a date the session log lacks",
        },
    }
)
OVERRIDES["description"] = (
    "the editor's gates (each an explicit claim a person or agent makes, never a default); "
    "omitted ones stay closed"
)

_KEYS: dict[str, dict[str, Any]] = {
    "field": {"type": "string", "minLength": 1, "description": "the header field, as written"},
    "value": {"type": "string", "description": "the field's new value (one line)"},
    "whole_value": {
        "type": "boolean",
        "description": "the value replaces the whole field, a leading date included",
    },
    "anchor": {
        "type": "string",
        "minLength": 1,
        "description": "the exact text to find (for a line op: the start of the line)",
    },
    "replacement": {"type": "string", "description": "the text that replaces the anchor"},
    "text": {"type": "string", "description": "the text to insert, ending with a newline"},
    "count": {
        "type": "integer",
        "minimum": 1,
        "default": 1,
        "description": "how many times the anchor occurs (all are changed)",
    },
}
_OPS_SAY = {
    "set-field": "set a **Field:** value of the header",
    "replace": "replace the anchor's text",
    "insert-before": "insert text before the line the anchor starts",
    "delete-line": "delete the line the anchor starts",
}


def op_schema(op: str) -> dict[str, Any]:
    required, optional = OPS[op]
    properties: dict[str, Any] = {
        "op": {"const": op, "description": _OPS_SAY[op]},
        "file": _path(
            "the file to edit: a project's CONTEXT.md, REFERENCE.md, reference/*.md, "
            "sessions/*.md, CURRENT_STATE.json or the index.yaml beside it; relative: "
            "against the client's roots"
        ),
    }
    properties.update({key: _KEYS[key] for key in (*required, *optional)})
    schema = _object(properties, ["op", "file", *required])
    schema["title"] = op
    return schema


def edit_input() -> dict[str, Any]:
    return _object(
        {
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_EDITS,
                "items": {"oneOf": [op_schema(op) for op in OPS]},
                "description": "the edits, applied in order to one project's files, every "
                "file written or none",
            },
            "overrides": OVERRIDES,
            "dry_run": {
                "type": "boolean",
                "default": False,
                "description": "return the diff and write nothing",
            },
        },
        ["edits"],
    )


def log_add_input() -> dict[str, Any]:
    return _object(
        {
            "project": _path(
                "the project directory (in any layout `context-doctor layout` reads); "
                "relative: against the client's roots"
            ),
            "date": _date("the session's date, YYYY-MM-DD (not after today)"),
            "title": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "the entry's title, one line (no line break)",
            },
            "text": {
                "type": "string",
                "default": "",
                "description": "the entry's body (Markdown), under its heading",
            },
            "set_header": {
                "type": "boolean",
                "default": False,
                "description": "also move CONTEXT.md's Last session (and the index's "
                "last_session) to the date, in the same write",
            },
            "today": TODAY,
            "overrides": OVERRIDES,
            "dry_run": {
                "type": "boolean",
                "default": False,
                "description": "return the diff and write nothing",
            },
        },
        ["project", "date", "title"],
    )


TOOL_SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {
    "check": check_input,
    "explain": explain_input,
    "status": status_input,
    "edit": edit_input,
    "log_add": log_add_input,
}


def check_output_schema() -> dict[str, Any]:
    """``schemas/report.schema.json``, with the object root MCP requires of an outputSchema."""
    from context_doctor.guards.yamlio import schema

    published = copy.deepcopy(schema("report.schema.json"))
    published["type"] = "object"
    return published


# -- one line for a bad call ------------------------------------------------------------


def _where(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


MAX_ERROR = 300
"""An MCP error is one line of at most this many characters (docs/surfaces.md)."""
_QUOTED = 40  # characters of an argument's value an error quotes
_LISTED = 120  # characters of allowed values or names an error lists


def bounded_line(text: str) -> str:
    """``text`` as one line of at most :data:`MAX_ERROR` characters: an agent's argument
    may be 100,000 items long, and an error never echoes it back whole."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_ERROR else line[: MAX_ERROR - 1] + "…"


def shown(value: Any) -> str:
    """A value as an error quotes it: its ``repr``, cut to a few words."""
    text = repr(value)
    return text if len(text) <= _QUOTED else f"{text[: _QUOTED - 1]}…"


def listed(names: Sequence[Any]) -> str:
    """Names as an error lists them: as many as fit a short line, then how many more."""
    out: list[str] = []
    for position, name in enumerate(names):
        word = str(name) if len(str(name)) <= _QUOTED else shown(name)
        if out and len(", ".join([*out, word])) > _LISTED:
            return f"{', '.join(out)} and {len(names) - position} more"
        out.append(word)
    return ", ".join(out)


def _allowed(values: list[Any], got: Any) -> str:
    close = ""
    if isinstance(got, str):
        near = difflib.get_close_matches(
            got[:200], [str(value) for value in values], n=1, cutoff=0.6
        )
        close = f" (did you mean `{near[0]}`?)" if near else ""
    return f"{shown(got)} is not allowed{close}; allowed: {listed(values)}"


def first_problem(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """One line naming the first argument ``schema`` refuses, or None for a good call."""
    properties = schema.get("properties", {})
    known = sorted(properties)
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        return (
            f"tool `{tool}` takes no argument {listed([shown(name) for name in unknown])}; "
            f"its arguments: {', '.join(known) or 'none'}"
        )
    for name, value in arguments.items():  # a long list is refused before it is walked
        most = properties[name].get("maxItems")
        if isinstance(value, list) and most is not None and len(value) > most:
            return f"`{name}` {_bound('maxItems', most)}"
    edits = arguments.get("edits")
    if tool == "edit" and isinstance(edits, list):
        for number, one in enumerate(edits):
            said = _edit_problem(number, one)
            if said is not None:
                return said
    return _schema_problem(schema, arguments)


def _edit_problem(number: int, one: Any) -> str | None:
    where = f"edits[{number}]"
    if not isinstance(one, dict):
        return f"`{where}` must be an object with `op`, `file` and the op's keys"
    op = one.get("op")
    if op not in OPS:
        return f"`{where}.op`: {_allowed(list(OPS), op)}"
    branch = op_schema(op)
    keys = sorted(branch["properties"])
    for key in one:
        if key not in branch["properties"]:
            return (
                f"`{where}` has an unknown key `{str(key)[:_QUOTED]}` for op {op}; "
                f"its keys: {', '.join(keys)}"
            )
    said = _schema_problem(branch, one, prefix=[where])
    return said


def _schema_problem(
    schema: Mapping[str, Any], arguments: Any, prefix: list[Any] | None = None
) -> str | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(arguments))
    if error is None:
        return None
    parts = [*(prefix or []), *error.absolute_path]
    where = _where(parts)
    got = error.instance
    if error.validator == "oneOf" and isinstance(got, dict):
        return None  # an edit item: :func:`_edit_problem` judged it already
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in (got or {})]
        place = f" in `{where}`" if where else ""
        return f"missing required argument `{missing[0]}`{place}"
    if error.validator == "additionalProperties":
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        extra = sorted(set(got) - set(error.schema.get("properties", {})))
        return (
            f"`{where}` takes no key {listed([shown(key) for key in extra])}; its keys: {allowed}"
        )
    if error.validator in ("enum", "const"):
        values = error.validator_value if error.validator == "enum" else [error.validator_value]
        return f"`{where}`: {_allowed(list(values), got)}"
    if error.validator == "pattern" and error.validator_value == DATE:
        return f"`{where}` must be a YYYY-MM-DD date, not {shown(got)}"
    if error.validator == "type":
        return f"`{where}` must be of type {error.validator_value}, not {type(got).__name__}"
    if error.validator in ("maxLength", "minLength", "minimum", "maximum", "minItems", "maxItems"):
        return f"`{where}` {_bound(error.validator, error.validator_value)}"
    if error.validator == "uniqueItems" and isinstance(got, list):
        seen: set[str] = set()
        twice = "an item"
        for item in map(shown, got):
            if item in seen:
                twice = item
                break
            seen.add(item)
        return f"`{where}` names {twice} twice; give each once"
    # jsonschema's own words quote the whole instance: it is quoted shortened.
    message = " ".join(error.message.replace(repr(got), shown(got)).split())
    return f"`{where}`: {message[:_LISTED]}"


def _bound(rule: str, value: Any) -> str:
    return {
        "maxLength": f"may have at most {value} characters",
        "minLength": f"must have at least {value} character{'s' * (value != 1)}",
        "minimum": f"must be at least {value}",
        "maximum": f"must be at most {value}",
        "minItems": f"must have at least {value} item{'s' * (value != 1)}",
        "maxItems": f"may have at most {value} items",
    }[rule]
