"""The JSON report (schemas/report.schema.json); every string valid UTF-8 (``clean_json``)."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

from context_doctor.guards.escape import clean_json
from context_doctor.report.findings import Finding
from context_doctor.report.report import Report

_EMPTY_TAIL = "[]\n}"
_EMPTY_FINDINGS = '"findings": ' + _EMPTY_TAIL
_FINDING_INDENT = " " * 6  # findings are objects in a list in the report: level 3


def report_json(report: Report) -> str:
    """``json.dumps(report.to_json(), indent=2, ensure_ascii=False)``, byte for byte, faster
    (:func:`report_json_bytes`, as text)."""
    return report_json_bytes(report).decode("utf-8")


def report_json_bytes(report: Report) -> bytearray:
    """``json.dumps(report.to_json(), indent=2, ensure_ascii=False)`` in UTF-8, byte for byte,
    faster.

    With an indent, the standard library encodes in Python, value by value; a report of
    thousands of findings spent most of its rendering there.  The findings, flat
    objects of strings, numbers and null, are written here with the encoder's own C
    string escaper, and spliced into the rest as ``json`` writes it.  Only when a name
    holds an undecodable byte (a lone surrogate, rare: UTF-8 cannot encode it) is the
    report cleaned (``clean_json``) and written the plain way.

    The bytes are encoded a block of findings at a time into one buffer, which the caches
    and the output all take: the report is held once, not as text and then its encoding
    (at 8,000 projects it is ~14 MB).
    """
    head = json.dumps(report.json_fields(findings=False), indent=2, ensure_ascii=False)
    if not head.endswith(_EMPTY_FINDINGS):  # the report's shape changed: the plain way
        return _plain(report)
    try:
        if not report.findings:
            return bytearray((head + "\n").encode("utf-8"))
        written = bytearray(head[: -len(_EMPTY_TAIL)].encode("utf-8"))
        written += b"[\n"
        findings = report.findings
        for start in range(0, len(findings), _BLOCK):
            block = ",\n".join(_finding_text(f) for f in findings[start : start + _BLOCK])
            written += block.encode("utf-8")
            written += b",\n" if start + _BLOCK < len(findings) else b"\n  ]\n}\n"
        return written
    except UnicodeEncodeError:  # a lone surrogate somewhere
        return _plain(report)


_BLOCK = 1000  # findings encoded at a time


def _plain(report: Report) -> bytearray:
    text = json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"
    return bytearray(text.encode("utf-8"))


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
