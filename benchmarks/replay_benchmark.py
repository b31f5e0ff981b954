"""Does a warm run replay? At scale, and after a variable the report does not depend on moved (#32).

    python benchmarks/replay_benchmark.py /work/bench/kb-8000 --runs 3 \\
        [--before /path/to/other/venv/bin/context-doctor]

Each doctor audits its own copy of the repository (its cache lives there), with the
cache written once first. Round by round, interleaved (a loaded machine slows all alike),
median of ``--runs``:

* **floor**: ``git log --name-only --format=%H -- projects`` plus reading every tier file
  (``run_benchmark.floor_commands``);
* **warm**: ``check --source COPY --today 2025-12-01 --json`` again, nothing changed;
* **warm, new terminal**: the same with ``TERM_SESSION_ID`` set to a new value each run
  (a terminal's variable: before #32 it was part of the replay key).

Printed: wall, CPU (user + system of the process tree) and peak RSS of the largest
process, each with its ratio to the floor, and whether each run was a replay (``--debug``
says so). Run by hand; neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_benchmark import floor_commands

TODAY = "2025-12-01"
REPLAYED = b"its report is replayed"


def run(
    commands: list[list[str]], cwd: Path, env: dict[str, str]
) -> tuple[float, float, int, bool]:
    """Wall, CPU, peak RSS (KiB) of the largest process, and whether a replay was reported."""
    started = time.perf_counter()
    cpu = 0.0
    peak = 0
    replayed = False
    for command in commands:
        process = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        assert process.stderr is not None
        err = process.stderr.read()
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = 0
        cpu += usage.ru_utime + usage.ru_stime
        peak = max(peak, usage.ru_maxrss)
        replayed = replayed or REPLAYED in err
    return time.perf_counter() - started, cpu, peak, replayed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("repo", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="another version's context-doctor, measured alongside")
    args = parser.parse_args()
    doctors = {"after": shutil.which("context-doctor") or "context-doctor"}
    if args.before:
        doctors["before"] = args.before
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    scratch = Path(tempfile.mkdtemp(prefix="context-doctor-replay-", dir="/work/bench"))
    try:
        copies = {}
        for name in doctors:
            copies[name] = scratch / name
            shutil.copytree(args.repo, copies[name], symlinks=True)
        commands: dict[str, list[list[str]]] = {"floor": floor_commands(copies["after"])}
        for name, doctor in doctors.items():
            check = [doctor, "check", "--source", str(copies[name]), "--today", TODAY, "--json"]
            subprocess.run(check, cwd=scratch, env=env, stdout=subprocess.DEVNULL)  # the cache
            commands[f"warm ({name})"] = [[*check, "--debug"]]
            commands[f"warm, new terminal ({name})"] = [[*check, "--debug"]]
        samples: dict[str, list[tuple[float, float, int, bool]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            names = list(commands)
            random.shuffle(names)
            for name in names:
                run_env = dict(env)
                if "new terminal" in name:
                    run_env["TERM_SESSION_ID"] = str(uuid.uuid4())
                cwd = copies["after"] if name == "floor" else scratch  # git log runs in the repo
                samples[name].append(run(commands[name], cwd, run_env))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    floor_wall = statistics.median(s[0] for s in samples["floor"])
    floor_cpu = statistics.median(s[1] for s in samples["floor"])
    print(f"{args.repo} (median of {args.runs}; ratio to the floor)")
    print(f"  {'':<28}{'wall':>9}{'ratio':>8}{'cpu':>9}{'ratio':>8}{'peak RSS':>11}  replayed")
    for name, rows in samples.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        peak = max(r[2] for r in rows) / 1024
        replays = sum(r[3] for r in rows)
        print(
            f"  {name:<28}{wall:>8.2f}s{wall / floor_wall:>7.2f}x{cpu:>8.2f}s"
            f"{cpu / floor_cpu:>7.2f}x{peak:>9.0f}MB  {replays}/{len(rows)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
