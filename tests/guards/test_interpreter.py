"""Every interpreter the doctor starts runs isolated (docs/caches.md, round three)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import context_doctor
from context_doctor.guards import interpreter
from context_doctor.guards.interpreter import FULL_ISOLATION, KEEP_USER_SITE, isolation_flags


def test_a_doctor_in_a_virtualenv_or_the_system_runs_fully_isolated() -> None:
    assert isolation_flags() == ("-I",) == FULL_ISOLATION


def test_a_doctor_in_the_user_site_keeps_it_and_drops_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `pip install --user`: -I would hide the doctor itself; -E -P still keep the working
    # directory and PYTHONPATH off the import path.
    package_home = Path(context_doctor.__file__).parent.parent
    monkeypatch.setattr(interpreter.site, "getusersitepackages", lambda: str(package_home))
    assert isolation_flags() == KEEP_USER_SITE == ("-E", "-P")


@pytest.mark.parametrize("flags", [FULL_ISOLATION, KEEP_USER_SITE])
def test_the_flags_keep_a_planted_package_off_the_import_path(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    planted = tmp_path / "context_doctor"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit('planted package imported')\n")
    done = subprocess.run(
        [sys.executable, *flags, "-c", "import context_doctor; print(context_doctor.__file__)"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).parent == Path(context_doctor.__file__).parent
