"""The JSON report (schemas/report.schema.json); every string valid UTF-8 (``clean_json``)."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from context_doctor.escape import SURROGATE, clean_json
from context_doctor.findings import Finding
from context_doctor.report import Report

_EMPTY_TAIL = "[]\n}"
_EMPTY_FINDINGS = '"findings": ' + _EMPTY_TAIL
_FINDING_INDENT = " " * 6  # findings are objects in a list in the report: level 3


def report_json(report: Report) -> str:
    """``json.dumps(report.to_json(), indent=2, ensure_ascii=False)``, byte for byte, faster.

    With an indent, the standard library encodes in Python, value by value; a report of
    thousands of findings spent most of its rendering there (#13).  The findings, flat
    objects of strings, numbers and null, are written here with the encoder's own C
    string escaper, and spliced into the rest as ``json`` writes it.  Only when a name
    holds an undecodable byte (a lone surrogate, rare) is the report cleaned
    (``clean_json``) and written the plain way.
    """
    head = json.dumps(report.json_fields(findings=False), indent=2, ensure_ascii=False)
    if not head.endswith(_EMPTY_FINDINGS):  # the report's shape changed: the plain way
        return _plain(report)
    if report.findings:
        # One join of every piece: the text is built once, not copied again by each
        # concatenation (at 8,000 projects the report is ~14 MB, #32).
        parts = [head[: -len(_EMPTY_TAIL)], "[\n"]
        for finding in report.findings:
            parts.append(_finding_text(finding))
            parts.append(",\n")
        parts[-1] = "\n  ]\n}\n"
        text = "".join(parts)
        del parts
    else:
        text = head + "\n"
    if SURROGATE.search(text):
        return _plain(report)
    return text


def _plain(report: Report) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def _finding_text(finding: Finding) -> str:
    items = ",\n".join(
        f"{_FINDING_INDENT}{encode_basestring(key)}: {_value_text(value)}"
        for key, value in finding.to_json().items()
    )
    return f"    {{\n{items}\n    }}"


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    # A fix (or anything else): as json writes it at this depth.
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + _FINDING_INDENT)


def error_json(problem: str, remedy: str, exit_status: int = 2) -> str:
    """The JSON of a run that produced no report: the exit status, what went wrong, the remedy."""
    payload: dict[str, Any] = {"ok": False, "exit": exit_status, "error": problem, "remedy": remedy}
    return json.dumps(clean_json(payload), indent=2, ensure_ascii=False) + "\n"
