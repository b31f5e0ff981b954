"""SARIF 2.1.0: one rule per selected check, one result per finding.

As GitHub code scanning and the SARIF spec document them (docs/output.md): the driver
has ``informationUri`` (the project's home); every rule of a built-in check has
``helpUri`` (its page in ``docs/checks/``) and ``help.markdown`` (what to fix,
linking the page); a plugin's check has no page of ours, so no ``helpUri``. A
secret check's rule carries ``properties.security-severity`` and the ``security``
tag, so code scanning ranks it with security alerts
(:mod:`context_doctor.render.check_pages` says which checks those are).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from context_doctor.guards.escape import clean_json
from context_doctor.pipeline.registry import CheckSpec
from context_doctor.render.check_pages import (
    HOMEPAGE,
    SECURITY_SEVERITY,
    is_security_check,
    page_url,
)
from context_doctor.report.findings import FINGERPRINT_KEY, Severity, fingerprints
from context_doctor.report.report import Report
from context_doctor.version import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.DEFECT: "error", Severity.WARNING: "warning"}


def _built_in(spec: CheckSpec) -> bool:
    return spec.module.startswith("context_doctor.")


def _rule(spec: CheckSpec) -> dict[str, Any]:
    page = f"\n\n[The check's page]({page_url(spec.name)})" if _built_in(spec) else ""
    rule: dict[str, Any] = {
        "id": spec.name,
        "name": "".join(part.capitalize() for part in spec.name.split("-")),
        "shortDescription": {"text": spec.summary},
        "fullDescription": {"text": spec.explanation},
        "help": {
            "text": f"{spec.explanation}\n\nHow to fix: {spec.remedy}",
            "markdown": f"{spec.explanation}\n\n**How to fix:** {spec.remedy}\n\n"
            f"`context-doctor explain {spec.name}`{page}",
        },
        "defaultConfiguration": {"level": _LEVEL[spec.severity]},
        "properties": {"tags": [spec.group] if spec.group else []},
    }
    if _built_in(spec):
        rule["helpUri"] = page_url(spec.name)
    if is_security_check(spec):
        rule["properties"]["tags"].append("security")
        rule["properties"]["security-severity"] = SECURITY_SEVERITY
    return rule


def _driver(rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "context-doctor",
        "informationUri": HOMEPAGE,
        "version": __version__,
        "semanticVersion": __version__,
        "rules": rules,
    }


def _notification(problem: str, remedy: str, descriptor: str) -> dict[str, Any]:
    """A tool execution notification: what stopped the doctor establishing ground truth."""
    return {
        "level": "error",
        "message": {"text": f"{problem}. Remedy: {remedy}"},
        "descriptor": {"id": descriptor},
    }


def sarif_error_document(problem: str, remedy: str) -> dict[str, Any]:
    """A valid SARIF log for a run that could not establish ground truth (exit 2).

    One run, no results, ``executionSuccessful: false`` and the error as a
    tool execution notification, so an upload step still has a file to read
    and the failure is visible where the results would have been.
    """
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver([])},
                "results": [],
                "invocations": [
                    {
                        "executionSuccessful": False,
                        "exitCode": 2,
                        "toolExecutionNotifications": [
                            _notification(problem, remedy, "ground-truth-not-established")
                        ],
                    }
                ],
            }
        ],
    }


def render_sarif_error(problem: str, remedy: str) -> str:
    document = clean_json(sarif_error_document(problem, remedy))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _artifact(path: str) -> dict[str, str]:
    """Repository-relative paths hang off %SRCROOT%; an absolute one is a file URI of its own."""
    if path.startswith("/"):
        return {"uri": Path(path).as_uri()}
    # A path from a non-UTF-8 file name carries surrogate escapes: percent-encode its raw bytes.
    return {"uri": quote(path, errors="surrogateescape"), "uriBaseId": "%SRCROOT%"}


def sarif_document(report: Report, checks: Sequence[CheckSpec]) -> dict[str, Any]:
    rules = [_rule(spec) for spec in sorted(checks, key=lambda spec: spec.name)]
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for finding, fingerprint in zip(report.findings, fingerprints(report.findings), strict=True):
        result: dict[str, Any] = {
            "ruleId": finding.check,
            "level": _LEVEL[finding.severity],
            "message": {"text": f"{finding.message}. Remedy: {finding.remedy}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact(finding.path),
                        "region": {"startLine": finding.line or 1, "startColumn": 1},
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
            "properties": {"source": finding.source, "project": finding.subject},
        }
        if finding.check in index:
            result["ruleIndex"] = index[finding.check]
        results.append(result)
    invocation: dict[str, Any] = {
        "executionSuccessful": True,
        "properties": {"readiness": report.readiness, "today": report.today.isoformat()},
    }
    unreachable = report.unreachable_error()
    if unreachable is not None:
        # A partial sweep exits 2: the results are what was audited, and the log must not
        # read as a clean run over everything (docs/output.md).
        invocation["executionSuccessful"] = False
        invocation["exitCode"] = 2
        invocation["toolExecutionNotifications"] = [
            _notification(*unreachable, "source-unreachable")
        ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": _driver(rules)},
                "results": results,
                "invocations": [invocation],
            }
        ],
    }


def render_sarif(report: Report, checks: Sequence[CheckSpec]) -> str:
    return (
        json.dumps(clean_json(sarif_document(report, checks)), indent=2, ensure_ascii=False) + "\n"
    )
