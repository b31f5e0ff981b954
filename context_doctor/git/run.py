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

import ctypes
import math
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable
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


def spawn_git(command: list[str], cwd: Path, env: dict[str, str], **streams: Any) -> Popen[bytes]:
    """Start git in a process group of its own, so that :func:`kill_git` ends all of it,
    and bound to the doctor's life (:func:`_dies_with_this_process`)."""
    try:
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
