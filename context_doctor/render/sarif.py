"""SARIF 2.1.0: one rule per selected check, one result per finding.

As GitHub code scanning and the SARIF spec document them (docs/output.md): every rule
carries its check's whole page as ``help`` (``markdown``: what ``docs/checks/<check>.md``
says; ``text``: the same in plain words), so an alert explains itself with no link to
follow. Links are only those ``[output] docs_url`` names (docs/configuration.md): the
driver's ``informationUri`` and each built-in rule's ``helpUri`` (its page under
``checks/``); without the setting there is none, never an address that leads nowhere.
A plugin's check has no page of ours, so no ``helpUri`` and its own words as help. A
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

from context_doctor.checks.registry import CheckSpec
from context_doctor.guards.escape import clean_json
from context_doctor.render.check_pages import (
    SECURITY_SEVERITY,
    docs_home,
    is_security_check,
    page_body,
    page_url,
)
from context_doctor.report.findings import FINGERPRINT_KEY, Severity, fingerprints
from context_doctor.report.report import Report
from context_doctor.version import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.DEFECT: "error", Severity.WARNING: "warning"}


def _built_in(spec: CheckSpec) -> bool:
    return spec.module.startswith("context_doctor.")


def _help(spec: CheckSpec, docs_url: str | None) -> dict[str, str]:
    """The rule's help: a built-in check's whole page, linked when it is published."""
    if not _built_in(spec):
        return {
            "text": f"{spec.explanation}\n\nHow to fix: {spec.remedy}",
            "markdown": f"{spec.explanation}\n\n**How to fix:** {spec.remedy}\n\n"
            f"`context-doctor explain {spec.name}`",
        }
    markdown = page_body(spec)
    page = page_url(spec.name, docs_url)
    if page is not None:
        markdown += f"\n[The check's page]({page})\n"
    return {"text": _plain(markdown), "markdown": markdown}


def _plain(markdown: str) -> str:
    """The page as plain text: its headings and its first line's emphasis dropped (the rest
    is prose with code spans, plain enough, and ``**`` inside a code span is the file's)."""
    lines = []
    for number, line in enumerate(markdown.splitlines()):
        if line.startswith("## "):
            line = line[3:] + ":"
        lines.append(line.replace("**", "") if number == 0 else line)
    return "\n".join(lines).strip() + "\n"


def _rule(spec: CheckSpec, docs_url: str | None) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": spec.name,
        "name": "".join(part.capitalize() for part in spec.name.split("-")),
        "shortDescription": {"text": spec.summary},
        "fullDescription": {"text": spec.explanation},
        "help": _help(spec, docs_url),
        "defaultConfiguration": {"level": _LEVEL[spec.severity]},
        "properties": {"tags": [spec.group] if spec.group else []},
    }
    page = page_url(spec.name, docs_url) if _built_in(spec) else None
    if page is not None:
        rule["helpUri"] = page
    if is_security_check(spec):
        rule["properties"]["tags"].append("security")
        rule["properties"]["security-severity"] = SECURITY_SEVERITY
    return rule


def _driver(rules: list[dict[str, Any]], docs_url: str | None = None) -> dict[str, Any]:
    driver: dict[str, Any] = {"name": "context-doctor"}
    home = docs_home(docs_url)
    if home is not None:
        driver["informationUri"] = home
    driver.update({"version": __version__, "semanticVersion": __version__, "rules": rules})
    return driver


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


def sarif_document(
    report: Report, checks: Sequence[CheckSpec], docs_url: str | None = None
) -> dict[str, Any]:
    rules = [_rule(spec, docs_url) for spec in sorted(checks, key=lambda spec: spec.name)]
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
                "tool": {"driver": _driver(rules, docs_url)},
                "results": results,
                "invocations": [invocation],
            }
        ],
    }


def render_sarif(report: Report, checks: Sequence[CheckSpec], docs_url: str | None = None) -> str:
    document = clean_json(sarif_document(report, checks, docs_url))
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
