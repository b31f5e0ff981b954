"""The suite's own isolation (conftest.py): git sees the pinned config only, plugins stay out."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from context_doctor.checks.registry import PLUGINS_OFF


def test_git_reads_the_pinned_config_and_nothing_else(
    hermetic_session: Path, tmp_path: Path
) -> None:
    listed = subprocess.run(
        ["git", "config", "--list", "--show-origin"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    origins = {line.split("\t", 1)[0] for line in listed.splitlines()}
    assert origins == {f"file:{hermetic_session}"}
    assert "commit.gpgsign=false" in listed and "core.hookspath" not in listed.lower()


def test_no_third_party_check_is_loaded_unless_a_test_asks() -> None:
    assert os.environ.get(PLUGINS_OFF)
