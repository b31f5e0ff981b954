"""artifact-cites-missing-script on a real git repository: every reason, the quiet cases, the skip."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_not_applicable,
    assert_quiet,
    audit,
    line_of,
)

TODAY = "2026-06-20"
CHECK = "artifact-cites-missing-script"
ARTIFACT = "projects/tools/resources/artifacts/report.md"

REPORT = """\
# Throughput report

The numbers come from `python resources/scripts/run.py --all` (see ../scripts/tools/).
Again: resources/scripts/run.py.
Missing: resources/scripts/gone.py, and again resources/scripts/gone.py
Empty: resources/scripts/empty/
Escaping: resources/scripts/../../../x and ../scripts/../notes.md
Linked: resources/scripts/link.py
A pipe: resources/scripts/pipe
Not a citation: projects/tools/resources/scripts/gone.py or ../../scripts/gone.py
```bash
python ../scripts/also-gone.py
```
"""


def context(name: str) -> str:
    return f"# {name}\n\n**Status:** Active\n**Last session:** 2026-06-18\n"


@pytest.fixture
def root(make_repo: MakeRepo) -> Path:
    files: dict[str, Any] = {
        "projects/index.yaml": "projects:\n"
        + "".join(f"  - id: {p}\n    status: active\n" for p in ("tools", "plain", "linked")),
        "projects/tools/CONTEXT.md": context("Tools"),
        ARTIFACT: REPORT,
        "projects/tools/resources/artifacts/nested/deeper.md": "resources/scripts/nowhere.py\n",
        "projects/tools/resources/scripts/run.py": "print('run')\n",
        "projects/tools/resources/scripts/tools/helper.py": "print('help')\n",
        "projects/plain/CONTEXT.md": context("Plain"),
        "projects/linked/CONTEXT.md": context("Linked"),
        "projects/linked/resources/artifacts/a.md": "Run resources/scripts/run.py\n",
        "projects/linked/real-scripts/run.py": "print('run')\n",
    }
    built = make_repo({"commits": [{"date": "2026-06-18T10:00:00+00:00", "files": files}]})
    scripts = built / "projects/tools/resources/scripts"
    (scripts / "empty").mkdir()
    (scripts / "empty" / ".gitkeep").write_text("")
    (scripts / "link.py").symlink_to("run.py")
    os.mkfifo(scripts / "pipe")
    (built / "projects/linked/resources/scripts").symlink_to("../real-scripts")
    return built


def run_on(doctor: Doctor, root: Path, project: str) -> Run:
    return audit(doctor, "--project", str(root / "projects" / project), today=TODAY)


def test_every_reason_once_per_citation(doctor: Doctor, root: Path) -> None:
    run = run_on(doctor, root, "tools")
    found = {(f["line"], f["message"]) for f in run.findings(CHECK, "tools")}
    assert all(f["path"] == ARTIFACT and f["severity"] == "warning" for f in run.findings(CHECK))

    def at(needle: str) -> int:
        return line_of(root, ARTIFACT, needle)

    assert found == {
        (at("Missing:"), "cites `resources/scripts/gone.py`, which does not exist"),
        (at("Empty:"), "cites `resources/scripts/empty/`, which is an empty directory"),
        (
            at("Escaping:"),
            "cites `resources/scripts/../../../x`, which escapes resources/scripts/ "
            "(resolves to `../x`)",
        ),
        (
            at("Escaping:"),
            "cites `../scripts/../notes.md`, which escapes resources/scripts/ "
            "(resolves to `resources/notes.md`)",
        ),
        (
            at("Linked:"),
            "cites `resources/scripts/link.py`, which traverses a symlink "
            "(`resources/scripts/link.py`)",
        ),
        (at("A pipe:"), "cites `resources/scripts/pipe`, which is not a regular file"),
        (at("also-gone"), "cites `../scripts/also-gone.py`, which does not exist"),
    }
    assert run.json["coverage"][CHECK] == {"examined": 1, "skipped": 0, "reasons": {}}


def test_a_symlinked_scripts_directory_is_traversal(doctor: Doctor, root: Path) -> None:
    (finding,) = run_on(doctor, root, "linked").findings(CHECK, "linked")
    assert finding["message"] == (
        "cites `resources/scripts/run.py`, which traverses a symlink (`resources/scripts`)"
    )


def test_project_without_artifacts_is_skipped(doctor: Doctor, root: Path) -> None:
    assert_not_applicable(run_on(doctor, root, "plain"), CHECK, "no artifacts")


def test_citations_that_resolve_are_quiet(doctor: Doctor, make_repo: MakeRepo) -> None:
    built = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "projects:\n  - id: ok\n    status: active\n",
                        "projects/ok/CONTEXT.md": context("Ok"),
                        "projects/ok/resources/artifacts/a.md": (
                            "Run `resources/scripts/run.py`, see [dir](../scripts/lib/).\n"
                        ),
                        "projects/ok/resources/scripts/run.py": "print(1)\n",
                        "projects/ok/resources/scripts/lib/x.py": "print(2)\n",
                    },
                }
            ]
        }
    )
    assert_quiet(run_on(doctor, built, "ok"), CHECK)


def test_a_symlinked_or_unreadable_artifact_is_reported(doctor: Doctor, root: Path) -> None:
    artifacts = root / "projects/tools/resources/artifacts"
    (artifacts / "linked.md").symlink_to("report.md")
    (artifacts / "binary.md").write_bytes(b"\xff\xfe resources/scripts/x")
    messages = {f["message"] for f in run_on(doctor, root, "tools").findings(CHECK)}
    assert (
        "projects/tools/resources/artifacts/linked.md is a symlink; it is not read: its script "
        "citations cannot be verified"
    ) in messages
    assert any(
        m.startswith("projects/tools/resources/artifacts/binary.md is not valid UTF-8")
        for m in messages
    )
