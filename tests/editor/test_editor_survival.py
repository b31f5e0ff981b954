"""Every operation of the editor's Python API survives a refusal and a kill.

``tests/write/test_survival.py`` holds the write path's core to this; this module holds
the verbs built on it (``context_doctor.edit.__all__``: what a Python caller or an agent
calls). The test enumerates them and fails for a verb without an entry in
:data:`EDITOR_SURVIVAL`. **Adding a verb to the editor? Add its entry**:

* ``refused(project)``: call the verb so that it must refuse; the test asserts that every
  byte and name under the project is as it was;
* ``forward`` / ``back``: Python source doing the verb on ``target`` and undoing it; the
  harness runs ``forward`` once on a copy to learn the new bytes, then a child repeats
  forward and back until it is SIGKILLed at random moments: what is left is the old
  bytes or the new, never a mix.
"""

from __future__ import annotations

import inspect
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from write.test_survival import _state, kill_when_ready

import context_doctor.edit as editor
from context_doctor.errors import DoctorError
from context_doctor.write import WriteRefused

CONTEXT = (
    "# Atlas — Working Context\n\n"
    "**Phase:** Build (round 3)\n"
    "**Status:** Active — search index rewrite\n"
    "**Last session:** 2026-06-18 (round 3)\n\n"
    "## Current State\n"
    + "".join(f"- Indexer step {n} rewritten; query path next.\n" for n in range(1, 40))
    + "\n## What's Next\n1. [ ] Port the query path\n"
)
LOG = "# Sessions 2026-06\n\n## 2026-06-18 — round 3\nIndexer rewritten.\n"
KILLS = 5


@dataclass(frozen=True)
class Survival:
    refused: Callable[[Path], object]
    forward: str
    back: str
    target: str = "CONTEXT.md"


def _entry(project: Path, title: str) -> editor.LogEntry:
    return editor.LogEntry(project, date(2026, 6, 19), title, "Query path ported.")


EDITOR_SURVIVAL: dict[str, Survival] = {
    "set_field": Survival(
        refused=lambda p: editor.set_field(p / "CONTEXT.md", "Owner", "me"),
        forward="set_field(target, 'Phase', 'Build (round 3) — indexer')",
        back="set_field(target, 'Phase', 'Build (round 3)')",
    ),
    "replace_once": Survival(
        refused=lambda p: editor.replace_once(p / "CONTEXT.md", "Round 99", "x"),
        forward="replace_once(target, 'step 7 rewritten', 'step 7 rebuilt')",
        back="replace_once(target, 'step 7 rebuilt', 'step 7 rewritten')",
    ),
    "insert_before": Survival(
        refused=lambda p: editor.insert_before(p / "CONTEXT.md", "## Nope", "x\n"),
        forward="insert_before(target, \"## What's Next\", '- Ranking tuned.\\n')",
        back="delete_line(target, '- Ranking tuned.')",
    ),
    "delete_line": Survival(
        refused=lambda p: editor.delete_line(p / "CONTEXT.md", "- Nowhere"),
        forward="delete_line(target, '- Indexer step 7 ')",
        back=(
            "insert_before(target, '- Indexer step 8 ', "
            "'- Indexer step 7 rewritten; query path next.\\n')"
        ),
    ),
    "apply": Survival(
        refused=lambda p: editor.apply(
            [
                {"op": "set-field", "file": str(p / "CONTEXT.md"), "field": "Phase", "value": "x"},
                {"op": "replace", "file": str(p / "CONTEXT.md"), "anchor": "Round 99"},
            ]
        ),
        forward="apply([Edit('set-field', target, field='Phase', value='Build (round 3) — indexer')])",
        back="apply([Edit('set-field', target, field='Phase', value='Build (round 3)')])",
    ),
    "add_entry": Survival(
        # A session dated after --today is refused before anything is read or written.
        refused=lambda p: editor.add_entry(_entry(p, "round 4"), today=date(2026, 6, 1)),
        forward="add_entry(LogEntry(here, date(2026, 6, 19), 'round 4', 'x'), today=date(2026, 6, 20))",
        back="write_file(target, old, within=here)",
        target="sessions/2026-06.md",
    ),
}

PREAMBLE = """\
import sys
from datetime import date
from pathlib import Path
from context_doctor.edit import *
from context_doctor.write import write_file
here = Path(sys.argv[1])
target = here / sys.argv[2]
old = target.read_bytes()
"""

# Names of the editor's module that are not verbs (data and result types, constants).
NOT_VERBS: set[str] = set()


def _verbs() -> list[str]:
    return sorted(name for name in editor.__all__ if inspect.isfunction(getattr(editor, name)))


def _project(directory: Path) -> Path:
    project = directory / "projects" / "atlas"
    (project / "sessions").mkdir(parents=True)
    (project / "CONTEXT.md").write_text(CONTEXT, encoding="utf-8")
    (project / "sessions" / "2026-06.md").write_text(LOG, encoding="utf-8")
    return project


def test_every_verb_has_its_survival_entry() -> None:
    missing = [name for name in _verbs() if name not in EDITOR_SURVIVAL and name not in NOT_VERBS]
    assert missing == [], f"add a Survival entry for {missing} to EDITOR_SURVIVAL in {__file__}"
    assert set(EDITOR_SURVIVAL) <= set(_verbs())


@pytest.mark.parametrize("verb", sorted(EDITOR_SURVIVAL))
def test_a_refused_verb_leaves_every_byte_as_it_was(verb: str, tmp_path: Path) -> None:
    project = _project(tmp_path)
    before = _state(tmp_path)
    with pytest.raises((WriteRefused, DoctorError)):
        EDITOR_SURVIVAL[verb].refused(project)
    assert _state(tmp_path) == before


def _run(script: str, project: Path, target: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PREAMBLE + script, str(project), target],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")


@pytest.mark.parametrize("verb", sorted(EDITOR_SURVIVAL))
def test_a_killed_verb_leaves_old_or_new(verb: str, tmp_path: Path) -> None:
    survival = EDITOR_SURVIVAL[verb]
    project = _project(tmp_path / "work")
    scratch = _project(tmp_path / "scratch")
    old = (project / survival.target).read_bytes()
    _run(survival.forward, scratch, survival.target)
    new = (scratch / survival.target).read_bytes()
    assert new != old
    loop = (
        'print("ready", flush=True)\n'
        f"while True:\n    {survival.forward}\n    {survival.back}\n"
        "    assert target.read_bytes() == old\n"
    )
    rng = random.Random(f"{verb}-20261201")
    for _ in range(KILLS):
        argv = [sys.executable, "-c", PREAMBLE + loop, str(project), survival.target]
        kill_when_ready(argv, rng.uniform(0, 0.2))
        left = (project / survival.target).read_bytes()
        assert left in (old, new), (verb, left[-80:])
        # The next round starts from the old bytes, with nothing an interrupted batch left.
        shutil.rmtree(project.parent.parent)
        project = _project(tmp_path / "work")
