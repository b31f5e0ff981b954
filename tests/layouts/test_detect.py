"""Detection (SPEC §10): each probe is a pure function of a tree listing, first match wins."""

from __future__ import annotations

import pytest

from context_doctor.layouts import IN_CONTEXT, MEMORY_BANK, SEED, SEED_SINGLE, SINGLE_FILE
from context_doctor.layouts.detect import SHAPES, detect_in


class FakeTree:
    """A tree of files (path -> text) and the folders holding them."""

    def __init__(self, files: dict[str, str], folders: tuple[str, ...] = ()) -> None:
        self.files = files
        self.folders = set(folders)
        for path in files:
            parts = path.split("/")
            self.folders.update("/".join(parts[:end]) for end in range(1, len(parts)))

    def is_file(self, relative: str) -> bool:
        return relative in self.files

    def is_dir(self, relative: str) -> bool:
        return relative in self.folders

    def names(self, relative: str) -> list[str]:
        prefix = f"{relative}/" if relative else ""
        return sorted(
            {
                p[len(prefix) :].split("/")[0]
                for p in [*self.files, *self.folders]
                if p.startswith(prefix)
            }
        )

    def lines(self, relative: str) -> list[str] | None:
        text = self.files.get(relative)
        return None if text is None else text.splitlines()


GLOSSARY = "# Domain terms\n\n" + "".join(f"- **Term {n}** means thing {n}.\n" for n in range(400))
WORKING = "# Acme\n\n**Status:** active\n**Last session:** 2026-07-01\n"


def test_the_seed_layout_comes_first() -> None:
    found = detect_in(FakeTree({"projects/index.yaml": "projects: []\n", "STATUS.md": "x\n"}))
    assert found is not None and found.kind == SEED


def test_a_working_root_context_is_the_seed_single_project() -> None:
    found = detect_in(FakeTree({"CONTEXT.md": WORKING, "docs/STATUS.md": "x\n"}))
    assert found is not None
    assert (found.kind, found.context, found.working_memory) == (SEED_SINGLE, "CONTEXT.md", True)


def test_a_glossary_context_does_not_stop_the_search() -> None:
    found = detect_in(FakeTree({"CONTEXT.md": GLOSSARY, "docs/STATUS.md": "Status: ok\n"}))
    assert found is not None and (found.kind, found.context) == (SINGLE_FILE, "docs/STATUS.md")


def test_a_glossary_context_alone_is_the_project_but_not_working_memory() -> None:
    found = detect_in(FakeTree({"CONTEXT.md": GLOSSARY}))
    assert found is not None
    assert (found.kind, found.working_memory) == (SEED_SINGLE, False)


def test_a_glossary_beside_a_dated_log_is_working_memory() -> None:
    found = detect_in(FakeTree({"CONTEXT.md": GLOSSARY, "sessions/2026-07.md": "## 2026-07-01\n"}))
    assert found is not None and found.working_memory


@pytest.mark.parametrize(
    ("files", "context", "sessions"),
    [
        ({"STATUS.md": "x"}, "STATUS.md", IN_CONTEXT),
        (
            {"docs/STATUS.md": "x", "docs/sessions/2026-07.md": "x"},
            "docs/STATUS.md",
            "docs/sessions",
        ),
        ({"PROGRESS.md": "x", "sessions/a.md": "x"}, "PROGRESS.md", "sessions"),
        ({"docs/PROGRESS.md": "x", "sessions/a.md": "x"}, "docs/PROGRESS.md", "sessions"),
        ({"HANDOFF.md": "x"}, "HANDOFF.md", IN_CONTEXT),
        (
            {"docs/handoff/state.md": "x", "docs/handoff/sessions/a.md": "x"},
            "docs/handoff/state.md",
            "docs/handoff/sessions",
        ),
    ],
)
def test_single_file_layouts_and_their_logs(
    files: dict[str, str], context: str, sessions: str
) -> None:
    found = detect_in(FakeTree(files))
    assert found is not None
    assert (found.kind, found.context, found.sessions) == (SINGLE_FILE, context, sessions)
    assert not found.declared and found.describe() == f"layout {context}, detected"


def test_clines_memory_bank() -> None:
    found = detect_in(
        FakeTree({"memory-bank/activeContext.md": "x", "memory-bank/progress.md": "x"})
    )
    assert found is not None
    assert (found.kind, found.context, found.sessions) == (
        MEMORY_BANK,
        "memory-bank/activeContext.md",
        "memory-bank/progress.md",
    )


def test_an_instructions_file_counts_only_with_a_current_status_section() -> None:
    assert detect_in(FakeTree({"CLAUDE.md": "# Rules\n\n## Style\nx\n"})) is None
    found = detect_in(
        FakeTree(
            {"CLAUDE.md": "# Rules\n\n## Current Status\nPhase: 2\n", "docs/sessions/a.md": ""}
        )
    )
    assert found is not None
    assert (found.context, found.section, found.sessions) == (
        "CLAUDE.md",
        "Current Status",
        "docs/sessions",
    )


def test_a_current_status_heading_inside_code_is_no_section() -> None:
    fenced = "# Rules\n\n```\n## Current status\n```\n"
    assert detect_in(FakeTree({"AGENTS.md": fenced})) is None


def test_nothing_matches_and_every_shape_is_named() -> None:
    assert detect_in(FakeTree({"README.md": "x", "src/main.py": "x"})) is None
    assert len(SHAPES) == 6 and any("memory-bank" in shape for shape in SHAPES)
