"""The history pass (SPEC §1 "Git history"): one ``git log`` per repository, commits attributed to projects."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import IO, Any, Protocol, TypeVar

from context_doctor.errors import DoctorError
from context_doctor.git.repository import Repository
from context_doctor.git.run import (
    git_timeout,
    hardened_environment,
    kill_git,
    neutralised_filters,
    run_git,
    spawn_git,
    timed_out,
)

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
    ("author", "%an <%ae>"),
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
    bot: bool = False  # authored by a bot (`name[bot]`, GitHub Actions): generated, not work

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


_T = TypeVar("_T")


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

    def recall(self, kind: str, of_type: type[_T], content: bytes, *context: str) -> _T | None:
        """What was kept for ``content`` (the bytes it was computed from) in this context,
        when it is an ``of_type`` (checked as it is decoded)."""
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


_BOT_NAMES = frozenset({"github-actions", "github action", "github actions", "dependabot"})
_BOT_EMAILS = frozenset({"action@github.com", "actions@github.com", "github-actions@github.com"})


def is_bot(author: str) -> bool:
    """An author line ``Name <email>`` that a scheduled job or bot commits under."""
    name, _, email = author.rpartition(" <")
    email = email.rstrip(">").strip().casefold()
    name = name.strip().casefold()
    return name.endswith("[bot]") or "[bot]@" in email or name in _BOT_NAMES or email in _BOT_EMAILS


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
        bot=is_bot(fields["author"]),
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
        kill_git(self.process)
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
        process = spawn_git(
            command,
            repository.toplevel,
            hardened_environment(neutralised_filters(repository.toplevel)),
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=errors,
        )
    except DoctorError:
        output.close()
        errors.close()
        raise
    finally:
        os.close(handle)  # git holds its own copy
    return LogPass(process, output, errors)


def finish_log(repository: Repository, started: LogPass, scopes: tuple[Scope, ...]) -> History:
    """Parse what a started pass writes, as it writes it, until git exits."""
    history = History()
    parser = _LogParser(scopes, history)
    bound = git_timeout()
    quiet_since = time.monotonic()
    try:
        while True:
            chunk = started.output.read(1 << 20)
            if chunk:
                parser.feed(chunk)
                quiet_since = time.monotonic()
                continue
            code = started.process.poll()
            if code is not None:
                while rest := started.output.read(1 << 20):  # written before git exited
                    parser.feed(rest)
                break
            if time.monotonic() - quiet_since > bound:  # stuck, not slow: it wrote nothing
                raise timed_out(["log"], repository.toplevel)
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
