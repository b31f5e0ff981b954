"""``context-doctor hook install``: a plain git pre-push hook, for people without pre-commit.

The hook runs the doctor with the interpreter that installed it (so a
virtualenv need not be active when pushing) and with ``--pre-push``, so the
commits being pushed count as published.  A hook that is not ours is never
overwritten without ``--force``; whatever was there is kept as a backup.
"""

from __future__ import annotations

import shlex
import stat
import sys
from datetime import UTC, datetime
from pathlib import Path

from context_doctor.corpus import discover
from context_doctor.errors import DoctorError
from context_doctor.gitfacts import repository_for, run_git
from context_doctor.write import (
    WriteRefused,
    default_mode,
    ensure_directory,
    move_aside,
    write_file,
)

MARKER = "# installed by context-doctor hook install"


def hook_script(python: str = sys.executable, target: str = ".") -> str:
    """The hook: audit ``target`` (relative to the repository top) as the push will leave it."""
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        "# Refuses a push whose context layer has defects; `git push --no-verify` bypasses it.\n"
        'cd "$(git rev-parse --show-toplevel)" || exit 2\n'
        f"exec {shlex.quote(python)} -m context_doctor check {shlex.quote(target)} --pre-push "
        "--no-report-cache\n"
    )


def hooks_directory(repo: Path) -> Path:
    """Where git looks for hooks (honours ``core.hooksPath``)."""
    repository = repository_for(repo)
    result = run_git(["rev-parse", "--git-path", "hooks"], repository.toplevel)
    if result.returncode != 0:
        raise DoctorError(f"cannot find the hooks directory of {repo}", "check the repository")
    path = Path(result.stdout.decode("utf-8", "replace").strip())
    return path if path.is_absolute() else repository.toplevel / path


def _backup_name(existing: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    candidate = existing.with_name(f"{existing.name}.backup-{stamp}")
    counter = 1
    while candidate.exists():
        candidate = existing.with_name(f"{existing.name}.backup-{stamp}-{counter}")
        counter += 1
    return candidate


def install_hook(
    repo: Path, *, force: bool = False, python: str = sys.executable
) -> tuple[Path, Path | None]:
    """Install the pre-push hook; returns its path and the backup of what it replaced.

    ``repo`` may be the repository or a knowledge base inside it; the hook
    audits that directory.  It is discovered once now, so a hook that could
    never pass (nothing to audit there) is refused at install time.
    """
    directory = hooks_directory(repo)
    discover(paths=(str(repo),))  # exit 2 now, not on every push, when there is nothing to audit
    target = directory / "pre-push"
    audited = repository_for(repo).relative(repo.resolve()) or "."
    script = hook_script(python, audited)
    backup: Path | None = None
    if target.exists() or target.is_symlink():
        current = target.read_bytes() if target.is_file() else b""
        if current == script.encode("utf-8"):
            return target, None
        if MARKER.encode("utf-8") not in current and not force:
            raise DoctorError(
                f"{target} exists and was not installed by context-doctor",
                "merge the hook by hand, use pre-commit (.pre-commit-hooks.yaml), or pass --force "
                "(the current hook is kept as a backup)",
            )
        backup = _backup_name(target)
    try:
        ensure_directory(directory)
        if backup is not None:
            move_aside(target, backup)
        write_file(target, script.encode("utf-8"), mode=_executable(target))
    except (DoctorError, WriteRefused) as error:
        problem = error.message if isinstance(error, WriteRefused) else error.problem
        raise DoctorError(
            f"cannot write the hook {target}: {problem}",
            "check `git config core.hooksPath` and that the hooks directory is writable",
        ) from error
    return target, backup


def _executable(target: Path) -> int:
    """The hook's mode: what it had (or the umask default), executable by all."""
    try:
        mode = stat.S_IMODE(target.stat(follow_symlinks=False).st_mode)
    except OSError:
        mode = default_mode()
    return mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
