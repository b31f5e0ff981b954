"""``context-doctor layout [PATH]``: the [layout] table it would use, or exit 2 naming the shapes."""

from __future__ import annotations

import tomllib
from typing import Any

from support import Doctor, MakeRepo


def repo(files: dict[str, str]) -> dict[str, Any]:
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "message": "m", "files": files}]}


def test_a_detected_layout_is_a_table_to_paste(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(
        repo({"docs/handoff/state.md": "x\n", "docs/handoff/sessions/2026-06-01-a.md": "x\n"})
    )
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("# layout docs/handoff/state.md, detected")
    table = tomllib.loads(run.stdout)["layout"]
    assert table == {
        "context": "docs/handoff/state.md",
        "sessions": "docs/handoff/sessions",
        "name": root.name,
    }
    assert "# docs/handoff/sessions/ (a folder of dated logs)" in run.stdout
    assert "folder name (no origin remote)" in run.stdout


def test_a_declared_layout_is_shown_as_declared(make_repo: MakeRepo, doctor: Doctor) -> None:
    config = '[layout]\ncontext = "notes/now.md"\nname = "comics"\n'
    root = make_repo(repo({"context-doctor.toml": config, "notes/now.md": "x\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert "declared in" in run.stdout.splitlines()[0]
    assert tomllib.loads(run.stdout)["layout"] == {"context": "notes/now.md", "name": "comics"}


def test_a_glossary_is_said_to_be_no_working_memory(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(repo({"CONTEXT.md": "# Terms\n\n- **Order**: a purchase.\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 0, run.stderr
    assert "not working memory" in run.stdout


def test_nothing_matches_is_exit_2_listing_the_shapes(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(repo({"README.md": "# Tool\n"}))
    run = doctor("layout", str(root))
    assert run.exit_code == 2
    assert "matches no layout" in run.stderr
    for shape in ("projects/index.yaml", "docs/handoff/state.md", "memory-bank/activeContext.md"):
        assert shape in run.stderr
