"""Where a user waits for a small run: start-up and a small source, as ratios (#32).

    python benchmarks/startup_benchmark.py --runs 21
    python benchmarks/startup_benchmark.py --small /work/bench/kb-4 \\
        --upstream /tmp/synthesis-skills/skills/synthesis-context-lifecycle/scripts/context_doctor.py

Every command runs in a fresh process, round by round and in a shuffled order within
each round (paired, interleaved: a busy machine slows every command of a round alike),
and each figure is the **median** over the rounds (with the middle half of the CPU figures,
first to third quartile, as the spread) of

* wall clock (``time.perf_counter`` around ``os.wait4``), and
* CPU (user + system of that one process tree, from ``os.wait4``'s rusage),

printed beside its ratio to the baseline.  On a shared, loaded machine the CPU figure is
the steadier one; both are printed.

Start-up (against ``python -c pass`` run by the doctor's own interpreter):
``status`` (reading a stored report), ``--version``, ``--help``.

Small source (``--small REPO``, against the upstream script ``--upstream`` run by the
same interpreter with ``--source REPO --json``): ``check --source REPO --json`` cold
(``--no-cache``) and warm (a second run with the cache), plus the git processes each
spawns (counted with a ``git`` wrapper first on ``PATH``).

Pre-push hook (``--hook``, with ``--small``): a ``git push`` to a bare remote that the
installed hook refuses (one CONTEXT.md pushed over its budget, so the same push repeats),
against ``python -c pass``; and, counted in one more push, the interpreters the hook
starts and the git processes it runs (``GIT_TRACE``). With ``--before`` the other version
installs its own hook in its own copy.

The upstream script is never vendored: fetch ``synthesisengineering/synthesis-skills``
into ``/tmp`` and point ``--upstream`` at its ``context_doctor.py``.
Run by hand; neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TODAY = "2025-12-01"


BEFORE: list[str] = []  # --before: another version's console script, measured alongside


def doctor() -> list[str]:
    found = shutil.which("context-doctor")
    return [found] if found else [sys.executable, "-m", "context_doctor"]


def with_before(commands: dict[str, list[str]], doctor_names: tuple[str, ...]) -> None:
    """Add each doctor command again, run by the ``--before`` version, as ``NAME (before)``."""
    if not BEFORE:
        return
    for name in doctor_names:
        command = commands[name]
        commands[f"{name} (before)"] = [*BEFORE, *command[len(doctor()) :]]


def interpreter() -> str:
    command = doctor()
    if command[0] == sys.executable:
        return sys.executable
    with open(command[0], "rb") as script:
        first = script.readline().decode("utf-8", "replace")
    return first[2:].strip() if first.startswith("#!") else sys.executable


def run_once(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """Wall clock, CPU of the whole process tree, exit status of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    # wait4's rusage counts the process and the descendants it waited for (git, workers).
    return wall, usage.ru_utime + usage.ru_stime, process.returncode


def measure(
    commands: dict[str, list[str]],
    env: dict[str, str],
    cwd: Path,
    rounds: int,
    before: dict[str, list[str]] | None = None,
) -> dict[str, dict[str, float]]:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    names = list(commands)
    for _ in range(rounds):
        random.shuffle(names)
        for name in names:
            if before and name in before:
                subprocess.run(
                    before[name],
                    env=env,
                    cwd=cwd,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            wall, cpu, code = run_once(commands[name], env, cwd)
            if code not in (0, 1):
                raise SystemExit(f"{name}: exit {code}: {' '.join(commands[name])}")
            samples[name].append((wall, cpu))
    return {
        name: {
            "wall": statistics.median(w for w, _ in rows),
            "cpu": statistics.median(c for _, c in rows),
            # the spread: the middle half of the rounds' CPU figures
            "cpu_q1": _quartiles([c for _, c in rows])[0],
            "cpu_q3": _quartiles([c for _, c in rows])[1],
        }
        for name, rows in samples.items()
    }


def _quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    low, _, high = statistics.quantiles(values, n=4)
    return low, high


def print_table(title: str, figures: dict[str, dict[str, float]], baseline: str) -> None:
    base = figures[baseline]
    print(f"\n{title} (median; ratio to {baseline!r})")
    print(f"  {'':<14}{'wall':>9}{'ratio':>8}{'cpu':>9}{'ratio':>8}   cpu middle half")
    for name, row in figures.items():
        print(
            f"  {name:<14}{row['wall']:>8.3f}s{row['wall'] / base['wall']:>7.2f}x"
            f"{row['cpu']:>8.3f}s{row['cpu'] / base['cpu']:>7.2f}x"
            f"   {row['cpu_q1']:.3f}-{row['cpu_q3']:.3f} s"
        )


def startup(rounds: int, scratch: Path, env: dict[str, str]) -> dict[str, dict[str, float]]:
    home = scratch / "home"
    cache = home / "context-doctor" / "last-report.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(
        json.dumps(
            {
                "ok": False,
                "generated_at": "2025-12-01T09:00:00+00:00",
                "defects": 2,
                "warnings": 5,
                "projects_audited": 14,
            }
        ),
        encoding="utf-8",
    )
    env = {**env, "SYNTHESIS_HOME": str(home)}
    commands = {
        "python -c pass": [interpreter(), "-c", "pass"],
        "status": [*doctor(), "status"],
        "--version": [*doctor(), "--version"],
        "--help": [*doctor(), "--help"],
    }
    with_before(commands, ("status", "--version", "--help"))
    figures = measure(commands, env, scratch, rounds)
    print_table("start-up", figures, "python -c pass")
    print(f"  --help wall: {figures['--help']['wall']:.3f} s (target <= 0.08 s)")
    return figures


GIT_COUNTER = """#!/bin/sh
echo x >> "$GIT_CALLS_FILE"
exec {git} "$@"
"""


def git_calls(command: list[str], env: dict[str, str], cwd: Path, scratch: Path) -> int:
    wrapper = scratch / "gitwrap"
    wrapper.mkdir(exist_ok=True)
    script = wrapper / "git"
    script.write_text(GIT_COUNTER.format(git=shutil.which("git")), encoding="utf-8")
    script.chmod(0o755)
    calls = scratch / "calls"
    calls.write_text("", encoding="utf-8")
    counted = {**env, "PATH": f"{wrapper}{os.pathsep}{env['PATH']}", "GIT_CALLS_FILE": str(calls)}
    # PATH and GIT_* are in the replay key: a first run under the counting environment
    # stores the report a warm run then replays; the second run is the one counted.
    for _ in range(2):
        calls.write_text("", encoding="utf-8")
        subprocess.run(
            command, env=counted, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    return len(calls.read_text(encoding="utf-8").splitlines())


def small_source(
    repo: Path, upstream: Path, rounds: int, scratch: Path, env: dict[str, str]
) -> dict[str, dict[str, float]]:
    copy = scratch / "small"
    shutil.copytree(repo, copy, symlinks=True)
    check = [*doctor(), "check", "--source", str(copy), "--today", TODAY, "--json"]
    commands = {
        "upstream": [interpreter(), str(upstream), "--source", str(copy), "--json"],
        "cold": [*check, "--no-cache"],
        "warm": check,
    }
    subprocess.run(check, env=env, cwd=scratch, stdout=subprocess.DEVNULL)  # the cache, once
    if BEFORE:
        # The other version's cache would miss every time against this one's: its own copy.
        other = scratch / "small-before"
        shutil.copytree(repo, other, symlinks=True)
        before = [*BEFORE, "check", "--source", str(other), "--today", TODAY, "--json"]
        commands["cold (before)"] = [*before, "--no-cache"]
        commands["warm (before)"] = before
        subprocess.run(before, env=env, cwd=scratch, stdout=subprocess.DEVNULL)
    figures = measure(commands, env, scratch, rounds)
    print_table(f"small source {repo.name}", figures, "upstream")
    print("  targets: warm <= 1.5x, cold <= 2.5x upstream")
    for name in [name for name in commands if name != "upstream"]:
        print(f"  git processes, {name}: {git_calls(commands[name], env, scratch, scratch)}")
    return figures


PYTHON_COUNTER = """#!/bin/sh
echo started >> "$PYTHON_STARTS"
exec {python} "$@"
"""


def _git(*args: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def hook_repository(
    repo: Path, doctor_command: list[str], where: Path, env: dict[str, str]
) -> Path:
    """A copy of ``repo`` pushed to a bare remote, the hook installed by ``doctor_command``,
    and one commit that pushes a CONTEXT.md over its budget: every push is refused, so the
    same push can be timed again and again (the remote never moves)."""
    copy = where / "repo"
    shutil.copytree(repo, copy, symlinks=True)
    remote = where / "remote.git"
    _git("init", "-q", "--bare", str(remote), cwd=where, env=env)
    _git("remote", "add", "origin", str(remote), cwd=copy, env=env)
    _git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=copy, env=env)
    _git("branch", "-q", "-M", "main", cwd=copy, env=env)
    _git("branch", "-q", "-u", "origin/main", cwd=copy, env=env)
    subprocess.run([*doctor_command, "hook", "install", "--repo", str(copy)], env=env, check=True)
    context = sorted((copy / "projects").glob("*/CONTEXT.md"))[0]
    with context.open("a", encoding="utf-8") as grown:
        grown.writelines(f"- a line the budget does not allow, {n}\n" for n in range(200))
    _git("commit", "-q", "-am", "grow one context past its budget", cwd=copy, env=env)
    return copy


def hook_counts(copy: Path, env: dict[str, str], scratch: Path) -> tuple[int, int]:
    """(interpreters started, git processes) in one refused push, counted, not timed: the
    hook's ``python=`` line pointed at a counting wrapper, git's from ``GIT_TRACE`` after
    the hook starts."""
    hook = copy / ".git" / "hooks" / "pre-push"
    original = hook.read_text(encoding="utf-8")
    python = next(line for line in original.splitlines() if line.strip().startswith("python="))
    wrapper = scratch / "python-counter"
    wrapper.write_text(PYTHON_COUNTER.format(python=python.strip()[len("python=") :]))
    wrapper.chmod(0o755)
    hook.write_text(original.replace(python, python.split("=")[0] + f"={wrapper}"))
    starts, trace = scratch / "starts", scratch / "trace"
    for path in (starts, trace):
        path.write_text("", encoding="utf-8")
    counted = {**env, "PYTHON_STARTS": str(starts), "GIT_TRACE": str(trace)}
    subprocess.run(
        ["git", "push", "origin", "main"], cwd=copy, env=counted, capture_output=True, check=False
    )
    hook.write_text(original)
    lines = trace.read_text(encoding="utf-8").splitlines()
    begin = next(n for n, line in enumerate(lines) if "run_command: .git/hooks/pre-push" in line)
    gits = sum("trace: built-in: git " in line for line in lines[begin:])
    return len(starts.read_text(encoding="utf-8").splitlines()), gits


def pre_push_hook(
    repo: Path, rounds: int, scratch: Path, env: dict[str, str]
) -> dict[str, dict[str, float]]:
    """A refused ``git push`` through the installed pre-push hook, against ``python -c pass``."""
    identity = {
        **env,
        **{
            f"GIT_{who}_{what}": value
            for who in ("AUTHOR", "COMMITTER")
            for what, value in (("NAME", "Bench"), ("EMAIL", "bench@example.invalid"))
        },
    }
    versions = {"hook": doctor(), **({"hook (before)": BEFORE} if BEFORE else {})}
    commands: dict[str, list[str]] = {"python -c pass": [interpreter(), "-c", "pass"]}
    copies: dict[str, Path] = {}
    for number, (name, command) in enumerate(versions.items()):
        where = scratch / f"hook-{number}"
        where.mkdir()
        copies[name] = hook_repository(repo, command, where, identity)
        commands[name] = ["git", "-C", str(copies[name]), "push", "-q", "origin", "main"]
    figures = measure(commands, env, scratch, rounds)
    print_table(f"pre-push hook, {repo.name}, a refused push", figures, "python -c pass")
    for name, copy in copies.items():
        starts, gits = hook_counts(copy, env, scratch)
        print(f"  {name}: {starts} interpreter start(s), {gits} git processes (target: 1, <= 10)")
        figures[name] |= {"interpreters": starts, "git": gits}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument(
        "--small", type=Path, help="a small source (generate_corpus.py --projects 4 --commits 100)"
    )
    parser.add_argument(
        "--upstream", type=Path, help="the upstream context_doctor.py (fetched, never vendored)"
    )
    parser.add_argument(
        "--hook", action="store_true", help="also time a refused push of --small through the hook"
    )
    parser.add_argument("--output", type=Path)
    parser.add_argument(
        "--before", help="another version's context-doctor script, measured in the same rounds"
    )
    args = parser.parse_args()
    if args.before:
        BEFORE[:] = [args.before]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run(
        [
            interpreter(),
            "-c",
            "import compileall, context_doctor as c; compileall.compile_dir(c.__path__[0], quiet=1)",
        ],
        check=True,
    )  # an installed package is compiled; an editable one would compile on every run
    scratch = Path(tempfile.mkdtemp(prefix="context-doctor-startup-"))
    results: dict[str, object] = {}
    try:
        results["startup"] = startup(args.runs, scratch, env)
        if args.small and args.upstream:
            results["small"] = small_source(args.small, args.upstream, args.runs, scratch, env)
        if args.small and args.hook:
            results["hook"] = pre_push_hook(args.small, args.runs, scratch, env)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.output:
        args.output.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
