"""Every git call the doctor makes goes through this module.

Git runs with ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` removed from
its environment (a pre-push hook exports them, and they would silently point
the doctor at the wrong repository or index) and with ``LC_ALL=C`` so messages
are stable.  GitPython's command wrapper merges its environment on top of
``os.environ`` and cannot *remove* a variable, so the single place that spawns
git uses :mod:`subprocess` directly.

The audited repository is not trusted (SECURITY.md): its own config could name
programs for git to run (an fsmonitor hook, clean/smudge/process filters, a
signature verifier, an ssh command for a lazy fetch).  Every command therefore
runs with those keys pinned to harmless values through ``GIT_CONFIG_COUNT``
(command-line scope, which beats the repository's config and, unlike ``-c``,
takes any byte in a key), and, inside a repository, with every filter driver
the config defines blanked: git then compares a stat-dirty file's own bytes
with its blob, the comparison ``git hash-object --no-filters`` would make.
"""

from __future__ import annotations

import atexit
import os
import re
import subprocess
import tempfile
import time
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cache, cached_property
from pathlib import Path, PurePath
from threading import Thread
from typing import IO, Any, Protocol

from context_doctor.errors import DoctorError

_HOOK_EXPORTED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
)

ConfigPairs = tuple[tuple[str, str], ...]

NEUTRALISED_CONFIG: ConfigPairs = (
    ("core.fsmonitor", "false"),  # a hook program `git status` would run
    ("core.untrackedCache", "false"),
    ("log.showSignature", "false"),  # would run gpg.program / gpg.ssh.program
    ("diff.external", ""),  # patches are never produced, but an external diff never runs
    ("core.pager", "cat"),
    ("credential.helper", ""),  # the empty value clears the helper list
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("protocol.allow", "never"),  # no transport: a partial clone's lazy fetch fails instead
    *(
        (f"protocol.{name}.allow", "never")
        for name in ("file", "git", "http", "https", "ssh", "ext")
    ),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
"""Keys pinned for every git command the doctor runs (SECURITY.md lists why each)."""


def git_environment() -> dict[str, str]:
    """The caller's environment minus the variables a git hook exports, in the C locale."""
    env = {key: value for key, value in os.environ.items() if key not in _HOOK_EXPORTED}
    env["LC_ALL"] = "C"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env


def with_config(env: dict[str, str], pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``env`` with ``pairs`` appended to git's ``GIT_CONFIG_COUNT`` command-line config."""
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for key, value in pairs:
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def hardened_environment(extra: ConfigPairs = ()) -> dict[str, str]:
    """The environment every doctor git command runs in: nothing from the repository executes."""
    env = git_environment()
    env["GIT_NO_LAZY_FETCH"] = "1"  # git >= 2.45; protocol.allow=never covers older ones
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.pop("GIT_EXTERNAL_DIFF", None)
    return with_config(env, (*NEUTRALISED_CONFIG, *extra))


def run_git(
    args: list[str], cwd: Path, stdin: bytes | None = None, *, config: ConfigPairs = ()
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd`` under :func:`hardened_environment` (plus ``config``)."""
    try:
        return subprocess.run(
            ["git", "--no-pager", *args],
            cwd=cwd,
            env=hardened_environment(config),
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as error:
        raise DoctorError("git is not installed or not on PATH", "install git and retry") from error


@cache
def neutralised_filters(toplevel: Path) -> ConfigPairs:
    """Blank every filter driver the repository's config defines (clean, smudge, process).

    Drivers are named by ``.gitattributes`` and defined by ``filter.<name>.*``
    config; listing that config runs nothing.  With the commands empty and
    ``required`` false git reads the work tree's bytes as they are.
    """
    result = run_git(["config", "-z", "--get-regexp", r"^filter\."], toplevel)
    drivers: set[str] = set()
    for entry in result.stdout.split(b"\x00"):
        key = entry.partition(b"\n")[0].decode("utf-8", "surrogateescape")
        section, dot, rest = key.partition(".")
        name, _, _variable = rest.rpartition(".")
        if section.lower() == "filter" and dot and name:
            drivers.add(name)
    return tuple(
        (f"filter.{name}.{variable}", value)
        for name in sorted(drivers)
        for variable, value in (
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        )
    )


@dataclass(frozen=True)
class Repository:
    """A git work tree the doctor reads; one per distinct top-level directory."""

    toplevel: Path

    @cached_property
    def _inside_prefix(self) -> str:
        """The string every path lexically inside the top level starts with."""
        top = str(self.toplevel)
        return top if top.endswith("/") else top + "/"

    def relative(self, path: Path) -> str:
        """Repository-relative POSIX path, the form every finding carries."""
        prefix = self._inside_prefix
        if isinstance(path, PurePath):
            # A pathlib path's text has no `.` component, repeated or trailing slash
            # already: when it is absolute and holds no `..`, it is what ``abspath`` gives.
            text = str(path)
            if (
                text.startswith(prefix)
                and prefix[0] == "/"
                and ".." not in text
                and not text.startswith("//")
            ):
                return text[len(prefix) :]
        absolute = os.path.abspath(path)
        # Lexically inside (the common case): the same answer as ``relative_to`` by
        # string slicing, without pathlib's parsing (#13).  ``abspath`` has already
        # folded ``.``, ``..`` and repeated slashes, as pathlib would; a ``//`` root is
        # a root of its own to pathlib, so it takes the general way.
        if not absolute.startswith("//"):
            if absolute.startswith(prefix):
                return absolute[len(prefix) :]
            if absolute == prefix[:-1]:
                return ""
        return self._relative_resolved(Path(absolute), path)

    def lexically_relative(self, text: str) -> str | None:
        """``relative`` of an absolute path's text that lies lexically inside the top level
        and holds no ``.``/``..`` component or repeated slash (None otherwise): a name
        joined to it gives the relative path of the joined path."""
        prefix = self._inside_prefix
        if (
            prefix[0] != "/"
            or text.startswith("//")
            or ".." in text
            or "/./" in text
            or text.endswith("/.")
        ):
            return None
        if text == prefix[:-1] or text == prefix:
            return ""
        if text.startswith(prefix) and not text.endswith("/") and "//" not in text:
            return text[len(prefix) :]
        return None

    @cached_property
    def _unlinked(self) -> dict[str, bool]:
        return {}

    def no_symlink_below_top(self, directory: str) -> bool:
        """No component of ``directory`` below the top level is a symlink (nor ``..``), and
        it lies lexically inside: a non-symlink entry in it resolves inside the repository.

        One ``lstat`` per directory, remembered for this run: a project's directory asks
        only about itself once its parent (the projects directory) is known (#13).
        """
        known = self._unlinked.get(directory)
        if known is None:
            relative = self.lexically_relative(directory)
            if relative is None:
                known = False
            elif relative == "":
                known = True
            else:
                parent, _, _ = directory.rpartition("/")
                known = self.no_symlink_below_top(parent or "/") and not os.path.islink(directory)
            self._unlinked[directory] = known
        return known

    def _relative_resolved(self, absolute: Path, path: Path) -> str:
        try:
            relative = absolute.relative_to(self.toplevel).as_posix()
        except ValueError:
            try:
                relative = absolute.resolve().relative_to(self.toplevel).as_posix()
            except (ValueError, OSError, RuntimeError):
                return path.as_posix()
        return "" if relative == "." else relative


@cache
def _toplevel(directory: Path) -> Path | str:
    """The work tree's top, or git's own first line saying why there is none."""
    result = run_git(["rev-parse", "--show-toplevel"], directory)
    if result.returncode != 0:
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[0].removeprefix("fatal: ") if lines else "git rev-parse failed"
    return Path(result.stdout.decode("utf-8", "surrogateescape").rstrip("\n")).resolve()


def repository_for(directory: Path) -> Repository:
    """The repository holding ``directory``, or exit 2 naming it (and what git said)."""
    toplevel = _toplevel(directory.resolve())
    if isinstance(toplevel, Path):
        return Repository(toplevel)
    if "safe.directory" in toplevel or "dubious ownership" in toplevel:
        # git >= 2.35.2 refuses a repository another user owns (CVE-2022-24765).
        raise DoctorError(
            f"git refuses to read the repository at {directory}: {toplevel}",
            "it is owned by another user; if you trust it, add it to git's safe.directory "
            "(`git config --global --add safe.directory <repository top>`), or run the doctor "
            "as the repository's owner",
        )
    if "not a git repository" not in toplevel:
        raise DoctorError(
            f"git cannot read a repository at {directory}: {toplevel}",
            "fix what git reports (run `git status` there to see it)",
        )
    raise DoctorError(
        f"{directory} is not inside a git repository",
        "run `git init` there and commit the context files, or point the doctor at a "
        "directory inside a git work tree",
    )


# -- history, read once per repository ---------------------------------------

MAINTENANCE_TRAILER = "Context-Doctor"
MAINTENANCE_VALUE = "maintenance"
BULK_PROJECTS = 3
BULK_OUTSIDE_FILES = 10
LOG_FIELDS: tuple[tuple[str, str], ...] = (
    ("sha", "%H"),
    ("parents", "%P"),
    ("authored", "%aI"),
    ("committed", "%cI"),
    # Every `Context-Doctor:` trailer value, as git's own trailer parser reads the message
    # (key case-insensitive, spaces around `:` and the value trimmed, last paragraph only).
    ("trailers", f"%(trailers:key={MAINTENANCE_TRAILER},valueonly,unfold,separator=%x1f)"),
)
"""The fields of each commit in the one history pass: (name, ``git log`` placeholder).

Adding a field is one line here; :func:`_attribute` reads it by name.  The
framing is NUL-only (see :class:`_LogParser`), so a field may hold any byte
but NUL, and a file name any byte git accepts.
"""
_LOG_FORMAT = "%x00" + "".join(f"{placeholder}%x00" for _, placeholder in LOG_FIELDS)


@dataclass(frozen=True)
class Scope:
    """Where projects live in a repository, as a repository-relative POSIX path.

    ``single`` scopes are one project (a single-project repository, or one
    whose directory is the path itself); otherwise each immediate child
    directory of ``path`` not starting with ``.`` or ``_`` is a project.
    """

    path: str
    single: bool = False

    @property
    def prefix(self) -> str:
        return f"{self.path}/" if self.path else ""

    def project_of(self, file_path: str) -> tuple[str, str] | None:
        """(project id, path inside the project) for a file under this scope."""
        if not file_path.startswith(self.prefix):
            return None
        rest = file_path[len(self.prefix) :]
        if self.single:
            return "", rest
        project_id, slash, inner = rest.partition("/")
        if not slash or project_id.startswith((".", "_")):
            return None
        return project_id, inner


@dataclass(frozen=True)
class Commit:
    """One commit as the freshness checks see it."""

    sha: str
    parents: int
    authored: datetime  # in the author's own offset: its date is the work date
    committed: datetime
    projects_touched: int
    outside_files: int  # files outside every projects directory
    maintenance: bool = False  # `Context-Doctor: maintenance` trailer: a fix or archive pass

    @property
    def short(self) -> str:
        return self.sha[:7]

    @property
    def work_date(self) -> date:
        return self.authored.date()

    @property
    def is_merge(self) -> bool:
        return self.parents > 1

    @property
    def is_bulk(self) -> bool:
        """A sweep across projects or the repository, not a session on one project."""
        return self.projects_touched > BULK_PROJECTS or self.outside_files > BULK_OUTSIDE_FILES

    @property
    def is_session(self) -> bool:
        """Work on a project: neither a merge, a bulk sweep nor a declared maintenance pass."""
        return not self.is_merge and not self.is_bulk and not self.maintenance

    def describe(self) -> str:
        kind = (
            "merge"
            if self.is_merge
            else "bulk sweep"
            if self.is_bulk
            else "maintenance commit"
            if self.maintenance
            else "commit"
        )
        return f"{kind} {self.short} of {self.work_date.isoformat()}"


@dataclass(frozen=True)
class ProjectCommit:
    """A commit as seen from one project: which of the project's files it touched."""

    commit: Commit
    files: frozenset[str]  # paths relative to the project directory

    def touched(self, relative: str) -> bool:
        return relative in self.files

    def touched_under(self, directory: str) -> bool:
        prefix = directory.rstrip("/") + "/"
        return any(path.startswith(prefix) for path in self.files)


@dataclass
class History:
    """Every commit touching the scopes, newest first, grouped by project."""

    commits: int = 0
    by_project: dict[tuple[Scope, str], list[ProjectCommit]] = field(default_factory=dict)

    def of(self, scope: Scope, project_id: str) -> list[ProjectCommit]:
        return self.by_project.get((scope, "" if scope.single else project_id), [])

    def followed_by(self, older: History) -> History:
        """This (newer) history with ``older`` after it: a resumed pass (see ``resumable``)."""
        merged = History(self.commits + older.commits, {})
        for key in {**self.by_project, **older.by_project}:
            merged.by_project[key] = self.by_project.get(key, []) + older.by_project.get(key, [])
        return merged


class PersistentStore(Protocol):
    """What is kept between runs (``context_doctor.store``): the history, and small parsed values."""

    def load_history(
        self, scopes: tuple[Scope, ...], head: str | None = None
    ) -> tuple[str, History] | None:
        """The stored pass and the HEAD it was read at; ``head`` is today's (a hint)."""
        ...

    def has_history(self) -> bool:
        """Whether a stored pass exists at all (it may still turn out foreign or stale)."""
        ...

    def save_history(self, scopes: tuple[Scope, ...], head: str, history: History) -> None: ...

    def recall(self, kind: str, content: bytes, *context: str) -> Any | None:
        """What was kept for ``content`` (the bytes it was computed from) in this context."""
        ...

    def keep(self, kind: str, content: bytes, value: Any, *context: str) -> None: ...


def is_shallow(repository: Repository) -> bool:
    result = run_git(["rev-parse", "--is-shallow-repository"], repository.toplevel)
    return result.stdout.strip() == b"true"


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def git_time(text: str) -> datetime | None:
    """An ISO-8601 time from ``%aI``/``%cI``, keeping the wall-clock date as written.

    Imported histories carry offsets Python refuses (``+2500``); the local date
    is still what the author saw, so such a time keeps its wall clock and is
    read as UTC rather than failing the whole run.
    """
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text[:19]).replace(tzinfo=UTC)
    except ValueError:
        return None


def is_maintenance(trailer_values: str) -> bool:
    """True when one of the commit's `Context-Doctor:` trailers says `maintenance` (any case)."""
    return any(
        value.strip().casefold() == MAINTENANCE_VALUE for value in trailer_values.split("\x1f")
    )


def _attribute(
    fields: dict[str, str], names: list[bytes], scopes: tuple[Scope, ...], history: History
) -> None:
    touched: dict[tuple[Scope, str], set[str]] = {}
    outside = 0
    for raw in names:
        path = raw.decode("utf-8", "surrogateescape")
        inside = False
        for scope in scopes:
            if path.startswith(scope.prefix):
                inside = True
                found = scope.project_of(path)
                if found is not None:
                    touched.setdefault((scope, found[0]), set()).add(found[1])
        if not inside:
            outside += 1
    committed = git_time(fields["committed"])
    commit = Commit(
        sha=fields["sha"],
        parents=len(fields["parents"].split()),
        authored=git_time(fields["authored"]) or committed or EPOCH,
        committed=committed or EPOCH,
        projects_touched=len(touched),
        outside_files=outside,
        maintenance=is_maintenance(fields["trailers"]),
    )
    history.commits += 1
    for key, files in touched.items():
        history.by_project.setdefault(key, []).append(ProjectCommit(commit, frozenset(files)))


_STATUS_SAFETY = ("--ignore-submodules=dirty", "--no-renames")
"""Submodules are compared by recorded commit only: looking inside one would run git with
the submodule's own, unvetted config."""

_HEX = frozenset(b"0123456789abcdef")


class _LogParser:
    """Reads ``git log -z --name-only --format=_LOG_FORMAT`` as a stream of NUL-ended tokens.

    Per commit git writes: an empty token (the format's leading ``%x00``), one
    token per field of :data:`LOG_FIELDS`, an empty token (git's separator),
    then the file names, the first one prefixed with a newline.  A file name is
    never empty, so the empty token that starts the next commit cannot be
    mistaken for one, whatever bytes the names hold.
    """

    def __init__(self, scopes: tuple[Scope, ...], history: History) -> None:
        self.scopes = scopes
        self.history = history
        self.pending = b""
        self.fields: list[bytes] = []
        self.names: list[bytes] = []
        self.state = "start"  # start -> fields -> separator -> names -> (start)

    def feed(self, chunk: bytes) -> None:
        tokens = (self.pending + chunk).split(b"\x00")
        self.pending = tokens.pop()
        for token in tokens:
            self._token(token)

    def close(self) -> None:
        if self.pending:
            self._token(self.pending)
            self.pending = b""
        if self.state == "fields":
            self._malformed("a commit's fields end early")
        self._flush()

    def _token(self, token: bytes) -> None:
        if self.state == "fields":
            self.fields.append(token)
            if len(self.fields) == len(LOG_FIELDS):
                sha = self.fields[0]
                if len(sha) not in (40, 64) or not _HEX.issuperset(sha):
                    self._malformed("a commit does not start with its sha")
                self.state = "separator"
        elif self.state == "separator":
            if token:
                self._malformed("no separator after a commit's fields")
            self.state = "names"
        elif token:
            if self.state != "names":
                self._malformed("a token outside any commit")
            self.names.append(token[1:] if not self.names and token[:1] == b"\n" else token)
        else:  # an empty token: the next commit starts
            self._flush()
            self.state = "fields"

    def _flush(self) -> None:
        if self.fields:
            values = [value.decode("utf-8", "replace") for value in self.fields]
            fields = dict(zip((name for name, _ in LOG_FIELDS), values, strict=True))
            _attribute(fields, self.names, self.scopes, self.history)
        self.fields, self.names = [], []

    @staticmethod
    def _malformed(what: str) -> None:
        raise DoctorError(
            f"unexpected `git log` output: {what}",
            "check that the repository is intact (`git fsck`) and report this with your git version",
        )


def head_commit(repository: Repository) -> str | None:
    """The full sha of HEAD, or None before the first commit."""
    result = run_git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], repository.toplevel)
    sha = result.stdout.decode("ascii", "replace").strip()
    return sha if result.returncode == 0 and sha else None


def resumable(repository: Repository, cached_head: str, head: str) -> bool:
    """May a history read at ``cached_head`` be resumed with ``git log cached_head..head``?

    Only when ``cached_head`` is an ancestor of ``head`` and every commit since
    is a plain (single-parent) commit: then git's walk from ``head`` prints
    exactly the new commits, newest first, and then the old walk unchanged, so
    new + old is the list a fresh pass gives.  A new merge could interleave
    older-dated commits of its side branch with the old ones (and pathspec
    history simplification works across the merge), so such a history, like
    an amended or rebased one, is read afresh.
    """
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", cached_head):
        return False
    ancestor = run_git(["merge-base", "--is-ancestor", cached_head, head], repository.toplevel)
    if ancestor.returncode != 0:
        return False
    merges = run_git(
        ["rev-list", "--count", "--min-parents=2", f"{cached_head}..{head}"], repository.toplevel
    )
    return merges.returncode == 0 and merges.stdout.strip() == b"0"


@dataclass
class LogPass:
    """A ``git log`` started ahead of its reader, its output going to an unnamed file.

    A file, not a pipe: git walks at full speed while nothing reads (a pipe would
    stop it at 64 KiB), and no thread has to exist yet (the parsing pool is forked
    later, and a fork must not copy a running thread).
    """

    process: subprocess.Popen[bytes]
    output: IO[bytes]
    errors: IO[bytes]

    def stop(self) -> None:
        """Kill a pass nobody will read (at exit): never left running on its own."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.output.close()
        self.errors.close()


def start_log(repository: Repository, scopes: tuple[Scope, ...], revisions: str) -> LogPass:
    """Start the one ``git log`` pass over ``scopes`` (see :func:`read_history`)."""
    pathspecs = sorted({scope.path or "." for scope in scopes})
    command = [
        "git", "--no-pager", "log", "-z", "--no-color", "--no-renames", "--no-ext-diff",
        "--no-textconv", "--name-only", "--full-diff",
        f"--format={_LOG_FORMAT}", revisions, "--", *pathspecs,
    ]  # fmt: skip
    # git's output goes to a scratch file in the system's temporary directory, unlinked at
    # once: a buffer, not a file anyone reads, so write.py's rules are not its.  The reader
    # opens it separately before the unlink: its own file offset, so reading while git
    # writes never moves where git writes.
    handle, name = tempfile.mkstemp(prefix="context-doctor-log-")
    try:
        output = open(name, "rb")  # noqa: SIM115 (owned by the LogPass returned)
    finally:
        os.unlink(name)
    errors = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        process = subprocess.Popen(
            command,
            cwd=repository.toplevel,
            env=hardened_environment(neutralised_filters(repository.toplevel)),
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=errors,
        )
    except FileNotFoundError as error:
        output.close()
        errors.close()
        raise DoctorError("git is not installed or not on PATH", "install git and retry") from error
    finally:
        os.close(handle)  # git holds its own copy
    return LogPass(process, output, errors)


def finish_log(repository: Repository, started: LogPass, scopes: tuple[Scope, ...]) -> History:
    """Parse what a started pass writes, as it writes it, until git exits."""
    history = History()
    parser = _LogParser(scopes, history)
    try:
        while True:
            chunk = started.output.read(1 << 20)
            if chunk:
                parser.feed(chunk)
                continue
            code = started.process.poll()
            if code is not None:
                while rest := started.output.read(1 << 20):  # written before git exited
                    parser.feed(rest)
                break
            time.sleep(0.005)  # git is still walking: what it has written so far is parsed
        if code != 0:
            started.errors.seek(0)
            message = started.errors.read().decode("utf-8", "replace").strip().splitlines()
            raise DoctorError(
                f"git log failed in {repository.toplevel}: "
                f"{message[0] if message else 'unknown error'}",
                "check that the repository is intact (`git fsck`)",
            )
        parser.close()
    finally:
        started.stop()
    return history


def read_history(
    repository: Repository, scopes: tuple[Scope, ...], revisions: str = "HEAD"
) -> History:
    """One ``git log`` over the scopes of one repository.

    ``--full-diff`` lists every file of a matching commit, not just the ones
    under the pathspec, so a commit that also rewrites files elsewhere in the
    repository is recognised as a bulk sweep.  Nothing here grows with
    projects x commits: each file name is attributed once.  ``revisions`` is a
    commit (the whole history behind it) or an ``old..new`` range (a resumed pass).
    """
    if revisions == "HEAD" and head_commit(repository) is None:
        return History()  # no commits yet: there is no history to read
    return finish_log(repository, start_log(repository, scopes, revisions), scopes)


class RepositoryFacts:
    """What the doctor knows about one repository, each fact gathered at most once.

    Several sources may share a repository; they register their scopes first
    and the history is then read in one pass for all of them.
    """

    def __init__(
        self,
        repository: Repository,
        allow_shallow: bool = False,
        pushing: tuple[str, ...] = (),
        ci: bool = False,
        store: PersistentStore | None = None,
    ) -> None:
        self.repository = repository
        self.store = store  # the persistent cache (None: --no-cache, or none set up yet)
        self._reader: Thread | None = None
        self._read_outcome: History | BaseException | None = None
        self.ci = ci  # the caller's environment says CI (`CI=true`); see ci_checkout
        self.allow_shallow = allow_shallow
        self.pushing = pushing  # local shas a pre-push hook is sending: on their way, not unpushed
        self._tracked: frozenset[str] | None = None
        self._gitlinks: frozenset[str] | None = None
        self._upstream: UpstreamState | None = None
        self.scopes: set[Scope] = set()
        self._history: History | None = None
        self._shallow: bool | None = None
        self._changed: list[str] | None = None
        self._beyond: dict[str, frozenset[str]] = {}
        # Point answers, asked once each: reviews name a few commits, many projects each.
        self._commits_named: dict[str, str | None] = {}
        self._files_at: dict[tuple[str, str], bytes | None] = {}
        self._early: tuple[str, LogPass] | None = None  # (head, its pass) from begin_history

    def _run(self, args: list[str]) -> subprocess.CompletedProcess[bytes]:
        """``git ARGS`` at the top level with the repository's filter drivers blanked too."""
        toplevel = self.repository.toplevel
        return run_git(args, toplevel, config=neutralised_filters(toplevel))

    def add_scope(self, scope: Scope) -> None:
        if self._history is not None or self._early is not None:
            raise RuntimeError("scopes must be registered before the history is read")
        self.scopes.add(scope)

    @property
    def shallow(self) -> bool:
        if self._shallow is None:
            self._shallow = is_shallow(self.repository)
        return self._shallow

    def history(self) -> History | None:
        """The history, or None when it is shallow and ``--allow-shallow`` was given."""
        if self.shallow:
            if not self.allow_shallow:
                raise DoctorError(
                    f"{self.repository.toplevel} is a shallow clone: its history cannot answer "
                    "freshness questions",
                    "fetch full history (e.g. `git fetch --unshallow`, or `fetch-depth: 0` in CI), "
                    "or pass --allow-shallow to report what cannot be verified",
                )
            return None
        if self._history is None:
            if self._reader is None:
                self._history = self._read_history()
            else:
                self._reader.join()
                outcome, self._reader = self._read_outcome, None
                if isinstance(outcome, BaseException):
                    raise outcome
                assert outcome is not None
                self._history = outcome
        return self._history

    def start_history(self) -> None:
        """Read the history on a thread while the caller parses documents (``history`` waits).

        git does the walking in its own process and the thread spends most of its
        time in ``read``, so the pass overlaps with parsing instead of following it.
        A shallow repository is left to ``history`` (it raises or answers None).
        """
        if self._history is not None or self._reader is not None or self.shallow:
            return

        def read() -> None:
            try:
                self._read_outcome = self._read_history()
            except BaseException as error:  # handed to the thread that asks for it
                self._read_outcome = error

        self._reader = Thread(target=read, name="context-doctor history", daemon=True)
        self._reader.start()

    def begin_history(self) -> None:
        """Start git's walk for a fresh pass now, at discovery, before any thread or fork.

        Only when the pass will be read afresh (no persistent cache, or none stored
        yet): git then walks while the index is parsed and the documents are read,
        instead of after.  Its output goes to a file (:class:`LogPass`) that the
        reader parses later; the scopes are final from here on.  A pass nobody asks
        for (no check needed the history, or the run failed) is killed at exit.
        """
        if self._history is not None or self._early is not None or not self.scopes:
            return
        if self.store is not None and self.store.has_history():
            return  # the stored pass serves, or is resumed over a few commits
        if self.shallow:
            return  # ``history`` raises or answers None
        head = head_commit(self.repository)
        if head is None:
            return
        started = start_log(self.repository, tuple(sorted(self.scopes, key=str)), head)
        atexit.register(started.stop)
        self._early = (head, started)

    def _read_history(self) -> History:
        """A fresh pass, or the stored one: as it is when HEAD has not moved, else resumed."""
        scopes = tuple(sorted(self.scopes, key=str))
        if self._early is not None:
            early_head, started = self._early
            history = finish_log(self.repository, started, scopes)
            if self.store is not None:
                self.store.save_history(scopes, early_head, history)
            return history
        if self.store is None:
            return read_history(self.repository, scopes)
        head = head_commit(self.repository)
        if head is None:
            return History()
        stored = self.store.load_history(scopes, head)
        if stored is not None and stored[0] == head:
            return stored[1]
        if stored is not None and resumable(self.repository, stored[0], head):
            history = read_history(self.repository, scopes, f"{stored[0]}..{head}")
            history = history.followed_by(stored[1])
        else:
            history = read_history(self.repository, scopes, head)
        self.store.save_history(scopes, head, history)
        return history

    # -- point questions (asked only for the few projects that need them) --

    def resolve_commit(self, name: str) -> str | None:
        """The full sha ``name`` names, or None when it names no commit here."""
        if not name or name.startswith("-"):
            return None
        if name not in self._commits_named:
            result = self._run(["rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"])
            self._commits_named[name] = (
                result.stdout.decode("ascii", "replace").strip() if result.returncode == 0 else None
            )
        return self._commits_named[name]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True when ``ancestor`` is ``descendant`` or one of its ancestors."""
        result = self._run(["merge-base", "--is-ancestor", ancestor, descendant])
        if result.returncode not in (0, 1):
            raise DoctorError(
                f"git merge-base failed in {self.repository.toplevel}: "
                f"{result.stderr.decode('utf-8', 'replace').strip()}",
                "check that the repository is intact (`git fsck`)",
            )
        return result.returncode == 0

    def all_ancestors(self, shas: list[str], descendant: str) -> bool:
        """True when every one of ``shas`` is ``descendant`` or one of its ancestors.

        Asking only about the newest by date is not enough: a branch merged
        later can carry project commits dated before the reviewed one.  The
        history holds only commits reachable from HEAD, so it is enough to know
        which of those ``descendant`` does not reach: one ``git rev-list`` per
        distinct reviewed commit, however many projects name it.
        """
        beyond = self._not_reached_by(descendant)
        return not any(sha in beyond for sha in shas)

    def _not_reached_by(self, descendant: str) -> frozenset[str]:
        if descendant not in self._beyond:
            result = self._run(["rev-list", "HEAD", "--not", descendant])
            if result.returncode != 0:
                raise DoctorError(
                    f"git rev-list failed in {self.repository.toplevel}: "
                    f"{result.stderr.decode('utf-8', 'replace').strip()}",
                    "check that the repository is intact (`git fsck`)",
                )
            self._beyond[descendant] = frozenset(result.stdout.decode("ascii", "replace").split())
        return self._beyond[descendant]

    def file_at(self, sha: str, path: str) -> bytes | None:
        """A file's bytes at a commit, or None when it did not exist there (asked once)."""
        if (sha, path) not in self._files_at:
            result = self._run(["cat-file", "blob", f"{sha}:{path}"])
            self._files_at[sha, path] = result.stdout if result.returncode == 0 else None
        return self._files_at[sha, path]

    @property
    def changed_paths(self) -> list[str]:
        """Paths with uncommitted or never-added changes: one ``git status`` per repository."""
        if self._changed is None:
            # Filters are blanked (see run_git): a stat-dirty file under a filter
            # is compared byte for byte with its blob, never run through the filter.
            # Submodules are compared by recorded commit only: looking inside one
            # would run git with the submodule's own (unvetted) config.
            result = self._run(
                ["status", "--porcelain=v1", "-z", "--untracked-files=all", *_STATUS_SAFETY]
            )
            if result.returncode != 0:
                raise DoctorError(
                    f"git status failed in {self.repository.toplevel}: "
                    f"{result.stderr.decode('utf-8', 'replace').strip()}",
                    "check that the repository is intact (`git fsck`)",
                )
            self._changed = _porcelain_paths(result.stdout)
        return self._changed

    @cached_property
    def changed_set(self) -> frozenset[str]:
        return frozenset(self.changed_paths)

    @cached_property
    def _changed_sorted(self) -> list[str]:
        return sorted(self.changed_paths)

    def changed_under(self, directory: str) -> list[str]:
        """Changed paths under ``directory`` (repository-relative), without scanning them all."""
        prefix = f"{directory}/" if directory else ""
        ordered = self._changed_sorted
        found: list[str] = []
        for index in range(bisect_left(ordered, prefix), len(ordered)):
            if not ordered[index].startswith(prefix):
                break
            found.append(ordered[index])
        return found

    def has_uncommitted(self, directory: str) -> bool:
        return bool(self.changed_under(directory))

    @property
    def tracked_paths(self) -> frozenset[str]:
        """Every path in the index: one ``git ls-files`` per repository."""
        if self._tracked is None:
            result = self._run(["ls-files", "-z", "--stage"])
            if result.returncode != 0:
                raise DoctorError(
                    f"git ls-files failed in {self.repository.toplevel}: "
                    f"{result.stderr.decode('utf-8', 'replace').strip()}",
                    "check that the repository is intact (`git fsck`)",
                )
            tracked: set[str] = set()
            gitlinks: set[str] = set()
            for entry in result.stdout.split(b"\x00"):
                meta, tab, raw = entry.partition(b"\t")  # "<mode> <object> <stage>\t<path>"
                if not tab:
                    continue
                name = raw.decode("utf-8", "surrogateescape")
                tracked.add(name)
                if meta.startswith(b"160000 "):
                    gitlinks.add(name)
            self._tracked, self._gitlinks = frozenset(tracked), frozenset(gitlinks)
        return self._tracked

    def submodule_holding(self, path: str) -> str | None:
        """The submodule (a gitlink in the index) that ``path`` is or lies inside, if any."""
        if self._gitlinks is None:
            _ = self.tracked_paths
        parts = path.split("/")
        for end in range(1, len(parts) + 1):
            prefix = "/".join(parts[:end])
            if prefix in (self._gitlinks or ()):
                return prefix
        return None

    def upstream(self) -> UpstreamState:
        """Is every commit touching the scopes on the upstream (or on its way there)?"""
        if self._upstream is None:
            self._upstream = self._probe_upstream()
        return self._upstream

    def _git_text(self, args: list[str]) -> tuple[int, str]:
        result = self._run(args)
        return result.returncode, result.stdout.decode("utf-8", "replace").strip()

    @cached_property
    def branch(self) -> str | None:
        """The checked-out branch's short name; None on a detached HEAD."""
        code, branch = self._git_text(["symbolic-ref", "-q", "--short", "HEAD"])
        return branch if code == 0 and branch else None

    @property
    def ci_checkout(self) -> bool:
        """A CI job's checkout: ``CI=true`` (given by the caller) on a detached HEAD.

        CI systems check out the commit under test, not a branch; asking whether
        that checkout is pushed or upstream-current has no answer worth a finding.
        """
        return self.ci and self.branch is None

    def _tracking(self, branch: str) -> tuple[str, str, int, int]:
        """(upstream ref, its short name, ahead, behind) as of the last fetch; ahead -1: gone."""
        code, line = self._git_text(
            [
                "for-each-ref",
                "--format=%(upstream)%00%(upstream:short)%00%(upstream:track,nobracket)",
                f"refs/heads/{branch}",
            ]
        )
        parts = line.split("\x00") if code == 0 else []
        if len(parts) != 3 or not parts[0]:
            return "", "", 0, 0
        upstream, short, track = parts
        if track.strip() == "gone":
            return upstream, short, -1, 0
        ahead = re.search(r"ahead (\d+)", track)
        behind = re.search(r"behind (\d+)", track)
        return (
            upstream,
            short,
            int(ahead.group(1)) if ahead else 0,
            int(behind.group(1)) if behind else 0,
        )

    def _probe_upstream(self) -> UpstreamState:
        """Published and upstream-current, judged from local refs only (no network call)."""
        branch = self.branch
        if branch is None:
            return UpstreamState("HEAD is detached: no branch to compare with a remote")
        code, remotes = self._git_text(["remote"])
        if code != 0:
            return UpstreamState(
                f"state unknown: `git remote` failed in {self.repository.toplevel}"
            )
        if not remotes and not self.pushing:
            return UpstreamState("the repository has no remote: nothing is published")
        if self._run(["rev-parse", "--verify", "--quiet", "HEAD"]).returncode:
            return UpstreamState("the branch has no commits yet: nothing is published")
        upstream_ref, upstream, branch_ahead, behind = self._tracking(branch)
        if branch_ahead < 0:
            return UpstreamState(
                f"the upstream `{upstream}` of branch `{branch}` no longer exists as of the last "
                "fetch: nothing here is known to be published",
                remedy=f"Push the branch again (`git push -u origin {branch}`), or point it at "
                "an existing upstream (`git branch --set-upstream-to`).",
            )
        excluded = list(self.pushing)
        if not upstream_ref:
            if not excluded:
                return UpstreamState(f"branch `{branch}` has no upstream (`git push -u` sets one)")
        else:
            excluded.append(upstream_ref)
        pathspecs = sorted({scope.path or "." for scope in self.scopes}) or ["."]
        code, count = self._git_text(
            ["rev-list", "--count", "HEAD", "--not", *excluded, "--", *pathspecs]
        )
        if code != 0 or not count.isdigit():
            return UpstreamState(
                f"state unknown: cannot compare `{branch}` with `{upstream or 'its upstream'}`"
            )
        ahead = int(count)
        # A pre-push hook judges what the remote holds after the push: being behind the
        # fetched upstream then is for the push itself to refuse, not for the doctor.
        if behind and not self.pushing:
            if ahead or branch_ahead:
                here = max(ahead, branch_ahead)
                return UpstreamState(
                    f"branch `{branch}` has diverged from `{upstream}` as of the last fetch: "
                    f"{_commits(here)} here not there ({ahead} touching the projects "
                    f"directory), {_commits(behind)} there not here",
                    ahead,
                    upstream,
                    behind,
                    remedy="Integrate the upstream (`git pull --rebase`), resolve, then push.",
                )
            return UpstreamState(
                f"branch `{branch}` is {_commits(behind)} behind `{upstream}` as of the last "
                "fetch: it is not upstream-current",
                0,
                upstream,
                behind,
                remedy="Fast-forward the branch (`git pull --ff-only`) before working or "
                "handing off.",
            )
        if ahead:
            target = f"`{upstream}`" if upstream else "the commits being pushed"
            plural = "commits touch" if ahead > 1 else "commit touches"
            return UpstreamState(
                f"{ahead} {plural} the projects directory but {'is' if ahead == 1 else 'are'} not on "
                f"{target}",
                ahead,
                upstream or None,
            )
        return UpstreamState(None, 0, upstream or None)


def _commits(count: int) -> str:
    return f"{count} commit{'s' if count != 1 else ''}"


@dataclass(frozen=True)
class UpstreamState:
    problem: str | None  # None: everything touching the projects directory is published
    ahead: int = 0
    upstream: str | None = None
    behind: int = 0  # commits on the fetched upstream the branch does not have
    remedy: str | None = None  # None: the check's own remedy (push)


def _porcelain_paths(output: bytes) -> list[str]:
    """Paths from ``git status --porcelain=v1 -z`` (a rename's second field is its source)."""
    paths: list[str] = []
    fields = output.split(b"\x00")
    index = 0
    while index < len(fields):
        item = fields[index]
        index += 1
        if len(item) < 4:
            continue
        status, path = item[:2], item[3:].decode("utf-8", "surrogateescape")
        paths.append(path)
        if status[:1] in (b"R", b"C"):
            index += 1  # skip the rename/copy source
    return paths
