"""Currency checks (docs/checks.md "Currency") on a real git corpus.

Every case is one project of ``fixtures/scenarios/currency.yaml`` (ids prefixed
hc-, hl-, bc-, ic- by the check they exercise), audited on 2026-08-27.
Findings come from an audit of the whole source; coverage from an audit
narrowed to one project with ``--project``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import (
    Doctor,
    MakeRepo,
    assert_examined,
    assert_not_applicable,
    assert_quiet,
    assert_skipped,
    line_of,
    scenario_audit_fixtures,
    sole,
)

TODAY = "2026-08-27"
SCENARIO = "currency"

root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)


def context_of(project: str) -> str:
    return f"projects/{project}/CONTEXT.md"


def log_of(project: str) -> str:
    return f"projects/{project}/sessions/2026-08.md"


# -- header-currency -----------------------------------------------------------


def test_same_day_round_behind_the_log_flags_last_session_only(corpus: Run, root: Path) -> None:
    """`Last session: 2026-08-23 (round 10)` against a same-day entry at round 11."""
    project = "hc-last-stale"
    finding = sole(corpus, "header-currency", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == context_of(project)
    assert finding["line"] == line_of(root, context_of(project), "**Last session:**", occurrence=1)
    assert "names round 10" in finding["message"]
    assert "reach round 11" in finding["message"]
    entry = line_of(root, log_of(project), "### 2026-08-23 (round 11)", occurrence=1)
    assert f"2026-08-23, {log_of(project)}:{entry}" in finding["message"]
    assert f"advance `**Last session:**` in {context_of(project)} to round 11" in finding["remedy"]
    assert finding["fix"] is None  # an ordinal in the header is a claim: never fixed
    # the date agrees, so the date check has nothing to say
    assert corpus.findings("context-header-freshness", project) == []


def test_stale_phase_is_judged_on_its_own(corpus: Run, root: Path) -> None:
    """A current Last session never masks a Phase naming an older round."""
    project = "hc-phase-stale"
    finding = sole(corpus, "header-currency", project)
    assert finding["line"] == line_of(root, context_of(project), "**Phase:**", occurrence=1)
    assert "`Phase: round 9" in finding["message"]
    assert "reach round 11" in finding["message"]


def test_lagging_date_is_reported_once_as_header_freshness(corpus: Run, root: Path) -> None:
    project = "hc-date-lags"
    assert corpus.findings("header-currency", project) == []
    finding = sole(corpus, "context-header-freshness", project)
    assert "2026-08-22 is behind the newest session-log entry 2026-08-23" in finding["message"]


def test_header_currency_quiet_when_current(one: Callable[[str], Run]) -> None:
    assert_quiet(one("hc-ok"), "header-currency")


def test_header_currency_quiet_across_families(one: Callable[[str], Run]) -> None:
    """`phase 2` is never compared with the log's `round 3`."""
    assert_quiet(one("hl-families"), "header-currency")


def test_header_currency_skipped_without_a_log(one: Callable[[str], Run]) -> None:
    assert_skipped(one("hc-no-log"), "header-currency", "no log")


# -- header-lag ------------------------------------------------------------------


def test_phase_ahead_of_last_session_is_header_lag(corpus: Run, root: Path) -> None:
    project = "hl-wave"
    finding = sole(corpus, "header-lag", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == context_of(project)
    assert finding["line"] == line_of(root, context_of(project), "**Phase:** wave 4", occurrence=1)
    last = line_of(root, context_of(project), "**Last session:**", occurrence=1)
    assert f"Phase names wave 4 but Last session names wave 3 (line {last})" in (finding["message"])


def test_families_are_never_compared(one: Callable[[str], Run]) -> None:
    """`Phase: phase 2` with `Last session: … (round 3)` and a log at round 3: nothing."""
    run = one("hl-families")
    assert_quiet(run, "header-lag")
    assert_quiet(run, "header-currency")
    assert_quiet(run, "body-currency")


@pytest.mark.parametrize("project", ["hc-ok", "hc-phase-stale"])
def test_header_lag_quiet_when_phase_is_not_ahead(one: Callable[[str], Run], project: str) -> None:
    assert_quiet(one(project), "header-lag")


def test_header_lag_has_no_skip(corpus: Run) -> None:
    """docs/checks.md: no skip reason. Paused and log-less projects are examined too."""
    assert corpus.json["coverage"]["header-lag"] == {
        "examined": corpus.json["projects_audited"],
        "skipped": 0,
        "reasons": {},
    }
    assert sole(corpus, "header-lag", "hl-paused")["severity"] == "defect"


# -- body-currency ---------------------------------------------------------------


def test_marker_naming_an_older_round_is_one_defect(corpus: Run, root: Path) -> None:
    """`*State as of: 2026-08-24 (round 13)*` under `## Current State`, log at round 14;
    the `## What's Next` marker is at round 14 and stays quiet."""
    project = "bc-ordinal"
    finding = sole(corpus, "body-currency", project)
    assert finding["severity"] == "defect"
    assert finding["path"] == context_of(project)
    assert finding["line"] == line_of(root, context_of(project), "(round 13)*", occurrence=1)
    assert "`## Current State`" in finding["message"]
    assert "names round 13" in finding["message"]
    assert "(2026-08-24) reach round 14" in finding["message"]


def test_marker_older_than_the_newest_entry_is_a_defect(corpus: Run, root: Path) -> None:
    project = "bc-date"
    finding = sole(corpus, "body-currency", project)
    assert finding["severity"] == "defect"
    assert finding["line"] == line_of(
        root, context_of(project), "*State as of: 2026-08-20", occurrence=1
    )
    entry = line_of(root, log_of(project), "## 2026-08-24 (round 14)", occurrence=1)
    assert "says 2026-08-20" in finding["message"]
    assert (
        f"newest session-log entry is 2026-08-24 ({log_of(project)}:{entry})"
        in (finding["message"])
    )


def test_no_markers_while_ordinals_exist_is_unverifiable(corpus: Run, root: Path) -> None:
    """Never clean: one warning per unmarked operational section."""
    project = "bc-unmarked"
    found = corpus.findings("body-currency", project)
    assert [f["line"] for f in found] == [
        line_of(root, context_of(project), "## Current State", occurrence=1),
        line_of(root, context_of(project), "## What's Next", occurrence=1),
    ]
    for finding in found:
        assert finding["severity"] == "warning"
        assert finding["path"] == context_of(project)
        assert "unverifiable" in finding["message"]


def test_no_markers_and_no_operational_sections_is_unverifiable(corpus: Run) -> None:
    """Ordinals only in the log are enough to ask for markers."""
    finding = sole(corpus, "body-currency", "bc-unmarked-bare")
    assert finding["severity"] == "warning"
    assert finding["path"] == context_of("bc-unmarked-bare")
    assert finding["line"] is None
    assert "no as-of markers" in finding["message"]
    assert "unverifiable" in finding["message"]


def test_unmarked_section_with_a_session_log_is_unverifiable(corpus: Run, root: Path) -> None:
    """No ordinals anywhere, but a session log: a markerless body is never clean."""
    finding = sole(corpus, "body-currency", "bc-no-ordinals")
    assert finding["severity"] == "warning"
    assert finding["line"] == line_of(root, context_of("bc-no-ordinals"), "## Current State")
    assert "unverifiable while the project keeps a session log" in finding["message"]


@pytest.mark.parametrize("project", ["hc-ok", "bc-no-history"])
def test_body_currency_quiet(one: Callable[[str], Run], project: str) -> None:
    """Current markers; or no log, no Last session header and no ordinals: nothing to lag."""
    assert_quiet(one(project), "body-currency")


def test_dormant_project_is_not_asked_for_markers(one: Callable[[str], Run]) -> None:
    assert_quiet(one("bc-paused"), "body-currency")


def test_structured_state_skips_body_currency(one: Callable[[str], Run]) -> None:
    """bc-structured's marker is as stale as bc-date's; CURRENT_STATE.json replaces it."""
    assert_skipped(one("bc-structured"), "body-currency", "structured state")


def test_invalid_structured_state_switches_nothing_off(
    one: Callable[[str], Run], root: Path
) -> None:
    """The pairing rule: a state file that is not JSON never replaces the as-of markers."""
    run = one("bc-structured-invalid")
    assert_examined(run, "body-currency")
    finding = sole(run, "body-currency", "bc-structured-invalid")
    assert finding["line"] == line_of(root, context_of("bc-structured-invalid"), "State as of")


# -- item-currency ---------------------------------------------------------------


def _item_findings(corpus: Run, root: Path) -> dict[str, dict[str, Any]]:
    """ic-items' findings keyed by the text of the line they point at."""
    lines = (root / context_of("ic-items")).read_text(encoding="utf-8").splitlines()
    found = corpus.findings("item-currency", "ic-items")
    keyed = {lines[f["line"] - 1].strip(): f for f in found}
    assert len(keyed) == len(found)
    for finding in found:
        assert finding["severity"] == "warning"
        assert finding["path"] == context_of("ic-items")
    return keyed


def test_stamped_item_past_its_review_horizon_is_overdue(corpus: Run, root: Path) -> None:
    """`(as of 2026-08-10, review 7d)` under `## What's Next` on 2026-08-27."""
    finding = _item_findings(corpus, root)[
        "- [ ] Ask legal about the licence (as of 2026-08-10, review 7d)"
    ]
    assert "overdue" in finding["message"]
    assert "as of 2026-08-10, 17 days ago (horizon 7 days)" in finding["message"]


def test_default_horizon_is_fourteen_days(corpus: Run, root: Path) -> None:
    found = _item_findings(corpus, root)
    fifteen = found["- [ ] Default horizon, fifteen days (as of 2026-08-12)"]
    assert "(horizon 14 days)" in fifteen["message"]
    assert "- [ ] Default horizon, fourteen days (as of 2026-08-13)" not in found
    assert "- [ ] Re-run the benchmark (as of 2026-08-20, review 7d)" not in found


def test_review_0d_is_due_the_next_day(corpus: Run, root: Path) -> None:
    found = _item_findings(corpus, root)
    due = found["- [ ] Check the deploy (as of 2026-08-26, review 0d)"]
    assert "(horizon 0 days)" in due["message"]
    assert "- [ ] Watch the dashboard (as of 2026-08-27, review 0d)" not in found


def test_checked_items_are_never_reported(corpus: Run, root: Path) -> None:
    found = _item_findings(corpus, root)
    assert not any(text.startswith("- [x]") for text in found)


def test_impossible_stamp_date(corpus: Run, root: Path) -> None:
    finding = _item_findings(corpus, root)["- [ ] Rotate the keys (as of 2026-02-30)"]
    assert "`(as of 2026-02-30)`" in finding["message"]
    assert "impossible date" in finding["message"]


def test_malformed_stamp(corpus: Run, root: Path) -> None:
    finding = _item_findings(corpus, root)["- [ ] Call the vendor (as of last week)"]
    assert "`(as of last week)` has a malformed form" in finding["message"]


def test_unstamped_items_are_one_finding_per_open_section(corpus: Run, root: Path) -> None:
    """`## Open questions` holds two unchecked unstamped task items, a plain bullet (prose,
    never counted: docs/layouts.md) and a checked one; `### Pending approvals` holds one numbered
    task item and one numbered line without a box; `## Notes` is not open."""
    found = _item_findings(corpus, root)
    questions = found["## Open questions"]
    assert (
        "2 unchecked items carry no `(as of YYYY-MM-DD)` stamp under `Open questions`"
        in (questions["message"])
    )
    pending = found["### Pending approvals"]
    assert "1 unchecked item carries" in pending["message"]
    assert "`Pending approvals`" in pending["message"]
    assert not any("Notes" in text or "unstamped note" in text for text in found)


def test_item_findings_are_exactly_these(corpus: Run, root: Path) -> None:
    assert sorted(_item_findings(corpus, root)) == sorted(
        [
            "- [ ] Ask legal about the licence (as of 2026-08-10, review 7d)",
            "- [ ] Rotate the keys (as of 2026-02-30)",
            "- [ ] Call the vendor (as of last week)",
            "- [ ] Check the deploy (as of 2026-08-26, review 0d)",
            "- [ ] Default horizon, fifteen days (as of 2026-08-12)",
            "## Open questions",
            "### Pending approvals",
        ]
    )


def test_item_currency_quiet(one: Callable[[str], Run]) -> None:
    assert_quiet(one("ic-quiet"), "item-currency")


def test_item_currency_skips_dormant_projects(one: Callable[[str], Run]) -> None:
    assert_skipped(one("ic-paused"), "item-currency", "dormant")


# -- item-currency on a real-shaped record: tasks, not prose --------------------

CHECKBOXES = "".join(
    f"- [ ] Review tool {n} with the owner (as of 2026-08-20)\n" for n in range(1, 16)
)
PROSE = "".join(f"- Vendor thread {n} answered; nothing to do\n" for n in range(1, 11))
REAL_ITEMS = f"""# Intake — Working Context

**Status:** Active
**Last session:** 2026-08-26
---

## What's Next — Prioritized
{CHECKBOXES}
## Waiting — no action needed
{PROSE}
## Later
{PROSE}
## What Pierce Needs to Do
- [ ] Sign the vendor contract

## Recent Session: 2026-08-26 — Pending format treatment resolved
- [ ] Follow up on the pending format question

### 2026-08-20 — next steps
- [ ] Old next step kept in the summary
"""


def _items_repo(make_repo: MakeRepo, context: str, status: str = "active") -> Path:
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-08-26T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": f"- id: intake\n  status: {status}\n",
                        "projects/intake/CONTEXT.md": context,
                    },
                }
            ]
        }
    )


def test_only_unchecked_task_items_under_open_sections_count(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _items_repo(make_repo, REAL_ITEMS.replace("(as of 2026-08-20)", ""))
    run = doctor("check", "--project", str(root / "projects/intake"), "--today", TODAY, "--json")
    found = run.findings("item-currency")
    # One finding: the 15 checkboxes. The 20 plain bullets under `Waiting — …` and `Later`,
    # `What Pierce Needs to Do` and the session summaries are not open items.
    assert len(found) == 1, found
    assert "15 unchecked items carry no" in found[0]["message"]
    assert "What's Next — Prioritized" in found[0]["message"]


def test_stamped_tasks_and_prose_under_open_sections_are_quiet(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _items_repo(make_repo, REAL_ITEMS)
    run = doctor("check", "--project", str(root / "projects/intake"), "--today", TODAY, "--json")
    assert_quiet(run, "item-currency")


def test_item_currency_skips_a_paused_record(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _items_repo(make_repo, REAL_ITEMS.replace("(as of 2026-08-20)", ""), "paused")
    run = doctor("check", "--project", str(root / "projects/intake"), "--today", TODAY, "--json")
    assert_skipped(run, "item-currency", "dormant")


def test_header_currency_without_ordinals_is_a_counted_skip(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """docs/output.md: a log whose newest day names no round leaves nothing to compare: a skip with
    its reason, never an examined project with nothing said."""
    context = (
        "# Atlas — Working Context\n\n**Phase:** Discovery — interviews with the pilot teams\n"
        "**Status:** Active — waiting on the second pilot's answers before scoping\n"
        "**Last session:** 2026-06-09\n\n---\n\n## Current State\nInterviews half done.\n\n"
        "*State as of: 2026-06-09*\n"
    )
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-09T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: atlas\n  status: active\n",
                        "projects/atlas/CONTEXT.md": context,
                        "projects/atlas/sessions/2026-06.md": "# June\n\n## 2026-06-09 — pilots\n",
                    },
                }
            ]
        }
    )
    run = doctor(
        "check", "--project", str(root / "projects/atlas"), "--today", "2026-06-10", "--json"
    )
    assert_not_applicable(run, "header-currency", "no ordinals")


# -- one missing update, one finding: markers left behind with the header -------------


def _marked_repo(make_repo: MakeRepo, header: str, marker: str, status: str = "active") -> Path:
    context = (
        "# Compass — Working Context\n\n**Phase:** Vendor review — comparing the three quotes "
        "against the security questionnaire\n**Status:** Active — waiting on Fabrikam's answers, "
        f"then the comparison\n**Last session:** {header}\n\n---\n\n## Current State\n"
        f"Two quotes in hand.\n\n*State as of: {marker}*\n\n## What's Next\n"
        f"- [ ] Draft the comparison (as of {marker})\n\n*State as of: {marker}*\n"
    )
    log = "# June\n\n## 2026-06-16 — two quotes\n\n## 2026-06-19 — third quote\n"
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-19T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": f"- id: compass\n  status: {status}\n",
                        "projects/compass/CONTEXT.md": context,
                        "projects/compass/sessions/2026-06.md": log,
                    },
                }
            ]
        }
    )


def _compass(doctor: Doctor, root: Path) -> Run:
    return doctor(
        "check", "--project", str(root / "projects/compass"), "--today", "2026-06-20", "--json"
    )


def test_markers_left_behind_with_a_lagging_header_are_the_headers_finding(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = _compass(doctor, _marked_repo(make_repo, "2026-06-16", "2026-06-16"))
    assert run.findings("body-currency") == []
    header = sole(run, "context-header-freshness", "compass")
    assert "; so are its 2 as-of markers (lines 12, 17)" in header["message"]
    assert "move the header and its 2 as-of markers in one write" in header["remedy"]
    assert_examined(run, "body-currency")


def test_a_lagging_marker_under_a_current_header_is_still_body_currency(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = _compass(doctor, _marked_repo(make_repo, "2026-06-19", "2026-06-16"))
    assert run.findings("context-header-freshness") == []
    assert len(run.findings("body-currency")) == 2


def test_a_paused_projects_lagging_markers_stay_body_currency(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The header check skips dormant projects, so nothing is folded into it."""
    run = _compass(doctor, _marked_repo(make_repo, "2026-06-16", "2026-06-16", "paused"))
    assert_skipped(run, "context-header-freshness", "dormant")
    assert len(run.findings("body-currency")) == 2


def test_a_last_session_line_behind_log_and_phase_is_one_finding(
    scenario_repo: Callable[[str], Path], doctor: Doctor
) -> None:
    """The demo's dial: `Last session: 2026-06-17 (round 10, wave 3)` under `Phase: Rollout
    (wave 4)`, log at round 11: one stale line, one header-currency finding naming both."""
    root = scenario_repo("demo")
    run = doctor(
        "check", "--project", str(root / "projects/dial"), "--today", "2026-06-20", "--json"
    )
    assert run.findings("header-lag") == []
    assert_examined(run, "header-lag")
    finding = sole(run, "header-currency", "dial")
    assert finding["message"].endswith("reach round 11; Phase already names wave 4 (line 3)")
    assert "to round 11 and wave 4 (the newest session entry" in finding["remedy"]
