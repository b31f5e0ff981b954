"""Memory vaults at size (SPEC §9, issue #21): 20,000 notes and a 200 MB audit log.

Run by hand, never by CI:

    python benchmarks/vault_benchmark.py /work/bench/vault --notes 20000 --log-mb 200 [--git]

Writes a Bastra-shaped vault (memories in topic folders, plain notes among them, a
trash that matches its log, one audit-log line of 5 MB, one not JSON), then times
``context-doctor check --vault DIR --json`` twice (cold: no cache; warm: the second
run, notes' facts from the cache when the vault is in git) and prints the seconds,
the peak RSS of the child, and the finding counts. The point is the bounds: time
grows with the notes and the log's bytes, memory does not grow with the log.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

TYPES = ("lesson", "preference", "project-fact", "decision", "workflow", "reference")


def note(memory_id: str, rng: random.Random, ids: list[str]) -> str:
    links = " ".join(f"[[{rng.choice(ids)}]]" for _ in range(3)) if ids else ""
    return (
        f'---\nid: {memory_id}\ntitle: "{memory_id.replace("-", " ")}"\n'
        f'type: {rng.choice(TYPES)}\nsummary: "One dense sentence about {memory_id}."\n'
        "topic_path: [bench, vault]\ntags: [bench]\nscope: all-projects\n"
        "recall_when:\n  - when the benchmark runs\nrelated: []\nrelated_via: []\n"
        "created: 2026-01-01\nupdated: 2026-01-01\n---\n\n"
        f"Body of {memory_id}. See {links}.\n" + "Filler prose for the recall index.\n" * 8
    )


def entry(memory_id: str, number: int, operation: str = "create", pad: int = 0) -> str:
    snapshot = {"id": memory_id, "title": memory_id, "summary": "x" * pad}
    return json.dumps(
        {
            "id": f"b{number:08x}",
            "memory_id": memory_id,
            "timestamp": f"2026-01-01T00:00:{number % 60:02d}.000Z",
            "actor": "assistant",
            "operation": operation,
            "diff_before": None if operation == "create" else snapshot,
            "diff_after": snapshot if operation != "delete" else None,
            "file_path": f"/vault/memories/{memory_id}.md",
        }
    )


def generate(root: Path, notes: int, log_mb: int, seed: int) -> None:
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    (root / ".bastra" / "trash").mkdir(parents=True)
    ids = [f"memory-{index:05d}" for index in range(notes)]
    for index, memory_id in enumerate(ids):
        folder = root / "memories" / f"topic-{index % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{memory_id}.md").write_text(note(memory_id, rng, ids), encoding="utf-8")
        if index % 100 == 0:
            (folder / f"plain-{index}.md").write_text("# A plain note\n", encoding="utf-8")
    (root / ".bastra" / "trash" / "gone.md").write_text(note("gone", rng, []), encoding="utf-8")
    target = log_mb << 20
    written = 0
    number = 0
    with (root / ".bastra" / "audit-log.ndjson").open("w", encoding="utf-8") as log:
        for memory_id in ids:
            line = entry(memory_id, number) + "\n"
            log.write(line)
            written += len(line)
            number += 1
        log.write(entry("gone", number) + "\n" + entry("gone", number + 1, "delete") + "\n")
        log.write(entry("huge-line", number + 2, "update", pad=5 << 20) + "\n")  # a 5 MB line
        log.write("{not json\n")
        while written < target:
            line = entry(rng.choice(ids), number, "update", pad=900) + "\n"
            log.write(line)
            written += len(line)
            number += 1


def commit(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "vault"]):
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@example.invalid", *args],
            cwd=root,
            check=True,
        )


def timed(doctor: str, root: Path, extra: list[str]) -> tuple[float, dict[str, int]]:
    started = time.perf_counter()
    result = subprocess.run(
        [doctor, "check", "--vault", str(root), "--json", "--today", "2026-06-15", *extra],
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        sys.exit(f"the doctor failed: {result.stderr.decode(errors='replace')}")
    report = json.loads(result.stdout)
    counts: dict[str, int] = {}
    for finding in report["findings"]:
        counts[finding["check"]] = counts.get(finding["check"], 0) + 1
    return elapsed, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--log-mb", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--git", action="store_true", help="commit the vault (the cache needs git)")
    parser.add_argument("--doctor", default=str(Path(sys.executable).parent / "context-doctor"))
    options = parser.parse_args()
    started = time.perf_counter()
    generate(options.root, options.notes, options.log_mb, options.seed)
    if options.git:
        commit(options.root)
    print(f"generated in {time.perf_counter() - started:.1f} s")
    for label in ("cold", "warm"):
        elapsed, counts = timed(options.doctor, options.root, [])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        print(f"{label}: {elapsed:.1f} s, peak RSS so far {peak} MiB, findings {counts}")


if __name__ == "__main__":
    main()
