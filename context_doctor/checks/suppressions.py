"""``unused-suppression`` and ``baseline-stale``: the checks that keep suppressions honest.

Their findings come from the suppression layer (context_doctor/pipeline/suppress.py),
which is the only place that knows what every comment and baseline entry
matched; registering them here makes them selectable, ignorable, explainable
and SARIF rules like every other check.
"""

from __future__ import annotations

from collections.abc import Iterable

from context_doctor.checks.registry import Context, check
from context_doctor.model.source import Source
from context_doctor.report.findings import Issue, Severity

GROUP = "suppression"


@check(
    "unused-suppression",
    scope="report",
    severity=Severity.WARNING,
    summary="a suppression comment suppresses nothing, names an unknown check or is malformed",
    remedy="Delete the comment, or correct the check name it gives.",
    explanation="""A `<!-- context-doctor: disable-next-line CHECK -->` or
        `<!-- context-doctor: disable CHECK -->` comment in a tier file, or a
        `# context-doctor: disable-next-line CHECK` comment in index.yaml, that no longer
        suppresses any finding of a check that ran, that names a check the doctor does not
        know, or that does not follow the grammar. A stale suppression hides the next real
        problem on that line, so it is reported (as a warning, never an error). Comments are
        read only outside code blocks; a check that was not selected in this run is not
        judged.""",
)
def unused_suppression(source: Source, ctx: Context) -> Iterable[Issue]:
    return ()  # produced by the suppression layer


@check(
    "baseline-stale",
    scope="report",
    severity=Severity.WARNING,
    summary="a baseline entry no longer matches any finding",
    remedy="Rewrite the baseline with `context-doctor check --write-baseline` so it shrinks.",
    explanation="""`check --baseline` reports only findings whose fingerprint is not in the
        baseline file. An entry that matches no current finding was fixed (or its finding
        changed), and the baseline should shrink with it: rewrite it with
        `--write-baseline`. Entries of checks that did not run, or of projects outside this
        run, are not judged.""",
)
def baseline_stale(source: Source, ctx: Context) -> Iterable[Issue]:
    return ()  # produced by the suppression layer
