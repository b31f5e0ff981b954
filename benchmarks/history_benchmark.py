"""The history pass against the floor's ``git log``: CPU, paired rounds (#32 item 5).

    python benchmarks/history_benchmark.py /work/bench/kb-2000 --runs 7 \
        --python /tmp/venv-hist/bin/python --before /tmp/venv-before/bin/python

Each round runs, in a shuffled order:

* **floor**: ``git log --name-only --format=%H -- projects`` (``run_benchmark.py``'s git
  log, without the ``cat`` of the tier files);
* **pass** (and **before** with ``--before``): ``read_history`` over ``projects`` in a
  fresh interpreter of that doctor, timed inside it around the call: the interpreter's own
  CPU and its git children's (user + system), so start-up and imports are left out;
* with ``--variants``, the ``git log`` commands the pass ran before and runs now, alone;
* with ``--cold``, the whole audit (``check --source REPO --json --no-cache``, the
  ``context-doctor`` beside each interpreter) against ``run_benchmark.py``'s whole floor
  (the ``git log`` plus a ``cat`` of every tier file).

Each figure is the median of ``--runs`` rounds, with its ratio to the floor's median;
``--trace`` adds what the pass holds once read (tracemalloc, one more run of each doctor).
CPU time, not wall time: on a shared machine the wall clock is mostly waiting for a CPU.
Run by hand; neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

FLOOR_LOG = ["git", "log", "--name-only", "--format=%H", "--", "projects"]
TIER_GLOBS = ("CONTEXT.md", "REFERENCE.md", "reference/*.md", "sessions/*.md")
TODAY = "2025-12-01"  # run_benchmark.py's: the findings do not move with the day
_FORMAT = (
    "--format=%x00%H%x00%P%x00%aI%x00%cI%x00%(trailers:key=Context-Doctor,valueonly,unfold,"
    "separator=%x1f)%x00%an <%ae>%x00"
)
_LOG = ["git", "log", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-only"]
VARIANTS = {
    "git log --full-diff -- projects (before #32)": [*_LOG, "--full-diff", _FORMAT, "HEAD", "--", "projects"],
    "git log --root, no pathspec (#32)": [*_LOG, "--root", _FORMAT.replace("%cI%x00", "%cI%x00%ct%x00"), "HEAD"],
}  # fmt: skip

# In the doctor's interpreter: the pass alone, its CPU and its git children's.
_PASS = """
import json, resource, sys, tracemalloc
from pathlib import Path
from context_doctor.git.history import Scope, read_history
from context_doctor.git.repository import Repository
trace = sys.argv[2] == "trace"
if trace:
    tracemalloc.start()
def cpu():
    mine, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return mine.ru_utime + mine.ru_stime, children.ru_utime + children.ru_stime
own, git = cpu()
history = read_history(Repository(Path(sys.argv[1]).resolve()), (Scope("projects"),))
own_after, git_after = cpu()
held = tracemalloc.get_traced_memory()[0] if trace else 0
print(json.dumps({"python": own_after - own, "git": git_after - git, "held": held}))
"""


def floor_cpu(repo: Path, command: list[str]) -> float:
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, cwd=repo, stdout=sink)
        _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(command)} failed in {repo}")
    return usage.ru_utime + usage.ru_stime


def pass_cpu(python: str, repo: Path, trace: bool = False) -> dict[str, float]:
    done = subprocess.run(
        [python, "-c", _PASS, str(repo), "trace" if trace else "-"],
        capture_output=True,
        text=True,
        cwd="/",
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"{python}: {done.stderr.strip()[-400:]}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def cold_cpu(python: str, repo: Path) -> float:
    doctor = str(Path(python).with_name("context-doctor"))
    command = [doctor, "check", "--source", str(repo), "--today", TODAY, "--json", "--no-cache"]
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, cwd="/", stdout=sink)
        _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime


def whole_floor_cpu(repo: Path) -> float:
    files = sorted(
        str(path) for pattern in TIER_GLOBS for path in (repo / "projects").glob(f"*/{pattern}")
    )
    commands = [FLOOR_LOG, *(["cat", *files[at : at + 2000]] for at in range(0, len(files), 2000))]
    return sum(floor_cpu(repo, command) for command in commands)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable, help="the doctor's interpreter")
    parser.add_argument("--before", help="another doctor's interpreter, in the same rounds")
    parser.add_argument("--variants", action="store_true", help="the git log commands alone")
    parser.add_argument("--trace", action="store_true", help="what each pass holds (tracemalloc)")
    parser.add_argument("--cold", action="store_true", help="the whole audit, cold, too")
    args = parser.parse_args()
    doctors = {"pass": args.python, **({"before": args.before} if args.before else {})}
    samples: dict[str, list[float]] = {"floor": []}
    for round_ in range(args.runs):
        jobs = ["floor", *doctors, *(VARIANTS if args.variants else ())]
        jobs += ["whole floor", *(f"{name}: cold" for name in doctors)] if args.cold else []
        random.Random(round_).shuffle(jobs)
        for job in jobs:
            if job == "floor":
                samples["floor"].append(floor_cpu(args.repo, FLOOR_LOG))
            elif job == "whole floor":
                samples.setdefault(job, []).append(whole_floor_cpu(args.repo))
            elif job.endswith(": cold"):
                python = doctors[job.removesuffix(": cold")]
                samples.setdefault(job, []).append(cold_cpu(python, args.repo))
            elif job in VARIANTS:
                samples.setdefault(job, []).append(floor_cpu(args.repo, VARIANTS[job]))
            else:
                figures = pass_cpu(doctors[job], args.repo)
                samples.setdefault(job, []).append(figures["python"] + figures["git"])
                samples.setdefault(f"{job}: git", []).append(figures["git"])
                samples.setdefault(f"{job}: python", []).append(figures["python"])
    floor = statistics.median(samples["floor"])
    print(f"{args.repo}: median CPU of {args.runs} paired rounds (user + system)")
    whole = statistics.median(samples["whole floor"]) if "whole floor" in samples else floor
    for name, values in samples.items():
        median = statistics.median(values)
        base, which = (whole, "whole floor") if "cold" in name else (floor, "floor")
        quartiles = statistics.quantiles(values, n=4) if len(values) > 1 else [median] * 3
        print(
            f"  {name:48s} {median:6.2f} s  ({quartiles[0]:.2f}-{quartiles[2]:.2f})"
            f"  {median / base:5.2f}x the {which}"
        )
    if args.trace:
        for name, python in doctors.items():
            held = pass_cpu(python, args.repo, trace=True)["held"]
            print(f"  {name}: the history held once read: {held / 2**20:.1f} MiB (tracemalloc)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
