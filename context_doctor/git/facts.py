"""What the doctor knows about one repository (status, files, upstream), each fact gathered once.

Every git call goes through :mod:`context_doctor.git.run`.
"""

from __future__ import annotations

import atexit
import re
import subprocess
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property
from threading import Thread

from context_doctor.errors import DoctorError
from context_doctor.git.commits import History, PersistentStore, Scope
from context_doctor.git.history import (
    _STATUS_SAFETY,
    LogPass,
    finish_log,
    head_commit,
    is_shallow,
    read_history,
    resumable,
    start_log,
)
from context_doctor.git.repository import Repository
from context_doctor.git.run import made_checkout_at, neutralised_filters, run_git
from context_doctor.guards.limits import MAX_FILE_BYTES


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
        self.record_paths: dict[Scope, tuple[str, ...]] = {}  # a single project's records
        self._history: History | None = None
        self._shallow: bool | None = None
        self._head: tuple[str | None] | None = None  # (HEAD's sha,) once asked
        self._changed: list[str] | None = None
        self._beyond: dict[str, frozenset[str]] = {}
        # Point answers, asked once each: reviews name a few commits, many projects each.
        self._commits_named: dict[str, str | None] = {}
        self._files_at: dict[tuple[str, str], bytes | None] = {}
        self._ignored: dict[str, bool] = {}  # check-ignore's answers, by path
        self._moves: dict[str, dict[str, str] | None] = {}  # similarity renames, by commit
        self._early: tuple[str, LogPass] | None = None  # (head, its pass) from begin_history
        # The hook's checkout of the pushed tree: its HEAD, branch and cleanliness are how
        # it was made (no remote, no upstream, nothing uncommitted), not questions for git.
        self._made = made_checkout_at(repository.toplevel)
        if self._made is not None:
            self._head = (self._made.head,)
            self._shallow = self._made.shallow
            self._changed = []
            self.__dict__["branch"] = self._made.branch

    def _run(
        self, args: list[str], stdin: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """``git ARGS`` at the top level with the repository's filter drivers blanked too."""
        toplevel = self.repository.toplevel
        return run_git(args, toplevel, stdin, config=neutralised_filters(toplevel))

    def add_scope(self, scope: Scope, records: tuple[str, ...] = ()) -> None:
        """``records``: a single project's record paths, repository-relative (docs/layouts.md):
        what publication is asked about for it, since the code beside them is not the
        doctor's to push."""
        if self._history is not None or self._early is not None:
            raise RuntimeError("scopes must be registered before the history is read")
        self.scopes.add(scope)
        if scope.single and records:
            self.record_paths[scope] = records

    @property
    def shallow(self) -> bool:
        if self._shallow is None:
            self._ask_shallow_and_head()
        assert self._shallow is not None
        return self._shallow

    def _ask_shallow_and_head(self) -> None:
        """Whether the repository is shallow and which commit ``HEAD`` is: one ``git
        rev-parse`` for both, asked once a run (two before). The old questions
        (:func:`is_shallow`, :func:`head_commit`) where the answer is not two lines."""
        result = run_git(
            ["rev-parse", "--is-shallow-repository", "--verify", "--quiet", "HEAD^{commit}"],
            self.repository.toplevel,
        )
        lines = result.stdout.decode("ascii", "replace").split()
        if lines[:1] in (["true"], ["false"]) and len(lines) == 1 + (result.returncode == 0):
            self._shallow = lines[0] == "true"
            self._head = (lines[1] if result.returncode == 0 else None,)
            return
        self._shallow = is_shallow(self.repository)
        self._head = (head_commit(self.repository),)

    def head(self) -> str | None:
        """The full sha of ``HEAD`` (None before the first commit), asked once a run."""
        if self._head is None:
            self._ask_shallow_and_head()
        assert self._head is not None
        return self._head[0]

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
        head = self.head()
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
        head = self.head()
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

    def tree_at(self, sha: str, path: str) -> str | None:
        """The tree sha of directory ``path`` (repository-relative; ``""`` or ``.`` for the
        top) at commit ``sha``, or None when it is not a directory there."""
        if path in ("", "."):
            result = self._run(["rev-parse", "--verify", "--quiet", f"{sha}^{{tree}}"])
            return result.stdout.decode("ascii", "replace").strip() or None
        # `sha:path^{tree}` would read `^{tree}` as part of the path: ask ls-tree instead.
        result = self._run(["ls-tree", "-z", sha, "--", path])
        entry = result.stdout.split(b"\0", 1)[0] if result.returncode == 0 else b""
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == b"tree" and name == path.encode():
            return fields[2].decode("ascii", "replace")
        return None

    def file_at(self, sha: str, path: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
        """A file's bytes at a commit, or None when it did not exist there or is over
        ``limit`` (asked once). Its size is asked first, so a huge blob committed in the
        audited history is never read into memory (every read bounded)."""
        if (sha, path) not in self._files_at:
            blob = f"{sha}:{path}"
            sized = self._run(["cat-file", "-s", blob])
            size = sized.stdout.strip()
            fits = sized.returncode == 0 and size.isdigit() and int(size) <= limit
            content = None
            if fits:
                result = self._run(["cat-file", "blob", blob])
                content = result.stdout if result.returncode == 0 else None
            self._files_at[sha, path] = content
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

    def ignored(self, paths: list[str]) -> frozenset[str]:
        """Which of ``paths`` (repository-relative) the ignore rules match, each asked also as a
        folder (a rule ``notes/`` does not match the path ``notes`` itself): one ``git
        check-ignore`` for all of them, asked once per path (docs/references.md)."""
        asked = self._ignored
        todo = [path for path in dict.fromkeys(paths) if path not in asked and "\n" not in path]
        if todo:
            queries = [form for path in todo for form in (path, path.rstrip("/") + "/")]
            result = self._run(
                ["check-ignore", "--no-index", "--stdin", "-z"],
                "".join(f"{query}\0" for query in queries).encode("utf-8", "surrogateescape"),
            )
            matched = set(result.stdout.decode("utf-8", "surrogateescape").split("\0"))
            if result.returncode not in (0, 1):
                matched = set()  # an answer git could not give: nothing counts as ignored
            for path in todo:
                asked[path] = path in matched or path.rstrip("/") + "/" in matched
        return frozenset(path for path in paths if asked.get(path))

    def moves_in(self, sha: str) -> dict[str, str] | None:
        """What commit ``sha`` moved, with content changes too (git's similarity renames):
        old path -> new path, asked once per commit; None when git cannot compare the
        contents (a missing blob, a lazy fetch refused) or the commit is a merge.

        Asked only of the few commits that deleted a path a reference still names
        (git/removals.py): the history pass itself pairs exact renames only.
        """
        moves = self._moves
        if sha not in moves and self._partial_clone:
            moves[sha] = None  # comparing contents would fetch missing blobs over the network
        if sha not in moves:
            result = self._run(
                [
                    "diff-tree",
                    "-r",
                    "-z",
                    "-M",
                    "--name-status",
                    "--no-commit-id",
                    "--root",
                    "--no-ext-diff",
                    "--no-textconv",
                    sha,
                ]
            )
            found: dict[str, str] | None = None
            if result.returncode == 0:
                tokens = result.stdout.decode("utf-8", "surrogateescape").split("\0")
                found = {}
                at = 0
                while at < len(tokens):
                    status = tokens[at].strip()
                    if status[:1] in ("R", "C") and at + 2 < len(tokens):
                        if status[:1] == "R":
                            found[tokens[at + 1]] = tokens[at + 2]
                        at += 3
                    else:
                        at += 2
            moves[sha] = found
        return moves[sha]

    @cached_property
    def _partial_clone(self) -> bool:
        """A partial clone (``--filter=blob:none``): git fetches a missing blob when asked
        for its content, so no content is asked."""
        result = self._run(["config", "--get", "extensions.partialClone"])
        return result.returncode == 0 and bool(result.stdout.strip())

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

    @property
    def records_only(self) -> bool:
        """Every scope is a single project whose records were named: publication is asked
        about them, and messages say "the working-memory records", never a projects
        directory the layout lacks."""
        return bool(self.scopes) and all(scope in self.record_paths for scope in self.scopes)

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
        code, remotes = (0, "") if self._made is not None else self._git_text(["remote"])
        if code != 0:
            return UpstreamState(
                f"state unknown: `git remote` failed in {self.repository.toplevel}"
            )
        if not remotes and not self.pushing:
            return UpstreamState("the repository has no remote: nothing is published")
        if (
            self._made is None
            and self._run(["rev-parse", "--verify", "--quiet", "HEAD"]).returncode
        ):
            return UpstreamState("the branch has no commits yet: nothing is published")
        upstream_ref, upstream, branch_ahead, behind = (
            ("", "", 0, 0) if self._made is not None else self._tracking(branch)
        )
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
        pathspecs = sorted(
            {
                path
                for scope in self.scopes
                for path in self.record_paths.get(scope, (scope.path or ".",))
            }
        ) or ["."]
        # What the commits are said to touch: a single project's records, else the projects.
        touched = "the working-memory records" if self.records_only else "the projects directory"
        code, count = (
            (0, "0")  # HEAD is the pushed commit, excluded as on its way
            if self._made is not None and self._made.head in excluded
            else self._git_text(
                ["rev-list", "--count", "HEAD", "--not", *excluded, "--", *pathspecs]
            )
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
                    f"{_commits(here)} here not there ({ahead} touching {touched}), "
                    f"{_commits(behind)} there not here",
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
        whole_branch = 0 if self.pushing else branch_ahead
        if ahead:
            target = f"`{upstream}`" if upstream else "the commits being pushed"
            plural = "commits touch" if ahead > 1 else "commit touches"
            return UpstreamState(
                f"{ahead} {plural} {touched} but {'is' if ahead == 1 else 'are'} not on {target}",
                ahead,
                upstream or None,
                branch_ahead=whole_branch,
            )
        return UpstreamState(None, 0, upstream or None, branch_ahead=whole_branch)


def _commits(count: int) -> str:
    return f"{count} commit{'s' if count != 1 else ''}"


@dataclass(frozen=True)
class UpstreamState:
    problem: str | None  # None: everything touching the projects directory is published
    ahead: int = 0
    upstream: str | None = None
    behind: int = 0  # commits on the fetched upstream the branch does not have
    remedy: str | None = None  # None: the check's own remedy (push)
    # Commits of the whole branch not on its upstream (any path; 0 when unknown or pushing).
    branch_ahead: int = 0


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
