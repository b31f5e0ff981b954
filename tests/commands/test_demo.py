from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import REPO_ROOT, Run
from support import Doctor

from context_doctor.scenarios import build_scenario, scenario_path


def test_demo_corpus_audits_with_defects(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    assert run.exit_code == 1
    assert run.json["projects_audited"] == 10
    assert run.findings("context-budget", "beacon")


def test_demo_keeps_a_compiled_structured_project_and_a_broken_citation(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    """keel's CURRENT_STATE.json is valid and compiled; harbor's artifact cites a lost script."""
    root = scenario_repo("demo")
    run = doctor(
        "check", "--project", str(root / "projects" / "keel"), "--today", "2026-06-20", "--json"
    )
    assert run.findings(project="keel") == [], run.findings(project="keel")
    assert run.json["coverage"]["body-currency"]["reasons"] == {"structured state": 1}
    assert run.json["coverage"]["semantic-current-state"]["examined"] == 1
    harbor = doctor(
        "check", "--project", str(root / "projects" / "harbor"), "--today", "2026-06-20", "--json"
    )
    (finding,) = harbor.findings("artifact-cites-missing-script")
    assert finding["path"] == "projects/harbor/resources/artifacts/vendor-scores.md"
    assert "`resources/scripts/score_vendors.py`, which does not exist" in finding["message"]


def test_demo_vault_shows_every_planted_fault(doctor: Callable[..., Run]) -> None:
    run = doctor("demo", "--vault", "--output-format", "json")
    assert run.exit_code == 1, run.stderr
    fired = {finding["check"] for finding in run.json["findings"]}
    readme = (REPO_ROOT / "fixtures" / "scenarios" / "vault-demo.yaml").read_text("utf-8")
    named = set(re.findall(r"\| ([a-z-]+)(?: \((?:defect|warning)\))? \|\n", readme))
    assert named - {"check"} <= fired | {"audit-log-rewritten", "unaudited-change"}, named
    assert {"memory-frontmatter", "secret-in-memory", "floor-target"} <= fired


# -- every command a remedy proposes is one the doctor's own tools accept (#18 item 13) -------

_COMMAND = re.compile(r"`((?:printf '%s' [^`]*\| )?context-doctor [^`]*)`")
# Remedies still naming a placeholder instead of the file (freshness grades, #18 item 10).
_PLACEHOLDER = re.compile(r"\b(?:FILE|SLUG|PATH|YYYY-MM-DD)\b")


def test_every_command_shaped_remedy_on_the_demo_succeeds(tmp_path: Path, doctor: Doctor) -> None:
    root = build_scenario(scenario_path("demo"), tmp_path / "kb")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    proposed = sorted(
        {
            (f["check"], command)
            for f in run.json["findings"]
            for command in _COMMAND.findall(f["remedy"])
        }
    )
    runnable = [(check, command) for check, command in proposed if not _PLACEHOLDER.search(command)]
    assert any(check == "context-header-freshness" for check, _ in runnable), proposed
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for number, (check, command) in enumerate(runnable):
        fresh = build_scenario(scenario_path("demo"), tmp_path / f"kb{number}")
        done = subprocess.run(
            ["bash", "-c", command], cwd=fresh, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (check, command, done.stdout, done.stderr)
        if check == "context-header-freshness":  # the whole remedy is the command: it resolves
            after = doctor("check", "--source", str(fresh), "--today", "2026-06-20", "--json")
            assert not [f for f in after.json["findings"] if command in f["remedy"]], command
    # No remedy hands the editor an empty path (`state compile ` with nothing after it).
    for _, command in proposed:
        assert not re.search(r"(?:compile|init|add)\s*(?:`|$)", command), command
