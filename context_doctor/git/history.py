"""The history pass (docs/layouts.md "Git history"): one ``git log`` per repository, commits attributed to projects."""

from __future__ import annotations

import heapq
import os
import re
import subprocess
import tempfile
import time
from array import array
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import IO

from context_doctor.errors import DoctorError
from context_doctor.git.commits import (
    MAINTENANCE_TRAILER,
    Commit,
    History,
    Scope,
    is_bot,
    is_maintenance,
    positions,
)
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

LOG_FIELDS: tuple[tuple[str, str], ...] = (
    ("sha", "%H"),
    ("parents", "%P"),
    ("authored", "%aI"),
    ("committed", "%cI"),
    # git's own walk order (the committer timestamp it sorts by): see simplified_walk.
    ("commit_time", "%ct"),
    # Every `Context-Doctor:` trailer value, as git's own trailer parser reads the message
    # (key case-insensitive, spaces around `:` and the value trimmed, last paragraph only).
    ("trailers", f"%(trailers:key={MAINTENANCE_TRAILER},valueonly,unfold,separator=%x1f)"),
    ("author", "%an <%ae>"),
)
"""The fields of each commit in the one history pass: (name, ``git log`` placeholder).

Adding a field is one line here and one in :meth:`_Builder.add`, which reads them in order.  The
framing is NUL-only (see :class:`_LogParser`), so a field may hold any byte
but NUL, and a file name any byte git accepts.
"""
_LOG_FORMAT = "%x00" + "".join(f"{placeholder}%x00" for _, placeholder in LOG_FIELDS)


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


def shared_zone(found: datetime, zones: dict[tzinfo, tzinfo]) -> datetime:
    """``found`` with its offset held once per offset in ``zones`` rather than once per
    time (each parsed time brings its own ``timezone``: ~80 bytes a commit)."""
    if found.tzinfo is None:
        return found
    zone = zones.setdefault(found.tzinfo, found.tzinfo)
    return found if zone is found.tzinfo else found.replace(tzinfo=zone)


def _pathspec_paths(scopes: tuple[Scope, ...]) -> list[str]:
    """The pathspecs the scopes stand for, as the old pass gave them to ``git log``."""
    return sorted({scope.path or "." for scope in scopes})


_PATHSPEC_VARIABLES = ("GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_ICASE_PATHSPECS")


def filtered_here(scopes: tuple[Scope, ...]) -> bool:
    """Whether the pass may walk the whole repository and keep the scopes' commits itself.

    Only when each scope path is plain text to git's pathspec matching (no glob
    character, no ``:`` magic, no newline for ``cat-file``'s lines) and nothing in
    the environment changes how git matches pathspecs; otherwise git is given the
    pathspec, as before.
    """
    if any(os.environ.get(name) for name in _PATHSPEC_VARIABLES):
        return False
    return not any(
        set(scope.path) & set("*?[]\\\n\r") or scope.path.startswith(":") for scope in scopes
    )


class _Builder:
    """Turns the commits git prints into a :class:`History`, one commit at a time."""

    def __init__(self, scopes: tuple[Scope, ...], whole: bool) -> None:
        self.scopes = scopes
        self.prefixes = [(scope.prefix, scope.single) for scope in scopes]
        self.history = History()
        self.set_at: dict[frozenset[str], int] = {}
        # Each project's positions while reading, keyed (scope's position, project id).
        self.entries: dict[tuple[int, str], tuple[array[int], array[int]]] = {}
        self.bots: dict[str, bool] = {}  # a few authors, thousands of commits
        self.zones: dict[tzinfo, tzinfo] = {}  # a few offsets, thousands of times
        # The whole walk (``whole``): every commit git printed, for the simplification.
        self.whole = whole
        self.paths = ["" if path == "." else path for path in _pathspec_paths(scopes)]
        # A literal pathspec matches its path itself, and (a scope's prefix) what is under it.
        self.exact = frozenset(path for path in self.paths if path)
        self.walk: list[tuple[str, list[str], int, bool]] = []  # sha, parents, date, in pathspec
        self.merges = False
        self.log_shas: list[str] = []  # the sha of each ``history.log`` entry

    def _time(self, text: str) -> datetime | None:
        found = git_time(text)
        return None if found is None else shared_zone(found, self.zones)

    def _attribute(self, paths: list[str]) -> tuple[dict[tuple[int, str], set[str]], int]:
        """The files of each project the paths touch, and how many are outside every scope."""
        touched: dict[tuple[int, str], set[str]] = {}
        outside = 0
        for path in paths:
            inside = False
            for at, (prefix, single) in enumerate(self.prefixes):
                if not path.startswith(prefix):
                    continue
                inside = True
                rest = path[len(prefix) :]
                if single:
                    project_id, inner = "", rest
                else:
                    project_id, slash, inner = rest.partition("/")
                    if not slash or project_id.startswith((".", "_")):
                        continue  # the index, or a hidden directory: in the scope, no project
                found = touched.get((at, project_id))
                if found is None:
                    touched[(at, project_id)] = {inner}
                else:
                    found.add(inner)
            if not inside:
                outside += 1
        return touched, outside

    def add(self, fields: list[bytes], names: list[bytes]) -> None:
        sha = fields[0].decode("ascii")
        parents = fields[1].decode("ascii", "replace").split()
        # One decode per commit: names hold no NUL.
        tokens = (
            b"\x00".join(names).decode("utf-8", "surrogateescape").split("\x00") if names else []
        )
        paths = self._paths(sha, fields, tokens)
        touched, outside = self._attribute(paths)
        if self.whole:
            matched = outside < len(paths) or not self.exact.isdisjoint(paths)
            self.walk.append((sha, parents, _int(fields[4]), matched))
            if len(parents) > 1:
                self.merges = True
            elif not matched:
                return  # not in the pathspec: git would not have shown it
        else:
            self.history.commits += 1
        if not touched:
            return
        authored, committed_text, _date, trailers, author = (
            value.decode("utf-8", "replace") for value in fields[2:]
        )
        committed = self._time(committed_text)
        # Most commits are authored when committed: one object for both times.
        authored_at = committed if authored == committed_text else self._time(authored)
        bot = self.bots.get(author)
        if bot is None:
            bot = self.bots[author] = is_bot(author)
        commit = Commit(
            sha=sha,
            parents=len(parents),
            authored=authored_at or committed or EPOCH,
            committed=committed or EPOCH,
            projects_touched=len(touched),
            outside_files=outside,
            maintenance=bool(trailers) and is_maintenance(trailers),
            bot=bot,
        )
        history = self.history
        at = len(history.log)
        history.log.append(commit)
        self.log_shas.append(sha)
        for key, files in touched.items():
            names_set = frozenset(files)
            set_at = self.set_at.get(names_set)
            if set_at is None:
                set_at = self.set_at[names_set] = len(history.file_sets)
                history.file_sets.append(names_set)
            entries = self.entries.get(key)
            if entries is None:
                entries = self.entries[key] = (positions(), positions())
            entries[0].append(at)
            entries[1].append(set_at)

    def _paths(self, sha: str, fields: list[bytes], tokens: list[str]) -> list[str]:
        """The file names of ``--name-status`` tokens (a status, then one path, or two for a
        rename), every deletion and rename recorded on the way (git/removals.py)."""
        statuses = tokens[0::2]
        if len(tokens) % 2 == 0 and not any(status[:1] in "RC" for status in statuses):
            # Most commits rename nothing: statuses and paths alternate, read in C.
            paths = tokens[1::2]
            if "D" in statuses:
                when = fields[2].decode("utf-8", "replace")
                for status, path in zip(statuses, paths, strict=True):
                    if status == "D":
                        self.history.removals.record(sha, when, path)
            return paths
        paths = []
        removals = self.history.removals
        authored: str | None = None
        at, count = 0, len(tokens)
        while at < count:
            status = tokens[at]
            kind = status[:1]
            if kind in ("R", "C") and at + 2 < count:
                old, new = tokens[at + 1], tokens[at + 2]
                paths += (old, new) if kind == "R" else (new,)
                if kind == "R":
                    authored = authored or fields[2].decode("utf-8", "replace")
                    removals.record(sha, authored, old, new)
                at += 3
                continue
            if at + 1 >= count:
                break
            path = tokens[at + 1]
            paths.append(path)
            if kind == "D":
                authored = authored or fields[2].decode("utf-8", "replace")
                removals.record(sha, authored, path)
            at += 2
        return paths

    def finish(self, repository: Repository) -> History:
        """The history git's own ``log -- <paths>`` gives: with merges in the walk, its
        history simplification replayed (:func:`simplified_walk`)."""
        history = self.history
        scopes = self.scopes
        history.projects = {(scopes[at], key): found for (at, key), found in self.entries.items()}
        if not self.whole:
            return history
        if not self.merges:
            history.commits = sum(1 for entry in self.walk if entry[3])
            return history
        merges = [(sha, parents) for sha, parents, _, _ in self.walk if len(parents) > 1]
        shown = simplified_walk(self.walk, merge_sameness(repository, merges, self.paths))
        history.commits = len(shown)
        order = {sha: rank for rank, sha in enumerate(shown)}
        kept = sorted((order[sha], at) for at, sha in enumerate(self.log_shas) if sha in order)
        if [at for _, at in kept] == list(range(len(self.log_shas))):
            return history  # git's order, every commit shown: nothing moves
        moved = {at: new for new, (_, at) in enumerate(kept)}
        history.log = [history.log[at] for _, at in kept]
        for key, (commit_at, set_at) in list(history.projects.items()):
            pairs = sorted(
                (moved[at], files)
                for at, files in zip(commit_at, set_at, strict=True)
                if at in moved
            )
            if pairs:
                history.projects[key] = (
                    positions(at for at, _ in pairs),
                    positions(files for _, files in pairs),
                )
            else:
                del history.projects[key]
        return history


def _int(raw: bytes) -> int:
    try:
        return int(raw)
    except ValueError:
        return 0


def merge_sameness(
    repository: Repository, merges: list[tuple[str, list[str]]], paths: list[str]
) -> dict[str, list[bool]]:
    """For each merge, whether it is TREESAME to each parent under ``paths`` (git's word:
    nothing under the pathspec differs): one ``git cat-file --batch-check`` for all of
    them, comparing the object each path names at the merge and at the parent."""
    queries: list[str] = []
    for sha, parents in merges:
        for commit in (sha, *parents):
            queries += [f"{commit}:{path}" if path else f"{commit}^{{tree}}" for path in paths]
    result = run_git(
        ["cat-file", "--batch-check=%(objectname)"],
        repository.toplevel,
        "".join(f"{query}\n" for query in queries).encode("utf-8", "surrogateescape"),
    )
    lines = result.stdout.decode("utf-8", "surrogateescape").split("\n")
    if result.returncode != 0 or len(lines) < len(queries):
        raise DoctorError(
            f"git cat-file failed in {repository.toplevel}: "
            f"{result.stderr.decode('utf-8', 'replace').strip() or 'short output'}",
            "check that the repository is intact (`git fsck`)",
        )
    # An absent path (``<query> missing``) names no object: equal to another absent one.
    objects = [
        None if line == f"{query} missing" else line
        for query, line in zip(queries, lines, strict=False)
    ]
    width = len(paths)
    sameness: dict[str, list[bool]] = {}
    at = 0
    for sha, parents in merges:
        mine = objects[at : at + width]
        sameness[sha] = [
            objects[at + width * (n + 1) : at + width * (n + 2)] == mine
            for n in range(len(parents))
        ]
        at += width * (len(parents) + 1)
    return sameness


def simplified_walk(
    walk: list[tuple[str, list[str], int, bool]], sameness: dict[str, list[bool]]
) -> list[str]:
    """The commits ``git log <start> -- <paths>`` shows, in its order, from the whole walk.

    ``walk`` is what ``git log <start>`` printed without a pathspec (sha, parents,
    committer timestamp, whether the commit's files meet the pathspec), ``sameness``
    each merge's TREESAME-ness to each parent.  This is git's default history
    simplification (revision.c ``try_to_simplify_commit``, ``get_commit_action``):
    commits are taken newest committer date first (equal dates in the order they were
    queued); a commit TREESAME to a parent follows only the first such parent, and
    is not shown; a commit that differs from every parent is shown and all its
    parents are followed.  A parent the walk did not print (the bottom of a range)
    is not followed and, as git's "irrelevant" parent, decides TREESAME-ness only
    when the commit has no other parent.
    """
    if not walk:
        return []
    known = {sha: (parents, date, matched) for sha, parents, date, matched in walk}
    start = walk[0][0]
    queue: list[tuple[int, int, str]] = [(-known[start][1], 0, start)]
    seen = {start}
    queued = 1
    shown: list[str] = []
    while queue:
        sha = heapq.heappop(queue)[2]
        parents, _, matched = known[sha]
        followed = parents
        if len(parents) < 2:
            treesame = not matched  # a root is compared with the empty tree, as --root shows it
        else:
            treesame = False
            relevant = relevant_change = irrelevant_change = 0
            for parent, same in zip(parents, sameness[sha], strict=True):
                is_relevant = parent in known
                relevant += is_relevant
                if same:
                    if not is_relevant:
                        continue
                    followed, treesame = [parent], True
                    break
                if is_relevant:
                    relevant_change = 1
                else:
                    irrelevant_change = 1
            else:
                treesame = not (relevant_change if relevant else irrelevant_change)
        for parent in followed:
            if parent in known and parent not in seen:
                seen.add(parent)
                heapq.heappush(queue, (-known[parent][1], queued, parent))
                queued += 1
        if not treesame:
            shown.append(sha)
    return shown


_STATUS_SAFETY = ("--ignore-submodules=dirty", "--no-renames")
"""Submodules are compared by recorded commit only: looking inside one would run git with
the submodule's own, unvetted config."""

_HEX = frozenset(b"0123456789abcdef")


class _LogParser:
    """Reads ``git log -z --name-status --format=_LOG_FORMAT`` as a stream of NUL-ended tokens.

    Per commit git writes: an empty token (the format's leading ``%x00``), one
    token per field of :data:`LOG_FIELDS`, an empty token (git's separator),
    then each file's status and name (two names for a rename), the first status
    prefixed with a newline.  Neither a status nor a file name is ever empty, so
    the empty token that starts the next commit cannot be mistaken for one,
    whatever bytes the names hold.
    """

    def __init__(self, builder: _Builder) -> None:
        self.builder = builder
        self.pending = b""
        self.fields: list[bytes] = []
        self.names: list[bytes] = []
        self.state = "start"  # start -> fields -> separator -> names -> (start)

    def feed(self, chunk: bytes) -> None:
        tokens = (self.pending + chunk).split(b"\x00")
        self.pending = tokens.pop()
        self._consume(tokens)

    def close(self) -> None:
        if self.pending:
            self._consume([self.pending])
            self.pending = b""
        if self.state == "fields":
            self._malformed("a commit's fields end early")
        self._flush()

    def _consume(self, tokens: list[bytes]) -> None:
        """The state machine over each token, in one loop (a call per token cost ~20% of
        the pass's Python time)."""
        state, fields, names = self.state, self.fields, self.names
        width = len(LOG_FIELDS)
        for token in tokens:
            if state == "names":
                if token:
                    names.append(token)
                    continue
                self._flush()  # an empty token: the next commit starts
                fields, names, state = self.fields, self.names, "fields"
            elif state == "fields":
                fields.append(token)
                if len(fields) == width:
                    sha = fields[0]
                    if len(sha) not in (40, 64) or not _HEX.issuperset(sha):
                        self._malformed("a commit does not start with its sha")
                    state = "separator"
            elif state == "separator":
                if token:
                    self._malformed("no separator after a commit's fields")
                state = "names"
            elif token:
                self._malformed("a token outside any commit")
            else:
                state = "fields"
        self.state = state

    def _flush(self) -> None:
        if self.fields:
            names = self.names
            if names and names[0][:1] == b"\n":  # git's newline before the first name
                names[0] = names[0][1:]
            self.builder.add(self.fields, names)
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
    whole: bool = True  # no pathspec: the scopes' commits are kept by the reader

    def stop(self) -> None:
        """Kill a pass nobody will read (at exit): never left running on its own."""
        kill_git(self.process)
        self.output.close()
        self.errors.close()


def start_log(repository: Repository, scopes: tuple[Scope, ...], revisions: str) -> LogPass:
    """Start the one ``git log`` pass over ``scopes`` (see :func:`read_history`)."""
    # ``-M100%``: exact renames only, paired by object id, so no file's contents are read
    # (git/removals.py); a rename still lists both its paths, as the two names of a
    # deletion and an addition did.
    command = [
        "git", "--no-pager", "log", "-z", "--no-color", "-M100%", "--no-ext-diff",
        "--no-textconv", "--name-status", "--root", f"--format={_LOG_FORMAT}", revisions,
    ]  # fmt: skip
    whole = filtered_here(scopes)
    if not whole:
        command += ["--full-diff", "--", *_pathspec_paths(scopes)]
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
    return LogPass(process, output, errors, whole)


def finish_log(repository: Repository, started: LogPass, scopes: tuple[Scope, ...]) -> History:
    """Parse what a started pass writes, as it writes it, until git exits."""
    builder = _Builder(scopes, whole=started.whole)
    # A pass limited by a pathspec sees only the commits under it: a path it never saw
    # leave may still have left elsewhere.
    builder.history.removals.complete = started.whole
    parser = _LogParser(builder)
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
    return builder.finish(repository)


def read_history(
    repository: Repository, scopes: tuple[Scope, ...], revisions: str = "HEAD"
) -> History:
    """One ``git log`` over the scopes of one repository.

    Every file of a commit is listed, not just the ones under the scopes, so a
    commit that also rewrites files elsewhere in the repository is recognised as
    a bulk sweep.  Nothing here grows with projects x commits: each file name is
    attributed once.  ``revisions`` is a commit (the whole history behind it) or
    an ``old..new`` range (a resumed pass).

    Decision: the pass walks the whole repository without a pathspec and keeps
    the commits ``git log --full-diff -- <scopes>`` would show itself, with the same
    facts in the same order.  With a pathspec git compares every commit with its
    parent twice (once under the pathspec, to decide whether to show it, once in
    full, for ``--full-diff``'s list), and the first comparison, matching each
    entry of a projects tree of thousands against the pathspec, was ~30% of the
    pass at 2,000 projects.  Without one, a commit's file list alone says whether
    the pathspec would have shown it; only merges need more (which parent git's
    history simplification follows), asked in one ``git cat-file`` and replayed in
    :func:`simplified_walk`.  A scope path git would read as a glob or magic
    pathspec, or a ``GIT_*_PATHSPECS`` variable, keeps the pathspec pass.
    ``--root``: the first commit's files are listed whatever ``log.showRoot`` says.
    """
    if revisions == "HEAD" and head_commit(repository) is None:
        return History()  # no commits yet: there is no history to read
    return finish_log(repository, start_log(repository, scopes, revisions), scopes)
