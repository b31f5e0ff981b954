"""Time a full context-doctor audit against the git-log floor on a large repository.

    python benchmarks/run_benchmark.py --repo /tmp/kb          # an existing repository
    python benchmarks/run_benchmark.py --projects 2000 --commits 20000   # generate one first
    python benchmarks/run_benchmark.py --repo /tmp/kb --profile          # where the time goes

Figures (wall clock, best of ``--runs``):

* **floor**: ``git log --name-only --format=%H -- projects``, the least any tool
  must pay to learn which files every commit touched;
* **doctor git log**: the exact ``git log`` the doctor streams (``-z
  --no-renames --full-diff``, four date fields), for reference;
* **audit**: ``context-doctor check --source REPO --today DATE --json`` as a
  subprocess, with the peak RSS of that process tree
  (``resource.getrusage(RUSAGE_CHILDREN)`` read in a fresh helper process, so
  neither the generator nor the git runs are counted).

The ratio audit / floor is the headline number.  Results are printed and written
as JSON (``--output``).  Run by hand; neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TODAY = "2025-12-01"  # fixed, so runs on different days audit the same thing
FLOOR = ["git", "log", "--name-only", "--format=%H", "--", "projects"]
DOCTOR_LOG = [
    "git", "-c", "log.showSignature=false", "log", "-z", "--no-color", "--no-renames",
    "--name-only", "--full-diff",
    "--format=%x1e%H%x1f%P%x1f%aI%x1f%cI", "HEAD", "--", "projects",
]  # fmt: skip

# Runs one command in a fresh interpreter and reports its wall clock and the peak
# RSS of the process tree it started: RUSAGE_CHILDREN covers every waited-for
# descendant, and in this helper the command is the only child there is.
_MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "maxrss_kb": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime,
                  "returncode": done.returncode, "stderr": done.stderr.decode(errors="replace")[-2000:]}))
"""


def measure(command: list[str], cwd: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    measured: dict[str, object] = json.loads(result.stdout)
    return measured


def best_of(command: list[str], cwd: Path, runs: int, ok: tuple[int, ...]) -> dict[str, object]:
    samples = [measure(command, cwd) for _ in range(runs)]
    for sample in samples:
        if sample["returncode"] not in ok:
            raise SystemExit(
                f"{' '.join(command)} exited {sample['returncode']}:\n{sample['stderr']}"
            )
    walls = [float(sample["wall"]) for sample in samples]  # type: ignore[arg-type]
    return {
        "best_s": round(min(walls), 3),
        "runs_s": [round(wall, 3) for wall in walls],
        "peak_rss_mb": round(max(int(s["maxrss_kb"]) for s in samples) / 1024, 1),  # type: ignore[call-overload]
        "returncode": samples[0]["returncode"],
    }


def audit_command(repo: Path, today: str) -> list[str]:
    doctor = shutil.which("context-doctor")
    base = [doctor] if doctor else [sys.executable, "-m", "context_doctor"]
    return [*base, "check", "--source", str(repo), "--today", today, "--json"]


def doctor_source() -> dict[str, object]:
    """Which context-doctor was measured: its checkout's HEAD and whether it was dirty."""
    import context_doctor

    root = Path(context_doctor.__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    return {
        "version": getattr(context_doctor, "__version__", None),
        "path": str(root),
        "head": git("rev-parse", "--short", "HEAD") or None,
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
    }


def repository_shape(repo: Path) -> dict[str, int]:
    def count(*args: str) -> int:
        out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
        return int(out.stdout.strip())

    projects = sum(
        1
        for child in (repo / "projects").iterdir()
        if child.is_dir() and not child.name.startswith((".", "_"))
    )
    return {
        "projects": projects,
        "commits": count("rev-list", "--count", "HEAD"),
        "commits_touching_projects": count("rev-list", "--count", "HEAD", "--", "projects"),
        "tracked_files": len(
            subprocess.run(
                ["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True
            ).stdout.split(b"\0")
        )
        - 1,
    }


def profile(repo: Path, today: str, top: int) -> str:
    """The audit in this process under cProfile; the top entries by cumulative time."""
    from context_doctor.cli import cli

    profiler = cProfile.Profile()
    stdout = sys.stdout
    sys.stdout = io.StringIO()  # the JSON report is not the point here
    try:
        profiler.enable()
        try:
            cli.main(
                ["check", "--source", str(repo), "--today", today, "--json"],
                prog_name="context-doctor",
            )
        except SystemExit:
            pass
        finally:
            profiler.disable()
    finally:
        sys.stdout = stdout
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("cumulative").print_stats(top)
    text.write("\n--- by own time ---\n")
    stats.sort_stats("tottime").print_stats(top)
    return text.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="an existing repository (else one is generated)")
    parser.add_argument("--projects", type=int, default=2000, help="when generating")
    parser.add_argument("--commits", type=int, default=20000, help="when generating")
    parser.add_argument("--seed", type=int, default=1, help="when generating")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    parser.add_argument("--today", default=DEFAULT_TODAY)
    parser.add_argument("--runs", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--output", type=Path, default=Path("benchmark-result.json"))
    parser.add_argument("--profile", action="store_true", help="run the audit under cProfile")
    parser.add_argument("--top", type=int, default=25, help="entries printed by --profile")
    args = parser.parse_args(argv)

    scratch: tempfile.TemporaryDirectory[str] | None = None
    generated_s = None
    if args.repo is not None:
        repo = args.repo.resolve()
        if not (repo / "projects").is_dir():
            parser.error(f"{repo} has no projects/ directory")
    else:
        if args.keep is not None:
            repo = args.keep.resolve()
        else:
            scratch = tempfile.TemporaryDirectory(prefix="context-doctor-bench-")
            repo = Path(scratch.name) / "kb"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, str(HERE / "generate_corpus.py"), str(repo),
             "--projects", str(args.projects), "--commits", str(args.commits),
             "--seed", str(args.seed)],
            check=True,
        )  # fmt: skip
        generated_s = round(time.perf_counter() - started, 1)
    try:
        if args.profile:
            print(profile(repo, args.today, args.top))
            return 0
        shape = repository_shape(repo)
        print(
            f"repository {repo}: {shape['projects']} projects, {shape['commits']} commits "
            f"({shape['commits_touching_projects']} touching projects/), "
            f"{shape['tracked_files']} files",
            flush=True,
        )
        audit_cmd = audit_command(repo, args.today)
        load_before = os.getloadavg()
        measure(FLOOR, repo)  # warm the page cache before anything is timed
        audit = best_of(audit_cmd, repo, args.runs, ok=(0, 1))
        floor = best_of(FLOOR, repo, args.runs, ok=(0,))
        doctor_log = best_of(DOCTOR_LOG, repo, args.runs, ok=(0,))
        ratio = float(audit["best_s"]) / float(floor["best_s"])  # type: ignore[arg-type]
        result = {
            "repository": str(repo),
            "shape": shape,
            "generated_in_s": generated_s,
            "today": args.today,
            "runs": args.runs,
            "floor": {"command": " ".join(FLOOR), **floor},
            "doctor_git_log": {"command": " ".join(DOCTOR_LOG), **doctor_log},
            "audit": {"command": " ".join(audit_cmd), **audit},
            "ratio_audit_to_floor": round(ratio, 2),
            "doctor_source": doctor_source(),
            # Best-of-N hides some noise, not a busy machine: compare with os.cpu_count().
            "load_average_1m": {"before": load_before[0], "after": os.getloadavg()[0]},
            "machine": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
                "git": subprocess.run(
                    ["git", "--version"], capture_output=True, text=True, check=True
                ).stdout.strip(),
            },
        }
        rows = [
            ("floor", floor, " ".join(FLOOR)),
            ("doctor's git log", doctor_log, "the log the doctor streams"),
            ("audit", audit, f"peak RSS {audit['peak_rss_mb']} MB, exit {audit['returncode']}"),
        ]
        for label, figures, note in rows:
            print(f"{label:<17}{figures['best_s']:>9.3f}s  {note}")
        print(f"{'ratio':<17}{ratio:>9.2f}x  audit / floor")
        after = os.getloadavg()[0]
        print(
            f"{'load (1 min)':<17}{load_before[0]:>9.2f}   before; {after:.2f} after, {os.cpu_count()} cpus"
        )
        args.output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
    finally:
        if scratch is not None:
            scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
