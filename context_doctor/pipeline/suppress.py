"""Suppressions and the baseline (docs/suppressions.md): what the engine found, minus what the user waived.

Three ways, applied in this order to the engine's findings, each counted:

- ``inline``: suppression comments in tier files and ``index.yaml``, and in any
  other Markdown file a finding points at (read by the model:
  ``Document.suppressions``, ``Index.suppressions``);
- ``config``: ``[per-project-ignores]`` (``id = [checks]``) and
  ``[per-path-ignores]`` (``"glob" = [checks]``, matched against repository-
  relative paths; ``*`` stays within one directory, ``**`` crosses them, a
  pattern ending in ``/`` covers everything below it);
- ``baseline``: fingerprints recorded by ``check --write-baseline`` (the same
  fingerprint SARIF's ``partialFingerprints`` carries, see
  :func:`context_doctor.report.findings.fingerprints`), computed over the findings
  that survive the first two ways.

Nothing is suppressed silently: the counts go into the report, a comment that
suppresses nothing (or is malformed, or names an unknown check) becomes an
``unused-suppression`` warning, and a baseline entry that matches nothing
becomes a ``baseline-stale`` warning.  A comment naming a check that did not
run, and a baseline entry of a check that did not run or of a project outside
this run, are not judged: the run cannot know.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from context_doctor.checks.registry import CheckSpec, did_you_mean
from context_doctor.errors import DoctorError, Unreadable
from context_doctor.guards.globs import Globs, compiled
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_limited
from context_doctor.model.documents import Document
from context_doctor.model.source import Corpus
from context_doctor.model.suppression_comments import SuppressionComment
from context_doctor.report.findings import Finding, Severity, fingerprints
from context_doctor.report.report import Report
from context_doctor.version import __version__

UNUSED = "unused-suppression"
STALE = "baseline-stale"
BASELINE_NAME = "context-doctor-baseline.json"
BASELINE_FORMAT = 1  # bump when the fingerprint or the file's shape changes
_BASELINE_KEY = "context_doctor_baseline"


# -- config ignores -------------------------------------------------------------


def path_glob(glob: str) -> Globs:
    """A repository-relative path glob: ``*`` within a directory, ``**`` across them, a
    trailing ``/`` covers everything below; matched in linear time
    (``context_doctor/guards/globs.py``: a committed key is hostile input)."""
    return compiled((f"{glob}**" if glob.endswith("/") else glob,))


@dataclass(frozen=True)
class ConfigIgnores:
    per_project: dict[str, frozenset[str]] = field(default_factory=dict)
    per_path: tuple[tuple[str, Globs, frozenset[str]], ...] = ()

    def covers(self, finding: Finding) -> bool:
        if finding.project is not None and finding.check in self.per_project.get(
            finding.project, frozenset()
        ):
            return True
        return any(
            finding.check in checks and globs.matches(finding.path)
            for _, globs, checks in self.per_path
        )


def config_ignores(
    per_project: dict[str, list[str]],
    per_path: dict[str, list[str]],
    resolve: Any,
) -> ConfigIgnores:
    """Build the ignores; ``resolve(names, origin)`` expands groups and exits 2 on unknown names."""
    return ConfigIgnores(
        per_project={
            project: frozenset(resolve(names, f"`per-project-ignores.{project}`"))
            for project, names in per_project.items()
        },
        per_path=tuple(
            (glob, path_glob(glob), frozenset(resolve(names, f"`per-path-ignores.{glob}`")))
            for glob, names in per_path.items()
        ),
    )


# -- the baseline ---------------------------------------------------------------


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    source: str
    project: str | None
    check: str
    path: str
    message: str


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: tuple[BaselineEntry, ...]


def _baseline_error(path: Path, problem: str) -> DoctorError:
    return DoctorError(
        f"baseline {path} {problem}",
        "rewrite it with `context-doctor check --write-baseline`, or point --baseline elsewhere",
    )


def read_baseline(path: Path) -> Baseline:
    """The baseline file, or exit 2 saying why it cannot be used."""
    if path.is_dir():
        raise _baseline_error(path, "is a directory, not a baseline file")
    if not path.is_file():
        raise DoctorError(
            f"baseline {path} does not exist",
            "create it with `context-doctor check --write-baseline`",
        )
    try:
        data = json.loads(read_limited(path, MAX_WRITE_TARGET_BYTES).decode("utf-8"))
    except TooLarge as error:
        raise _baseline_error(path, str(error)) from error
    except OSError as error:
        raise _baseline_error(path, f"cannot be read ({error.strerror or error})") from error
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise _baseline_error(path, "is not JSON") from error
    if not isinstance(data, dict) or _BASELINE_KEY not in data:
        raise _baseline_error(path, "is not a context-doctor baseline")
    if data[_BASELINE_KEY] != BASELINE_FORMAT:
        raise _baseline_error(
            path,
            f"was written by another version of context-doctor (format {data[_BASELINE_KEY]!r}, "
            f"this version reads {BASELINE_FORMAT})",
        )
    raw_entries = data.get("findings")
    if not isinstance(raw_entries, list):
        raise _baseline_error(path, "has no `findings` list")
    entries: list[BaselineEntry] = []
    for raw in raw_entries:
        if not isinstance(raw, dict) or not all(
            isinstance(raw.get(key), str) for key in ("fingerprint", "source", "check", "path")
        ):
            raise _baseline_error(path, "holds an entry without fingerprint, source, check, path")
        project = raw.get("project")
        entries.append(
            BaselineEntry(
                fingerprint=raw["fingerprint"],
                source=raw["source"],
                project=project if isinstance(project, str) else None,
                check=raw["check"],
                path=raw["path"],
                message=str(raw.get("message", "")),
            )
        )
    return Baseline(path, tuple(entries))


def baseline_bytes(findings: list[Finding], ids: list[dict[str, Any]] | None = None) -> bytes:
    """The baseline file recording ``findings`` (sorted, so a rewrite diffs cleanly), and the
    single projects' ``ids`` (:func:`context_doctor.pipeline.ids.recorded_ids`)."""
    entries = [
        {
            "fingerprint": fingerprint,
            "source": finding.source,
            "project": finding.project,
            "check": finding.check,
            "path": finding.path,
            "message": finding.message,
        }
        for finding, fingerprint in zip(findings, fingerprints(findings), strict=True)
    ]
    document = {
        _BASELINE_KEY: BASELINE_FORMAT,
        "doctor_version": __version__,
        "findings": entries,
    }
    if ids:
        document["projects"] = ids
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# -- applying them --------------------------------------------------------------


def _comments(corpus: Corpus, findings: list[Finding]) -> Iterator[tuple[str, SuppressionComment]]:
    """(source name, comment) for the suppression comments the run can see.

    Every tier file and index.yaml, plus any other Markdown file a finding
    points at (an artifact, a freshness-graded file): read by the model
    (``Document``), never outside the repository.
    """
    seen: set[tuple[str, str]] = set()
    for source in corpus.sources:
        if source.index is not None:
            for comment in source.index.suppressions:
                yield source.name, comment
        for project in source.projects:
            if not project.directory_exists:
                continue
            for document in project.tier_documents():
                seen.add((source.name, document.rel_path))
                yield from ((source.name, c) for c in _document_comments(document))
    toplevels = {vault.name: vault.base for vault in corpus.vaults}
    toplevels.update({source.name: source.repository.toplevel for source in corpus.sources})
    for finding in findings:
        key = (finding.source, finding.path)
        toplevel = toplevels.get(finding.source)
        if key in seen or toplevel is None or not finding.path.endswith(".md"):
            continue
        seen.add(key)
        if finding.path.startswith("/") or ".." in finding.path.split("/"):
            continue
        document = Document(toplevel / finding.path, finding.path, root=toplevel)
        if document.exists:
            yield from ((finding.source, c) for c in _document_comments(document))


def _document_comments(document: Document) -> list[SuppressionComment]:
    if document.problem is not None:
        return []  # record-unreadable (or the check that needed it) reports the file
    try:
        return document.suppressions
    except Unreadable:
        return []


@dataclass
class _Inline:
    comment: SuppressionComment
    source: str
    used: set[str] = field(default_factory=set)


def _unused_findings(
    inline: list[_Inline],
    known: dict[str, CheckSpec],
    ran: set[str],
    severity: Severity,
) -> Iterator[Finding]:
    aliases = {alias: spec.name for spec in known.values() for alias in spec.aliases}
    spec = known.get(UNUSED)
    remedy = spec.remedy if spec else ""
    for item in inline:
        comment = item.comment
        where = f"`{comment.text}`"

        def finding(message: str, item: _Inline = item) -> Finding:
            return Finding(
                UNUSED,
                severity,
                item.source,
                None,
                item.comment.path,
                item.comment.line,
                message,
                remedy,
            )

        if comment.problem is not None:
            yield finding(f"malformed suppression comment {where}: {comment.problem}")
            continue
        for name in comment.checks:
            canonical = aliases.get(name, name)
            if canonical not in known:
                yield finding(
                    f"suppression comment {where} names unknown check `{name}`"
                    f"{did_you_mean(name, known)}"
                )
            elif canonical in ran and canonical not in item.used:
                what = "the next line" if comment.target_line else "the rest of the file"
                yield finding(
                    f"suppression comment {where} suppresses no `{name}` finding on {what}"
                )


def apply(
    report: Report,
    corpus: Corpus,
    checks: list[CheckSpec],
    known: dict[str, CheckSpec],
    ignores: ConfigIgnores,
    baseline: Baseline | None,
    severity_override: dict[str, Severity] | None = None,
) -> Report:
    """The report with suppressed findings removed, counted, and the honesty warnings added."""
    ran = {spec.name for spec in checks}
    overrides = severity_override or {}
    aliases = {alias: spec.name for spec in known.values() for alias in spec.aliases}
    inline = [_Inline(comment, source) for source, comment in _comments(corpus, report.findings)]
    by_file: dict[tuple[str, str], list[_Inline]] = {}
    for item in inline:
        by_file.setdefault((item.source, item.comment.path), []).append(item)
    counts: Counter[str] = Counter()
    kept: list[Finding] = []
    for finding in report.findings:
        waived = False
        for item in by_file.get((finding.source, finding.path), []):
            names = {aliases.get(name, name) for name in item.comment.checks}
            if finding.check in names and item.comment.covers(finding.line):
                item.used.add(finding.check)
                waived = True
        if waived:
            counts["inline"] += 1
        elif ignores.covers(finding):
            counts["config"] += 1
        else:
            kept.append(finding)
    if UNUSED in ran:
        kept += _unused_findings(inline, known, ran, overrides.get(UNUSED, known[UNUSED].severity))
        report.coverage[UNUSED].examined += len(inline)
    # The baseline sees what --write-baseline recorded: the findings after the other two
    # ways, unused-suppression warnings included, in report order (fingerprints count
    # occurrences in that order).
    kept.sort(key=Finding.sort_key)
    extra: list[Finding] = []
    if baseline is not None:
        kept, stale = _apply_baseline(kept, baseline, corpus, ran, counts)
        if STALE in ran:
            spec = known[STALE]
            report.coverage[STALE].examined += len(baseline.entries)
            owner = {project.id: project.source.name for project in corpus.projects}
            extra += [
                Finding(
                    STALE,
                    overrides.get(STALE, spec.severity),
                    owner.get(entry.project or "", _first_source_name(corpus)),
                    entry.project,
                    entry.path,
                    None,
                    f"baseline entry no longer matches a finding: [{entry.check}] {entry.message}",
                    "Rewrite the baseline: `context-doctor check --write-baseline "
                    f"{shlex.quote(str(baseline.path))}`.",
                )
                for entry in stale
            ]
    findings = sorted([*kept, *extra], key=Finding.sort_key)
    return replace(
        report,
        findings=findings,
        suppressed={way: counts[way] for way in report.suppressed},
        projects_with_findings=len({(f.source, f.project) for f in findings if f.project}),
    )


def _apply_baseline(
    findings: list[Finding],
    baseline: Baseline,
    corpus: Corpus,
    ran: set[str],
    counts: Counter[str],
) -> tuple[list[Finding], list[BaselineEntry]]:
    remaining = Counter(entry.fingerprint for entry in baseline.entries)
    kept: list[Finding] = []
    for finding, fingerprint in zip(findings, fingerprints(findings), strict=True):
        if remaining[fingerprint] > 0:
            remaining[fingerprint] -= 1
            counts["baseline"] += 1
        else:
            kept.append(finding)
    # Judge only what this run could have found again: a project it audited, or a
    # source-wide finding when no source was narrowed to some projects (--project).
    audited_projects = {project.id for project in corpus.projects}
    whole_sources = all(source.only is None for source in corpus.sources)
    vault_names = {vault.name for vault in corpus.vaults}
    stale: list[BaselineEntry] = []
    for entry in baseline.entries:
        if remaining[entry.fingerprint] <= 0:
            continue
        remaining[entry.fingerprint] -= 1
        in_scope = (
            entry.source in vault_names  # a vault is always audited whole
            or (entry.project in audited_projects if entry.project is not None else whole_sources)
        )
        if in_scope and entry.check in ran:
            stale.append(entry)
    return kept, stale


def findings_for_baseline(report: Report) -> list[Finding]:
    """What ``--write-baseline`` records: every finding but the baseline's own warnings."""
    return [finding for finding in report.findings if finding.check != STALE]


def _first_source_name(corpus: Corpus) -> str:
    """Who owns a finding no audited unit claims: the first source, else the first vault."""
    return corpus.sources[0].name if corpus.sources else corpus.vaults[0].name


def default_baseline_path(corpus: Corpus) -> Path:
    """``context-doctor-baseline.json`` at the (first) source root; a vault-only run names
    its file itself: the doctor never writes inside a vault (docs/vaults.md)."""
    if not corpus.sources:
        raise DoctorError(
            "--write-baseline needs a file name when only memory vaults are audited",
            "name a file outside the vault: `--write-baseline PATH` (the doctor never writes "
            "inside a vault)",
        )
    return corpus.sources[0].root / BASELINE_NAME
