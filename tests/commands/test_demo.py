from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import REPO_ROOT, Run


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
