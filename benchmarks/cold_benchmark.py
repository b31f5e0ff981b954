"""A cold audit against the floor, paired and shuffled, wall and CPU, for one or more doctors (#32 item 5).

    python benchmarks/cold_benchmark.py /work/bench/kb-2000 --runs 3 \
        before=/tmp/venv-before/bin/context-doctor after=/tmp/venv-after/bin/context-doctor

Each round runs, in a shuffled order, ``run_benchmark.py``'s floor (``git log --name-only
--format=%H -- projects`` and a ``cat`` of every tier file) and, for each doctor given as
NAME=COMMAND, ``check --source REPO --today 2025-12-01 --json --no-cache``. It prints each
one's median wall and CPU time (the process tree's, from ``wait4``) and its ratio to the
floor's. Run by hand on a quiet machine (the wall clock of a loaded one is mostly waiting);
neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_benchmark  # beside this file, not a package


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("doctors", nargs="+", help="NAME=COMMAND, e.g. after=context-doctor")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    repo = args.repo.resolve()
    floor = run_benchmark.floor_commands(repo)
    jobs: dict[str, list[list[str]]] = {"floor": floor}
    for named in args.doctors:
        name, _, command = named.partition("=")
        jobs[name] = [
            [
                command,
                "check",
                "--source",
                str(repo),
                "--today",
                "2025-12-01",
                "--json",
                "--no-cache",
            ]
        ]
    run_benchmark.measure(floor, repo, ok=(0,))  # the page cache warm before anything is timed
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in jobs}
    loads: list[float] = []
    for _ in range(args.runs):
        order = list(jobs)
        random.shuffle(order)
        for name in order:
            loads.append(os.getloadavg()[0])
            samples[name].append(run_benchmark.measure(jobs[name], repo, ok=(0, 1)))

    def median(name: str, field: str) -> float:
        return statistics.median(float(sample[field]) for sample in samples[name])

    floor_wall, floor_cpu = median("floor", "wall"), median("floor", "cpu")
    for name in jobs:
        wall, cpu = median(name, "wall"), median(name, "cpu")
        print(
            f"{name:<10} wall {wall:7.2f} s ({wall / floor_wall:4.2f}x)  "
            f"cpu {cpu:7.2f} s ({cpu / floor_cpu:4.2f}x)"
        )
    print(f"1-minute load during the rounds: {min(loads):.1f} to {max(loads):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
