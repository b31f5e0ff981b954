"""The run key: a MAC over everything an audit could have read.

Two keys name a run. :func:`run_key` keys a discovered corpus: the doctor, the
invocation, the settings and every input the audit reads. A run named by paths alone is
keyed directly, before discovery (:class:`Invocation`): by the invocation and the inputs
a first run recorded in its manifest. What the keys cover, and why, is said in
:mod:`context_doctor.cache.replay`, which stores and replays the report under them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import struct
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from context_doctor.cache.debug import DebugLog
from context_doctor.cache.store import RACY_SECONDS, Store, read_regular_file
from context_doctor.config.plugins import installed_metadata
from context_doctor.errors import DoctorError
from context_doctor.git.run import git_directories, run_git
from context_doctor.version import __version__

if TYPE_CHECKING:
    from context_doctor.checks.registry import CheckSpec, Context
    from context_doctor.config.settings import Settings

MAX_ENTRIES = 100_000  # files; bounds what a miss costs (~0.3 s) in a huge tree
MAX_DIRECTORIES = 50_000
MAX_HASHED_BYTES = 64 << 20  # of racy files' bytes read at once
# Files of a git directory that change what git reports without moving a ref or the index.
GIT_STATE_FILES = (
    "HEAD",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "BISECT_LOG",
    "shallow",
    "commondir",
    "info/exclude",
    "info/sparse-checkout",
    "info/grafts",
    "info/attributes",
)
GIT_STATE_DIRECTORIES = ("rebase-merge", "rebase-apply", "sequencer")
# The environment that can change a report, and so the only part of it in the key:
# what the doctor reads (its home, cache, vault, CI, its own settings, pre-commit's
# pushed refs) and what the git it runs inherits and reads (every GIT_* variable, the
# user's home and config directory, TZ, PATH: git finds its helpers there). Python's
# own (PYTHON*) and the locale (LANG, LC_*) are kept to be safe. Anything else (a
# terminal's or shell's TERM_SESSION_ID, PS1, COLUMNS, SHLVL...) no longer makes a warm
# run audit again.
KEYED_VARIABLES = frozenset(
    {"CI", "HOME", "LANG", "LANGUAGE", "PATH", "SYNTHESIS_HOME", "TZ"}
    | {"XDG_CACHE_HOME", "XDG_CONFIG_HOME"}
)
KEYED_PREFIXES = ("BASTRA_", "CONTEXT_DOCTOR_", "GIT_", "LC_", "PRE_COMMIT_", "PYTHON")
LOG = DebugLog("context_doctor.cache")
# (size, mtime_ns, ctime_ns, inode) of each entry when the key was taken
Signature = tuple[int, int, int, int]


class Unkeyable(Exception):
    """The run cannot be keyed (too large a tree, a git command failed): no replay."""


@dataclass
class RunKey:
    """The key of one run, and what to look at again before its report is stored."""

    digest: bytes
    secret: bytes
    store: Store
    watched: dict[bytes, Signature] = field(default_factory=dict)
    racy: dict[bytes, bytes] = field(default_factory=dict)  # racy file -> digest of its bytes
    # For a run keyed by its invocation (:class:`Invocation`): that key's digest and what
    # a later run must look at to key itself without discovering the corpus.
    direct: tuple[bytes, Manifest] | None = None

    def unchanged(self) -> bool:
        """Whether every entry the key saw still has the size, times and inode it had."""
        return _signatures(self.watched) == self.watched


# -- the key ------------------------------------------------------------------------


class Material:
    """Length-framed parts fed into one keyed digest (no two part lists collide)."""

    def __init__(self, secret: bytes) -> None:
        self.digest = hashlib.blake2b(key=secret, digest_size=32)

    def add(self, *parts: str | bytes | int | None) -> None:
        for part in parts:
            if part is None:
                data = b"\xff"
            elif isinstance(part, int):
                data = str(part).encode("ascii")
            elif isinstance(part, str):
                data = part.encode("utf-8", "surrogateescape")
            else:
                data = part
            self.digest.update(len(data).to_bytes(8, "little"))
            self.digest.update(data)


def _file_bytes(path: Path | str) -> bytes:
    """A file's bytes for the key, or a marker saying why there are none (never raises)."""
    try:
        return b"f" + read_regular_file(Path(path))
    except FileNotFoundError:
        return b"missing"
    except (OSError, ValueError) as error:
        return b"unreadable " + str(error).encode("utf-8", "surrogateescape")


def _package_sources(checks: list[CheckSpec]) -> tuple[tuple[str, bytes], ...]:
    """The source of every package a check module lives in, outside the doctor's own.

    The doctor's own package is bound by the reports file's key (``Store.code``, a
    digest of its source).  Whole package directories, whatever this process happened
    to import, so the key does not depend on what an earlier run in the process loaded.
    """
    return _sources_under(_plugin_directories(tuple(sorted({spec.module for spec in checks}))))


@cache
def _plugin_directories(modules: tuple[str, ...]) -> tuple[Path, ...]:
    own = Path(__file__).resolve().parent.parent
    directories: set[Path] = set()
    for name in modules:
        where = getattr(sys.modules.get(name), "__file__", None)
        if where and not Path(where).resolve().is_relative_to(own):
            directories.add(Path(where).resolve().parent)
    return tuple(sorted(directories))


# Read once per process, like the store's own code digest: the code a process runs is
# the code it imported, and a second run in one process (``--fix``'s re-audit, the test
# suite) need not read and ask for it all again.
@cache
def _sources_under(directories: tuple[Path, ...]) -> tuple[tuple[str, bytes], ...]:
    return tuple(
        (str(path), _file_bytes(path))
        for directory in directories
        for path in sorted(directory.rglob("*.py"))
    )


def _git(toplevel: Path, args: list[str]) -> bytes:
    # None of these reads the work tree's contents, so no filter driver can run: the
    # hardened environment suffices (no second `git config` to blank the drivers).
    result = run_git(args, toplevel)
    return result.returncode.to_bytes(2, "little", signed=True) + result.stdout


def _git_directories(toplevel: Path) -> list[Path]:
    known = git_directories(toplevel)  # found with the top level, by the same rev-parse
    if known is not None:
        return list(dict.fromkeys(known))
    result = run_git(["rev-parse", "--absolute-git-dir", "--git-common-dir"], toplevel)
    if result.returncode != 0:
        raise Unkeyable("git rev-parse failed")
    lines = result.stdout.decode("utf-8", "surrogateescape").splitlines()
    directories = [Path(line) if Path(line).is_absolute() else toplevel / line for line in lines]
    return list(dict.fromkeys(directories))


def _add_git(material: Material, toplevel: Path, watched: dict[bytes, Signature]) -> None:
    for directory in _git_directories(toplevel):
        material.add("git directory", os.fsencode(directory))
        for name in GIT_STATE_FILES:
            material.add(name, _file_bytes(directory / name))
        for name in GIT_STATE_DIRECTORIES:
            material.add(name, int((directory / name).is_dir()))
        # A commit, a fetch or an add during the audit moves one of these.
        for name in ("HEAD", "index", "packed-refs", "refs"):
            _watch(watched, directory / name)
        _watch_tree(watched, directory / "refs")
    material.add("refs", _git(toplevel, ["for-each-ref", "--format=%(refname)%00%(objectname)"]))
    material.add("index", _git(toplevel, ["ls-files", "--stage", "-z"]))
    config = _git(toplevel, ["config", "--list", "-z"])
    material.add("config", config)
    # Files the configuration only names: their contents change what `git status` lists.
    for path in _named_by_config(config[2:]):
        material.add("config file", os.fsencode(path), _file_bytes(path))


def _named_by_config(listing: bytes) -> list[Path]:
    """The user's excludes and attributes files (``core.*`` or git's XDG defaults)."""
    values: dict[str, str] = {}
    for entry in listing.split(b"\x00"):
        key, _, value = entry.partition(b"\n")
        values[key.decode("utf-8", "surrogateescape").lower()] = value.decode(
            "utf-8", "surrogateescape"
        )
    configured = os.environ.get("XDG_CONFIG_HOME")
    base = Path(configured) if configured else Path.home() / ".config"
    return [
        Path(values[key]).expanduser() if values.get(key) else base / "git" / default
        for key, default in (("core.excludesfile", "ignore"), ("core.attributesfile", "attributes"))
    ]


def _watch(watched: dict[bytes, Signature], path: Path) -> None:
    try:
        status = os.lstat(path)
    except OSError:
        watched[os.fsencode(path)] = (-1, -1, -1, -1)
        return
    watched[os.fsencode(path)] = signature_of(status)


def _watch_tree(watched: dict[bytes, Signature], directory: Path) -> None:
    for parent, subdirectories, names in os.walk(directory):
        subdirectories.sort()
        for name in sorted(names):
            _watch(watched, Path(parent, name))


def signature_of(status: os.stat_result) -> Signature:
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def _signatures(watched: Iterable[bytes]) -> dict[bytes, Signature]:
    found: dict[bytes, Signature] = {}
    for path in watched:
        try:
            found[path] = signature_of(os.lstat(path))
        except OSError:
            found[path] = (-1, -1, -1, -1)
    return found


# One entry of the work tree: its path's length, then mode, owner, group, size, mtime,
# ctime and inode as fixed-width numbers (the path itself follows): one digest update each.
_ENTRY = struct.Struct("<IIIIqqqQ")


class TreeWalk:
    """Every entry of a work tree (``.git`` directories left out) into the key."""

    def __init__(self, material: Material, watched: dict[bytes, Signature]) -> None:
        self.material = material
        self.watched = watched
        self.files = 0  # every entry but a directory
        self.directories = 0
        self.racy: list[bytes] = []

    def walk(self, root: Path) -> None:
        pending = [os.fsencode(root)]
        base = len(pending[0])
        inside = os.path.join(os.path.realpath(pending[0]), b"")
        racy_after = racy_cutoff()
        update = self.material.digest.update
        while pending:
            directory = pending.pop()
            try:
                with os.scandir(directory) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError as error:
                self.material.add(b"unlistable", directory[base:], str(error.errno))
                continue
            files = sum(not entry.is_dir(follow_symlinks=False) for entry in entries)
            self.files += files
            self.directories += len(entries) - files
            if self.files > MAX_ENTRIES:
                raise Unkeyable(f"more than {MAX_ENTRIES} files")
            if self.directories > MAX_DIRECTORIES:
                raise Unkeyable(f"more than {MAX_DIRECTORIES} directories")
            for entry in entries:
                path = entry.path
                try:
                    status = entry.stat(follow_symlinks=False)
                except OSError as error:
                    self.material.add(b"gone", path[base:], str(error.errno))
                    continue
                mode = status.st_mode
                if stat.S_ISDIR(mode):
                    if entry.name == b".git":
                        continue  # git's own state is keyed by what git reports (_add_git)
                    pending.append(path)
                relative = path[base:]
                sign = (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)
                update(_ENTRY.pack(len(relative), mode, status.st_uid, status.st_gid, *sign))
                update(relative)
                self.watched[path] = sign
                if stat.S_ISLNK(mode):
                    self.material.add(b"link", _link_target(path))
                    self._beyond(path, inside, racy_after)
                elif stat.S_ISREG(mode) and (sign[1] >= racy_after or sign[2] >= racy_after):
                    self.racy.append(path)

    def _beyond(self, link: bytes, inside: bytes, racy_after: int) -> None:
        """What a link leaving the tree leads to (an index.yaml kept elsewhere) is keyed too.

        The doctor may read it, and its changes move nothing inside the tree.
        """
        real = os.path.realpath(link)
        if os.path.join(real, b"").startswith(inside):
            return
        try:
            status = os.stat(real)
        except OSError as error:
            self.material.add(b"target gone", real, str(error.errno))
            return
        sign = signature_of(status)
        self.material.add(b"target", real, status.st_mode, *sign)
        self.watched[real] = sign
        if stat.S_ISREG(status.st_mode) and is_racy(sign, racy_after):
            self.racy.append(real)


def racy_cutoff() -> int:
    return time.time_ns() - RACY_SECONDS * 1_000_000_000


def is_racy(signature: Signature, after: int) -> bool:
    """Times this recent may not move on a rewrite inside the same timestamp tick."""
    return signature[1] >= after or signature[2] >= after


def file_digests(paths: Iterable[bytes]) -> dict[bytes, bytes]:
    """A BLAKE2b digest of each file's bytes (a marker for one that cannot be read)."""
    found: dict[bytes, bytes] = {}
    total = 0
    for path in paths:
        try:
            data = read_regular_file(Path(os.fsdecode(path)))
        except (OSError, ValueError) as error:
            found[path] = b"unreadable " + str(error).encode("utf-8", "surrogateescape")
            continue
        total += len(data)
        if total > MAX_HASHED_BYTES:
            raise Unkeyable(f"more than {MAX_HASHED_BYTES} bytes of recently changed files")
        found[path] = hashlib.blake2b(data, digest_size=20).digest()
    return found


def _link_target(path: bytes) -> bytes:
    try:
        return os.readlink(path)
    except OSError as error:
        return b"unreadable link " + str(error.errno).encode("ascii")


@dataclass(frozen=True)
class SourceInputs:
    """What the run key reads of one source: values, taken before the key is."""

    name: str
    root: Path
    projects_dir: str | None
    only: str | None  # the ``--project`` narrowing, sorted, as text
    toplevel: Path
    allow_shallow: bool
    ci: bool
    pushing: tuple[str, ...]
    store: object  # its repository's store (a Store; None without the cache)
    projects: tuple[str, ...]  # the project ids
    registry: tuple[str, ...]  # each freshness registry entry, as text
    registered: tuple[Path, ...]  # the files those entries name


@dataclass(frozen=True)
class RunInputs:
    """The corpus as the run key reads it, taken once before the key (by
    :func:`context_doctor.pipeline.audit.run_inputs`): the key reads values and never calls
    back into the model, so the model knows nothing of the key."""

    has_vaults: bool
    has_projects: bool
    sources: tuple[SourceInputs, ...]
    console_path: Path | None
    from_console: bool
    unaudited: str  # the unaudited sources, as text
    whole: Path | None  # the one repository the run audits whole, if it does


def run_key(
    run: RunInputs,
    *,
    settings: Settings,
    checks: list[CheckSpec] | None,
    ctx: Context,
    baseline: Path | None,
    direct: Invocation | None = None,
) -> RunKey | None:
    """The key of this run, or None when it cannot be replayed (see the module docstring).

    ``checks`` None: the run's checks are the doctor's own (no plugin is installed), which
    its code digest and the settings (the selection, the severities) determine, so none
    needs importing to take the key. ``direct``: the run was named by paths alone (see
    :class:`Invocation`); it is keyed by its invocation and its inputs, and what a later
    run needs to take that key before discovery is stored with the report.
    """
    if run.has_vaults:
        return None  # a vault may live outside git, and its floors live outside the vault
    stores = [source.store for source in run.sources]
    if not stores or not all(isinstance(store, Store) and store.directory for store in stores):
        return None  # --no-cache, or a source outside git: no store to keep a report in
    store = stores[0]
    assert isinstance(store, Store)
    secret = store.secret  # every store is made with the user's secret (cache_secret.py)
    if secret is None:
        return None
    try:
        toplevels = sorted({source.toplevel for source in run.sources})
        externals = _externals(run, settings, baseline)
        inputs, watched, racy = key_inputs(secret, toplevels, externals)
        digests = file_digests(racy)
        if direct is not None and run.has_projects:
            start = direct_start(secret, direct)
            whole = run.whole
            manifest = Manifest(
                [os.fsencode(top) for top in toplevels],
                [None if path is None else str(path) for path in externals],
                None if whole is None else str(whole),
            )
            digest = direct_digest(secret, start, inputs)
            return RunKey(digest, secret, store, watched, digests, (start, manifest))
        material = Material(secret)
        _add_invocation(material, run, settings, checks, ctx)
        material.add("inputs", inputs)
    except (Unkeyable, OSError, DoctorError) as reason:  # a deleted working directory, git gone
        LOG.debug(f"this run is not replayable: {reason}")
        return None
    return RunKey(material.digest.digest(), secret, store, watched, digests)


def _externals(run: RunInputs, settings: Settings, baseline: Path | None) -> list[Path | None]:
    """The files outside the repositories the run may read, by their bytes."""
    named = [settings.config_file, baseline, run.console_path, settings.freshness_cache]
    registered = [path for source in run.sources for path in source.registered]
    return [*named, *registered]


def key_inputs(
    secret: bytes, toplevels: list[Path], externals: list[Path | None]
) -> tuple[bytes, dict[bytes, Signature], list[bytes]]:
    """A digest of everything the audit reads: the files outside the repositories, then
    each repository's work tree and git state; with the entries to look at again and the
    racy files."""
    material = Material(secret)
    watched: dict[bytes, Signature] = {}
    racy: list[bytes] = []
    for path in externals:
        material.add("file", None if path is None else str(path))
        if path is not None:
            material.add(_file_bytes(path))
    for toplevel in toplevels:
        material.add("repository", os.fsencode(toplevel))
        walk = TreeWalk(material, watched)
        walk.walk(toplevel)
        racy += walk.racy
        _add_git(material, toplevel, watched)
    return material.digest.digest(), watched, racy


def _add_doctor(material: Material) -> None:
    """The doctor that runs and the environment it runs in."""
    material.add("doctor", __version__, sys.version, sys.executable)
    # Every installed distribution by its metadata directory (name and version): an
    # upgrade of a library the doctor parses with, or a plugin installed, moves the key.
    material.add("installed", *installed_metadata())
    git = shutil.which("git")  # the binary itself, by its stat: an upgrade in place moves it
    material.add("git", git, *(signature_of(os.stat(git)) if git else ()))
    material.add(
        "environment",
        *(
            f"{name}={value}"
            for name, value in sorted(os.environ.items())
            if name in KEYED_VARIABLES or name.startswith(KEYED_PREFIXES)
        ),
    )
    material.add("user", os.geteuid(), os.getegid(), *sorted(os.getgroups()), os.getcwd())


def _add_invocation(
    material: Material,
    run: RunInputs,
    settings: Settings,
    checks: list[CheckSpec] | None,
    ctx: Context,
) -> None:
    _add_doctor(material)
    for module_path, code in _package_sources(checks or []):
        material.add("module", module_path, code)
    material.add("today", ctx.today.isoformat(), "readiness", ctx.readiness)
    if checks is None:
        material.add("checks", "built-in")
    for spec in checks or []:
        material.add("check", spec.name, spec.severity.value, spec.module, spec.scope)
    material.add("settings", repr(settings), repr(ctx.settings))
    material.add("console", int(run.from_console), run.unaudited)
    for source in run.sources:
        material.add(
            "source",
            source.name,
            os.fsencode(source.root),
            source.projects_dir,
            source.only,
            os.fsencode(source.toplevel),
            int(source.allow_shallow),
            int(source.ci),
            *source.pushing,
        )
        material.add("projects", *source.projects)
        for entry in source.registry:
            material.add("registered", entry)


# -- the direct key: a run named by paths, keyed before its corpus is discovered ---------


@dataclass(frozen=True)
class Invocation:
    """A ``check`` run named by paths alone (no console, vault, push, fix or baseline
    written): what it was asked (``parts``, every option that can change its report, in
    order) and the paths it named (``anchors``: sources, then projects, then paths, the
    order discovery takes them in).

    Discovery of such a run reads only the repositories holding its paths, and its
    settings only files the run's key already covers (the configuration, the baseline,
    the freshness files), so the report is a function of this invocation, the doctor,
    its environment and those inputs. The first run stores, beside its report, the
    repositories and files it read (a *manifest*, as ccache's direct mode keeps the
    headers a compilation read); a later run with the same invocation keys those inputs
    again and replays the report without discovering the corpus or importing the model.
    """

    parts: tuple[str, ...]
    anchors: tuple[Path, ...]


class Manifest(msgspec.Struct, array_like=True):
    """What a direct run read: its repositories' tops, its files outside them, and the
    repository whose report cache it writes (the run audited it whole)."""

    toplevels: list[bytes]
    externals: list[str | None]
    whole: str | None


def _anchor_toplevels(invocation: Invocation) -> list[Path]:
    from context_doctor.git.repository import repository_or_none

    toplevels: list[Path] = []
    for anchor in invocation.anchors:
        directory = anchor if anchor.is_dir() else anchor.parent
        repository = repository_or_none(directory)
        if repository is None:
            raise Unkeyable(f"{anchor} is in no git repository")
        toplevels.append(repository.toplevel)
    return toplevels


def direct_start(secret: bytes, invocation: Invocation) -> bytes:
    """The invocation's own digest: the doctor, its environment, what it was asked and
    the repositories its paths lie in (a repository made inside another moves them)."""
    material = Material(secret)
    material.add("direct")
    _add_doctor(material)
    material.add("invocation", *invocation.parts)
    material.add("anchors", *(os.fsencode(top) for top in _anchor_toplevels(invocation)))
    return material.digest.digest()


def direct_digest(secret: bytes, start: bytes, inputs: bytes) -> bytes:
    material = Material(secret)
    material.add("direct run", start, inputs)
    return material.digest.digest()
