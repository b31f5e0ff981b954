"""The completion reading of a CONTEXT.md header (docs/layouts.md "Files inside a project")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from context_doctor.model.document_facts import HeaderField
from context_doctor.model.documents import Document
from context_doctor.model.header import completion_reading, pause_reading, value_verdict


def fields(name: str, *values: str) -> list[HeaderField]:
    return [HeaderField(name, value, line) for line, value in enumerate(values, start=3)]


# -- one value ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "Completed",
        "Complete",
        "completed 2026-05-30",
        "Shipped",
        "Closed",
        "Done",
        "Archived",
        "Superseded by atlas",
        "DONE",
        "v2.0 shipped",
    ],
)
def test_a_completion_word_alone_reads_completed(value: str) -> None:
    assert value_verdict(value) is True


@pytest.mark.parametrize("value", ["Active", "active", "ACTIVE", "Active (standing)"])
def test_active_alone_reads_not_completed(value: str) -> None:
    assert value_verdict(value) is False


@pytest.mark.parametrize(
    "value",
    [
        "Not complete",
        "Not yet complete",
        "not yet completed",
        "not completed yet",
        "Not yet complete — shipping soon",
        "Nearly done but not yet complete",
    ],
)
def test_not_yet_complete_reads_not_completed(value: str) -> None:
    assert value_verdict(value) is False


@pytest.mark.parametrize(
    "value",
    [
        "Paused",
        "paused until Q3",
        "On hold",
        "on  hold pending budget",
        "Parked",
        "Parked (was active)",
    ],
)
def test_paused_on_hold_parked_read_not_completed(value: str) -> None:
    assert value_verdict(value) is False


@pytest.mark.parametrize(
    "value",
    ["Ongoing", "ongoing (standing seat)", "New", "In progress", "in  progress — round 3", "NEW"],
)
def test_retired_live_statuses_read_not_completed(value: str) -> None:
    # The index vocabulary recognises these; the header must give them a verdict too.
    assert value_verdict(value) is False


@pytest.mark.parametrize("value", ["Superseded", "superseded by atlas", "Superseded (2026-05)"])
def test_superseded_reads_completed(value: str) -> None:
    assert value_verdict(value) is True


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Shipped v1, ongoing maintenance", True),  # leading clause decides
        ("Ongoing, v1 shipped", False),
        ("New: nothing shipped yet", False),
        ("Superseded; was in progress", True),
        ("Renewal pending", None),  # whole words only: `renewal` is not `new`
        ("Newsletter draft", None),
    ],
)
def test_live_words_with_completion_words_whichever_comes_first(
    value: str, expected: bool | None
) -> None:
    assert value_verdict(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Shipped and active", True),  # completion word first
        ("Done, but still active", True),
        ("Active and done", False),  # active first
        ("Active until it is closed", False),
    ],
)
def test_active_with_a_completion_word_whichever_comes_first(value: str, expected: bool) -> None:
    assert value_verdict(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Active — completed phase 1", False),
        ("Completed — was active until May", True),
        ("Active, shipped v1", False),
        ("Shipped; active again for v2", True),
        ("Active | done with the spike", False),
        ("Active (completed the audit)", False),
        ("Completed. Was active until May", True),
        ("Active -- shipped soon", False),
        ("Shipped -- but active", True),
        ("Paused — shipped v1 first", False),
        ("Completed (paused the follow-up)", True),
    ],
)
def test_the_leading_clause_decides_when_it_can(value: str, expected: bool) -> None:
    assert value_verdict(value) is expected


@pytest.mark.parametrize(
    "value",
    [
        "Phase 3 (complete)",
        "Review (paused)",
        "Round 11 — active",
        "— completed",  # empty leading clause
        "In review; done by June",
        # A real active project's Status: the completion word is later prose.
        "Tools reframed as pipeline nodes (intake, scoring, report). Roster email sent — asking "
        "for a complete suite description of every tool. Awaiting response.",
        "Roster email sent — asking for a complete suite description",
    ],
)
def test_a_silent_leading_clause_gives_no_verdict(value: str) -> None:
    # docs/layouts.md: only the leading clause decides; a completion word later in prose never does.
    assert value_verdict(value) is None


def test_a_decimal_point_does_not_end_the_clause() -> None:
    assert value_verdict("v2.0 shipped") is True
    assert value_verdict("Completed. Was active until May") is True
    assert value_verdict("Drafting v1. Everything else done") is None


def test_a_long_status_with_a_later_completion_word_falls_to_the_phase() -> None:
    status = fields(
        "Status",
        "Tools reframed as pipeline nodes (…). Roster email sent — asking for a complete suite "
        "description… Awaiting response.",
    )
    assert completion_reading(status, fields("Phase", "Active Evaluation — scoring tools")) is False
    assert completion_reading(status, []) is None


@pytest.mark.parametrize(
    "value",
    [
        "Completeness review",
        "Incomplete",
        "incomplete draft",
        "Inactive",
        "parking lot",
        "completed_date pending",
        "Under review",
        "Build",
        "Discovery (round 2)",
        "",
    ],
)
def test_whole_words_only_and_silence(value: str) -> None:
    assert value_verdict(value) is None


# -- the header as a whole ---------------------------------------------------------------


def test_status_before_phase() -> None:
    assert completion_reading(fields("Status", "Active"), fields("Phase", "Shipped")) is False
    assert completion_reading(fields("Status", "Completed"), fields("Phase", "Build")) is True


def test_phase_only_when_no_status_value_gives_a_verdict() -> None:
    assert completion_reading(fields("Status", "Under review"), fields("Phase", "Shipped")) is True
    assert completion_reading([], fields("Phase", "Closed")) is True
    assert completion_reading([], fields("Phase", "Build (round 3)")) is None


def test_status_values_in_order_first_verdict_wins() -> None:
    assert completion_reading(fields("Status", "Under review", "Completed", "Active"), []) is True
    assert completion_reading(fields("Status", "Active", "Completed"), []) is False


def test_phase_values_in_order_after_status() -> None:
    status = fields("Status", "Under review", "Incomplete")
    assert completion_reading(status, fields("Phase", "Discovery", "Parked", "Done")) is False


def test_no_fields_or_only_silent_ones_give_no_verdict() -> None:
    assert completion_reading([], []) is None
    assert (
        completion_reading(fields("Status", "Completeness review"), fields("Phase", "Build"))
        is None
    )


# -- the reading on a real CONTEXT.md -------------------------------------------------------


def test_header_fields_end_at_the_next_field_on_the_line(tmp_path: Path) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_text(
        "# X\n\n**Phase:** Shipped **Status:** Active — wrapping up\n\n## Notes\n**Status:** Completed\n",
        encoding="utf-8",
    )
    document = Document(path, "CONTEXT.md")
    status = document.field_values("Status")
    phase = document.field_values("Phase")
    assert [f.value for f in status] == ["Active — wrapping up"]  # body field not read
    assert [f.value for f in phase] == ["Shipped"]
    assert completion_reading(status, phase) is False


def test_ongoing_status_header_gets_its_cross_check(
    make_repo: Callable[[Mapping[str, Any]], Path], doctor: Callable[..., Any]
) -> None:
    """`**Status:** Ongoing` with index `ongoing`: a verdict, never record-unreadable."""
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: seat\n  status: ongoing\n"
                        "  last_session: 2026-06-01\n- id: old\n  status: superseded\n"
                        "  last_session: 2026-06-01\n",
                        "projects/seat/CONTEXT.md": "# Seat\n\n**Status:** Ongoing\n"
                        "**Last session:** 2026-06-01\n",
                        "projects/old/CONTEXT.md": "# Old\n\n**Status:** Active\n"
                        "**Last session:** 2026-06-01\n",
                    },
                }
            ]
        }
    )
    run = doctor("check", "--source", str(root), "--today", "2026-06-02", "--json")
    assert run.exit_code in (0, 1), run.stderr
    assert not [f for f in run.json["findings"] if f["check"] == "record-unreadable"]
    # `old`'s index says superseded (completed) while its header says active: the cross-check ran.
    disagreements = [
        f
        for f in run.json["findings"]
        if f["check"] == "status-agreement" and f["project"] == "old"
    ]
    assert len(disagreements) == 1, run.json["findings"]
    assert not [
        f
        for f in run.json["findings"]
        if f["check"] == "status-agreement" and f["project"] == "seat"
    ]


# -- header fields read line by line, in every spelling -------------------------


def _fields_of(tmp_path: Path, text: str) -> list[tuple[str, str, int]]:
    path = tmp_path / "CONTEXT.md"
    path.write_text(text, encoding="utf-8")
    return [(f.name, f.value, f.line) for f in Document(path, "CONTEXT.md").header_fields]


def test_a_header_paragraph_right_above_a_rule_is_still_read_as_fields(tmp_path: Path) -> None:
    """The seed's template: three field lines, then `---` (a setext heading to CommonMark)."""
    text = (
        "# Atlas — Working Context\n\n**Phase:** Build (round 2)\n**Status:** Paused — vendor\n"
        "**Last session:** 2026-04-18\n---\n\n## Current State\n- x\n"
    )
    assert _fields_of(tmp_path, text) == [
        ("Phase", "Build (round 2)", 3),
        ("Status", "Paused — vendor", 4),
        ("Last session", "2026-04-18", 5),
    ]
    document = Document(tmp_path / "CONTEXT.md", "CONTEXT.md")
    # The field paragraph is no section: the first `##` is the real one.
    assert [(h.level, h.text) for h in document.headings] == [
        (1, "Atlas — Working Context"),
        (2, "Current State"),
    ]


def test_bold_colon_outside_and_bare_fields_are_fields(tmp_path: Path) -> None:
    text = "# Old\n\n**Status**: Completed\nPhase: Handover\nLast session: 2026-03-01\n---\n"
    assert _fields_of(tmp_path, text) == [
        ("Status", "Completed", 3),
        ("Phase", "Handover", 4),
        ("Last session", "2026-03-01", 5),
    ]


def test_prose_and_the_body_are_not_fields(tmp_path: Path) -> None:
    text = (
        "# X\n\nFor stable reference facts: see [REFERENCE.md](REFERENCE.md)\n"
        "the status: lower-case prose\n```\nStatus: in a fence\n```\n\n## Notes\nStatus: Completed\n"
    )
    assert _fields_of(tmp_path, text) == []


def test_a_value_ends_at_the_next_field_in_any_spelling(tmp_path: Path) -> None:
    text = "# X\n\nStatus: Active **Phase**: Build **Last session:** 2026-06-01\n"
    assert _fields_of(tmp_path, text) == [
        ("Status", "Active", 3),
        ("Phase", "Build", 3),
        ("Last session", "2026-06-01", 3),
    ]


@pytest.mark.parametrize(
    ("status", "paused"),
    [
        ("Paused — waiting on the vendor", True),
        ("On hold until Q3", True),
        ("Parked", True),
        ("Active — paused the vendor thread", False),
        ("Completed (paused the follow-up)", False),
        ("Waiting on the vendor", False),
    ],
)
def test_the_pause_reading_is_the_deciding_leading_clause(status: str, paused: bool) -> None:
    assert (pause_reading(fields("Status", status), []) is not None) is paused
