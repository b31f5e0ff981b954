"""Layouts (SPEC §10, issue #27 item 10): detection's cost, and a warm audit of a
single-project repository of 1,000 commits (targets: detection <= 20 ms, warm < 0.5 s).

    python benchmarks/layout_benchmark.py /work/bench/status-1000 [--commits 1000] [--runs 5]

Writes the repository once (``git fast-import``; reused when it exists): ``docs/STATUS.md``
with a ``Last updated:`` field and an in-file ``## Session Log``, ``src/`` code touched by
most commits, and a daily bot committing ``public/feed.json``. Then times ``detect()``
in-process and ``context-doctor check`` cold and warm (median of ``--runs``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

TODAY = "2026-01-15"


def _blob(data: str) -> bytes:
    raw = data.encode()
    return b"data %d\n" % len(raw) + raw + b"\n"


def generate(root: Path, commits: int) -> None:
    """A repository keeping docs/STATUS.md, written with one ``git fast-import``."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    start = datetime(2023, 4, 1, 9, 0, tzinfo=UTC)
    stream = bytearray()
    log_days: list[str] = []
    for number in range(commits):
        when = start + timedelta(days=number)
        day = when.date().isoformat()
        stamp = int(when.timestamp())
        bot = number % 5 == 4
        who = (
            b"github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"
            if bot
            else b"Ada <ada@example.invalid>"
        )
        stream += b"commit refs/heads/main\n"
        stream += b"author " + who + b" %d +0000\n" % stamp
        stream += b"committer " + who + b" %d +0000\n" % stamp
        stream += _blob(f"commit {number}")
        files: dict[str, str] = {}
        if bot:
            files["public/feed.json"] = f'{{"day": "{day}"}}\n'
        else:
            files[f"src/module_{number % 40}.py"] = f"VALUE = {number}\n"
            if number % 3 == 0:
                log_days.append(day)
                entries = "".join(
                    f"### {d}\nWork of the day.\n\n" for d in reversed(log_days[-60:])
                )
                files["docs/STATUS.md"] = (
                    f"# Status\n\nLast updated: {day}\nStatus: active\n\n## Session Log\n\n{entries}"
                )
        for path, text in files.items():
            stream += f"M 100644 inline {path}\n".encode() + _blob(text)
        stream += b"\n"
    subprocess.run(["git", "fast-import", "--quiet"], input=bytes(stream), cwd=root, check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)


def time_detection(root: Path, runs: int) -> float:
    from context_doctor.layouts.detect import detect

    times = []
    for _ in range(runs):
        began = time.perf_counter()
        found = detect(root)
        times.append(time.perf_counter() - began)
        assert found is not None, "nothing detected"
    return statistics.median(times)


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


# The doctor as users run it: with its bytecode kept. PYTHONDONTWRITEBYTECODE=1 (set on
# the machines these figures come from) would compile every module on every run.
DOCTOR_ENV = {
    name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"
}


def _timed(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU (the doctor's and git's) is what a shared,
    loaded machine cannot inflate."""
    began, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, check=True, capture_output=True, env=DOCTOR_ENV)
    return time.perf_counter() - began, _cpu() - cpu


def time_audit(
    root: Path, doctor: str, runs: int
) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    command = [doctor, "check", str(root), "--today", TODAY, "--quiet", "--exit-zero"]
    subprocess.run([*command, "--no-cache"], check=True, capture_output=True, env=DOCTOR_ENV)
    cold = _timed(command)  # fills the cache
    warm = [_timed(command) for _ in range(runs)]
    return cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--doctor", default=str(Path(sys.executable).parent / "context-doctor"))
    options = parser.parse_args()
    if not options.repo.exists():
        generate(options.repo, options.commits)
    detection = time_detection(options.repo, options.runs)
    cold, warm = time_audit(options.repo, options.doctor, options.runs)
    print(f"detection: {detection * 1000:.1f} ms (median of {options.runs})")
    wall = statistics.median(run[0] for run in warm)
    cpu = statistics.median(run[1] for run in warm)
    print(f"audit cold: {cold[0]:.2f} s wall, {cold[1]:.2f} s CPU")
    print(f"audit warm: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {len(warm)})")
    summary = subprocess.run(
        [options.doctor, "check", str(options.repo), "--today", TODAY, "--quiet", "--exit-zero"],
        capture_output=True,
        text=True,
    )
    print(summary.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
