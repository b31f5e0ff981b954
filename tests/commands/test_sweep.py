"""``context-doctor sweep`` (docs/surfaces.md): report-only, writes the cache, 2 only without ground truth."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import Run

Doctor = Callable[..., Run]
TODAY = "2026-06-20"


def console(home: Path, *roots: Path) -> None:
    sources = "".join(
        f"  - name: s{n}\n    root: {root}\n    projects_dir: projects\n"
        for n, root in enumerate(roots)
    )
    (home / "console.yaml").write_text(f"sources:\n{sources}", encoding="utf-8")


def test_sweep_exits_0_with_defects_and_writes_the_cache(
    scenario_repo: Callable[[str], Path], doctor: Doctor, isolated_home: Path
) -> None:
    console(isolated_home, scenario_repo("demo"))
    run = doctor("sweep", "--today", TODAY)
    assert run.exit_code == 0, run.stderr
    lines = run.stdout.splitlines()
    cached = json.loads(
        (isolated_home / "context-doctor" / "last-report.json").read_text(encoding="utf-8")
    )
    assert cached["defects"] > 0 and cached["readiness"] == "local"
    assert lines[-1].startswith(
        f"DEFECTS: {cached['projects_audited']} projects audited, {cached['defects']} defects"
    )
    assert any(line.startswith("coverage ") and "skipped" in line for line in lines)


def test_sweep_without_ground_truth_is_exit_2_and_leaves_the_cache(
    doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    missing = doctor("sweep", "--today", TODAY)
    assert missing.exit_code == 2
    assert "console.yaml" in missing.stderr and missing.stderr.count("\n") == 1
    assert "synthesis v5 lists no `knowledge_roots`" in missing.stderr
    console(isolated_home, tmp_path / "gone")
    run = doctor("sweep", "--today", TODAY)
    assert run.exit_code == 2
    assert "does not exist" in run.stderr
    assert not (isolated_home / "context-doctor" / "last-report.json").exists()


def test_one_missing_source_never_sinks_the_sweep(
    scenario_repo: Callable[[str], Path], doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    console(isolated_home, tmp_path / "gone", scenario_repo("demo"))
    run = doctor("sweep", "--today", TODAY)
    assert run.exit_code == 2  # a source could not be audited
    assert run.stderr.startswith("context-doctor: error: source `s0` could not be audited")
    assert str(tmp_path / "gone") in run.stderr and run.stderr.count("\n") == 1
    cached = json.loads(
        (isolated_home / "context-doctor" / "last-report.json").read_text(encoding="utf-8")
    )
    assert cached["projects_audited"] > 0 and cached["sources"] == 1
    assert [(s["name"], s["audited"]) for s in cached["source_details"]] == [
        ("s1", True),
        ("s0", False),
    ]
    assert (cached["ok"], cached["exit"]) == (False, 2)


def test_sweep_audits_the_consoles_workspaces_without_console_yaml(
    scenario_repo: Callable[[str], Path], doctor: Doctor, isolated_home: Path
) -> None:
    user_home = Path(os.environ["HOME"])
    target = user_home / "workspaces" / "me" / "ai-knowledge-demo"
    target.parent.mkdir(parents=True)
    shutil.copytree(scenario_repo("demo"), target, symlinks=True)
    run = doctor("sweep", "--today", TODAY)
    assert run.exit_code == 0, run.stderr
    cached = json.loads(
        (isolated_home / "context-doctor" / "last-report.json").read_text(encoding="utf-8")
    )
    assert [s["name"] for s in cached["source_details"]] == ["demo"]


def test_without_console_yaml_the_sweep_audits_v5s_knowledge_roots(
    scenario_repo: Callable[[str], Path], doctor: Doctor, isolated_home: Path
) -> None:
    # SYNTHESIS_HOME holding config.json is synthesis v5's folder (docs/surfaces.md): its roots are
    # the corpus, and the console's files (none here, then the cache) are in ~/.synthesis.
    root = scenario_repo("demo")
    (isolated_home / "config.json").write_text(
        json.dumps({"knowledge_roots": [str(root)]}), encoding="utf-8"
    )
    run = doctor("sweep", "--today", TODAY)
    assert run.exit_code == 0, run.stderr
    cache = Path(os.environ["HOME"]) / ".synthesis" / "context-doctor" / "last-report.json"
    cached = json.loads(cache.read_text(encoding="utf-8"))
    assert [source["root"] for source in cached["source_details"]] == [str(root.resolve())]
