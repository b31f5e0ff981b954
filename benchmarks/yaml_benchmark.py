"""Per-file YAML parse times at each documented size cap, valid and hostile (#30).

Every YAML file the doctor reads must be parsed, or refused with one line, in under
2 s at its cap.  This writes each case to a scratch directory, then parses it once in
its own process (``--python`` picks the interpreter, so an older install can be timed
in the same run) through the reader the doctor uses for that file, and prints wall and
CPU seconds and the outcome::

    python benchmarks/yaml_benchmark.py
    python benchmarks/yaml_benchmark.py --python /tmp/before/.venv/bin/python --timeout 120

Readers timed: ``index.yaml`` and ``console.yaml`` (``yamlio.load_yaml_text``, the audit),
the index a writer re-reads (``write.fixes.set_entry_field``), the index at a reviewed
commit (``model.review._dates_by_id``), the suppression-comment scan of an index
(``model.suppression_comments.yaml_suppressions``), a graded file's frontmatter
(``freshness.frontmatter.read_frontmatter``) and a vault note
(``vault.memory.memory_facts_of_bytes``).  Run it from the repository's top (or with
``context_doctor`` installed in the interpreter given).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

MIB = 1024 * 1024
INDEX_CAP = MIB  # limits.MAX_YAML_FILE_BYTES
NOTE_CAP = 256 * 1024  # limits.MAX_NOTE_FRONTMATTER_BYTES
FRONTMATTER_CAP = 64 * 1024  # limits.MAX_FRONTMATTER_BYTES

ENTRY = "  - id: p{n:06d}-audit\n    status: {status}\n    last_session: 2025-{m:02d}-{d:02d}\n"


def _index(size: int, tail: str = "") -> str:
    parts = ["# Project registry\nprojects:\n"]
    total = len(parts[0]) + len(tail)
    number = 0
    while True:
        entry = ENTRY.format(
            n=number,
            status=("active", "paused", "completed")[number % 3],
            m=number % 12 + 1,
            d=number % 28 + 1,
        )
        if total + len(entry) > size:
            break
        parts.append(entry)
        total += len(entry)
        number += 1
    return "".join(parts) + tail


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


def _laughs(size: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        ref = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([ref] * 10)}]")
    return _fill("# pad\n", size, "\n".join(lines) + "\n")


def _anchors(size: int) -> str:
    parts = ["projects:\n"]
    total = number = 0
    while total < size - 100:
        part = f"  - &e{number} {{id: a{number}, status: active}}\n  - *e{number}\n"
        parts.append(part)
        total += len(part)
        number += 1
    return "".join(parts)


def _hidden_depth(size: int) -> str:
    # A quote the line scan takes for an opening one hides 100,000 nested `[`.
    depth = min(100_000, (size - 20) // 2)
    return "a: [x ', " + "[" * depth + "]" * depth + "]\n"


def yaml_cases(cap: int) -> dict[str, str]:
    """The hostile and valid YAML texts of one file kind at ``cap`` bytes."""
    return {
        "valid index": _index(cap - 64),
        "valid, flow collection": "projects: ["
        + _fill("{id: p1, status: active}, ", cap - 64)
        + "{id: z, status: paused}]\n",
        "very long scalar": "projects:\n  - id: a\n    note: " + "x" * (cap - 64) + "\n",
        "deep nesting (plain)": "[" * (cap // 2 - 8) + "]" * (cap // 2 - 8) + "\n",
        "deep nesting (hidden from the scan)": _hidden_depth(cap),
        "billion laughs": _laughs(cap),
        "many tiny documents": _fill("---\na: 1\n", cap),
        "broken at the end": _index(cap - 64, "  - id: [unclosed\n"),
        "many anchors and aliases": _anchors(cap),
        "duplicate key at the end": _index(cap - 64, "  - id: z\n    id: y\n"),
    }


# Each reader: its imports (one line, not timed), then the parse.
PROGRAMS: dict[str, str] = {
    "index (audit)": (
        "from pathlib import Path; from context_doctor.guards.yamlio import load_yaml_text\n"
        "load_yaml_text(TEXT, Path('index.yaml'), 'index file')"
    ),
    "index (writer re-read)": (
        "from context_doctor.editor.fixes import set_entry_field, SetEntryField\n"
        "set_entry_field(TEXT, SetEntryField(1, 'p000000-audit', 'status', 'paused'))"
    ),
    "index (at a reviewed commit)": (
        "from context_doctor.model.review import _dates_by_id\nRESULT = _dates_by_id(TEXT.encode())"
    ),
    "index (suppression scan)": (
        "from context_doctor.model.suppression_comments import yaml_suppressions\n"
        "yaml_suppressions('# context-doctor: disable-next-line index-schema\\n' + TEXT, 'i')"
    ),
    "frontmatter (graded file)": (
        "from context_doctor.freshness.frontmatter import read_frontmatter\n"
        "RESULT = read_frontmatter('---\\n' + TEXT + '---\\nbody\\n')[1]"
    ),
    "vault note": (
        "from context_doctor.vault.memory import memory_facts_of_bytes\n"
        "RESULT = memory_facts_of_bytes(('---\\n' + TEXT + '---\\nbody\\n').encode(), 'n.md')"
        ".problem"
    ),
}

RUNNER = r"""
import sys, time
TEXT = open(sys.argv[1], encoding="utf-8").read()
RESULT = "parsed"
setup, _, statement = sys.argv[2].partition("\n")
exec(setup)  # the imports: not timed
wall, cpu = time.perf_counter(), time.process_time()
try:
    exec(compile(statement, "case", "exec"))
except BaseException as error:
    RESULT = f"{error.__class__.__name__}: {str(error).splitlines()[0] if str(error) else ''}"
print(f"{time.perf_counter() - wall:.2f} {time.process_time() - cpu:.2f} {str(RESULT)[:90]}")
"""


def run(python: str, reader: str, text_file: Path, timeout: float) -> str:
    try:
        done = subprocess.run(
            [python, "-c", RUNNER, str(text_file), PROGRAMS[reader]],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"> {timeout:.0f} s (stopped)"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return f"crashed (exit {done.returncode}): {last[:80]}"
    wall, cpu, outcome = done.stdout.strip().split(" ", 2)
    return f"{wall:>6} s wall {cpu:>6} s cpu  {outcome}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter to time")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("--only", default="", help="run readers whose name holds this")
    args = parser.parse_args(argv)
    plan: list[tuple[str, int, Callable[[int], dict[str, str]]]] = [
        ("index (audit)", INDEX_CAP, yaml_cases),
        ("index (writer re-read)", INDEX_CAP, yaml_cases),
        ("index (at a reviewed commit)", INDEX_CAP, yaml_cases),
        ("index (suppression scan)", INDEX_CAP, yaml_cases),
        ("frontmatter (graded file)", FRONTMATTER_CAP, yaml_cases),
        ("vault note", NOTE_CAP, yaml_cases),
    ]
    print(f"interpreter: {args.python}")
    with tempfile.TemporaryDirectory() as scratch:
        for reader, cap, cases in plan:
            if args.only not in reader:
                continue
            print(f"\n{reader}, cap {cap:,} bytes")
            for name, text in cases(cap).items():
                text_file = Path(scratch) / "case.yaml"
                text_file.write_text(text, encoding="utf-8")
                outcome = run(args.python, reader, text_file, args.timeout)
                print(f"  {name:<38} {len(text.encode()):>9,} B  {outcome}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
