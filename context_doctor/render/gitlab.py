"""GitLab code quality: the Code Climate JSON array GitLab's merge-request widget reads.

Each finding is ``{description, check_name, fingerprint, severity, location:
{path, lines: {begin}}}``; severity is ``major`` for a defect and ``minor`` for
a warning; the fingerprint is the one SARIF and the baseline use, so a finding
keeps its identity across runs.  Paths are repository-relative, as GitLab
expects; a whole-file finding points at line 1.

A run that could not reach a listed source (a partial console sweep) still
writes only the findings of what it audited.  The format has no error channel:
every entry is an issue at a location, and an invented "issue" for a source
that was never read would be a false finding in the merge-request widget and
would shift when the source comes back.  The failure is carried where GitLab
looks for it instead: the process exits 2, which fails the job, and stderr holds
the one line naming the sources and the remedy.

A run that exits 2 before any audit (no source, a bad option) writes ``[]``, to
stdout or ``-o`` (docs/output.md): the job's artifact exists and parses, GitLab shows no
issue, and the job fails on the exit status with the error on stderr.
"""

from __future__ import annotations

import json
from typing import Any

from context_doctor.guards.escape import clean_json
from context_doctor.report.findings import Severity, fingerprints
from context_doctor.report.report import Report

_SEVERITY = {Severity.DEFECT: "major", Severity.WARNING: "minor"}


def gitlab_document(report: Report) -> list[dict[str, Any]]:
    return [
        {
            "description": f"[{finding.check}] {finding.message}",
            "check_name": finding.check,
            "fingerprint": fingerprint,
            "severity": _SEVERITY[finding.severity],
            "location": {"path": finding.path, "lines": {"begin": finding.line or 1}},
        }
        for finding, fingerprint in zip(report.findings, fingerprints(report.findings), strict=True)
    ]


def render_gitlab_error(_problem: str, _remedy: str) -> str:
    """Exit 2: an empty report (the error itself is the line on stderr)."""
    return "[]\n"


def render_gitlab(report: Report) -> str:
    return json.dumps(clean_json(gitlab_document(report)), indent=2, ensure_ascii=False) + "\n"
