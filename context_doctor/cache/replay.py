"""Replaying the report of a run whose every input is unchanged (the warm run).

A day-start sweep, a pre-push hook and a CI job often audit a corpus nothing has
touched since the last run.  Such a run gets the stored report back instead of
auditing again, but only when a *run key* over everything the audit could have
read is byte-for-byte the same as the stored one.  The key covers:

* the doctor: its version, the source of its own package and of each check plugin's
  package, every distribution installed where Python finds packages (by its metadata
  directory's name and version: a library upgraded, a plugin added), the git binary, Python;
* the invocation: ``--today``, ``--readiness``, the checks chosen with their
  severities, the resolved settings, the corpus (sources, roots, projects, the
  ``--project`` narrowing, ``--allow-shallow``, the pushed shas, ``CI``), the
  environment variables the audit or the git it runs reads (:data:`KEYED_VARIABLES`,
  :data:`KEYED_PREFIXES`: no other variable can change a report, so a terminal's or a
  shell's own leave the key alone), the working directory, the user and groups files
  are read as;
* the bytes of every file outside the repositories the run read: the config file,
  the baseline, console.yaml, the registered freshness files;
* per repository, the work tree: every entry under the top level except ``.git``
  directories, with its type, mode and owner, a symlink's target (and, for a link
  leaving the tree, the type, size, times and inode of what it leads to), and a regular
  file's size, mtime, ctime and inode;
* per repository, git's view: the ``HEAD`` file, every ref (``for-each-ref``), the
  index (``ls-files --stage``), the configuration as git sees it (``config --list``),
  and the state files that change what git reports (merge, rebase, shallow, excludes).

Decisions, where the documented contract is silent:

* **Files by their stat, as git does, but with the ctime.** Reading every file to
  key the run would cost as much as the warm run saves.  The ctime is the kernel's:
  every write and every ``touch -d`` (an mtime put back) sets it to now, and no
  user can set it back, so an edit with its mtime restored still changes the key.
  A copy or a checkout gets new ctimes: a miss, never a wrong replay.  A file whose
  times are within :data:`RACY_SECONDS` of now could still be rewritten inside the
  same timestamp tick without its times moving (git's "racily clean" case), so for
  such a *racy* file the bytes are checked as well: digested when the key is taken
  and again before the report is stored (a difference: not stored), and the digests
  of the files racy at storing are kept with the report and checked again before it
  is replayed.  The key itself is the same whether a file was racy or not, so a
  run soon after an edit and one a minute later share it.
* **Forgery.** The cache lives inside a repository someone else may have prepared,
  and a stored report is exactly what a forger would want to plant ("no findings").
  The key and a tag over each stored report are keyed BLAKE2b MACs under a random
  per-user secret kept outside every repository
  (``$XDG_CACHE_HOME/context-doctor/replay-secret``, mode 0600).  Without it (an
  unwritable home, a CI job's fresh machine) nothing is replayed or stored.
* **Races.** A file written while the audit runs must not leave a report stored under
  the key of the bytes before the write: after the audit every entry is looked at
  again (size, mtime, ctime, inode), and the report is stored only when none moved.
* **Bounds.** A work tree of more than :data:`MAX_ENTRIES` files (anything but a
  directory) or :data:`MAX_DIRECTORIES` directories, or more than
  :data:`MAX_HASHED_BYTES` to hash, is not keyed (the audit runs as usual): the key
  must stay cheaper than what it saves. Files and directories are counted apart:
  8,000 projects are ~93,000 files in ~16,000 directories, under both caps, where one
  count of both had passed 100,000 and never replayed.
* **Keyed before discovery.** A run named by paths alone (no console, no
  current-directory search, no vault) reads nothing outside the repositories holding
  them but the files its key names (configuration, baseline, freshness files). Its key is
  its invocation (:class:`Invocation`: the options, the paths and the repositories they
  lie in) and those inputs; the first run stores a *manifest* of the inputs beside the
  report (ccache's direct mode keeps the headers a compilation read the same way), and
  a later run keys them again and replays without discovering the corpus or importing
  the model or a check. Without plugins, every run's key is taken before the checks are
  imported: the code digest and the settings determine them.
* **What is replayed.** Only the report (findings, coverage, counts, the freshness
  summary, suppressions); ``generated_at`` is the replaying run's.  ``--fix``,
  ``--diff`` and ``--write-baseline`` never replay: they need the model.

Anything wrong with a stored report (missing, foreign, corrupt, tag mismatch) is a
miss, never an error: at most a ``--debug`` line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections import Counter
from dataclasses import asdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import msgspec

from context_doctor.cache.codec import BAD_DATA, decode, encode
from context_doctor.cache.debug import DebugLog
from context_doctor.cache.keys import (
    Invocation,
    Manifest,
    RunKey,
    Unkeyable,
    direct_digest,
    direct_start,
    file_digests,
    is_racy,
    key_inputs,
    racy_cutoff,
)
from context_doctor.cache.store import Store, cache_key, decode_entry
from context_doctor.errors import DoctorError
from context_doctor.report.findings import (
    AppendLine,
    Applicability,
    Finding,
    Fix,
    RemoveFrontmatterKey,
    RewritePath,
    SetEntryField,
    Severity,
)
from context_doctor.report.report import Coverage, Report, SourceSummary

REPORTS_FILE = "reports.msgpack"
KEPT_REPORTS = 4  # one per way of running (a hook, a sweep, CI...), the newest kept

LOG = DebugLog("context_doctor.cache")
MANIFESTS_FILE = "invocations.msgpack"
KEPT_MANIFESTS = 16


def _manifests_key(store: Store) -> str:
    return cache_key(store.code, "invocations")


def recall_direct(invocation: Invocation) -> tuple[Report, Path | None] | None:
    """The report a run with this invocation stored, with the repository whose report
    cache it wrote, when nothing it read has changed; else None (then discover and audit:
    that run keys and stores itself)."""
    from context_doctor.config.plugins import plugin_modules
    from context_doctor.git.repository import repository_or_none

    if not invocation.anchors or plugin_modules():
        return None  # a plugin's checks are keyed by its code, known once it is imported
    try:
        first = invocation.anchors[0]
        repository = repository_or_none(first if first.is_dir() else first.parent)
        if repository is None:
            return None
        store = Store.for_repository(repository)
        secret = store.secret
        if secret is None or store.directory is None:
            return None
        start = direct_start(secret, invocation)
        stored = store.read_entries(MANIFESTS_FILE, _manifests_key(store)).get(start)
        manifest = None if stored is None else decode_entry(stored, Manifest, "invocation")
        if manifest is None:
            return None
        toplevels = [Path(os.fsdecode(top)) for top in manifest.toplevels]
        externals = [None if raw is None else Path(raw) for raw in manifest.externals]
        inputs, _watched, _racy = key_inputs(secret, toplevels, externals)
    except (Unkeyable, OSError, DoctorError) as reason:
        LOG.debug(f"this run is not replayable: {reason}")
        return None
    report = recall(RunKey(direct_digest(secret, start, inputs), secret, store))
    if report is None:
        return None
    return report, None if manifest.whole is None else Path(manifest.whole)


def _keep_manifest(key: RunKey) -> None:
    if key.direct is None:
        return
    start, manifest = key.direct
    stored = key.store.read_entries(MANIFESTS_FILE, _manifests_key(key.store))
    entries: dict[bytes, Any] = {
        digest: entry for digest, entry in stored.items() if digest != start
    }
    entries[start] = manifest
    key.store.write(
        MANIFESTS_FILE, _manifests_key(key.store), dict(list(entries.items())[-KEPT_MANIFESTS:])
    )


# -- storing and replaying ----------------------------------------------------------


def _tag(secret: bytes, digest: bytes, packed: bytes, racy: list[tuple[bytes, bytes]]) -> bytes:
    mac = hashlib.blake2b(digest, key=secret, digest_size=32)
    for path, content in racy:
        mac.update(len(path).to_bytes(8, "little") + path + content)
    mac.update(packed)
    return mac.digest()


def _reports_key(store: Store) -> str:
    return cache_key(store.code, "reports")


class _Stored(msgspec.Struct, array_like=True):
    """A stored report: its tag, its bytes, and the racy files' (path, digest) pairs."""

    tag: bytes
    packed: bytes
    racy: list[tuple[bytes, bytes]]


def recall(key: RunKey) -> Report | None:
    """The report stored under ``key``, or None."""
    stored = key.store.read_entries(REPORTS_FILE, _reports_key(key.store))
    entry = stored.get(key.digest)
    found = None if entry is None else decode_entry(entry, _Stored, "report")
    if found is None:
        return None
    tag, packed, racy = found.tag, found.packed, found.racy
    if not hmac.compare_digest(tag, _tag(key.secret, key.digest, packed, racy)):
        LOG.debug(f"{REPORTS_FILE}: a stored report failed its tag; ignored")
        return None
    try:
        if file_digests(path for path, _ in racy) != dict(racy):
            LOG.debug("a file changed within a timestamp tick of the stored run: audited afresh")
            return None
        report = report_from_wire(decode(packed, _ReportWire))
    except (*BAD_DATA, Unkeyable) as error:
        LOG.debug(f"{REPORTS_FILE}: a stored report ignored ({error})")
        return None
    report.generated_at = datetime.now(UTC).isoformat(timespec="seconds")
    LOG.debug("nothing changed since a stored run: its report is replayed")
    return report


def keep(key: RunKey, report: Report) -> None:
    """Store ``report`` under ``key``, unless an entry moved while the audit ran.

    A file racy when the key was taken must still hold the bytes it held then; the
    files racy now have their digests stored with the report, checked on replay.
    """
    if not key.unchanged():
        LOG.debug("the tree changed while the audit ran: its report is not stored")
        return
    after = racy_cutoff()
    racy_now = [path for path, sign in key.watched.items() if is_racy(sign, after)]
    try:
        digests = file_digests(sorted({*racy_now, *key.racy}))
        packed = encode(report_to_wire(report))
    except (ValueError, TypeError, OverflowError, Unkeyable) as error:
        LOG.debug(f"report not stored: {error}")
        return
    if any(digests[path] != content for path, content in key.racy.items()):
        LOG.debug("a file changed within a timestamp tick while the audit ran: not stored")
        return
    racy = [(path, digests[path]) for path in sorted(racy_now)]
    stored = key.store.read_entries(REPORTS_FILE, _reports_key(key.store))
    entries: dict[bytes, Any] = {
        digest: entry for digest, entry in stored.items() if digest != key.digest
    }
    entries[key.digest] = _Stored(_tag(key.secret, key.digest, packed, racy), packed, racy)
    kept = dict(list(entries.items())[-KEPT_REPORTS:])
    key.store.write(REPORTS_FILE, _reports_key(key.store), kept)
    _keep_manifest(key)


# -- the report on the wire -----------------------------------------------------------
#
# Records as rows (``array_like``), every field's type checked by msgspec as it is decoded.
# A fix's edits are ``(kind, fields)``: their dataclasses are one union msgspec does not
# decode by itself, so each is converted (and checked) by its kind.

_EDITS: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (SetEntryField, RemoveFrontmatterKey, AppendLine, RewritePath)
}


class _FixWire(msgspec.Struct, array_like=True):
    path: str
    applicability: Applicability
    description: str
    edits: list[tuple[str, dict[str, str | int | bool]]]


class _FindingWire(msgspec.Struct, array_like=True):
    check: str
    severity: Severity
    source: str
    project: str | None
    path: str
    line: int | None
    message: str
    remedy: str
    fix: _FixWire | None


class _CoverageWire(msgspec.Struct, array_like=True):
    examined: int
    skipped: int
    reasons: list[tuple[str, int]]
    not_applicable: list[tuple[str, int]] = []


class _ReportWire(msgspec.Struct, array_like=True):
    today: date
    readiness: str
    projects_audited: int
    projects_with_findings: int
    freshness: str | None  # as JSON text: the summary is JSON's own data
    suppressed: dict[str, int]
    toplevels: dict[str, str]
    doctor_version: str
    sources: list[SourceSummary]
    coverage: dict[str, _CoverageWire]
    findings: list[_FindingWire]


def _fix_to_wire(fix: Fix | None) -> _FixWire | None:
    if fix is None:
        return None
    edits = [(type(edit).__name__, asdict(edit)) for edit in fix.edits]
    return _FixWire(fix.path, fix.applicability, fix.description, edits)


def _fix_from_wire(wire: _FixWire | None) -> Fix | None:
    if wire is None:
        return None
    made = tuple(msgspec.convert(fields, _EDITS[kind]) for kind, fields in wire.edits)
    return Fix(wire.path, wire.applicability, wire.description, made)


def report_to_wire(report: Report) -> _ReportWire:
    return _ReportWire(
        today=report.today,
        readiness=report.readiness,
        projects_audited=report.projects_audited,
        projects_with_findings=report.projects_with_findings,
        freshness=None if report.freshness is None else json.dumps(report.freshness),
        suppressed=dict(report.suppressed),
        toplevels=dict(report.toplevels),
        doctor_version=report.doctor_version,
        sources=report.sources,
        coverage={
            name: _CoverageWire(
                cov.examined,
                cov.skipped,
                sorted(cov.reasons.items()),
                sorted(cov.not_applicable.items()),
            )
            for name, cov in report.coverage.items()
        },
        findings=[
            _FindingWire(
                f.check,
                f.severity,
                f.source,
                f.project,
                f.path,
                f.line,
                f.message,
                f.remedy,
                _fix_to_wire(f.fix),
            )
            for f in report.findings
        ],
    )


def report_from_wire(wire: _ReportWire) -> Report:
    return Report(
        today=wire.today,
        readiness=wire.readiness,
        generated_at="",
        sources=wire.sources,
        projects_audited=wire.projects_audited,
        findings=[
            Finding(
                check=f.check,
                severity=f.severity,
                source=f.source,
                project=f.project,
                path=f.path,
                line=f.line,
                message=f.message,
                remedy=f.remedy,
                fix=_fix_from_wire(f.fix),
            )
            for f in wire.findings
        ],
        coverage={
            name: Coverage(
                cov.examined,
                cov.skipped,
                Counter(dict(cov.reasons)),
                Counter(dict(cov.not_applicable)),
            )
            for name, cov in wire.coverage.items()
        },
        projects_with_findings=wire.projects_with_findings,
        freshness=None if wire.freshness is None else json.loads(wire.freshness),
        suppressed=wire.suppressed,
        toplevels=wire.toplevels,
        doctor_version=wire.doctor_version,
    )
