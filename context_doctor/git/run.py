"""Every git call the doctor makes goes through this module: the hardened runner.

Git runs with ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_INDEX_FILE`` removed from
its environment (a pre-push hook exports them, and they would silently point
the doctor at the wrong repository or index) and with ``LC_ALL=C`` so messages
are stable.  The single place that spawns git uses :mod:`subprocess` directly:
a wrapper that merges its environment on top of ``os.environ`` cannot *remove*
a variable.

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

import math
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from subprocess import Popen
from typing import Any

from context_doctor.errors import DoctorError

_HOOK_EXPORTED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
)

ConfigPairs = tuple[tuple[str, str], ...]
TIMEOUT_VARIABLE = "CONTEXT_DOCTOR_GIT_TIMEOUT"
DEFAULT_TIMEOUT = 60.0  # far beyond any status or log step of a knowledge repository
MAX_WALKED = 100_000  # entries looked at for a special file after a timeout

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

HOOKS_OFF: ConfigPairs = (("core.hooksPath", os.devnull),)
"""Hooks off: plumbing (``update-ref``, ``read-tree -u``) runs ``reference-transaction`` and
``post-index-change`` hooks, the user's global ones included; a hooks directory that is not
a directory holds none. Left out only to read where hooks live (``hook install``)."""


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


def hardened_environment(extra: ConfigPairs = (), *, hooks: bool = False) -> dict[str, str]:
    """The environment every doctor git command runs in: nothing from the repository executes.

    ``hooks=True`` leaves ``core.hooksPath`` as configured, for reading it alone."""
    env = git_environment()
    env["GIT_NO_LAZY_FETCH"] = "1"  # git >= 2.45; protocol.allow=never covers older ones
    env["GIT_TERMINAL_PROMPT"] = "0"
    env.pop("GIT_EXTERNAL_DIFF", None)
    return with_config(env, (*NEUTRALISED_CONFIG, *(() if hooks else HOOKS_OFF), *extra))


def git_timeout() -> float:
    """Seconds a git command may run (or a log pass go without output) before it is killed.

    ``$CONTEXT_DOCTOR_GIT_TIMEOUT`` (a positive number) overrides the default: a FIFO
    named ``.gitignore`` hangs ``git status`` forever, and no run may hang.
    """
    raw = os.environ.get(TIMEOUT_VARIABLE, "")
    try:
        value = float(raw) if raw.strip() else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value < math.inf else DEFAULT_TIMEOUT


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@cache
def _prctl() -> Any:
    """libc's ``prctl``, resolved once in the parent (a forked child only calls it), or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only for the commands that need it (a cold start)

    try:
        function = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
    function.restype = ctypes.c_int
    return function


def _dies_with_this_process() -> Callable[[], None] | None:
    """What a git child runs before exec so that it is killed when the doctor dies.

    A SIGKILLed doctor runs no handler, and git lives in a session of its own (so a
    terminal's Ctrl-C reaches the doctor, which then kills git's group): without the
    kernel's parent-death signal a git blocked on a FIFO would outlive it for ever.
    Linux only; elsewhere SECURITY.md says what remains.  Decision: the child calls one
    C function resolved beforehand, nothing that takes a lock another thread could
    hold at the fork; it checks its parent afterwards, as the doctor may die first.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return arm


SETPRIV_PLACES = ("/usr/bin/setpriv", "/bin/setpriv")
"""Where util-linux's ``setpriv`` is looked for: fixed places, never ``PATH``."""

WORK_TREE_COMMANDS = frozenset({"status", "read-tree", "checkout", "diff-files", "add"})
"""git commands that read or write the work tree's files, where a FIFO can block them."""


@cache
def _setpriv() -> str | None:
    """util-linux's ``setpriv`` when it takes ``--pdeathsig`` (asked once per process).

    ``--version`` after ``--pdeathsig KILL`` exits 0 only when the option is known.
    Linux only, as the signal is; asked without loading :mod:`ctypes`, which only a
    command reading the work tree needs (:func:`_prctl`).
    """
    if not sys.platform.startswith("linux"):
        return None
    for place in SETPRIV_PLACES:
        if not os.access(place, os.X_OK):
            continue
        try:
            probe = subprocess.run(
                [place, "--pdeathsig", "KILL", "--version"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=git_timeout(),
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if probe.returncode == 0:
            return place
    return None


def spawn_git(
    command: list[str], cwd: Path, env: dict[str, str], *, strict: bool = False, **streams: Any
) -> Popen[bytes]:
    """Start git in a process group of its own, so that :func:`kill_git` ends all of it,
    and bound to the doctor's life (the kernel's parent-death signal).

    Decision: a ``preexec_fn`` makes :mod:`subprocess` fork the whole interpreter
    and run its fork handlers (about 5 ms a spawn here, against 1-2 ms for the
    ``vfork`` it uses otherwise), so the signal is set by ``setpriv --pdeathsig KILL``,
    exec'd in front of git, where there is one.  That leaves a window of the doctor
    dying before ``setpriv`` arms the signal (a git then orphaned, bounded by nothing
    but its own end); ``strict`` (set for the commands that read the work tree, where a
    FIFO blocks them: :data:`WORK_TREE_COMMANDS`) closes it with the ``preexec_fn``,
    which checks its parent after arming (:func:`_dies_with_this_process`).
    """
    setpriv = None if strict else _setpriv()
    try:
        if setpriv is not None:
            # setpriv would report a missing git as its own failure: found here first.
            found = shutil.which(command[0], path=env.get("PATH", os.defpath))
            if found is None:
                raise FileNotFoundError(command[0])
            return subprocess.Popen(
                [setpriv, "--pdeathsig", "KILL", "--", found, *command[1:]],
                cwd=cwd,
                env=env,
                start_new_session=True,
                **streams,
            )
        return subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_dies_with_this_process(),  # one pre-resolved C call: see above
            **streams,
        )
    except FileNotFoundError as error:
        raise DoctorError("git is not installed or not on PATH", "install git and retry") from error


def kill_git(process: Popen[bytes]) -> None:
    """Kill git and whatever it started (its process group), and reap it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:  # gone already, or no process groups here
            process.kill()
    process.wait()


def timed_out(args: list[str], cwd: Path) -> DoctorError:
    """The exit-2 line for a git command killed at its time bound, naming a likely cause."""
    special = special_files(cwd)
    found = f"; {', '.join(special)} cannot be read without blocking" if special else ""
    return DoctorError(
        f"git {args[0] if args else ''} did not finish within {git_timeout():g} s in {cwd}{found}",
        "remove any FIFO or other special file from the work tree (git reads every "
        f".gitignore), or for a very large repository raise ${TIMEOUT_VARIABLE}",
    )


def special_files(top: Path, limit: int = MAX_WALKED) -> list[str]:
    """Up to three FIFOs, sockets or devices under ``top`` (``.git`` left out), relative."""
    found: list[str] = []
    walked = 0
    pending = [top]
    while pending and len(found) < 3 and walked < limit:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        walked += len(entries)
        for entry in entries:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                if entry.name != ".git":
                    pending.append(Path(entry.path))
            elif not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                found.append(Path(entry.path).relative_to(top).as_posix())
    return sorted(found)[:3]


def run_git(
    args: list[str],
    cwd: Path,
    stdin: bytes | None = None,
    *,
    config: ConfigPairs = (),
    hooks: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd`` under :func:`hardened_environment` (plus ``config``; ``hooks``
    as there).

    Bounded (:func:`git_timeout`): past it git's whole process group is killed and the
    run ends with exit 2 naming why; so is it when the doctor itself is interrupted.
    """
    command = ["git", "--no-pager", *args]
    process = spawn_git(
        command,
        cwd,
        hardened_environment(config, hooks=hooks),
        strict=bool(args) and args[0] in WORK_TREE_COMMANDS,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = process.communicate(stdin, timeout=git_timeout())
    except subprocess.TimeoutExpired:
        kill_git(process)
        process.communicate()  # what was written, and the pipes closed
        raise timed_out(args, cwd) from None
    except BaseException:  # an interrupt, a SIGTERM (cli.main): git is not left behind
        kill_git(process)
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)


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


# -- where a repository is: one rev-parse for its top and both git directories --

GitDirectories = tuple[Path, Path]
"""(the absolute git directory, the common git directory) of a work tree."""

_DIRECTORIES_OF_TOP: dict[Path, GitDirectories] = {}


@dataclass(frozen=True)
class MadeCheckout:
    """A work tree the doctor checked out itself (the pre-push hook's copy of the pushed
    tree): what git would say of it is known from how it was made, so git is not asked.
    ``shallow`` None: ask git."""

    top: Path  # resolved
    head: str
    branch: str
    shallow: bool | None


_MADE: dict[Path, MadeCheckout] = {}


@contextmanager
def made_checkout(checkout: MadeCheckout) -> Iterator[None]:
    """While the block runs, :func:`locate` and the repository's facts answer for
    ``checkout`` from what it is, not from git."""
    _MADE[checkout.top] = checkout
    try:
        yield
    finally:
        _MADE.pop(checkout.top, None)


def made_checkout_at(toplevel: Path) -> MadeCheckout | None:
    return _MADE.get(toplevel)


def locate(directory: Path) -> Path | str:
    """The top of the work tree holding ``directory`` (resolved), or git's own first line
    saying why there is none (see :func:`_locate`); a checkout the doctor made is known."""
    for top in _MADE:
        if directory.is_relative_to(top):  # git checks out nothing named .git below it
            return top
    return _locate(directory)


@cache
def _locate(directory: Path) -> Path | str:
    """The top of the work tree holding ``directory`` (resolved), or git's own first line
    saying why there is none; remembered per process, like its git directories.

    One ``git rev-parse`` answers the top and both git directories (each asked apart
    before: three git processes); a path with a line break in it is asked the old way.
    """
    result = run_git(
        ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], directory
    )
    if result.returncode != 0:
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[0].removeprefix("fatal: ") if lines else "git rev-parse failed"
    answer = result.stdout.decode("utf-8", "surrogateescape").removesuffix("\n").split("\n")
    if len(answer) != 3 or not all(answer):
        result = run_git(["rev-parse", "--show-toplevel"], directory)
        return Path(result.stdout.decode("utf-8", "surrogateescape").rstrip("\n")).resolve()
    top = Path(answer[0]).resolve()
    # The common directory is printed relative to where git ran (``.git``, ``../../.git``).
    common = Path(os.path.abspath(directory / answer[2]))
    _DIRECTORIES_OF_TOP.setdefault(top, (Path(answer[1]), common))
    return top


def git_directories(toplevel: Path) -> GitDirectories | None:
    """The git directories of the work tree at ``toplevel`` as :func:`locate` found them,
    or None when it was not asked (the caller asks git itself)."""
    if toplevel in _MADE:
        return toplevel / ".git", toplevel / ".git"
    return _DIRECTORIES_OF_TOP.get(toplevel)
