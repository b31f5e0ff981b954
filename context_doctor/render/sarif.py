"""SARIF 2.1.0: one rule per selected check, one result per finding."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from context_doctor import __version__
from context_doctor.findings import Finding, Severity
from context_doctor.registry import CheckSpec
from context_doctor.render.escape import clean_json
from context_doctor.report import Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.DEFECT: "error", Severity.WARNING: "warning"}
_VOLATILE = re.compile(r"\d+")


def _rule(spec: CheckSpec) -> dict[str, Any]:
    return {
        "id": spec.name,
        "name": "".join(part.capitalize() for part in spec.name.split("-")),
        "shortDescription": {"text": spec.summary},
        "fullDescription": {"text": spec.explanation},
        "help": {
            "text": f"{spec.explanation}\n\nHow to fix: {spec.remedy}",
            "markdown": f"{spec.explanation}\n\n**How to fix:** {spec.remedy}\n\n"
            f"`context-doctor explain {spec.name}`",
        },
        "defaultConfiguration": {"level": _LEVEL[spec.severity]},
    }


def _fingerprint(finding: Finding, occurrence: int) -> str:
    """Stable across runs: no line numbers, and digits (counts, dates) folded away."""
    key = "|".join(
        [
            finding.check,
            finding.source,
            finding.project or "",
            finding.path,
            _VOLATILE.sub("#", finding.message),
            str(occurrence),
        ]
    )
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _artifact(path: str) -> dict[str, str]:
    """Repository-relative paths hang off %SRCROOT%; an absolute one is a file URI of its own."""
    if path.startswith("/"):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path), "uriBaseId": "%SRCROOT%"}


def sarif_document(report: Report, checks: list[CheckSpec]) -> dict[str, Any]:
    rules = [_rule(spec) for spec in sorted(checks, key=lambda spec: spec.name)]
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    seen: Counter[str] = Counter()
    results: list[dict[str, Any]] = []
    for finding in report.findings:
        base = _fingerprint(finding, 0)
        seen[base] += 1
        result: dict[str, Any] = {
            "ruleId": finding.check,
            "level": _LEVEL[finding.severity],
            "message": {"text": f"{finding.message}. Remedy: {finding.remedy}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(finding.path),
                        "region": {"startLine": finding.line or 1},
                    }
                }
            ],
            "partialFingerprints": {"contextDoctor/v1": _fingerprint(finding, seen[base] - 1)},
            "properties": {"source": finding.source, "project": finding.project},
        }
        if finding.check in index:
            result["ruleIndex"] = index[finding.check]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "context-doctor",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "properties": {
                            "readiness": report.readiness,
                            "today": report.today.isoformat(),
                        },
                    }
                ],
            }
        ],
    }


def render_sarif(report: Report, checks: list[CheckSpec]) -> str:
    return (
        json.dumps(clean_json(sarif_document(report, checks)), indent=2, ensure_ascii=False) + "\n"
    )
