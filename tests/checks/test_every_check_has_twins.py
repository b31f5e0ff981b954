"""Every registered check has a planted-fault twin that fires and a control that stays quiet.

This module enumerates the registry (built-ins, no plugins) and fails for a check that
has no entry in :data:`TWINS`. **Adding a check? Add one line to TWINS**:

    "my-check": Twin(fires="structure/cb-151", quiet="demo/atlas"),

A case is ``"<scenario>/<project>"``: the scenario is a bundled
``fixtures/scenarios/<name>.yaml`` or a key of :data:`SCENARIOS` below (write a small
inline corpus there when no bundled one plants your fault); the project is audited alone
with ``--project``, on the scenario's ``today``. ``"<scenario>"`` without a project
audits the whole source (for source-wide checks, e.g. freshness grades). The twin must
yield at least one finding of the check; the control must examine at least one unit and
yield none. The check's own tests (``tests/checks/test_<module>.py``) still pin messages,
lines and skips; this table proves only that each check can both fire and stay quiet.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, audit, cached_audit
from vault_support import clean_vault_files, floor, memory, vault_scenario

from context_doctor.checks.registry import load_checks
from context_doctor.scenarios import scenario_path, scenario_today

Setup = Callable[[Path, Doctor], tuple[str, ...]]
"""Prepares a built corpus for one case and returns extra ``check`` arguments."""


@dataclass(frozen=True)
class Twin:
    fires: str  # the planted fault: "<scenario>/<project>" or "<scenario>"
    quiet: str  # the control
    fires_setup: Setup | None = None
    quiet_setup: Setup | None = None


# -- small inline corpora, for faults no bundled scenario plants ------------------

TODAY = date(2026, 6, 20)
INDEX_ENTRY = "  - id: {id}\n    status: {status}\n    last_session: 2026-06-18\n"
CONTEXT = (
    "# {title}\n\n**Status:** active\n**Last session:** 2026-06-18\n\n"
    "## Current State\n\n{state}\n\n*State as of: 2026-06-18*\n"
)
LOG = "# Sessions\n\n## 2026-06-18 — work\n\nDid the work.\n"


def project(name: str, state: str = "Working on it.") -> dict[str, str]:
    return {
        f"projects/{name}/CONTEXT.md": CONTEXT.format(title=name.title(), state=state),
        f"projects/{name}/sessions/2026-06.md": LOG,
    }


def index(*names: str, status: str = "active", extra: str = "") -> str:
    return "projects:\n" + "".join(INDEX_ENTRY.format(id=n, status=status) for n in names) + extra


def corpus(files: Mapping[str, Any], **rest: Any) -> dict[str, Any]:
    commit = {"date": "2026-06-18T10:00:00+00:00", "message": "work", "files": dict(files)}
    return {"today": TODAY, "remote": True, "commits": [commit], **rest}


ADR_INDEX = "# Reference\n\n- [Storage decision](docs/adr/0004-storage.md)\n"


def rules(name: str, size: int) -> str:
    """An AGENTS.md of about ``size`` bytes."""
    line = f"- {name}: keep the change small and test it first.\n"
    return f"# {name}\n\n" + line * (size // len(line))


def graded(**fields: str) -> str:
    """A pai-freshness-v1 file with ``fields`` in its block."""
    block = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\nconvention: pai-freshness-v1\n{block}---\n# Notes\n\nText.\n"


MARKED_SECTIONS = (
    "---\nconvention: pai-freshness-v1\nlast_updated: 2026-06-19\nlast_reviewed: 2026-06-19\n---\n"
    "# TELOS\n\n## Mission\n<!-- updated: {when} by:kai -->\n\nM0.\n"
)
# The builder's commits are reproducible (fixed identity, dates and content), so the first
# commit of "reviews" has this sha wherever the suite runs.
CLOSING_COMMIT = "9730c1c886f08906e8b1f2566b28d24f2a55ac37"
REVIEWED_INDEX = (
    "projects:\n"
    "  - id: good-sha\n    status: completed\n    completed_date: 2026-06-01\n"
    f"    post_close_reviewed_through: {CLOSING_COMMIT}\n"
    "  - id: bad-sha\n    status: completed\n    completed_date: 2026-06-01\n"
    "    post_close_reviewed_through: 1234567890abcdef1234567890abcdef12345678\n"
)


def round_two_memories() -> dict[str, str]:
    """One memory per typed-field and link fault of docs/vaults.md "Round two"."""

    def typed(memory_id: str, line: str) -> str:
        key = line.split(":", 1)[0]
        text = memory(memory_id, type="decision")
        rows = [row for row in text.split("\n") if not row.startswith(f"{key}:")]
        return "\n".join(rows).replace("created:", f"{line}\ncreated:", 1)

    via = "related_via:\n  - id: times-in-utc\n    reason: same rollout\n    score: 1.7"
    return {
        "memories/round-two/sure-of-it.md": typed("sure-of-it", "confidence: 1.5"),
        "memories/round-two/close-enough.md": typed("close-enough", via),
        "memories/round-two/for-my-eyes.md": typed("for-my-eyes", "sensitivity: Private"),
        "memories/round-two/gone-off.md": typed("gone-off", "stale_status: rotten"),
        "memories/round-two/already-expired.md": typed("already-expired", "expires_after_days: -3"),
        "memories/round-two/by-file-name.md": memory(
            "by-file-name", body="See [[Untitled]] for the agenda.\n"
        ).replace("related: []", "related: [meeting-notes]"),
        "Inbox/meeting-notes.md": "# Meeting notes\n\nA plain note, not a memory.\n",
        "Inbox/Untitled.md": "",
    }


def round_two_floors() -> list[dict[str, Any]]:
    """Floors written around Bastra's API: every rule it enforces broken once."""
    fresh = "2026-06-10T08:00:00.000Z"
    return [
        floor("deployment-rollback-window", affirmed="2026-05-18T08:00:00.000Z"),  # 28 days
        floor("times-in-utc", affirmed=fresh, affirmed_by="", why=""),
        floor("answer-tersely", affirmed=fresh, why="still open"),
        floor("back-up-before-migration", affirmed=fresh, reason=""),
        *(floor(f"sure-of-it-{n}", affirmed=fresh) for n in range(9)),  # the 13th is over
    ]


SCENARIOS: dict[str, dict[str, Any]] = {
    # Markers git leaves after a conflicted merge, committed as they are.
    "conflicted": corpus(
        {
            "projects/index.yaml": index("alpha"),
            **project("alpha", "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> side"),
        }
    ),
    # alpha is edited after the last commit; hidden's CONTEXT.md is ignored by git.
    "durability": corpus(
        {
            "projects/index.yaml": index("alpha", "hidden"),
            ".gitignore": "projects/hidden/CONTEXT.md\n",
            **project("alpha"),
            **project("hidden"),
        },
        uncommitted={"files": project("alpha", "Edited, not committed.")},
    ),
    # An `edit apply` journal left behind in alpha (tests/checks/test_edit_journal.py makes
    # real ones; the check reads only the name).
    "journal": corpus(
        {"projects/index.yaml": index("alpha"), **project("alpha")},
        uncommitted={"files": {"projects/alpha/.context-doctor-apply-0123abcd.journal": "{}\n"}},
    ),
    # Every freshness-grade fault at once, then the same kinds of files kept fresh.
    "grades-faulty": corpus(
        {
            "projects/.keep": "",
            "ctx/MISSION.md": graded(last_updated="2026-06-01", last_reviewed="2026-03-17"),
            "ctx/NEVER.md": graded(last_updated="2026-06-01"),
            "ctx/BROKEN.md": graded(last_updated="2026-06-01", last_reviewed="2026-02-30"),
            "ctx/AHEAD.md": graded(last_updated="2026-06-01", last_reviewed="2026-06-25"),
            "ctx/ORPHAN.md": graded(last_updated="2026-06-19", derived_from="ctx/GONE.md"),
            "ctx/SELF.md": graded(
                last_updated="2026-06-19", derived_from="ctx/MISSION.md", last_reviewed="2026-06-19"
            ),
            "TELOS.md": MARKED_SECTIONS.format(when="2025-01-01"),
            "ctx/OLD.md": graded(last_reviewed="2026-06-01").replace(
                "pai-freshness-v1", "pai-freshness-v2"
            ),
        }
    ),
    "grades-fresh": corpus(
        {
            "projects/.keep": "",
            "ctx/MISSION.md": graded(last_updated="2026-06-01", last_reviewed="2026-06-19"),
            "ctx/SUMMARY.md": graded(last_updated="2026-06-19", derived_from="ctx/MISSION.md"),
            "TELOS.md": MARKED_SECTIONS.format(when="2026-06-19"),
        }
    ),
    # An active project whose newest session is 2026-03-02 (110 days before today), and one
    # worked two days ago.
    "idle": corpus(
        {
            "projects/index.yaml": index("sleepy", "busy"),
            **project("busy"),
            **project("sleepy"),
            "projects/sleepy/sessions/2026-03.md": "# Sessions\n\n## 2026-03-02 — last work\n",
            "projects/sleepy/sessions/2026-06.md": "# Sessions\n",
        }
    ),
    # A README.md beside projects/ edited and not committed: not remote-ready.
    "branch": corpus(
        {"projects/index.yaml": index("alpha"), **project("alpha"), "README.md": "# Kb\n"},
        uncommitted={"files": {"README.md": "# Kb, edited\n"}},
    ),
    # An artifact citing a script that exists.
    "artifacts": corpus(
        {
            "projects/index.yaml": index("tools"),
            **project("tools"),
            "projects/tools/resources/artifacts/report.md": "# Report\n\nFrom resources/scripts/run.py.\n",
            "projects/tools/resources/scripts/run.py": "print('run')\n",
        }
    ),
    # Two completed projects whose reviews name a commit: one that exists, one that does not.
    "reviews": {
        "today": TODAY,
        "remote": True,
        "commits": [
            {
                "date": "2026-06-01T10:00:00+00:00",
                "message": "close both",
                "files": {
                    "projects/index.yaml": index("good-sha", "bad-sha", status="completed"),
                    **project("good-sha"),
                    **project("bad-sha"),
                },
            },
            {
                "date": "2026-06-02T10:00:00+00:00",
                "message": "record the reviews",
                "files": {"projects/index.yaml": REVIEWED_INDEX},
            },
        ],
    },
    # A suppression comment that suppresses something (quiet) and one that does not (fires).
    "suppressions": corpus(
        {
            "projects/index.yaml": index("used", "unused"),
            **project("used"),
            **project("unused"),
            "projects/used/CONTEXT.md": CONTEXT.format(
                title="Used",
                state="<!-- context-doctor: disable-next-line completed-items-in-context -->\n"
                "- [x] Shipped the parser",
            ),
            "projects/unused/CONTEXT.md": CONTEXT.format(
                title="Unused",
                state="<!-- context-doctor: disable-next-line context-budget -->\nA plain line.",
            ),
        }
    ),
    # docs/references.md: a REFERENCE.md that links an ADR a later commit deleted (fires),
    # and one whose ADR is still there (quiet).
    "adr-links": {
        "today": TODAY,
        "remote": True,
        "commits": [
            {
                "date": "2026-06-01T10:00:00+00:00",
                "message": "decide",
                "files": {
                    "projects/index.yaml": index("stale", "sound"),
                    **project("stale"),
                    **project("sound"),
                    "projects/stale/REFERENCE.md": ADR_INDEX,
                    "projects/sound/REFERENCE.md": ADR_INDEX,
                    "projects/stale/docs/adr/0004-storage.md": "# ADR 4: storage\n",
                    "projects/sound/docs/adr/0004-storage.md": "# ADR 4: storage\n",
                },
            },
            {
                "date": "2026-06-10T10:00:00+00:00",
                "message": "drop the storage decision",
                "files": {},
                "delete": ["projects/stale/docs/adr/0004-storage.md"],
            },
        ],
    },
    # Instruction files alone (no working memory): a monorepo whose nested AGENTS.md chain
    # is over Codex's 32 KiB, and CLAUDE.md imports that loop and go six hops deep; then
    # the same repository within its budget and with imports that load.
    "instructions-faulty": corpus(
        {
            "AGENTS.md": rules("top", 12_000),
            "services/AGENTS.md": rules("services", 12_000),
            "services/billing/AGENTS.md": rules("billing", 12_000),
            "CLAUDE.md": "# Claude\n\n@docs/a.md\n",
            "docs/a.md": "# A\n\n@b.md\n@../CLAUDE.md\n",
            "docs/b.md": "# B\n\n@c.md\n",
            "docs/c.md": "# C\n\n@d.md\n",
            "docs/d.md": "# D\n\n@e.md\n",
            "docs/e.md": "# E\n\n@f.md\n",
            "docs/f.md": "# F\n",
            "context-doctor.toml": '[instructions]\nbudgets = { "CLAUDE.md" = { lines = 2 } }\n',
        }
    ),
    "instructions-sound": corpus(
        {
            "AGENTS.md": rules("top", 8_000),
            "services/AGENTS.md": rules("services", 8_000),
            "services/billing/AGENTS.md": rules("billing", 8_000),
            "CLAUDE.md": "# Claude\n\n@docs/a.md\n",
            "docs/a.md": "# A\n\n@b.md\n",
            "docs/b.md": "# B\n",
            "context-doctor.toml": '[instructions]\nbudgets = { "CLAUDE.md" = { lines = 20 } }\n',
        }
    ),
    "vault-clean": vault_scenario(
        clean_vault_files(),
        today=date(2026, 6, 15),
        floors=json.dumps([floor("times-in-utc", affirmed="2026-06-10T08:00:00.000Z")]),
    ),
    # docs/vaults.md "Round two": every rule Bastra's own code enforces, planted once each.
    "vault-round-two": vault_scenario(
        {**clean_vault_files(), **round_two_memories()},
        today=date(2026, 6, 15),
        floors=json.dumps(round_two_floors(), indent=2),
        floor_acts=json.dumps(
            {
                "memory_id": "times-in-utc",
                "occurred_at": "2026-06-12T08:00:00.000Z",
                "affirmed_by": "",
                "why": "",
                "recorded": "2026-06-12T08:00:01.000Z",
            }
        )
        + "\n",
    ),
}


# Each finding docs/vaults.md "Round two" adds: (check, what its message says), planted in
# "vault-round-two" and absent from the clean control.
ROUND_TWO_FINDINGS = (
    ("memory-frontmatter", "`confidence: 1.5` is outside 0..1"),
    ("memory-frontmatter", "item 1 has `score` 1.7, outside 0..1"),
    ("memory-frontmatter", "`sensitivity: Private` is not one of private|team|public"),
    ("memory-frontmatter", "`stale_status: rotten` is not one of"),
    ("memory-frontmatter", "`expires_after_days: -3` is not a positive whole number"),
    ("memory-link", "`related` to `meeting-notes`, which is no memory id: only a plain note"),
    ("memory-link", "wikilink to `Untitled`, which is no memory id: only an empty file"),
    ("floor-stale", "28 days before 2026-06-15 (4 weeks"),
    ("floor-without-why", "has a `why` but no `affirmed_by`"),
    ("floor-without-why", "has an empty `reason`"),
    ("floor-without-why", "has neither `affirmed_by` nor `why`"),
    ("floor-cap", "floor 13 of 13 on this machine, over Bastra's cap of 12"),
)


def _vault_floors(scenario: str, root: Path) -> tuple[str, ...]:
    """A vault scenario's floors, written beside the vault (never in it)."""
    from context_doctor.scenarios import write_floors

    source = SCENARIOS.get(scenario) or scenario_path(scenario)
    floors = write_floors(source, root.parent / "machine")
    return ("--floors", str(floors)) if floors is not None else ()


def _write_baseline(*, stale: bool) -> Setup:
    """``--write-baseline`` of the corpus as it is; ``stale``: one entry then matches nothing."""

    def setup(root: Path, doctor: Doctor) -> tuple[str, ...]:
        path = root.parent / f"baseline-{'stale' if stale else 'current'}.json"
        if not path.exists():
            written = doctor("check", "--source", str(root), "--today", str(TODAY),
                             "--write-baseline", str(path))  # fmt: skip
            assert written.exit_code == 0, written.stderr
            if stale:
                data = json.loads(path.read_text(encoding="utf-8"))
                data["findings"][0]["fingerprint"] = "0" * len(data["findings"][0]["fingerprint"])
                path.write_text(json.dumps(data), encoding="utf-8")
        return ("--baseline", str(path))

    return setup


def _remote(root: Path, doctor: Doctor) -> tuple[str, ...]:
    return ("--readiness", "remote")


# -- the table: one line per check --------------------------------------------------

TWINS: dict[str, Twin] = {
    "active-project-idle": Twin("idle/sleepy", "idle/busy"),
    "artifact-cites-missing-script": Twin("demo/harbor", "artifacts/tools"),
    "attribution-format": Twin("hygiene/pv-format", "demo/atlas"),
    "attribution-placement": Twin("hygiene/pv-placement", "demo/atlas"),
    "baseline-stale": Twin(
        "suppressions",
        "suppressions",
        fires_setup=_write_baseline(stale=True),
        quiet_setup=_write_baseline(stale=False),
    ),
    "branch-not-ready": Twin("branch", "artifacts", fires_setup=_remote, quiet_setup=_remote),
    "body-currency": Twin("demo/beacon", "demo/atlas"),
    "completed-date": Twin("terminal/undated", "references/rib-completed"),
    "completed-items-in-context": Twin("demo/beacon", "demo/atlas"),
    "conflict-markers": Twin("conflicted/alpha", "demo/atlas"),
    "context-archive-due": Twin("hygiene/hy-archive", "demo/atlas"),
    "context-budget": Twin("demo/beacon", "demo/atlas"),
    "context-header-freshness": Twin("demo/compass", "demo/atlas"),
    "context-present": Twin("structure/cp-fenced-heading", "demo/atlas"),
    "context-template": Twin("demo/beacon", "demo/atlas"),
    "freshness-convention-unknown": Twin("grades-faulty", "grades-fresh"),
    "freshness-derived-reviewed": Twin("grades-faulty", "grades-fresh"),
    "freshness-future": Twin("grades-faulty", "grades-fresh"),
    "freshness-malformed": Twin("grades-faulty", "grades-fresh"),
    "freshness-never-reviewed": Twin("grades-faulty", "grades-fresh"),
    "freshness-overdue": Twin("grades-faulty", "grades-fresh"),
    "freshness-source-missing": Twin("grades-faulty", "grades-fresh"),
    "freshness-unverifiable": Twin("hygiene/hy-archive", "demo/atlas"),
    "header-currency": Twin("demo/dial", "demo/atlas"),
    "header-lag": Twin("currency/hl-wave", "demo/atlas"),
    "interrupted-edit": Twin("journal/alpha", "demo/atlas"),
    "item-currency": Twin("hygiene/hy-archive", "demo/atlas"),
    "last-session-freshness": Twin("demo/compass", "demo/atlas"),
    "post-close-review-unresolvable": Twin("reviews/bad-sha", "reviews/good-sha"),
    "record-unreadable": Twin("lifecycle/latin", "demo/atlas"),
    "reference-budget": Twin("references/rb-301", "demo/atlas"),
    "reference-missing": Twin("adr-links/stale", "adr-links/sound"),
    "instructions-budget": Twin("instructions-faulty", "instructions-sound"),
    "instructions-import": Twin("instructions-faulty", "instructions-sound"),
    "instructions-load-budget": Twin("instructions-faulty", "instructions-sound"),
    "reference-index-budget": Twin("references/rib-151", "demo/harbor"),
    "reference-index-missing": Twin("references/rim-no-index", "references/rib-completed"),
    "reference-index-orphan": Twin("demo/harbor", "references/rib-completed"),
    "reference-present": Twin("demo/beacon", "demo/atlas"),
    "reference-shard": Twin("demo/ops-seat", "references/rs-300"),
    "reference-topic-budget": Twin("references/rtb-topics", "references/rib-completed"),
    "secret-in-context": Twin("demo/harbor", "demo/atlas"),
    "section-freshness-overdue": Twin("grades-faulty", "grades-fresh"),
    "semantic-current-state": Twin("currency/bc-structured-invalid", "demo/atlas"),
    "session-log-layout": Twin("hygiene/hy-logs", "demo/atlas"),
    "sessions-present": Twin("hygiene/hy-archive", "demo/atlas"),
    "stale-session-in-context": Twin("demo/beacon", "demo/atlas"),
    "status-agreement": Twin("demo/meridian", "demo/atlas"),
    "status-vocabulary": Twin("demo/lantern", "demo/atlas"),
    "terminal-project-active": Twin("demo/lantern", "references/rib-completed"),
    "terminal-project-open-items": Twin("demo/lantern", "references/rib-completed"),
    "uncommitted-context": Twin("durability/alpha", "demo/atlas"),
    "unlogged-session": Twin("demo/dial", "demo/atlas"),
    "unpushed-context": Twin("hygiene/hy-archive", "demo/atlas"),
    "untracked-context": Twin("durability/hidden", "demo/atlas"),
    "unused-suppression": Twin("suppressions/unused", "suppressions/used"),
    "floor-cap": Twin("vault-round-two", "vault-clean"),
    # Memory vaults (docs/vaults.md): the bundled demo vault plants every fault (its README.md
    # names them); the control is a clean vault of Bastra-shaped files.
    **{
        check: Twin("vault-demo", "vault-clean")
        for check in (
            "audit-log-line",
            "audit-log-rewritten",
            "unaudited-change",
            "audit-without-trash",
            "floor-stale",
            "floor-target",
            "floor-without-why",
            "memory-empty",
            "memory-frontmatter",
            "memory-id-duplicate",
            "memory-link",
            "memory-type-unknown",
            "secret-in-memory",
            "trash-without-audit",
        )
    },
}


# -- the enumeration ------------------------------------------------------------------


@pytest.fixture(scope="module")
def inline_repos(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    from context_doctor.scenarios import build_scenario

    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = build_scenario(SCENARIOS[name], tmp_path_factory.mktemp(name) / "kb")
        return built[name]

    return get


def _audit(
    case: str,
    setup: Setup | None,
    doctor: Doctor,
    scenario_repo: Callable[[str], Path],
    inline_repos: Callable[[str], Path],
) -> Run:
    scenario, _, project = case.partition("/")
    if scenario in SCENARIOS:
        root, today = inline_repos(scenario), SCENARIOS[scenario]["today"]
    else:
        root, today = scenario_repo(scenario), scenario_today(scenario_path(scenario))
    target = ("--project", str(root / "projects" / project)) if project else ("--source", str(root))
    if scenario.startswith("vault"):  # a memory vault (docs/vaults.md), its floors beside it
        target = ("--vault", str(root), *_vault_floors(scenario, root))
    extra = setup(root, doctor) if setup is not None else ()
    return cached_audit(doctor, *target, *extra, today=str(today))


REGISTERED = sorted(load_checks(plugins=False))


def assert_said_once(run: Run, check: str) -> None:
    """One finding per file and cause (docs/checks.md): no check says two things about one place of
    one file (a file-level finding is the file's one finding from that check); the parts of
    one cause, such as a template's missing sections, are listed in one message."""
    places = Counter(
        (finding["source"], finding["project"], finding["path"], finding["line"])
        for finding in run.findings(check)
    )
    twice = [place for place, count in places.items() if count > 1]
    assert twice == [], f"{check} said more than one thing about {twice}"


def shape_reasons(check: str) -> set[str]:
    """The reasons ``check`` counts as not applicable (shapes), never as coverage skips."""
    spec = load_checks(plugins=False)[check]
    rules = spec.vault_skips if spec.scope == "vault" else spec.skips
    return {rule.reason for rule in rules if rule.shape}


def assert_coverage_shows_gates(run: Run, check: str) -> None:
    """docs/checks.md: coverage lists a check only when it examined something or a gate held it
    back, and never names a shape as a skip (shapes are `not_applicable`)."""
    entry = run.json["coverage"].get(check)
    if entry is None:
        return
    assert entry["examined"] or entry["skipped"], f"{check} listed with nothing: {entry}"
    shapes = set(entry["reasons"]) & shape_reasons(check)
    assert not shapes, f"{check} lists shapes {shapes} as skips in coverage"


def test_the_table_names_only_registered_checks() -> None:
    assert sorted(set(TWINS) - set(REGISTERED)) == []


@pytest.mark.parametrize("check", REGISTERED)
def test_the_planted_fault_fires_and_the_control_stays_quiet(
    check: str,
    doctor: Doctor,
    scenario_repo: Callable[[str], Path],
    inline_repos: Callable[[str], Path],
) -> None:
    twin = TWINS.get(check)
    assert twin is not None, (
        f"`{check}` has no planted-fault twin and control: add a line to TWINS in {__file__}"
    )
    fired = _audit(twin.fires, twin.fires_setup, doctor, scenario_repo, inline_repos)
    assert fired.findings(check), f"{check} did not fire on its twin {twin.fires}"
    assert_said_once(fired, check)
    assert_coverage_shows_gates(fired, check)
    quiet = _audit(twin.quiet, twin.quiet_setup, doctor, scenario_repo, inline_repos)
    assert_coverage_shows_gates(quiet, check)
    assert quiet.json["coverage"][check]["examined"] >= 1, (
        f"{check} did not examine its control {twin.quiet}: {quiet.json['coverage'][check]}"
    )
    assert quiet.findings(check) == [], f"{check} fired on its control {twin.quiet}"


def test_each_round_two_finding_fires_on_its_planted_fault_and_not_on_the_control(
    doctor: Doctor,
    inline_repos: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The act log beside the floors file, as Bastra keeps them (conftest points it away).
    monkeypatch.delenv("BASTRA_FLOOR_ACTS_PATH")
    runs = {}
    for scenario in ("vault-round-two", "vault-clean"):
        root = inline_repos(scenario)
        target = ("--vault", str(root), *_vault_floors(scenario, root))
        runs[scenario] = audit(doctor, *target, today=str(SCENARIOS[scenario]["today"]))
    missing = [
        (check, says)
        for check, says in ROUND_TWO_FINDINGS
        if not any(says in f["message"] for f in runs["vault-round-two"].findings(check))
    ]
    assert missing == [], runs["vault-round-two"].json["findings"]
    quiet = runs["vault-clean"]
    for check, says in ROUND_TWO_FINDINGS:
        assert quiet.json["coverage"][check]["examined"] >= 1, check
        assert not any(says in f["message"] for f in quiet.findings(check)), check
