"""Parsing Markdown files with the plain scan and with markdown-it alone: CPU and equality (#32).

    python benchmarks/parse_benchmark.py /work/bench/kb-2000/projects [more folders] --runs 3

Every ``*.md`` file below the folders is read once; then, in this process, each round
parses all of them twice in a shuffled order: as the doctor does (``facts_of_bytes``: the
line scan where it answers, markdown-it elsewhere) and with the scan turned off
(markdown-it for every file). It prints the median CPU of each, how many files the scan
answered for, and how many files' facts differ between the two (must be 0).
Run by hand; neither CI nor pytest runs this.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from context_doctor.model import document_facts
from context_doctor.model.plain_blocks import plain_blocks


def _files(folders: list[Path]) -> list[tuple[bytes, bool]]:
    found: list[tuple[bytes, bool]] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            if path.is_file() and not path.is_symlink():
                found.append((path.read_bytes(), path.name == "REFERENCE.md"))
    return found


def _parse_all(files: list[tuple[bytes, bool]]) -> tuple[float, list[document_facts.DocumentFacts]]:
    started = time.process_time()
    facts = [document_facts.facts_of_bytes(raw, links) for raw, links in files]
    return time.process_time() - started, facts


def _markdown_it_only(
    run: Callable[[], tuple[float, list[document_facts.DocumentFacts]]],
) -> tuple[float, list[document_facts.DocumentFacts]]:
    scan = document_facts.plain_blocks
    document_facts.plain_blocks = lambda _text: None  # type: ignore[assignment]
    try:
        return run()
    finally:
        document_facts.plain_blocks = scan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    files = _files(args.folders)
    document_facts.load_parsers()
    scanned = sum(
        1
        for raw, _ in files
        if (text := document_facts.decode(raw)[0]) is not None and plain_blocks(text) is not None
    )
    times: dict[str, list[float]] = {"doctor": [], "markdown-it only": []}
    differ = 0
    for _ in range(args.runs):
        order = list(times)
        random.shuffle(order)
        results = {}
        for name in order:
            if name == "doctor":
                spent, results[name] = _parse_all(files)
            else:
                spent, results[name] = _markdown_it_only(lambda: _parse_all(files))
            times[name].append(spent)
        differ = max(differ, sum(a != b for a, b in zip(*results.values(), strict=True)))
    size = sum(len(raw) for raw, _ in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB; the scan answers for {scanned}")
    base = statistics.median(times["markdown-it only"])
    for name, spent in times.items():
        median = statistics.median(spent)
        print(
            f"{name:<18} {median:7.2f} s CPU  {median / base:5.2f}x  {[round(s, 2) for s in spent]}"
        )
    print(f"files whose facts differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
