"""The report: pure data, built by the engine, read by every renderer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from context_doctor.guards.escape import clean_json
from context_doctor.report.findings import Finding, Severity, whole_source
from context_doctor.version import __version__


def plural(count: int, word: str) -> str:
    """``1 defect``, ``2 defects``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


SUPPRESSION_WAYS = ("inline", "config", "baseline")

UNREACHABLE = "unreachable"
"""The reason of a listed source the doctor could not read (a missing root): the run exits 2."""


def reason_counts(reasons: Counter[str]) -> list[str]:
    """Reasons as upstream writes them: the bare reason when one covers every unit
    (``["dormant"]``), else each with its count (``["3 dormant", "1 paused"]``)."""
    if len(reasons) == 1:
        return list(reasons)
    return [f"{count} {reason}" for reason, count in sorted(reasons.items())]


@dataclass
class Coverage:
    """What one check did with the units of the corpus (docs/checks.md).

    ``examined`` units were judged; ``skipped`` ones a gate held back (``reasons``);
    ``not_applicable`` ones were not of the check's shape (counted by reason, printed
    only with ``--show-coverage``, never part of ``skipped``).
    """

    examined: int = 0
    skipped: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    not_applicable: Counter[str] = field(default_factory=Counter)

    def skip(self, reason: str, count: int = 1, *, shape: bool = False) -> None:
        if count <= 0:  # a whole-unit skip of nothing (a vault log of no lines): no reason
            return
        if shape:
            self.not_applicable[reason] += count
            return
        self.skipped += count
        self.reasons[reason] += count

    def add(self, other: Coverage) -> None:
        self.examined += other.examined
        self.skipped += other.skipped
        self.reasons.update(other.reasons)
        self.not_applicable.update(other.not_applicable)

    @property
    def listed(self) -> bool:
        """Whether coverage lists the check: it examined or a gate skipped something.

        A check with nothing to examine (a vault check on a corpus without a vault) or
        only shapes it does not apply to is not listed as "examined 0, skipped 0".
        """
        return bool(self.examined or self.skipped)

    def why(self) -> list[str]:
        """The skips as the Synthesis Console reads them: ``["dormant"]``, ``["4 dormant", "1 paused"]``."""
        return reason_counts(self.reasons)

    def to_json(self) -> dict[str, Any]:
        return {
            "examined": self.examined,
            "skipped": self.skipped,
            "reasons": dict(sorted(self.reasons.items())),
            "why": self.why(),
        }

    def not_applicable_json(self) -> dict[str, Any]:
        """``{count, reason}``: the reason as ``why`` words it, joined (``6 bounded, 1 sharded``)."""
        return {
            "count": sum(self.not_applicable.values()),
            "reason": ", ".join(reason_counts(self.not_applicable)),
        }

    def describe(self) -> str:
        reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(self.reasons.items()))
        return f"examined {self.examined}, skipped {self.skipped}" + (
            f" ({reasons})" if reasons else ""
        )

    def describe_not_applicable(self) -> str:
        reasons = ", ".join(
            f"{count} {reason}" for reason, count in sorted(self.not_applicable.items())
        )
        return f"{sum(self.not_applicable.values())} ({reasons})"


@dataclass
class SourceSummary:
    name: str
    root: str
    projects_dir: str | None
    projects: int
    unaudited_reason: str | None = None  # a console source listed but not audited, and why
    memories: int | None = None  # a memory vault (docs/vaults.md): how many memories it holds
    error: str | None = None  # an unreachable source: what could not be read
    # A layout other than the seed's projects/ (docs/layouts.md): `docs/STATUS.md, detected`, and how
    # many commits its work_ignore (or a bot's authorship) set aside.
    layout: str | None = None
    set_aside: int = 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "root": self.root,
            "projects_dir": self.projects_dir,
            "projects": self.projects,
            "audited": self.unaudited_reason is None,
        }
        if self.unaudited_reason is not None:
            data["reason"] = self.unaudited_reason
        if self.memories is not None:
            data["vault"] = True
            data["memories"] = self.memories
        if self.error is not None:
            data["error"] = self.error
        if self.layout is not None:
            data["layout"] = self.layout
            data["set_aside"] = self.set_aside
        return data


def _project_of(item: dict[str, Any]) -> str | None:
    """A stored finding's project id; ``None`` for one about its source as a whole (written
    ``(source)``, or ``""`` by an older doctor, before every finding named its subject)."""
    project = str(item["project"])
    if not project or project == whole_source(str(item["source"])):
        return None
    return project


@dataclass
class Report:
    today: date
    readiness: str
    generated_at: str
    sources: list[SourceSummary]
    projects_audited: int
    findings: list[Finding]
    coverage: dict[str, Coverage]
    projects_with_findings: int = 0
    freshness: dict[str, Any] | None = None  # summary of graded files; None when there are none
    suppressed: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(SUPPRESSION_WAYS, 0)
    )  # findings suppressed, by way (docs/suppressions.md)
    toplevels: dict[str, str] = field(default_factory=dict)  # source name -> repository top
    doctor_version: str = __version__
    # The process's exit status, once the command knows it (``--exit-zero``,
    # ``--warnings-as-defects``); until then the status ``check`` gives these findings.
    exit: int | None = None

    @property
    def defects(self) -> int:
        return sum(1 for finding in self.findings if finding.severity is Severity.DEFECT)

    @property
    def warnings(self) -> int:
        return sum(1 for finding in self.findings if finding.severity is Severity.WARNING)

    @property
    def unreachable(self) -> list[SourceSummary]:
        """Listed sources that could not be read: the rest was audited, yet the run exits 2."""
        return [source for source in self.sources if source.unaudited_reason == UNREACHABLE]

    @property
    def audited_sources(self) -> int:
        return sum(1 for source in self.sources if source.unaudited_reason is None)

    def unreachable_error(self) -> tuple[str, str] | None:
        """The one-line problem and remedy of a run that could not reach every source."""
        missing = self.unreachable
        if not missing:
            return None
        problem = "; ".join(
            f"source `{source.name}` could not be audited: {source.error or source.root}"
            for source in missing
        )
        return problem, "fix or remove the source in console.yaml; the other sources were audited"

    def exit_code(self, *, warnings_as_defects: bool = False, exit_zero: bool = False) -> int:
        if self.unreachable:
            return 2  # a source could not be audited: ground truth is incomplete, whatever else
        if exit_zero:
            return 0
        if self.defects or (warnings_as_defects and self.warnings):
            return 1
        return 0

    @property
    def suppressed_total(self) -> int:
        return sum(self.suppressed.values())

    def defect_checks(self) -> list[str]:
        """The checks that produced defects, for the verdict line."""
        return sorted({f.check for f in self.findings if f.severity is Severity.DEFECT})

    def verdict(self) -> str:
        """DEFECTS when any was found; else INCOMPLETE when a listed source could not be
        audited (health that was not verified is never called healthy); else by warnings."""
        if self.defects:
            return "DEFECTS"
        if self.unreachable:
            return "INCOMPLETE"
        if self.warnings:
            return "WARNINGS"
        return "HEALTHY"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        """A report as its JSON (the report cache) holds it: sources, counts and findings,
        enough to render its verdict with the words `check` used (coverage and fixes are
        not kept: they describe the run that wrote it)."""
        findings = [
            Finding(
                check=str(item["check"]),
                severity=Severity(item["severity"]),
                source=str(item["source"]),
                project=_project_of(item),
                path=str(item["path"]),
                line=item["line"],
                message=str(item["message"]),
                remedy=str(item["remedy"]),
            )
            for item in data.get("findings", [])
        ]
        sources = [
            SourceSummary(
                name=str(item["name"]),
                root=str(item["root"]),
                projects_dir=item.get("projects_dir"),
                projects=int(item.get("projects", 0)),
                unaudited_reason=None if item.get("audited", True) else item.get("reason"),
                memories=item.get("memories") if item.get("vault") else None,
                error=item.get("error"),
            )
            for item in data.get("source_details", [])
        ]
        suppressed = dict.fromkeys(SUPPRESSION_WAYS, 0)
        suppressed.update(
            {k: v for k, v in (data.get("suppressed") or {}).items() if isinstance(v, int)}
        )
        return cls(
            today=date.fromisoformat(str(data["today"])),
            readiness=str(data["readiness"]),
            generated_at=str(data["generated_at"]),
            sources=sources,
            projects_audited=int(data["projects_audited"]),
            findings=findings,
            coverage={},
            projects_with_findings=len({(f.source, f.project) for f in findings if f.project}),
            freshness=data.get("freshness"),
            suppressed=suppressed,
            exit=data.get("exit"),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON report; undecodable bytes in names become visible escapes (valid UTF-8)."""
        cleaned: dict[str, Any] = clean_json(self.json_fields())
        return cleaned

    def json_fields(self, *, findings: bool = True) -> dict[str, Any]:
        """The JSON report as built, before :func:`clean_json`; ``findings`` last.

        ``findings=False`` leaves that list empty: ``render/jsonout.py`` writes it itself.
        """
        code = self.exit if self.exit is not None else self.exit_code()
        fields: dict[str, Any] = {"ok": code == 0, "exit": code}
        error = self.unreachable_error() if code == 2 else None
        if error is not None:
            # The Synthesis Console reads `error` on exit 2; the rest is what could be audited.
            fields["error"], fields["remedy"] = error
        return fields | {
            "doctor_version": self.doctor_version,
            "readiness": self.readiness,
            "today": self.today.isoformat(),
            "generated_at": self.generated_at,
            # A count, as the upstream doctor writes it and the console renders it.
            "sources": self.audited_sources,
            "source_details": [source.to_json() for source in self.sources],
            "projects_audited": self.projects_audited,
            "defects": self.defects,
            "warnings": self.warnings,
            "coverage": {
                name: cov.to_json() for name, cov in sorted(self.coverage.items()) if cov.listed
            },
            "not_applicable": {
                name: cov.not_applicable_json()
                for name, cov in sorted(self.coverage.items())
                if cov.not_applicable
            },
            "freshness": self.freshness,
            "suppressed": dict(self.suppressed),
            "findings": [finding.to_json() for finding in self.findings] if findings else [],
        }


def _fix_carries(finding: Finding, values: set[str]) -> bool:
    """Whether the finding's fix targets or writes (``fix.edits[].text``, an index value)
    one of the secrets ``values``."""
    fix = finding.fix
    if fix is None:
        return False
    from context_doctor.guards.redact import scrub

    texts = [fix.path]
    for edit in fix.to_json()["edits"]:
        texts += [str(value) for value in edit.values()]
    return any(scrub(text, values) != text for text in texts)


def redacted(report: Report, secrets: Iterable[str]) -> Report:
    """``report`` with every quote of a secret in ``secrets`` redacted.

    The one place every output passes: the pipeline calls it before a report is
    rendered, stored for replay or written to the report cache, so no check that
    quotes the corpus (an item, a suppression comment, an attribution line) can
    spread what ``secret-in-context`` found, in any format.
    """
    values = {value for value in secrets if value}
    if not values:
        return report
    # The detectors' patterns: imported only where a secret was found, never to print a
    # stored report.
    from context_doctor.guards.redact import scrub

    findings = []
    for finding in report.findings:
        fix = finding.fix
        remedy = scrub(finding.remedy, values)
        if _fix_carries(finding, values):
            # What a fix writes cannot be redacted (`--fix` would write the redaction), so a
            # fix that would copy a detected secret is not offered at all, and says so.
            fix = None
            remedy += " (no automatic fix: it would copy a detected secret)"
        elif fix is not None:
            fix = replace(fix, description=scrub(fix.description, values))
        findings.append(
            replace(
                finding,
                # a vault finding's project is a memory id: text from the audited tree too
                project=scrub(finding.project, values) if finding.project else finding.project,
                path=scrub(finding.path, values),
                message=scrub(finding.message, values),
                remedy=remedy,
                fix=fix,
            )
        )
    return replace(report, findings=findings)
