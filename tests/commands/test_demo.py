from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Run


def test_demo_corpus_audits_with_defects(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    assert run.exit_code == 1
    assert run.json["projects_audited"] == 9
    assert run.findings("context-budget", "beacon")
