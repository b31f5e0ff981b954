"""Time context-doctor against the git-log floor: cold, warm, warm after a commit; RSS; start-up.

    python benchmarks/run_benchmark.py --repo /work/bench/kb-500 --repo /work/bench/kb-2000
    python benchmarks/run_benchmark.py --projects 2000 --commits 20000   # generate one first
    python benchmarks/run_benchmark.py --repo /work/bench/kb-2000 --profile [--warm]

For each repository, in one run and interleaved round by round (so a busy machine
slows the floor and the doctor alike), median of ``--runs``:

* **floor**: ``git log --name-only --format=%H -- projects`` plus reading every tier
  file once (``cat``), the least any tool pays to learn which files each commit
  touched and what the files say;
* **cold**: ``context-doctor check --source REPO --today DATE --json --no-cache``;
* **warm**: the same with the cache, nothing changed since the last run;
* **warm + 1 commit**: with the cache, after one new commit touching one project's
  ``CONTEXT.md`` (made on a scratch copy of the repository before each run);
* peak RSS of each (``RUSAGE_CHILDREN`` in a fresh helper process: the largest single
  process of the tree, Python or its git), and the ratio of each median to the floor's;
* whether cold and warm JSON reports are identical apart from ``generated_at``.

Plus a start-up figure: ``context-doctor --version`` and a check of a one-project
repository (the pre-push case), warm.  Results are printed and written as JSON
(``--output``).  Run by hand; neither CI nor pytest runs this.

Before measuring, the doctor's modules are compiled to bytecode, as ``pip install``
does for an installed package: an editable install on a machine with
``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile every module on every run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_TODAY = "2025-12-01"  # fixed, so runs on different days audit the same thing
FLOOR_LOG = ["git", "log", "--name-only", "--format=%H", "--", "projects"]
TIER_GLOBS = ("CONTEXT.md", "REFERENCE.md", "reference/*.md", "sessions/*.md")

# Runs one command in a fresh interpreter and reports its wall clock, CPU and the peak
# RSS of the process tree it started: RUSAGE_CHILDREN covers every waited-for
# descendant, and in this helper the commands are the only children there are.
_MEASURE = """
import json, resource, subprocess, sys, time
commands = json.loads(sys.stdin.read())
started = time.perf_counter()
codes, stderr = [], b""
for command in commands:
    done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    codes.append(done.returncode)
    stderr += done.stderr
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "maxrss_kb": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime,
                  "codes": codes, "stderr": stderr.decode(errors="replace")[-2000:]}))
"""


def measure(commands: list[list[str]], cwd: Path, ok: tuple[int, ...]) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE],
        input=json.dumps(commands),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    sample: dict[str, Any] = json.loads(result.stdout)
    for code in sample["codes"]:
        if code not in ok:
            raise SystemExit(f"{commands} exited {code}:\n{sample['stderr']}")
    return sample


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    walls = [float(sample["wall"]) for sample in samples]
    return {
        "median_s": round(statistics.median(walls), 3),
        "runs_s": [round(wall, 3) for wall in walls],
        "cpu_median_s": round(statistics.median(float(s["cpu"]) for s in samples), 3),
        "peak_rss_mb": round(max(int(s["maxrss_kb"]) for s in samples) / 1024, 1),
    }


DOCTOR: list[str] = []  # --doctor: the command that runs context-doctor (else the installed one)


def doctor_base() -> list[str]:
    if DOCTOR:
        return list(DOCTOR)
    doctor = shutil.which("context-doctor")
    return [doctor] if doctor else [sys.executable, "-m", "context_doctor"]


# What ``pip install`` does for an installed package: every module compiled to bytecode
# once.  An editable install (or PYTHONDONTWRITEBYTECODE=1, as on the machines these
# figures were taken on) leaves the source tree uncompiled, and then every run would
# compile our ~80 modules again (~40-70 ms): a cost no installed user pays.
_COMPILE = """
import compileall, context_doctor, context_doctor.checks as checks
for directory in [*context_doctor.__path__, *checks.__path__]:
    compileall.compile_dir(directory, quiet=1)
"""


def doctor_python() -> str:
    """The interpreter that runs the doctor: ``--doctor``'s, or the console script's shebang."""
    command = doctor_base()
    if Path(command[0]).name.startswith("python"):
        return command[0]
    with open(command[0], "rb") as script:
        first = script.readline().decode("utf-8", "replace")
    return first[2:].strip() if first.startswith("#!") else sys.executable


def compile_bytecode() -> None:
    done = subprocess.run([doctor_python(), "-c", _COMPILE], stdout=subprocess.DEVNULL)
    if done.returncode != 0:
        print("warning: the doctor's modules could not be compiled first", file=sys.stderr)


def audit_command(repo: Path, today: str, *extra: str) -> list[str]:
    return [*doctor_base(), "check", "--source", str(repo), "--today", today, "--json", *extra]


def floor_commands(repo: Path) -> list[list[str]]:
    """The git log, then every tier file read once (in batches, as ``cat`` arguments)."""
    files = sorted(
        str(path) for pattern in TIER_GLOBS for path in (repo / "projects").glob(f"*/{pattern}")
    )
    batches = [files[start : start + 2000] for start in range(0, len(files), 2000)]
    return [FLOOR_LOG, *(["cat", *batch] for batch in batches)]


def doctor_source() -> dict[str, object]:
    """Which context-doctor was measured: its checkout's HEAD and whether it was dirty."""
    if DOCTOR:
        return {"command": " ".join(DOCTOR)}
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


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def repository_shape(repo: Path) -> dict[str, int]:
    projects = sum(
        1
        for child in (repo / "projects").iterdir()
        if child.is_dir() and not child.name.startswith((".", "_"))
    )
    return {
        "projects": projects,
        "commits": int(git(repo, "rev-list", "--count", "HEAD")),
        "commits_touching_projects": int(
            git(repo, "rev-list", "--count", "HEAD", "--", "projects")
        ),
        "tracked_files": len(git(repo, "ls-files").splitlines()),
    }


_IDENTITY = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid"]


def one_new_commit(repo: Path, counter: int) -> None:
    """One session commit touching one project's CONTEXT.md (the common day-to-day case)."""
    target = sorted((repo / "projects").glob("*/CONTEXT.md"))[counter % 7]
    with target.open("a", encoding="utf-8") as stream:
        stream.write(f"\nA note from benchmark session {counter}.\n")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2025-11-29T10:00:00+00:00"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    subprocess.run(["git", *_IDENTITY, "add", str(target)], cwd=repo, check=True, env=env)
    subprocess.run(
        ["git", *_IDENTITY, "commit", "-q", "-m", f"session {counter}"],
        cwd=repo,
        check=True,
        env=env,
    )


def same_report(command: list[str], other: list[str], cwd: Path) -> bool:
    def report(args: list[str]) -> dict[str, Any]:
        done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
        data: dict[str, Any] = json.loads(done.stdout)
        data.pop("generated_at", None)
        return data

    return report(command) == report(other)


def bench_repository(repo: Path, today: str, runs: int, uncached: bool = False) -> dict[str, Any]:
    shape = repository_shape(repo)
    print(
        f"repository {repo}: {shape['projects']} projects, {shape['commits']} commits "
        f"({shape['commits_touching_projects']} touching projects/), {shape['tracked_files']} files",
        flush=True,
    )
    scratch = Path(tempfile.mkdtemp(prefix="context-doctor-bench-"))
    try:
        copy = scratch / "kb"
        shutil.copytree(repo, copy, symlinks=True)
        shutil.rmtree(copy / ".git" / "context-doctor", ignore_errors=True)
        cold_cmd = audit_command(copy, today, *(() if uncached else ("--no-cache",)))
        warm_cmd = audit_command(copy, today)
        floor_cmds = floor_commands(copy)
        measure(floor_cmds, copy, ok=(0,))  # the page cache warm before anything is timed
        identical = uncached or (
            same_report(cold_cmd, warm_cmd, copy) and same_report(cold_cmd, warm_cmd, copy)
        )
        samples: dict[str, list[dict[str, Any]]] = {
            "floor": [],
            "cold": [],
            "warm": [],
            "warm_after_commit": [],
        }
        load_before = os.getloadavg()[0]
        for round_number in range(runs):
            samples["floor"].append(measure(floor_cmds, copy, ok=(0,)))
            samples["cold"].append(measure([cold_cmd], copy, ok=(0, 1)))
            if uncached:
                continue
            samples["warm"].append(measure([warm_cmd], copy, ok=(0, 1)))
            one_new_commit(copy, round_number)
            samples["warm_after_commit"].append(measure([warm_cmd], copy, ok=(0, 1)))
        identical = uncached or (identical and same_report(cold_cmd, warm_cmd, copy))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures = {name: summary(taken) for name, taken in samples.items() if taken}
    floor = figures["floor"]["median_s"]
    for name in [name for name in ("cold", "warm", "warm_after_commit") if name in figures]:
        figures[name]["ratio_to_floor"] = round(figures[name]["median_s"] / floor, 2)
    print(f"{'':<19}{'median':>9}{'ratio':>8}{'cpu':>9}{'peak RSS':>11}  runs")
    for name, row in figures.items():
        ratio = f"{row['ratio_to_floor']:.2f}x" if "ratio_to_floor" in row else "1x"
        print(
            f"{name:<19}{row['median_s']:>8.3f}s{ratio:>8}{row['cpu_median_s']:>8.2f}s"
            f"{row['peak_rss_mb']:>8.1f} MB  {row['runs_s']}"
        )
    print(f"findings identical with and without the cache: {identical}", flush=True)
    return {
        "repository": str(repo),
        "shape": shape,
        "figures": figures,
        "cache_identical": identical,
        "load_average_1m": {"before": load_before, "after": os.getloadavg()[0]},
    }


def bench_startup(today: str, runs: int) -> dict[str, Any]:
    """``--version``, and a warm check of a one-project repository (the pre-push hook's case)."""
    scratch = Path(tempfile.mkdtemp(prefix="context-doctor-one-"))
    try:
        repo = scratch / "solo"
        (repo / "sessions").mkdir(parents=True)
        (repo / "CONTEXT.md").write_text(
            "# Solo\n\n**Status:** Active\n**Last session:** 2025-11-30\n\n"
            "## Current State\n*State as of: 2025-11-30*\n\nWorking.\n\n## Next\n"
            "- [ ] ship it (as of 2025-11-30)\n",
            encoding="utf-8",
        )
        (repo / "sessions" / "2025-11.md").write_text(
            "# November\n\n## 2025-11-30 — work\nDone.\n", encoding="utf-8"
        )
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(
            ["git", *_IDENTITY, "commit", "-q", "-m", "start"],
            cwd=repo,
            check=True,
            env={**os.environ, "GIT_AUTHOR_DATE": "2025-11-30T10:00:00+00:00",
                 "GIT_COMMITTER_DATE": "2025-11-30T10:00:00+00:00"},
        )  # fmt: skip
        version_cmd = [*doctor_base(), "--version"]
        check_cmd = [*doctor_base(), "check", "--today", today, "--json", str(repo)]
        measure([check_cmd], repo, ok=(0, 1))  # write the cache
        version = [measure([version_cmd], repo, ok=(0,)) for _ in range(runs)]
        check = [measure([check_cmd], repo, ok=(0, 1)) for _ in range(runs)]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    figures = {"version": summary(version), "one_project_check": summary(check)}
    for name, row in figures.items():
        print(
            f"{name:<19}{row['median_s']:>8.3f}s{'':>8}{row['cpu_median_s']:>8.2f}s  {row['runs_s']}"
        )
    return figures


def profile(repo: Path, today: str, top: int, warm: bool) -> str:
    """The audit in this process under cProfile; the top entries by cumulative time."""
    from context_doctor.cli import cli

    args = ["check", "--source", str(repo), "--today", today, "--json"]
    if not warm:
        args.append("--no-cache")
    profiler = cProfile.Profile()
    stdout = sys.stdout
    sys.stdout = io.StringIO()  # the JSON report is not the point here
    try:
        profiler.enable()
        try:
            cli.main(args, prog_name="context-doctor")
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
    parser.add_argument("--repo", type=Path, action="append", help="an existing repository")
    parser.add_argument("--projects", type=int, default=2000, help="when generating")
    parser.add_argument("--commits", type=int, default=20000, help="when generating")
    parser.add_argument("--seed", type=int, default=1, help="when generating")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    parser.add_argument("--today", default=DEFAULT_TODAY)
    parser.add_argument("--runs", type=int, default=5, help="median of N (default 5)")
    parser.add_argument("--output", type=Path, default=Path("benchmark-result.json"))
    parser.add_argument("--profile", action="store_true", help="run the audit under cProfile")
    parser.add_argument("--warm", action="store_true", help="with --profile: use the cache")
    parser.add_argument("--top", type=int, default=25, help="entries printed by --profile")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up figures")
    parser.add_argument(
        "--doctor", help='the command running context-doctor, e.g. "python -m context_doctor"'
    )
    parser.add_argument(
        "--uncached", action="store_true", help="the doctor has no cache (a version before it)"
    )
    args = parser.parse_args(argv)
    if args.doctor:
        DOCTOR[:] = shlex.split(args.doctor)

    scratch: tempfile.TemporaryDirectory[str] | None = None
    repos: list[Path] = [repo.resolve() for repo in args.repo or []]
    for repo in repos:
        if not (repo / "projects").is_dir():
            parser.error(f"{repo} has no projects/ directory")
    if not repos:
        if args.keep is not None:
            repo = args.keep.resolve()
        else:
            scratch = tempfile.TemporaryDirectory(prefix="context-doctor-bench-")
            repo = Path(scratch.name) / "kb"
        subprocess.run(
            [sys.executable, str(HERE / "generate_corpus.py"), str(repo),
             "--projects", str(args.projects), "--commits", str(args.commits),
             "--seed", str(args.seed)],
            check=True,
        )  # fmt: skip
        repos = [repo]
    try:
        if args.profile:
            print(profile(repos[0], args.today, args.top, args.warm))
            return 0
        compile_bytecode()
        results = [bench_repository(repo, args.today, args.runs, args.uncached) for repo in repos]
        startup = None if args.no_startup else bench_startup(args.today, args.runs)
        output = {
            "today": args.today,
            "runs": args.runs,
            "repositories": results,
            "startup": startup,
            "doctor_source": doctor_source(),
            "bytecode": "compiled before measuring, as `pip install` does",
            "machine": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "cpus": os.cpu_count(),
                "git": git(Path.cwd(), "--version"),
                "load_average_1m_at_end": os.getloadavg()[0],
            },
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        args.output.write_text(json.dumps(output, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.output}")
    finally:
        if scratch is not None:
            scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
