"""Detection (docs/layouts.md): each probe is a pure function of a tree listing, first match wins."""

from __future__ import annotations

import pytest

from context_doctor.layouts import IN_CONTEXT, MEMORY_BANK, SEED, SEED_SINGLE, SINGLE_FILE
from context_doctor.layouts.detect import SHAPES, detect_in, survey_in


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


# -- status sections by their words, not their spelling (docs/layouts.md) -----------------

INTRO = "# CLAUDE.md\n\nGuidance for agents in this repository.\n\n"


@pytest.mark.parametrize(
    "heading",
    [
        "## Current status",
        "## Current State",
        "## CURRENT STATE (March 13, 2026)",
        "## Current State (Updated: 2025-12-12)",
        "## Current status (2026-11-28)",
        "## 📍 Current state",
        "## Current State (Updated: January 2026 - parser port)",  # a month is no date
        "## Project Status — 2026-11-28",
        "## Status (2026-11-28)",
        "## State (Updated: 30.04.2026)",
    ],
)
def test_a_status_section_by_its_words(heading: str) -> None:
    text = f"{INTRO}## Commands\n\n- make test\n\n{heading}\n\n- Porting the parser.\n"
    found = detect_in(FakeTree({"CLAUDE.md": text}))
    assert found is not None and found.kind == SINGLE_FILE
    assert found.section == heading.removeprefix("## ")


@pytest.mark.parametrize(
    "heading",
    [
        "### Current status",  # not a level-2 heading
        "## Current status of the parser",  # words after it: another subject
        "## State machine",
        "## Status: shipped",  # a field, not a section
        "## Project status",  # no date and no log: a standing statement (below)
        "## Status",
    ],
)
def test_no_status_section(heading: str) -> None:
    text = f"{INTRO}{heading}\n\nThis is an unmaintained research playground; no support.\n"
    assert detect_in(FakeTree({"AGENTS.md": text})) is None


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({"CLAUDE.md": f"{INTRO}## Project status\n\nUpdated: 2026-11-02\n\n- Beta.\n"}, "line"),
        (
            {"CLAUDE.md": f"{INTRO}## Status\n\n- Beta.\n", "docs/sessions/2026-11.md": "x"},
            "log",
        ),
        ({"CLAUDE.md": f"{INTRO}## State\n\n### 2026-11-02 — beta\n\n- Beta.\n"}, "entries"),
    ],
)
def test_a_plain_status_section_with_a_date_or_a_log_is_working_memory(
    files: dict[str, str], why: str
) -> None:
    found = detect_in(FakeTree(files))
    assert found is not None and found.context == "CLAUDE.md", why


def test_the_current_heading_wins_over_a_plain_one() -> None:
    text = f"{INTRO}## Status\n\nStable.\n\n## Current State\n\n- Porting.\n"
    found = detect_in(FakeTree({"CLAUDE.md": text}))
    assert found is not None and found.section == "Current State"


def test_a_root_context_file_with_a_current_state_section_is_working_memory() -> None:
    """None of the seed's fields, only a status section: a single-file record its own last
    commit dates (docs/layouts.md), never the seed's template it never followed."""
    text = "# Plaud tools\n\nCommand-line helpers.\n\n## Current State\n\n- v0.7 shipped.\n"
    found = detect_in(FakeTree({"CONTEXT.md": text}))
    assert found is not None and (found.kind, found.working_memory) == (SINGLE_FILE, True)
    assert found.section == "Current State"
    seed_style = text.replace("helpers.\n", "helpers.\n\n**Status:** active\n")
    found = detect_in(FakeTree({"CONTEXT.md": seed_style}))
    assert found is not None and (found.kind, found.working_memory) == (SEED_SINGLE, True)


# -- near misses: working memory just off the layouts table --------------------------------


@pytest.mark.parametrize(
    ("files", "context", "sessions"),
    [
        (
            {"SESSION_LOG.md": "# Log\n\n## Session: 2026-02-15 18:02\n\n### Done\n"},
            "SESSION_LOG.md",
            IN_CONTEXT,
        ),
        (
            {"docs/SESSION_LOG.md": "# Log\n\n## 2026-05-20 — t\n", "docs/sessions/x.md": ""},
            "docs/SESSION_LOG.md",
            IN_CONTEXT,  # a log that is its own record
        ),
        ({".claude/STATUS.md": "# Status\n\n- Beta.\n"}, ".claude/STATUS.md", IN_CONTEXT),
        (
            {"docs/session-handoff.md": "# Hand-off\n\n**Last updated:** 2026-02-01\n"},
            "docs/session-handoff.md",
            IN_CONTEXT,
        ),
        ({"docs/progress.md": "# Progress\n\n## What works\n"}, "docs/progress.md", IN_CONTEXT),
        ({"Status.md": "# Status\n"}, "Status.md", IN_CONTEXT),
        ({"NOTES.md": "# Notes\n\n## [2026-03-02] hand-off\n"}, "NOTES.md", IN_CONTEXT),
        (
            {"PROJECT_STATUS.md": "# Stan\n> **Data:** 26 maja 2025\n"},
            "PROJECT_STATUS.md",
            IN_CONTEXT,
        ),
        (
            {".planning/STATE.md": "# State\n\n## Position\n\nLast activity: 2026-02-26 — v1\n"},
            ".planning/STATE.md",
            IN_CONTEXT,
        ),
        (
            {"docs/SESSION_NOTES.md": "# Notes\n\nA snapshot. Updated 2026-07-23 after renames.\n"},
            "docs/SESSION_NOTES.md",
            IN_CONTEXT,
        ),
        (
            {
                "context/STATUS.md": "# Status\n\n**Last Updated:** 2025-10-14 (v2)\n",
                "context/SESSIONS.md": "# History\n\n## Session 20 | 2025-10-14 | Plan\n",
            },
            "context/STATUS.md",
            "context/SESSIONS.md",
        ),
        (
            {"SESSION_HANDOFF.md": "# Start here\n\n## Start here — 2026-05-01 (sprint 4)\n"},
            "SESSION_HANDOFF.md",
            IN_CONTEXT,
        ),
    ],
)
def test_a_near_miss_is_detected_and_named_so(
    files: dict[str, str], context: str, sessions: str
) -> None:
    found = detect_in(FakeTree(files))
    assert found is not None
    assert (found.kind, found.context, found.sessions) == (SINGLE_FILE, context, sessions)
    assert found.near and found.describe() == f"layout {context}, detected (near the layouts table)"
    assert "near the layouts table" in dict(found.matched)["context"]


@pytest.mark.parametrize(
    "files",
    [
        {"docs/session-handoff.md": "# Design: a hand-off feature\n\nHow it should work.\n"},
        {"NOTES.md": "# Notes\n\nUpdated: 2026-01-02\n\n- Ideas.\n"},  # a date, no dated entry
        {"SESSION_LOG.md": "# Session log\n\nNothing yet.\n"},
    ],
)
def test_a_near_miss_without_dates_is_seen_not_audited(files: dict[str, str]) -> None:
    tree = FakeTree(files)
    assert detect_in(tree) is None
    seen = survey_in(tree).seen
    assert [s.path for s in seen] == list(files)
    assert seen[0].layout.context == next(iter(files))


def test_the_table_comes_before_a_near_miss_and_the_second_record_is_named() -> None:
    tree = FakeTree(
        {"docs/PROGRESS.md": "# Progress\n\n## [2026-08-21] review\n", ".claude/STATUS.md": "x\n"}
    )
    found = survey_in(tree)
    assert found.layout is not None and found.layout.context == "docs/PROGRESS.md"
    assert not found.layout.near
    assert [other.context for other in found.others] == [".claude/STATUS.md"]


def test_a_log_file_beside_the_record_is_its_log_when_it_holds_dated_entries() -> None:
    files = {"docs/HANDOFF.md": "# Hand-off\n\n**Last updated**: 2026-05-26 10:00 UTC\n"}
    found = detect_in(
        FakeTree({**files, "docs/SESSION_LOG.md": "# Log\n\n## 2026-05-20 14:30 UTC\n"})
    )
    assert found is not None and found.sessions == "docs/SESSION_LOG.md"
    undated = detect_in(FakeTree({**files, "docs/SESSION_LOG.md": "# Log\n\nTBD.\n"}))
    assert undated is not None and undated.sessions == IN_CONTEXT
