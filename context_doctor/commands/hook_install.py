"""``context-doctor hook install|uninstall``: a plain git pre-push hook, without pre-commit.

The hook runs the doctor with the interpreter that installed it (so a
virtualenv need not be active when pushing), else ``context-doctor`` on
``PATH``; when neither runs (the virtualenv was deleted) it refuses the push
with one line saying how to reinstall or uninstall, instead of a bare
``exec: not found``.  It passes ``--pre-push``, so the commits being pushed
count as published, and a refused push ends with
``push refused by context-doctor: ...`` (the doctor prints the defect count).

A hook that is not ours is never overwritten without ``--force``; whatever
was there is kept as a backup, and ``hook uninstall`` puts the newest backup
back.  A ``core.hooksPath`` set in the global or system config is a hooks
directory shared by every repository, so installing there is refused unless
``--force``.
"""

from __future__ import annotations

import shlex
import stat
import sys
from datetime import UTC, datetime
from pathlib import Path

from context_doctor.discover import discover
from context_doctor.errors import DoctorError
from context_doctor.git.repository import repository_for
from context_doctor.git.run import run_git
from context_doctor.write import (
    WriteRefused,
    default_mode,
    ensure_directory,
    move_aside,
    remove_file,
    write_file,
)

MARKER = "# installed by context-doctor hook install"


REFUSED = "push refused by context-doctor"
BYPASS = "git push --no-verify bypasses"


def hook_script(python: str = sys.executable, target: str = ".") -> str:
    """The hook: audit ``target`` (relative to the repository top) as the push will leave it."""
    arguments = f"check {shlex.quote(target)} --pre-push --no-report-cache"
    missing = (
        f"{REFUSED}: the hook cannot run the doctor (neither {python} -m context_doctor nor "
        "context-doctor on PATH); reinstall it and run `context-doctor hook install`, or run "
        f"`context-doctor hook uninstall` (or delete this hook); {BYPASS}"
    )
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        f"# Refuses a push whose context layer has defects; `{BYPASS.split(' bypasses')[0]}` "
        "bypasses it.\n"
        "# `context-doctor hook uninstall` removes it and restores the hook it replaced.\n"
        'cd "$(git rev-parse --show-toplevel)" || exit 2\n'
        f"python={shlex.quote(python)}\n"
        "if \"$python\" -c 'import context_doctor' </dev/null >/dev/null 2>&1; then\n"
        f'    "$python" -m context_doctor {arguments}\n'
        "elif command -v context-doctor >/dev/null 2>&1; then\n"
        f"    context-doctor {arguments}\n"
        "else\n"
        f"    echo {shlex.quote(missing)} >&2\n"
        "    exit 1\n"
        "fi\n"
        "status=$?\n"
        'if [ "$status" -eq 2 ]; then\n'
        f"    echo {shlex.quote(f'{REFUSED}: ground truth not established (see above); {BYPASS}')} >&2\n"
        "fi\n"
        'exit "$status"\n'
    )


def shared_hooks_path(repo: Path) -> tuple[str, str] | None:
    """``(scope, path)`` when ``core.hooksPath`` comes from the global or system config."""
    repository = repository_for(repo)
    result = run_git(["config", "--show-scope", "--get", "core.hooksPath"], repository.toplevel)
    if result.returncode != 0:
        return None  # unset (or a git too old for --show-scope, which predates the risk)
    scope, _, value = result.stdout.decode("utf-8", "replace").strip().partition("\t")
    return (scope, value) if scope in ("global", "system") else None


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
    shared = shared_hooks_path(repo)
    if shared is not None and not force:
        scope, value = shared
        raise WriteRefused(
            "shared-hooks-path",
            f"core.hooksPath is set in the {scope} git config ({value}): that hooks directory is "
            "shared by every repository, so the hook would gate pushes everywhere; unset it, set "
            "a repository-local core.hooksPath, or pass --force to install there anyway",
        )
    discover(paths=(str(repo),))  # exit 2 now, not on every push, when there is nothing to audit
    target = directory / "pre-push"
    audited = repository_for(repo).relative(repo.resolve()) or "."
    script = hook_script(python, audited)
    backup: Path | None = None
    if target.exists() or target.is_symlink():
        current = target.read_bytes() if target.is_file() else b""
        if current == _script_bytes(script):
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
        write_file(target, _script_bytes(script), mode=_executable(target))
    except (DoctorError, WriteRefused) as error:
        problem = error.message if isinstance(error, WriteRefused) else error.problem
        raise DoctorError(
            f"cannot write the hook {target}: {problem}",
            "check `git config core.hooksPath` and that the hooks directory is writable",
        ) from error
    return target, backup


def _script_bytes(script: str) -> bytes:
    """The hook as the shell reads it: paths in it keep their file-system bytes.

    A directory name git accepts need not be UTF-8 (it arrives here as
    surrogate escapes); the shell wants the original bytes, so encode the way
    ``os.fsencode`` does rather than refusing.
    """
    return script.encode("utf-8", "surrogateescape")


def _executable(target: Path) -> int:
    """The hook's mode: what it had (or the umask default), executable by all."""
    try:
        mode = stat.S_IMODE(target.stat(follow_symlinks=False).st_mode)
    except OSError:
        mode = default_mode()
    return mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def backups_of(target: Path) -> list[Path]:
    """The backups ``install`` kept of ``target``, oldest first (their names sort by time)."""
    return sorted(target.parent.glob(f"{target.name}.backup-*"), key=lambda p: p.name)


def uninstall_hook(repo: Path) -> tuple[Path, Path | None]:
    """Remove the pre-push hook the doctor wrote; put the newest backup back.

    Returns the hook's path and the backup restored (None when there was none).
    Refuses (nothing changed) when there is no hook or it is not the doctor's.
    """
    target = hooks_directory(repo) / "pre-push"
    if not target.exists() and not target.is_symlink():
        raise WriteRefused("no-hook", f"{target} does not exist: there is nothing to uninstall")
    current = target.read_bytes() if target.is_file() and not target.is_symlink() else b""
    if MARKER.encode("utf-8") not in current:
        raise WriteRefused(
            "not-ours",
            f"{target} was not installed by context-doctor; it was left as it is",
        )
    backups = backups_of(target)
    newest = backups[-1] if backups else None
    remove_file(target)
    if newest is not None:
        move_aside(newest, target)
    return target, newest
