"""Guard for refactors: the JSON report of a corpus, minus ``generated_at``, must not change.

Record the reports before a change, then compare after it::

    python benchmarks/report_identity.py record /tmp/before.json --demo --repo /tmp/kb-500
    python benchmarks/report_identity.py compare /tmp/before.json --demo --repo /tmp/kb-500

``--demo`` builds the bundled demo corpus (kept under a temporary directory) and audits it
at the demo's own date; each ``--repo`` is audited with ``--today`` fixed, with and without
the cache. ``compare`` exits 1 and names the first differing key when anything changed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TODAY = "2026-07-01"


def _doctor(*args: str, cwd: Path | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "context_doctor", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"no JSON from {' '.join(args)}: {done.stderr.strip()[:400]}")
    if "error" in report:  # two broken runs would compare equal
        sys.exit(f"{' '.join(args)}: {report['error']}")
    report.pop("generated_at", None)
    return report


def collect(demo: bool, repos: list[Path]) -> dict[str, Any]:
    reports: dict[str, Any] = {}
    if demo:
        with tempfile.TemporaryDirectory() as scratch:
            keep = Path(scratch)
            reports["demo"] = _doctor("demo", "--output-format", "json", "--keep", str(keep))
            # The demo's knowledge base is kb/ (it was demo-kb/): the name is masked, so two
            # versions on either side of the rename still compare.
            root = next(keep / name for name in ("kb", "demo-kb") if (keep / name).is_dir())
            # The demo's other corpora (a single-project one) sit beside it in the scratch.
            text = json.dumps(reports["demo"]).replace(str(root), "<demo>")
            text = text.replace(f'"{root.name}"', '"<demo-kb>"')
            text = text.replace(str(keep), "<scratch>")
            reports["demo"] = json.loads(text)
    for repo in repos:
        for cache in ("--no-cache", None):
            flags = ["check", str(repo), "--json", "--today", TODAY, "--no-report-cache"]
            if cache:
                flags.append(cache)
            reports[f"{repo}{' ' + cache if cache else ''}"] = _doctor(*flags)
    return reports


def first_difference(before: Any, after: Any, where: str = "") -> str | None:
    if type(before) is not type(after):
        return where or "<root>"
    if isinstance(before, dict):
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                return f"{where}.{key}"
            found = first_difference(before[key], after[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(before, list):
        if len(before) != len(after):
            return f"{where}[len]"
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            found = first_difference(b, a, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if before == after else where


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["record", "compare"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--repo", type=Path, action="append", default=[])
    args = parser.parse_args()
    reports = collect(args.demo, args.repo)
    if args.mode == "record":
        args.file.write_text(json.dumps(reports, indent=1, sort_keys=True))
        print(f"recorded {len(reports)} reports in {args.file}")
        return 0
    before = json.loads(args.file.read_text())
    differs = first_difference(before, reports)
    if differs:
        print(f"reports differ at {differs}")
        return 1
    print(f"{len(reports)} reports identical (generated_at aside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
