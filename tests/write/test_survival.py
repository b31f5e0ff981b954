"""Every public operation of the write path survives a refusal and a kill.

The test enumerates ``context_doctor.write.__all__`` and fails for an operation without
an entry in :data:`SURVIVAL`. **Adding an operation to the write path? Add its entry**:

* ``refuse(directory)``: set up a state the operation must refuse, call it, and let the
  refusal (``WriteRefused`` or ``DoctorError``) propagate; the test asserts that every
  byte and name under ``directory`` is as it was;
* ``killed``: Python source run in a child process that repeats the operation forever
  on ``target`` (``old`` and ``new`` are its two contents) and prints ``ready`` first;
  the child is SIGKILLed at random moments, and ``outcomes(old, new)`` must accept
  what is left: old or new, never a mix.
"""

from __future__ import annotations

import inspect
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

import context_doctor.write as write_path
from context_doctor.errors import DoctorError
from context_doctor.write import (
    PlannedFile,
    WriteRefused,
    append_file,
    commit_files,
    ensure_directory,
    move_aside,
    read_snapshot,
    remove_file,
    replace_file,
    update_file,
    write_file,
)

OLD = b"old\r\n" * 100_000  # ~0.5 MB: a kill lands mid-write too
NEW = b"new\n" * 150_000
CHUNK = b"appended line\n" * 100
KILLS = 6

# What is left after a kill: the target's bytes (None when absent), and the aside copy's.
Left = tuple[bytes | None, bytes | None]


Call = Callable[[], object]


@dataclass(frozen=True)
class Survival:
    refused: Callable[[Path], Call]  # arranges a state in the directory; returns the call to refuse
    killed: str
    outcomes: Callable[[Left], bool]


def _symlink_to_a_file(directory: Path) -> Path:
    real = directory / "real.md"
    real.write_bytes(OLD)
    link = directory / "CONTEXT.md"
    link.symlink_to(real)
    return link


def _changed_since_read(directory: Path) -> Call:
    target = directory / "CONTEXT.md"
    target.write_bytes(OLD)
    snapshot = read_snapshot(target, within=directory)
    target.write_bytes(NEW)  # another program wrote after the read
    return lambda: replace_file(snapshot, b"mine\n", within=directory)


def _refusing_transform(directory: Path) -> Call:
    target = directory / "CONTEXT.md"
    target.write_bytes(OLD)

    def refuse(data: bytes) -> bytes:
        raise WriteRefused("test", "the transform refuses")

    return lambda: update_file(target, refuse, within=directory)


def _a_file_in_the_way(directory: Path) -> Call:
    (directory / "cache").write_bytes(OLD)
    return lambda: ensure_directory(directory / "cache" / "inner", within=directory)


def _an_existing_destination(directory: Path) -> Call:
    (directory / "hook").write_bytes(OLD)
    (directory / "hook.bak").write_bytes(NEW)
    return lambda: move_aside(directory / "hook", directory / "hook.bak", within=directory)


def _a_directory(directory: Path) -> Call:
    (directory / "folder").mkdir()
    (directory / "folder" / "kept.md").write_bytes(OLD)
    return lambda: remove_file(directory / "folder", within=directory)


def _two_files_one_changed(directory: Path) -> Call:
    first, second = directory / "CONTEXT.md", directory / "sessions.md"
    first.write_bytes(OLD)
    second.write_bytes(OLD)
    snapshots = [read_snapshot(first, within=directory), read_snapshot(second, within=directory)]
    second.write_bytes(NEW)  # another program wrote the second file after the read
    planned = [PlannedFile(snap.path, b"mine\n", snap, within=directory) for snap in snapshots]
    return lambda: commit_files(planned, journal_dir=directory, within=directory)


def _old_or_new(left: Left) -> bool:
    return left[0] in (OLD, NEW)


def _whole_appends(left: Left) -> bool:
    target = left[0]
    if target is None or not target.startswith(OLD):
        return False
    tail = target[len(OLD) :]
    return len(tail) % len(CHUNK) == 0 and tail == CHUNK * (len(tail) // len(CHUNK))


SURVIVAL: dict[str, Survival] = {
    "read_snapshot": Survival(
        refused=lambda directory: partial(
            read_snapshot, _symlink_to_a_file(directory), within=directory
        ),
        killed="while True: read_snapshot(target, within=here)",
        outcomes=lambda left: left[0] == OLD,
    ),
    "write_file": Survival(
        refused=lambda directory: partial(
            write_file, _symlink_to_a_file(directory), NEW, within=directory
        ),
        killed=(
            "while True:\n    write_file(target, new, within=here)\n"
            "    write_file(target, old, within=here)"
        ),
        outcomes=_old_or_new,
    ),
    "replace_file": Survival(
        refused=_changed_since_read,
        killed=(
            "while True:\n    snap = read_snapshot(target, within=here)\n"
            "    replace_file(snap, new if snap.data == old else old, within=here)"
        ),
        outcomes=_old_or_new,
    ),
    "update_file": Survival(
        refused=_refusing_transform,
        killed=(
            "while True: update_file(target, lambda data: new if data == old else old, within=here)"
        ),
        outcomes=_old_or_new,
    ),
    "append_file": Survival(
        refused=lambda directory: partial(
            append_file, _symlink_to_a_file(directory), CHUNK, within=directory
        ),
        killed="while True: append_file(target, chunk, within=here)",
        outcomes=_whole_appends,
    ),
    "ensure_directory": Survival(
        refused=_a_file_in_the_way,
        killed=(
            "import os\nwhile True:\n    ensure_directory(target.parent / 'made' / 'deeper', within=here)\n"
            "    os.rmdir(target.parent / 'made' / 'deeper')\n    os.rmdir(target.parent / 'made')"
        ),
        outcomes=lambda left: left[0] == OLD,
    ),
    "move_aside": Survival(
        refused=_an_existing_destination,
        killed=(
            "while True:\n    move_aside(target, aside, within=here)\n"
            "    move_aside(aside, target, within=here)"
        ),
        # Between the link and the unlink both names hold the file: never neither, never other bytes.
        outcomes=lambda left: left != (None, None) and set(left) <= {OLD, None},
    ),
    "commit_files": Survival(
        refused=_two_files_one_changed,
        # A pair: the target and a second file the harness leaves alone between rounds (it
        # removes `.aside`, which would look like a hand edit to the pending journal). Each
        # round first finishes a batch a kill interrupted, as every batch writer does; that
        # the pair then agrees is tests/editor/test_apply.py's kill test.
        killed=(
            "from context_doctor.write.batch import recover\n"
            "second = here / 'second.md'\n"
            "if not second.exists(): write_file(second, old, within=here)\n"
            "while True:\n    recover(here, within=here)\n"
            "    one = read_snapshot(target, within=here)\n"
            "    two = read_snapshot(second, within=here)\n"
            "    data = new if one.data == old else old\n"
            "    commit_files([PlannedFile(target, data, one, here),"
            " PlannedFile(second, data, two, here)], journal_dir=here, within=here)"
        ),
        outcomes=_old_or_new,
    ),
    "remove_file": Survival(
        refused=_a_directory,
        killed=(
            "while True:\n    remove_file(target, within=here)\n"
            "    write_file(target, old, within=here)"
        ),
        outcomes=lambda left: left[0] in (OLD, None) and left[1] is None,
    ),
}

KILLED_PREAMBLE = """\
import sys
from pathlib import Path
from context_doctor.write import *
target, aside = Path(sys.argv[1]), Path(sys.argv[1] + ".aside")
here = target.parent
old, new, chunk = Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes(), {chunk!r}
print("ready", flush=True)
"""


def _operations() -> list[str]:
    return sorted(
        name for name in write_path.__all__ if inspect.isfunction(getattr(write_path, name))
    )


def _state(directory: Path) -> dict[str, bytes | str]:
    """Every name under ``directory`` with its bytes (a link: its target; a directory: '/')."""
    found: dict[str, bytes | str] = {}
    for path in sorted(directory.rglob("*")):
        name = str(path.relative_to(directory))
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[name] = "/"
        else:
            found[name] = path.read_bytes()
    return found


def kill_when_ready(argv: list[str], delay: float) -> None:
    """Run ``argv`` until it prints ``ready``, SIGKILL it ``delay`` seconds later (where the
    kill lands: never an assertion on speed), and check that the kill is what ended it."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n", process.communicate()[1]
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL, errors.decode(errors="replace")


def _left(target: Path) -> Left:
    aside = target.with_name(target.name + ".aside")
    return (
        target.read_bytes() if target.exists() else None,
        aside.read_bytes() if aside.exists() else None,
    )


# Functions of the write package that change nothing on disk, so have nothing to survive.
NOT_OPERATIONS = {"default_mode", "repository_root", "contained", "doctor_directory", "inside"}


def test_every_operation_has_its_survival_entry() -> None:
    missing = [
        name for name in _operations() if name not in SURVIVAL and name not in NOT_OPERATIONS
    ]
    assert missing == [], f"add a Survival entry for {missing} to SURVIVAL in {__file__}"
    assert set(SURVIVAL) <= set(_operations())


@pytest.mark.parametrize("operation", sorted(SURVIVAL))
def test_a_refusal_leaves_every_byte_as_it_was(operation: str, tmp_path: Path) -> None:
    call = SURVIVAL[operation].refused(tmp_path)
    before = _state(tmp_path)
    with pytest.raises((WriteRefused, DoctorError)):
        call()
    assert _state(tmp_path) == before


@pytest.mark.parametrize("operation", sorted(SURVIVAL))
def test_a_kill_mid_write_leaves_old_or_new(operation: str, tmp_path: Path) -> None:
    survival = SURVIVAL[operation]
    work = tmp_path / "work"
    work.mkdir()
    old_file, new_file = tmp_path / "old", tmp_path / "new"
    old_file.write_bytes(OLD)
    new_file.write_bytes(NEW)
    target = work / "CONTEXT.md"
    target.write_bytes(OLD)
    script = KILLED_PREAMBLE.format(chunk=CHUNK) + survival.killed + "\n"
    rng = random.Random(f"{operation}-20261201")
    for _ in range(KILLS):
        kill_when_ready(
            [sys.executable, "-c", script, str(target), str(old_file), str(new_file)],
            rng.uniform(0, 0.05),
        )
        left = _left(target)
        assert survival.outcomes(left), (operation, [None if b is None else b[:40] for b in left])
        if operation == "commit_files":
            # Its next round first finishes the interrupted batch (recover): removing the
            # second file here would change it behind the journal, which recover must refuse.
            continue
        # The next round starts from the target alone (move_aside may leave the file under
        # the other name, or under both when killed between its link and its unlink).
        aside = target.with_name(target.name + ".aside")
        if left[1] is not None and left[0] is not None:
            aside.unlink()
        elif left[1] is not None:
            aside.rename(target)
        elif left[0] is None:
            target.write_bytes(OLD)
