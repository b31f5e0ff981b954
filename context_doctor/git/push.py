"""What a push sends, read from git: the refs, the files the pushed commits change, their tree.

A pre-push hook must judge what the remote will hold, not the work tree: a
header committed without its log entry is a defect even when the uncommitted
work tree has the entry. So the pushed commit's tree is checked out into a
temporary repository of its own (``git init`` plus an ``alternates`` file
pointing at this repository's objects, and one ``read-tree -u``
into a temporary index and work tree). Nothing of the user's changes: not the
work tree, not the index, not a stash, not a ref. Every command is plumbing
with hooks off (``update-ref`` and ``read-tree -u`` would run the user's
``reference-transaction`` and ``post-index-change`` hooks: :data:`~context_doctor.git.run.HOOKS_OFF`),
and the filter drivers are blanked as for every doctor git call.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.git.repository import Repository
from context_doctor.git.run import (
    ConfigPairs,
    MadeCheckout,
    git_directories,
    made_checkout,
    neutralised_filters,
    run_git,
)
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_limited
from context_doctor.write import ensure_directory, write_file

ZERO = "0" * 40


@dataclass(frozen=True)
class PushedRef:
    """One line of a pre-push hook's input: ``<local ref> <local sha> <remote ref> <remote sha>``."""

    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str

    @property
    def deletes(self) -> bool:
        return not self.local_sha.strip("0")

    @property
    def branch(self) -> str:
        """The branch name the pushed tree is checked out on (``pushed`` for a tag or a sha)."""
        for ref in (self.local_ref, self.remote_ref):
            if ref.startswith("refs/heads/") and len(ref) > len("refs/heads/"):
                return ref.removeprefix("refs/heads/")
        return "pushed"


def parse_pushed_refs(text: str) -> list[PushedRef]:
    """git's pre-push input; a line that is not four fields is a DoctorError (exit 2)."""
    refs: list[PushedRef] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4 or not all(_is_sha(part) for part in (parts[1], parts[3])):
            raise DoctorError(
                f"pre-push input line {number} is not `<local ref> <sha> <remote ref> <sha>`: "
                f"{line[:120]!r}",
                "run the doctor from a git pre-push hook (`context-doctor hook install`), which "
                "passes git's input on stdin",
            )
        refs.append(PushedRef(parts[0], parts[1], parts[2], parts[3]))
    return refs


def pre_commit_refs(environ: dict[str, str] | os._Environ[str]) -> list[PushedRef] | None:
    """pre-commit's pre-push stage passes the refs in the environment instead of stdin."""
    to_ref = environ.get("PRE_COMMIT_TO_REF")
    if not to_ref:
        return None
    from_ref = environ.get("PRE_COMMIT_FROM_REF") or ZERO
    local = environ.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    remote = environ.get("PRE_COMMIT_REMOTE_BRANCH") or local
    return [PushedRef(local, to_ref, remote, from_ref)]


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


class PushRepository:
    """The repository being pushed from, asked only what the push needs."""

    def __init__(self, repository: Repository) -> None:
        self.repository = repository

    def _git(self, *args: str) -> tuple[int, bytes]:
        # Refs and commits only, never the work tree: no filter driver could run, so
        # there is no `git config` to blank them (the checkout's plumbing blanks them).
        result = run_git(list(args), self.repository.toplevel)
        return result.returncode, result.stdout

    def commit_of(self, name: str) -> str | None:
        """The commit ``name`` (a sha, a tag object's target) names here; None when unknown."""
        code, out = self._git(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{name}^{{commit}}"
        )
        text = out.decode("ascii", "replace").strip()
        return text if code == 0 and _is_sha(text) else None

    def head(self) -> tuple[str, str] | None:
        """``HEAD``'s branch ref (``HEAD`` when detached) and commit; None when unborn."""
        commit = self.commit_of("HEAD")
        if commit is None:
            return None
        code, out = self._git("symbolic-ref", "-q", "HEAD")
        ref = out.decode("utf-8", "surrogateescape").strip() if code == 0 else ""
        return (ref or "HEAD"), commit

    def upstream(self, ref: str) -> tuple[str, str, str] | None:
        """The upstream of the branch ``ref`` (``refs/heads/…``): its remote-tracking ref,
        the branch it names on the remote, and its commit here; None for a detached
        ``HEAD``, a branch without one, or an upstream this repository has no commit of."""
        if not ref.startswith("refs/heads/"):
            return None
        code, out = self._git(
            "for-each-ref", "--format=%(upstream)%00%(upstream:remoteref)", "--end-of-options", ref
        )
        fields = out.decode("utf-8", "surrogateescape").strip().split("\x00")
        if code != 0 or len(fields) != 2 or not fields[0]:
            return None
        tracking, remote_ref = fields
        commit = self.commit_of(tracking)
        if commit is None:
            return None
        shown = tracking.removeprefix("refs/remotes/")
        return shown, remote_ref or ref, commit

    def changed_paths(self, ref: PushedRef, commit: str) -> frozenset[str]:
        """Repository-relative paths the commits this push sends change.

        The commits sent are those reachable from the pushed commit and from
        neither the remote's current commit (when known here) nor any
        remote-tracking ref: what the remote already holds is not this push's doing.
        """
        excluded = ["--remotes"]
        if not ref.deletes and ref.remote_sha.strip("0"):
            # Only when it names a commit here: `--ignore-missing` passes over an object
            # this repository lacks (or one that is no commit) as a separate
            # `rev-parse --verify` did, in the same git process.
            excluded += ["--ignore-missing", f"{ref.remote_sha}^{{commit}}"]
        code, out = self._git(
            "log",
            "-z",
            "--no-renames",
            "--format=",
            "--name-only",
            commit,
            "--not",
            *excluded,
            "--",
        )
        if code != 0:
            raise DoctorError(
                f"cannot list the commits this push sends ({commit[:12]})",
                "run `git log` in the repository to see what git reports",
            )
        return frozenset(
            path.decode("utf-8", "surrogateescape") for path in out.split(b"\x00") if path.strip()
        )

    def objects_directory(self) -> Path:
        known = git_directories(self.repository.toplevel)  # found with the top level
        if known is not None:
            common = known[1]
        else:
            code, out = self._git("rev-parse", "--git-common-dir")
            if code != 0:
                raise DoctorError(
                    f"cannot find the git directory of {self.repository.toplevel}",
                    "run `git rev-parse --git-common-dir` there to see what git reports",
                )
            common = Path(out.decode("utf-8", "surrogateescape").rstrip("\n"))
            if not common.is_absolute():
                common = self.repository.toplevel / common
        objects = common.resolve() / "objects"
        if "\n" in str(objects):
            raise DoctorError(
                f"the objects directory {objects!r} has a line break in its path",
                "move the repository to a path without one",
            )
        return objects

    @contextmanager
    def checked_out(self, commit: str, branch: str) -> Iterator[Path]:
        """A temporary work tree holding exactly ``commit``'s tree, on branch ``branch``.

        Yields its top level; everything is removed afterwards. The temporary
        repository borrows this one's objects (read-only), so the history of
        ``commit`` is all there without copying it.
        """
        objects = self.objects_directory()
        shallow = objects.parent / "shallow"
        with tempfile.TemporaryDirectory(prefix="context-doctor-push-") as scratch:
            top = Path(scratch) / "tree"
            top.mkdir()
            # The files ref backend, whatever a newer git's init.defaultRefFormat says:
            # HEAD and the branch are then two files written here (_point_branch).
            self._plumb(top, "init", "-q", "--template=", config=FILES_REF_FORMAT)
            git_dir = top / ".git"
            ensure_directory(git_dir / "objects" / "info", within=git_dir)
            write_file(
                git_dir / "objects" / "info" / "alternates",
                os.fsencode(str(objects)) + b"\n",
                within=git_dir,
            )
            shallow_file = shallow.is_file()
            if shallow_file:
                # A shallow repository's grafted boundary travels with it, so the doctor
                # sees the same shallowness here (exit 2 unless --allow-shallow).
                write_file(git_dir / "shallow", _read_shallow(shallow), within=git_dir)
            if not _point_branch(git_dir, branch, commit):
                self._plumb(top, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
                self._plumb(top, "update-ref", f"refs/heads/{branch}", commit)
            # One step fills the temporary index and work tree, with the index's stat data
            # matching the files, so `git status` there is clean without rehashing them.
            self._plumb(top, "read-tree", "-u", "--reset", commit)
            made = MadeCheckout(top.resolve(), commit, branch, None if shallow_file else False)
            with made_checkout(made):
                yield top

    @staticmethod
    def _plumb(top: Path, *args: str, config: ConfigPairs = ()) -> None:
        result = run_git(list(args), top, config=(*neutralised_filters(top), *config))
        if result.returncode != 0:
            said = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise DoctorError(
                f"cannot check out the pushed tree (git {args[0]}: {said[0] if said else 'failed'})",
                "run `git fsck` in the repository; a push the doctor cannot read is refused",
            )


FILES_REF_FORMAT: ConfigPairs = (("init.defaultRefFormat", "files"),)


def _point_branch(git_dir: Path, branch: str, commit: str) -> bool:
    """Make ``refs/heads/<branch>`` the commit and ``HEAD`` point at it, as the files ref
    backend stores them (a loose ref, a symbolic ``HEAD``): what ``update-ref`` and
    ``symbolic-ref`` write, without two more git processes.

    False (nothing written) for a name this plain writing would not be sure of; the
    caller then asks git, which checks the name itself.
    """
    parts = branch.split("/")
    if (git_dir / "reftable").exists():  # $GIT_DEFAULT_REF_FORMAT outranks the config
        return False
    if not _is_sha(commit) or not all(
        part
        and not part.startswith(".")
        and not part.endswith((".lock", "."))
        and ".." not in part
        and part.isprintable()
        and not any(c in part for c in " ~^:?*[\\@{")
        for part in parts
    ):
        return False
    heads = git_dir / "refs" / "heads"
    ensure_directory(heads.joinpath(*parts[:-1]), within=git_dir)
    write_file(heads.joinpath(*parts), commit.encode("ascii") + b"\n", within=git_dir)
    write_file(git_dir / "HEAD", f"ref: refs/heads/{branch}\n".encode(), within=git_dir)
    return True


def _read_shallow(path: Path) -> bytes:
    """The repository's list of shallow boundary commits, bounded like every read."""
    try:
        return read_limited(path, MAX_WRITE_TARGET_BYTES)
    except (OSError, TooLarge) as error:
        raise DoctorError(
            f"cannot read {path} ({error})", "run `git fsck` in the repository"
        ) from error


def read_hook_input() -> str:
    """The pre-push input on stdin ('' when stdin is a terminal or closed)."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    return sys.stdin.read()
