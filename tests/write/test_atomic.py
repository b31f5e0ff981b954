"""The one write path (docs/editor.md): real files, real processes, no mocks.

Concurrency is exercised with forked processes (``multiprocessing`` "fork"
context) racing on one file, and crash safety by SIGKILLing a writer at random
moments; every loop is bounded in iterations and time so the file stays fast.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest
from click.testing import CliRunner

from context_doctor.cache.report_file import write_json
from context_doctor.commands.freshness import freshness_group
from context_doctor.errors import DoctorError
from context_doctor.freshness import read_frontmatter
from context_doctor.freshness.writers import review_file, touch_file
from context_doctor.write import (
    WriteRefused,
    append_file,
    ensure_directory,
    read_snapshot,
    replace_file,
    update_file,
    write_file,
)
from context_doctor.write import atomic as write_module
from context_doctor.write.lock import locked_directory

FORK = multiprocessing.get_context("fork")
ORPHAN = re.compile(r"^\..*\.context-doctor-[0-9a-f]{8}\.tmp$")
FRESHNESS_FILE = (
    "---\r\n"
    "convention: pai-freshness-v1\r\n"
    "last_updated: 2026-06-01T09:00:00+00:00\r\n"
    "last_updated_by: kai\r\n"
    "last_reviewed: 2026-06-01T09:00:00+00:00\r\n"
    "last_reviewed_by: kai\r\n"
    "---\r\n"
    "# Projects\r\n"
)
START = datetime.fromisoformat("2026-06-10T09:00:00+00:00")


def listing(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir())


# -- refusals: nothing moves --------------------------------------------------


def test_a_symlinked_target_is_refused_for_read_replace_and_write(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"keep\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    for attempt in (
        lambda: read_snapshot(link, within=tmp_path),
        lambda: write_file(link, b"new\n", within=tmp_path),
        lambda: update_file(link, lambda data: data + b"x", within=tmp_path),
        lambda: append_file(link, b"x", within=tmp_path),
    ):
        with pytest.raises(WriteRefused) as refused:
            attempt()
        assert refused.value.rule == "symlink"
    assert real.read_bytes() == b"keep\n" and link.is_symlink()
    assert listing(tmp_path) == ["link.md", "real.md"]


def test_a_directory_or_a_missing_file_is_exit_2_material(tmp_path: Path) -> None:
    with pytest.raises(DoctorError, match="does not exist"):
        read_snapshot(tmp_path / "missing.md", within=tmp_path)
    (tmp_path / "folder").mkdir()
    with pytest.raises(DoctorError, match="directory"):
        read_snapshot(tmp_path / "folder", within=tmp_path)
    with pytest.raises(DoctorError, match="not a regular file"):
        write_file(tmp_path / "folder", b"x", within=tmp_path)
    assert listing(tmp_path) == ["folder"]


def test_a_parent_symlinked_outside_the_given_directory_is_refused(tmp_path: Path) -> None:
    inside, outside = tmp_path / "repo", tmp_path / "elsewhere"
    inside.mkdir()
    outside.mkdir()
    (outside / "notes.md").write_bytes(b"outside\n")
    (inside / "kb").symlink_to(outside)
    target = inside / "kb" / "notes.md"
    with pytest.raises(WriteRefused) as refused:
        write_file(target, b"new\n", within=inside)
    assert refused.value.rule == "outside"
    with pytest.raises(WriteRefused):
        update_file(target, lambda data: data + b"x", within=inside)
    assert (outside / "notes.md").read_bytes() == b"outside\n"


def test_exclusive_create_refuses_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "backup.bak"
    write_file(target, b"first", exclusive=True, within=tmp_path)
    with pytest.raises(WriteRefused) as refused:
        write_file(target, b"second", exclusive=True, within=tmp_path)
    assert refused.value.rule == "exists" and target.read_bytes() == b"first"


def test_a_read_only_file_or_directory_is_exit_2_and_untouched(tmp_path: Path) -> None:
    target = tmp_path / "CONTEXT.md"
    target.write_bytes(b"keep\n")
    target.chmod(0o444)
    snapshot = read_snapshot(target, within=tmp_path)
    with pytest.raises(DoctorError, match="read-only"):
        replace_file(snapshot, b"new\n", within=tmp_path)
    with pytest.raises(DoctorError, match="read-only"):
        write_file(target, b"new\n", within=tmp_path)
    assert target.read_bytes() == b"keep\n"
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "a.md").write_bytes(b"keep\n")
    folder.chmod(0o555)
    try:
        if os.geteuid() != 0:  # root writes into a 0555 directory regardless
            with pytest.raises(DoctorError, match="cannot write"):
                update_file(folder / "a.md", lambda data: b"new\n", within=tmp_path)
            assert (folder / "a.md").read_bytes() == b"keep\n"
    finally:
        folder.chmod(0o755)
    assert listing(tmp_path) == ["CONTEXT.md", "locked"]
    assert listing(folder) == ["a.md"]


def _hold_open_for_writing(path: Path, opened: Barrier, seconds: float) -> None:
    with path.open("ab"):
        opened.wait(timeout=20)
        time.sleep(seconds)


def test_a_file_held_open_for_writing_elsewhere_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "log.md"
    target.write_bytes(b"keep\n")
    monkeypatch.setattr("context_doctor.write.atomic.WRITER_WAIT_SECONDS", 0.2)
    opened = FORK.Barrier(2)
    # Held until killed below: a holder that let go on its own could do so before
    # update_file looks, under load.
    holder = FORK.Process(target=_hold_open_for_writing, args=(target, opened, 600.0))
    holder.start()
    try:
        opened.wait(timeout=20)
        with pytest.raises(WriteRefused) as refused:
            update_file(target, lambda data: b"new\n", within=tmp_path)
        assert refused.value.rule == "in-use"
        assert target.read_bytes() == b"keep\n" and listing(tmp_path) == ["log.md"]
    finally:
        holder.kill()
        holder.join(timeout=10)


# -- what a write keeps -------------------------------------------------------


def test_mode_and_crlf_bytes_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "CONTEXT.md"
    target.write_bytes(b"# T\r\n\r\nline\r\n")
    target.chmod(0o640)
    snapshot = read_snapshot(target, within=tmp_path)
    replace_file(snapshot, snapshot.data.replace(b"line", b"LINE"), within=tmp_path)
    assert target.read_bytes() == b"# T\r\n\r\nLINE\r\n"
    assert target.stat().st_mode & 0o7777 == 0o640
    write_file(target, b"a\r\nb\r", within=tmp_path)
    assert target.read_bytes() == b"a\r\nb\r" and target.stat().st_mode & 0o7777 == 0o640
    fresh = tmp_path / "fresh.json"
    write_file(fresh, b"{}", mode=0o600, within=tmp_path)
    assert fresh.stat().st_mode & 0o7777 == 0o600
    assert listing(tmp_path) == ["CONTEXT.md", "fresh.json"]


def test_ensure_directory_and_append(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    ensure_directory(folder, within=tmp_path)
    ensure_directory(folder, within=tmp_path)
    summary = folder / "summary.md"
    append_file(summary, b"one\n", within=tmp_path)
    append_file(summary, b"two\r\n", within=tmp_path)
    assert summary.read_bytes() == b"one\ntwo\r\n"


# -- changed between read and rename ------------------------------------------


def test_a_change_after_the_snapshot_is_refused_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"v1\n")
    snapshot = read_snapshot(target, within=tmp_path)
    target.write_bytes(b"v1\nappended by someone else\n")
    with pytest.raises(WriteRefused) as refused:
        replace_file(snapshot, b"v2\n", within=tmp_path)
    assert refused.value.rule == "changed-on-disk"
    assert target.read_bytes() == b"v1\nappended by someone else\n"
    assert listing(tmp_path) == ["notes.md"]


def test_a_same_size_same_mtime_rewrite_is_caught_by_the_bytes(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"aaaa\n")
    before = target.stat()
    snapshot = read_snapshot(target, within=tmp_path)
    with target.open("r+b") as stream:  # in place: same inode, same size
        stream.write(b"bbbb\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(WriteRefused, match="changed"):
        replace_file(snapshot, b"cccc\n", within=tmp_path)
    assert target.read_bytes() == b"bbbb\n"


def test_update_recomputes_when_the_file_changes_during_the_transform(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"base\n")
    calls: list[bytes] = []

    def transform(data: bytes) -> bytes:
        calls.append(data)
        if len(calls) == 1:  # another program (ignoring the lock) appends meanwhile
            with target.open("ab") as stream:
                stream.write(b"late line\n")
        return data.upper()

    assert update_file(target, transform, within=tmp_path) is True
    assert calls == [b"base\n", b"base\nlate line\n"]
    assert target.read_bytes() == b"BASE\nLATE LINE\n"


def test_update_that_never_settles_is_refused_with_the_last_change_kept(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"0\n")

    def transform(data: bytes) -> bytes:
        target.write_bytes(data + b"+\n")
        return b"mine\n"

    with pytest.raises(WriteRefused) as refused:
        update_file(target, transform, attempts=3, within=tmp_path)
    assert refused.value.rule == "changed-on-disk"
    assert target.read_bytes() == b"0\n+\n+\n+\n"


def test_an_unchanged_result_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"same\n")
    before = target.stat()
    assert update_file(target, lambda data: data, within=tmp_path) is False
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


# -- real concurrent processes ------------------------------------------------


def _stamp(round_number: int) -> datetime:
    return START + timedelta(minutes=round_number)


def _review_rounds(path: Path, rounds: int, barrier: Barrier) -> None:
    for number in range(rounds):
        barrier.wait(timeout=20)
        review_file(path, "reviewer", _stamp(number))
        barrier.wait(timeout=20)


def _touch_rounds(path: Path, rounds: int, barrier: Barrier) -> None:
    for number in range(rounds):
        barrier.wait(timeout=20)
        touch_file(path, "toucher", _stamp(number))
        barrier.wait(timeout=20)


def test_concurrent_review_and_touch_never_lose_an_update(tmp_path: Path) -> None:
    target = tmp_path / "PROJECTS.md"
    target.write_bytes(FRESHNESS_FILE.encode("utf-8"))
    rounds = 20
    barrier = FORK.Barrier(3)
    workers = [
        FORK.Process(target=_review_rounds, args=(target, rounds, barrier)),
        FORK.Process(target=_touch_rounds, args=(target, rounds, barrier)),
    ]
    for worker in workers:
        worker.start()
    for number in range(rounds):
        barrier.wait(timeout=20)  # both start this round's write together
        barrier.wait(timeout=20)  # both finished it
        front, problem = read_frontmatter(target.read_text(encoding="utf-8"))
        assert problem is None and front is not None
        stamp = _stamp(number).isoformat()
        assert front.data["last_reviewed"] == stamp and front.data["last_reviewed_by"] == "reviewer"
        assert front.data["last_updated"] == stamp and front.data["last_updated_by"] == "toucher"
    for worker in workers:
        worker.join(timeout=20)
        assert worker.exitcode == 0
    assert target.read_bytes().endswith(b"# Projects\r\n")  # CRLF kept throughout
    assert listing(tmp_path) == ["PROJECTS.md"]


def _append_lines(path: Path, count: int, started: Barrier) -> None:
    started.wait(timeout=20)
    for number in range(count):
        with path.open("ab") as stream:  # a plain appender: no lock, open-append-close
            stream.write(f"line {number}\r\n".encode())
        time.sleep(0.02)  # a steady writer (a log), not a flood: touches can land between


def test_an_appender_racing_touch_loses_no_line(tmp_path: Path) -> None:
    target = tmp_path / "PROJECTS.md"
    target.write_bytes(FRESHNESS_FILE.encode("utf-8"))
    lines = 60
    started = FORK.Barrier(2)
    appender = FORK.Process(target=_append_lines, args=(target, lines, started))
    appender.start()
    started.wait(timeout=20)
    # Touch for as long as the appender runs: how many touches land depends on the load,
    # so only what was lost is asserted, never how many writes happened.
    touches = 0
    while appender.is_alive():
        try:
            touch_file(target, "toucher", _stamp(touches))
            touches += 1
        except WriteRefused as refusal:  # refusing is allowed; losing a line is not
            assert refusal.rule == "changed-on-disk"
    appender.join(timeout=20)
    assert appender.exitcode == 0
    body = target.read_bytes().decode("utf-8").split("# Projects\r\n", 1)[1]
    assert body.splitlines() == [f"line {number}" for number in range(lines)]
    assert listing(tmp_path) == ["PROJECTS.md"]


def _write_reports(path: Path, writer: int, count: int, errors: multiprocessing.Queue[str]) -> None:
    for number in range(count):
        try:
            write_json(path, {"writer": writer, "number": number, "pad": "x" * 20000})
        except Exception as error:  # the point of the test: none may escape
            errors.put(f"{writer}/{number}: {error}")


def test_concurrent_report_cache_writers_never_fail_and_last_complete_write_wins(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "context-doctor" / "last-report.json"
    errors: multiprocessing.Queue[str] = FORK.Queue()
    workers = [
        FORK.Process(target=_write_reports, args=(cache, writer, 25, errors)) for writer in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0
    assert errors.empty()
    text = cache.read_text(encoding="utf-8")
    assert text.startswith('{\n  "writer": ') and text.endswith("}\n")
    assert listing(cache.parent) == ["last-report.json"]


# -- a killed writer ----------------------------------------------------------

KILLED_WRITER = """
import sys
from pathlib import Path
from context_doctor.write import write_file
target = Path(sys.argv[1])
old, new = Path(sys.argv[2]).read_bytes(), Path(sys.argv[3]).read_bytes()
print("ready", flush=True)
while True:
    write_file(target, new, within=target.parent)
    write_file(target, old, within=target.parent)
"""


def test_a_writer_killed_at_random_moments_leaves_old_or_new_bytes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    old, new = b"old\r\n" * 200_000, b"new\n" * 300_000  # ~1 MB: kills land mid-write too
    old_file, new_file = tmp_path / "old", tmp_path / "new"
    old_file.write_bytes(old)
    new_file.write_bytes(new)
    target = work / "CONTEXT.md"
    target.write_bytes(old)
    rng = random.Random(20260610)
    deadline = time.monotonic() + 8
    for _ in range(12):
        if time.monotonic() > deadline:
            break
        process = subprocess.Popen(
            [sys.executable, "-c", KILLED_WRITER, *map(str, (target, old_file, new_file))],
            stdout=subprocess.PIPE,
        )
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.03))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        assert target.read_bytes() in (old, new)
    # An orphan a killed run could leave (named temporary files exist only between the
    # link and the rename here); the next write in the directory removes it.
    (work / ".CONTEXT.md.context-doctor-0123abcd.tmp").write_bytes(b"half")
    write_file(work / "other.json", b"{}", within=tmp_path)
    assert [name for name in listing(work) if ORPHAN.match(name)] == []
    assert listing(work) == ["CONTEXT.md", "other.json"]


# -- freshness migrate and symlinks -------------------------


def test_migrate_refuses_a_symlink_to_a_file_outside_the_repository(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside.md"
    (repo / "kb").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    outside.write_bytes(b"# Outside\n")
    (repo / "kb" / "inside.md").write_bytes(b"# Inside\n")
    (repo / "kb" / "escape.md").symlink_to(outside)
    result = CliRunner().invoke(
        freshness_group,
        [
            "migrate",
            str(repo / "kb" / "escape.md"),
            str(repo / "kb" / "inside.md"),
            "--now",
            "2026-06-10T09:00:00+00:00",
        ],
    )
    assert result.exit_code == 1
    assert "refused [symlink]" in result.stderr
    assert outside.read_bytes() == b"# Outside\n"
    assert (repo / "kb" / "inside.md").read_bytes() == b"# Inside\n"  # one refusal writes nothing
    assert listing(tmp_path) == ["outside.md", "repo"]
    assert listing(repo / "kb") == ["escape.md", "inside.md"]


def test_a_writer_refuses_a_directory_symlinked_out_of_the_repository(tmp_path: Path) -> None:
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    repo.mkdir()
    elsewhere.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (elsewhere / "PROJECTS.md").write_bytes(FRESHNESS_FILE.encode("utf-8"))
    (repo / "kb").symlink_to(elsewhere)
    with pytest.raises(WriteRefused) as refused:
        touch_file(repo / "kb" / "PROJECTS.md", "me", START)
    assert refused.value.rule == "outside"
    assert (elsewhere / "PROJECTS.md").read_bytes() == FRESHNESS_FILE.encode("utf-8")


def test_two_threads_writing_one_directory_each_take_the_lock(tmp_path: Path) -> None:
    """The history is cached from a reader thread beside the main thread's writes.

    The directory lock is re-entrant per thread, not per process: while one thread
    holds it the other waits on its own flock instead of walking in, so neither
    thread's orphan sweep can meet the other's temporary file, and every write lands.
    """
    inside: list[int] = []
    overlaps: list[int] = []
    guard = threading.Lock()

    def writer(number: int) -> None:
        for round_number in range(40):
            with locked_directory(tmp_path):
                with guard:
                    inside.append(number)
                    if len(inside) > 1:
                        overlaps.append(round_number)
                time.sleep(0.0005)
                with guard:
                    inside.remove(number)
            write_file(
                tmp_path / f"file-{number}", f"{number}:{round_number}\n".encode(), within=tmp_path
            )

    threads = [threading.Thread(target=writer, args=(number,)) for number in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []
    assert (tmp_path / "file-1").read_bytes() == b"1:39\n"
    assert (tmp_path / "file-2").read_bytes() == b"2:39\n"


def test_a_large_write_is_confirmed_a_chunk_at_a_time(tmp_path: Path) -> None:
    """The read-back compares the file with what was written across chunks, without holding
    a copy of it: equal bytes confirm, one differing byte in a later chunk does not."""
    data = bytes(range(256)) * (3 * (write_module._CHUNK // 256) + 7)
    target = tmp_path / "big.bin"
    write_file(target, data, within=tmp_path)
    assert target.read_bytes() == data
    handle = os.open(target, os.O_RDONLY)
    try:
        assert write_module._starts_with(handle, data)
        assert write_module._starts_with(handle, data[: write_module._CHUNK + 1])
        changed = bytearray(data)
        changed[2 * write_module._CHUNK + 5] ^= 1
        assert not write_module._starts_with(handle, bytes(changed))
        assert not write_module._starts_with(handle, data + b"more")  # the file is shorter
    finally:
        os.close(handle)
