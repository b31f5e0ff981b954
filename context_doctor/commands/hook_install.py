"""``context-doctor hook install|uninstall``: a plain git pre-push hook, without pre-commit.

The doctor's part of a hook is one block between two marker lines
(:data:`BEGIN`, :data:`END`), so it can live in a hook of the user's own and
be removed from it exactly. The block runs the doctor with the interpreter
that installed it (so a virtualenv need not be active when pushing), else
``context-doctor`` on ``PATH``; when neither runs (the virtualenv was deleted)
it refuses the push with one line saying how to reinstall or uninstall,
instead of a bare ``exec: not found``. It passes ``--pre-push``: the doctor
audits the tree of the commits being pushed.

A hook that is not ours is never overwritten without ``--force``; whatever
was there is kept as a backup. ``hook uninstall`` removes only the block:
a hook that was only the block is deleted and the newest backup put back; a
hook with lines of the user's own keeps them. A ``core.hooksPath`` set in the
global or system config is a hooks directory shared by every repository, so
installing there is refused unless ``--force``.
"""

from __future__ import annotations

import re
import shlex
import stat
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from context_doctor.commands.pre_push import REFUSED
from context_doctor.errors import DoctorError
from context_doctor.git.repository import repository_for
from context_doctor.git.run import run_git
from context_doctor.guards.contain import inside
from context_doctor.guards.interpreter import isolation_flags
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_limited
from context_doctor.pipeline.discover import discover
from context_doctor.write import (
    WriteRefused,
    default_mode,
    ensure_directory,
    move_aside,
    read_snapshot,
    remove_file,
    replace_file,
    write_file,
)

MARKER = "# installed by context-doctor hook install"
"""The one-line mark of the hooks written before the block markers (still recognised)."""
BEGIN = "# >>> context-doctor pre-push >>>"
END = "# <<< context-doctor pre-push <<<"
"""The doctor's block in a pre-push hook lies between these lines, inclusive: ``hook
uninstall`` removes exactly that and keeps every other line of the file."""


NOT_INSTALLED = 127
"""The hook's interpreter has no ``context_doctor`` to import (a virtualenv emptied): the
block then tries ``context-doctor`` on ``PATH``. The doctor itself never exits 127."""
BOOTSTRAP = (
    "import sys\n"
    "try:\n"
    "    import context_doctor\n"
    "except ImportError:\n"
    f"    sys.exit({NOT_INSTALLED})\n"
    "from context_doctor.cli import main\n"
    "main()\n"
)
"""What the hook's one interpreter runs (one start, where a probe
``-c 'import context_doctor'`` and then ``-m context_doctor`` were two): the doctor when
it is importable, else exit :data:`NOT_INSTALLED`, git's input on stdin left unread for
the fallback."""


def hook_block(python: str = sys.executable, target: str = ".") -> str:
    """The doctor's block: audit ``target`` (relative to the repository top) as pushed.

    It can stand in a hook of the user's own: it reads git's input on stdin (so it
    must come before anything else reads it), exits only to refuse the push, and
    otherwise lets the rest of the hook run. The interpreter runs isolated
    (:func:`~context_doctor.guards.interpreter.isolation_flags`): the hook starts at the
    pushed repository's top, and a ``context_doctor/`` package committed there must
    not be what ``-m context_doctor`` imports.
    """
    arguments = f"check {shlex.quote(target)} --pre-push --no-report-cache"
    flags = " ".join(isolation_flags())
    missing = (
        f"{REFUSED}: the hook cannot run the doctor (neither {python} -m context_doctor nor "
        "context-doctor on PATH); reinstall it and run `context-doctor hook install`, or run "
        "`context-doctor hook uninstall`"
    )
    unjudged = f"{REFUSED}: ground truth not established (see above)"
    return (
        f"{BEGIN}\n"
        "# Written by `context-doctor hook install`; `context-doctor hook uninstall` removes\n"
        "# this block. It refuses a push whose commits leave defects in the projects they change.\n"
        "(\n"
        '    cd "$(git rev-parse --show-toplevel)" || exit 2\n'
        f"    python={shlex.quote(python)}\n"
        '    if [ -x "$python" ]; then\n'
        f'        "$python" {flags} -c {shlex.quote(BOOTSTRAP)} {arguments}\n'
        "        context_doctor_status=$?\n"
        f'        [ "$context_doctor_status" -eq {NOT_INSTALLED} ] || exit "$context_doctor_status"\n'
        "    fi\n"
        "    if command -v context-doctor >/dev/null 2>&1; then\n"
        f"        exec context-doctor {arguments}\n"
        "    fi\n"
        f"    echo {shlex.quote(missing)} >&2\n"
        "    exit 1\n"
        ")\n"
        "context_doctor_status=$?\n"
        'if [ "$context_doctor_status" -ne 0 ]; then\n'
        '    if [ "$context_doctor_status" -eq 2 ]; then\n'
        f"        echo {shlex.quote(unjudged)} >&2\n"
        "    fi\n"
        '    exit "$context_doctor_status"\n'
        "fi\n"
        f"{END}\n"
    )


def hook_script(python: str = sys.executable, target: str = ".") -> str:
    """The whole hook ``install`` writes: a shebang and the doctor's block."""
    return "#!/bin/sh\n" + hook_block(python, target)


def _legacy_script(python: str, target: str) -> str:
    """The whole-file hook earlier versions wrote (before the block markers), byte for byte:
    ``uninstall`` deletes such a file only when it is exactly this, nothing added."""
    bypass = "git push --no-verify bypasses"
    arguments = f"check {shlex.quote(target)} --pre-push --no-report-cache"
    missing = (
        f"{REFUSED}: the hook cannot run the doctor (neither {python} -m context_doctor nor "
        "context-doctor on PATH); reinstall it and run `context-doctor hook install`, or run "
        f"`context-doctor hook uninstall` (or delete this hook); {bypass}"
    )
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        "# Refuses a push whose context layer has defects; `git push --no-verify` bypasses it.\n"
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
        f"    echo {shlex.quote(f'{REFUSED}: ground truth not established (see above); {bypass}')} >&2\n"
        "fi\n"
        'exit "$status"\n'
    )


_LEGACY_FIELDS = re.compile(
    r"^python=(?P<python>[^\n]*)$.*?^elif command -v context-doctor >/dev/null 2>&1; then\n"
    r"    context-doctor check (?P<target>[^\n]*) --pre-push --no-report-cache$",
    re.M | re.S,
)


def _is_legacy_whole_file(text: str) -> bool:
    """Is ``text`` exactly a hook an earlier version wrote (whatever interpreter and path)?"""
    match = _LEGACY_FIELDS.search(text)
    if match is None:
        return False
    try:
        python = shlex.split(match["python"])
        target = shlex.split(match["target"])
    except ValueError:
        return False
    if len(python) != 1 or len(target) != 1:
        return False
    return text == _legacy_script(python[0], target[0])


def shared_hooks_path(repo: Path) -> tuple[str, str] | None:
    """``(scope, path)`` when ``core.hooksPath`` comes from the global or system config."""
    repository = repository_for(repo)
    result = run_git(
        ["config", "--show-scope", "--get", "core.hooksPath"], repository.toplevel, hooks=True
    )
    if result.returncode != 0:
        return None  # unset (or a git too old for --show-scope, which predates the risk)
    scope, _, value = result.stdout.decode("utf-8", "replace").strip().partition("\t")
    return (scope, value) if scope in ("global", "system") else None


def _hooks_inside_repository(directory: Path, repo: Path) -> bool:
    """Whether the hooks directory lies in the work tree or the git directory."""
    repository = repository_for(repo)
    result = run_git(["rev-parse", "--git-common-dir"], repository.toplevel)
    common = (
        Path(result.stdout.decode("utf-8", "replace").strip()) if result.returncode == 0 else None
    )
    if common is not None and not common.is_absolute():
        common = repository.toplevel / common
    return inside(directory, repository.toplevel) or (
        common is not None and inside(directory, common)
    )


def hooks_directory(repo: Path) -> Path:
    """Where git looks for hooks (honours ``core.hooksPath``)."""
    repository = repository_for(repo)
    result = run_git(["rev-parse", "--git-path", "hooks"], repository.toplevel, hooks=True)
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


@dataclass(frozen=True)
class Block:
    """Where the doctor's block lies in a hook's lines, and whether the file is only that."""

    start: int  # index of the BEGIN line
    end: int  # index of the END line
    whole_file: bool  # nothing outside the block but a shebang and blank lines


def find_block(target: Path, lines: list[str]) -> Block | None:
    """The doctor's block in ``lines``; None when there is none; refuses broken markers."""
    begins = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == BEGIN]
    ends = [n for n, line in enumerate(lines) if line.rstrip("\r\n") == END]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise WriteRefused(
            "markers-broken",
            f"{target} holds {len(begins)} `{BEGIN}` and {len(ends)} `{END}` lines, not one "
            "block: the doctor cannot tell its own lines from yours, so it changed nothing. "
            "Remove the doctor's lines by hand",
        )
    outside = lines[: begins[0]] + lines[ends[0] + 1 :]
    whole = all(
        not line.strip() or (position == 0 and line.startswith("#!"))
        for position, line in enumerate(outside)
    )
    return Block(begins[0], ends[0], whole)


def _current(target: Path) -> bytes | None:
    """The hook's bytes; None when there is no hook; b"" for a link or non-file (not ours)."""
    if not target.exists() and not target.is_symlink():
        return None
    if target.is_symlink() or not target.is_file():
        return b""
    try:
        return read_limited(target, MAX_WRITE_TARGET_BYTES)
    except TooLarge as error:
        raise DoctorError(f"the hook {target} {error}", "look at it by hand") from error
    except OSError as error:
        raise DoctorError(
            f"cannot read the hook {target}: {error.strerror or error}", "check its permissions"
        ) from error


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def install_hook(
    repo: Path, *, force: bool = False, python: str = sys.executable
) -> tuple[Path, Path | None]:
    """Install the pre-push hook; returns its path and the backup of what it replaced.

    ``repo`` may be the repository or a knowledge base inside it; the hook
    audits that directory.  It is discovered once now, so a hook that could
    never pass (nothing to audit there) is refused at install time.  A hook
    that holds the doctor's block among lines of its own gets the block
    updated in place; a hook that is entirely the doctor's is rewritten; any
    other hook is refused unless ``--force`` (then kept as a backup).
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
    if shared is None and not force and not _hooks_inside_repository(directory, repo):
        # A repository-local core.hooksPath comes from .git/config, which a prepared
        # repository (a tarball, a shared folder) supplies: it may not aim the write.
        raise WriteRefused(
            "hooks-path-outside",
            f"core.hooksPath leads outside the repository and its git directory ({directory}); "
            "check `git config --local core.hooksPath`, or pass --force to install there anyway",
        )
    discover(paths=(str(repo),))  # exit 2 now, not on every push, when there is nothing to audit
    target = directory / "pre-push"
    audited = audited_path(repo)
    script = _script_bytes(hook_script(python, audited))
    backup: Path | None = None
    current = _current(target)
    new = script
    if current is not None:
        if current == script:
            return target, None
        lines = _text(current).splitlines(keepends=True)
        block = find_block(target, lines)
        if block is not None and not block.whole_file:
            # The user's own hook holding our block: update the block, keep their lines.
            merged = [*lines[: block.start], hook_block(python, audited), *lines[block.end + 1 :]]
            new = _script_bytes("".join(merged))
            if new == current:
                return target, None
        elif block is None and not _is_legacy_whole_file(_text(current)):
            if not force:
                raise DoctorError(
                    f"{target} exists and was not installed by context-doctor",
                    "add the block `context-doctor hook install --print` prints to it (first, "
                    "before anything reads stdin), use pre-commit (.pre-commit-hooks.yaml), or "
                    "pass --force (the current hook is kept as a backup)",
                )
            backup = _backup_name(target)
    # The hooks directory is git's (core.hooksPath, else the git directory's hooks/): git
    # runs hooks from there, so the hook is written there and nowhere else.
    try:
        ensure_directory(directory, within=directory)
        if backup is not None:
            move_aside(target, backup, within=directory)
        write_file(target, new, mode=_executable(target), within=directory)
    except (DoctorError, WriteRefused) as error:
        problem = error.message if isinstance(error, WriteRefused) else error.problem
        raise DoctorError(
            f"cannot write the hook {target}: {problem}",
            "check `git config core.hooksPath` and that the hooks directory is writable",
        ) from error
    return target, backup


def audited_path(repo: Path) -> str:
    """The directory the hook audits, relative to the repository top (``.`` for the top)."""
    return repository_for(repo).relative(repo.resolve()) or "."


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


@dataclass(frozen=True)
class Uninstalled:
    path: Path
    removed_file: bool  # the doctor wrote the whole file, and it is gone
    restored: Path | None  # the backup put back in its place
    kept_lines: int  # lines of the user's own left in the hook (0 when the file went)


def uninstall_hook(repo: Path) -> Uninstalled:
    """Remove the doctor's block from the pre-push hook, and nothing else.

    A hook that is only the doctor's block (or the whole-file hook earlier
    versions wrote) is deleted and the newest backup put back; a hook holding
    the block among lines of its own loses the block and keeps every other
    line, byte for byte; a hook without the block is never touched.
    """
    target = hooks_directory(repo) / "pre-push"
    current = _current(target)
    if current is None:
        raise WriteRefused("no-hook", f"{target} does not exist: there is nothing to uninstall")
    text = _text(current)
    lines = text.splitlines(keepends=True)
    block = find_block(target, lines)
    if block is None:
        if not _is_legacy_whole_file(text):
            why = (
                "it holds lines of context-doctor's earlier hook among lines of its own; remove "
                "those by hand"
                if MARKER in text
                else "it was not installed by context-doctor"
            )
            raise WriteRefused("not-ours", f"{target}: {why}; it was left as it is")
    elif not block.whole_file:
        kept = [*lines[: block.start], *lines[block.end + 1 :]]
        snapshot = read_snapshot(target, within=target.parent)
        if snapshot.data != current:
            raise WriteRefused("changed-on-disk", f"{target} changed while it was read; run again")
        replace_file(snapshot, _script_bytes("".join(kept)), within=target.parent)
        return Uninstalled(target, False, None, len(kept))
    backups = backups_of(target)
    newest = backups[-1] if backups else None
    remove_file(target, within=target.parent)
    if newest is not None:
        move_aside(newest, target, within=target.parent)
    return Uninstalled(target, True, newest, 0)
