"""Memory vaults (docs/vaults.md): every check fires on its planted fault, stays quiet on its control."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo
from vault_support import (
    LOG,
    TODAY,
    clean_vault_files,
    entry,
    floor,
    floors_file,
    log,
    memory,
    vault_scenario,
)

VAULT_CHECKS = (
    "memory-frontmatter",
    "memory-type-unknown",
    "memory-id-duplicate",
    "memory-empty",
    "memory-link",
    "secret-in-memory",
    "audit-log-line",
    "trash-without-audit",
    "audit-without-trash",
    "floor-stale",
    "floor-without-why",
    "floor-target",
    "floor-cap",
)


def vault_audit(doctor: Doctor, root: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    run = doctor("check", "--vault", str(root), "--today", TODAY, "--json", *args, env=env)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


def with_files(**changes: Any) -> dict[str, Any]:
    files: dict[str, Any] = clean_vault_files()
    for key, value in changes.items():
        files[key.replace("__", "/").replace("_DOT_", ".")] = value
    return files


def build(make_repo: MakeRepo, files: dict[str, Any]) -> Path:
    return make_repo(vault_scenario(files))


def vault_findings(run: Run) -> list[dict[str, Any]]:
    return [f for f in run.json["findings"] if f["check"] in VAULT_CHECKS]


# -- the clean vault ------------------------------------------------------------------


def test_a_clean_vault_has_no_findings(doctor: Doctor, make_repo: MakeRepo, tmp_path: Path) -> None:
    root = build(make_repo, clean_vault_files())
    floors = floors_file(
        tmp_path / "floors.json",
        floor("deployment-rollback-window", affirmed="2026-06-10T08:00:00.000Z"),
    )
    run = vault_audit(doctor, root, env={"BASTRA_FLOORS_PATH": str(floors)})
    assert run.exit_code == 0
    assert vault_findings(run) == [], vault_findings(run)
    coverage = run.json["coverage"]
    assert coverage["memory-link"] == {"examined": 4, "skipped": 0, "reasons": {}}
    assert coverage["floor-stale"]["examined"] == 1
    source = next(s for s in run.json["source_details"] if s.get("vault"))
    assert source["memories"] == 4


def test_the_clean_vault_is_quiet_in_human_output_too(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo, clean_vault_files())
    run = doctor("check", "--vault", str(root), "--today", TODAY)
    assert run.exit_code == 0, run.stdout
    assert "4 memories audited" in run.stdout
    # No floors on this machine is not a gate (docs/checks.md): no coverage line about it.
    assert "floor" not in run.stdout


# -- memory-frontmatter -----------------------------------------------------------------


def test_memory_frontmatter_that_is_not_yaml_is_a_defect_bastra_still_loads(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    broken = memory("broken-quote").replace('title: "Broken quote"', 'title: "it\\\'s the rollout"')
    root = build(make_repo, with_files(**{"memories__broken-quote_DOT_md": broken}))
    run = vault_audit(doctor, root)
    found = run.findings("memory-frontmatter", "broken-quote")
    assert [f["severity"] for f in found] == ["defect"]
    assert "lenient loader still loads the memory" in found[0]["message"]
    assert "`title` are lost" in found[0]["message"]


def test_memory_frontmatter_missing_required_fields_is_a_warning(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    thin = memory("thin-note", omit=("summary", "scope"), extra="tags: []").replace(
        "tags: [deployment, rollback]\n", ""
    )
    root = build(make_repo, with_files(**{"memories__thin-note_DOT_md": thin}))
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-frontmatter", "thin-note")
    assert found["severity"] == "warning"
    assert "`summary` missing" in found["message"] and "`scope` missing" in found["message"]
    assert "`tags` empty or not a list" in found["message"]


def test_memory_frontmatter_bastra_rejects_a_list_of_non_text(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    odd = memory("numbered-tags").replace("tags: [deployment, rollback]", "tags: [1, 2]")
    root = build(make_repo, with_files(**{"memories__numbered-tags_DOT_md": odd}))
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-frontmatter", "numbered-tags")
    assert found["severity"] == "defect"
    assert "Bastra does not load this memory" in found["message"]


@pytest.mark.parametrize(
    ("line", "says", "severity"),
    [
        ("confidence: 1.5", "`confidence: 1.5` is outside 0..1", "warning"),
        ("confidence: high", "`confidence: high` is not a number", "warning"),
        ("stale_status: rotten", "`stale_status: rotten` is not one of fresh|aging|stale|expired",
         "warning"),
        ("expires_after_days: -3", "`expires_after_days: -3` is not a positive whole number",
         "warning"),
        ("expires_after_days: 2.5", "`expires_after_days: 2.5` is not a positive whole", "warning"),
        ("related_via:\n  - id: times-in-utc\n    reason: same rollout\n    score: 1.7",
         "item 1 has `score` 1.7, outside 0..1", "warning"),
        ("sensitivity: Public", "`sensitivity: Public` is not one of private|team|public",
         "warning"),
        ("sensitivity: Private", "silently becomes `team`, visible to outside tools", "defect"),
        ("sensitivity: secret", "silently becomes `team`, visible to outside tools", "defect"),
    ],
)  # fmt: skip
def test_memory_frontmatter_judges_bastras_typed_optional_fields(
    doctor: Doctor, make_repo: MakeRepo, line: str, says: str, severity: str
) -> None:
    key = line.split(":", 1)[0]
    text = memory("typed-fields")
    kept = [row for row in text.split("\n") if not row.startswith(f"{key}:")]
    odd = "\n".join(kept).replace("created: 2026-01-01", f"{line}\ncreated: 2026-01-01")
    root = build(make_repo, with_files(**{"memories__typed-fields_DOT_md": odd}))
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-frontmatter", "typed-fields")
    assert says in found["message"] and found["severity"] == severity
    assert "releases before its loader's repair skip the whole memory" in found["message"]
    if severity == "warning":
        assert "Bastra drops the field and loads the memory without it" in found["message"]
    assert found["line"] == odd.split("\n").index(line.split("\n")[0]) + 1


def test_memory_frontmatter_accepts_bastras_own_values(doctor: Doctor, make_repo: MakeRepo) -> None:
    fine = (
        memory("typed-fine")
        .replace(
            "created: 2026-01-01",
            "stale_status: aging\nexpires_after_days: 30\nsalience: 0\nwrite_origin: user-directed\n"
            "related_via:\n  - id: times-in-utc\n    reason: same rollout\n    score: 1\n"
            "created: 2026-01-01",
        )
        .replace("related_via: []\n", "")
        .replace("confidence: 0.85", "confidence: 1")
    )
    root = build(make_repo, with_files(**{"memories__typed-fine_DOT_md": fine}))
    run = vault_audit(doctor, root)
    assert vault_findings(run) == []


def test_plain_obsidian_notes_are_never_judged(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(
        make_repo,
        with_files(
            **{
                "notes__broken_DOT_md": "---\ntitle: [unclosed\n---\nplain\n",
                "notes__typed-by-another-tool_DOT_md": "---\ntype: article\ntitle: x\n---\n",
            }
        ),
    )
    run = vault_audit(doctor, root)
    assert vault_findings(run) == []


# -- memory-type-unknown --------------------------------------------------------------


def test_memory_type_unknown_fires_on_a_memory_bastra_never_loads(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    capital = memory("capital-type", type="Lesson")
    untyped = memory("no-type", omit=("type",))
    root = build(
        make_repo,
        with_files(
            **{"memories__capital-type_DOT_md": capital, "memories__no-type_DOT_md": untyped}
        ),
    )
    run = vault_audit(doctor, root)
    (capital_finding,) = run.findings("memory-type-unknown", "capital-type")
    assert "type `Lesson` is not one Bastra knows" in capital_finding["message"]
    assert capital_finding["line"] == 4
    (untyped_finding,) = run.findings("memory-type-unknown", "no-type")
    assert "it has no `type`" in untyped_finding["message"]


# -- memory-id-duplicate --------------------------------------------------------------


def test_memory_id_duplicate_names_the_sync_conflict_copy_bastra_indexes(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    files = with_files()
    original = files["memories/all-projects/times-in-utc.md"]
    files["memories/all-projects/times-in-utc (1).md"] = original
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-id-duplicate", "times-in-utc")
    assert found["path"] == "memories/all-projects/times-in-utc.md"
    assert "memories/all-projects/times-in-utc (1).md, which Bastra indexes" in found["message"]


# -- memory-empty ------------------------------------------------------------------------


def test_memory_empty_fires_on_a_zero_byte_note(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo, with_files(**{"Inbox__clicked-link_DOT_md": ""}))
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-empty", "clicked-link")
    assert found["path"] == "Inbox/clicked-link.md"


# -- memory-link -------------------------------------------------------------------------


def test_memory_link_says_why_a_target_is_not_live(doctor: Doctor, make_repo: MakeRepo) -> None:
    linking = memory(
        "links-everywhere",
        body=(
            "Before: [[old-staging-host]] (trashed), [[never-written]].\n"
            "Inline `[[in-code]]` is code.\n"
        ),
        extra="replaces: times-in-utc",
    ).replace("related: []", "related: [answer-tersely, ghost-id]")
    files = with_files(**{"memories__links-everywhere_DOT_md": linking})
    files["memories/all-projects/back-up-before-migration.md"] = memory(
        "back-up-before-migration", type="workflow", extra="superseded_by: newer-backup-rule"
    )
    files["memories/all-projects/newer-backup-rule.md"] = memory(
        "newer-backup-rule", extra="replaces: back-up-before-migration"
    )
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    messages = sorted(f["message"] for f in run.findings("memory-link", "links-everywhere"))
    assert any("`related` to `ghost-id`, which is unknown" in m for m in messages)
    assert any("wikilink to `old-staging-host`, which is soft-deleted" in m for m in messages)
    assert any("wikilink to `never-written`, which is unknown" in m for m in messages)
    assert any(
        "`replaces: times-in-utc`, but `times-in-utc` has no `superseded_by`" in m for m in messages
    )
    assert not any("in-code" in m for m in messages)
    # The clean memory that links to the now-superseded memory is told so.
    superseded = run.findings("memory-link", "deployment-rollback-window")
    assert [f["message"] for f in superseded] == [
        "wikilink to `back-up-before-migration`, which is superseded by `newer-backup-rule`"
    ]
    # A matched pair is quiet.
    assert run.findings("memory-link", "newer-backup-rule") == []
    assert run.findings("memory-link", "back-up-before-migration") == []


def test_memory_link_says_once_per_target_however_often_it_is_cited(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    """Bastra mirrors a body wikilink into `related`, and its enricher writes `related_via`
    with the auto-related block: one relation to a trashed memory is one finding."""
    linking = (
        memory(
            "cites-the-trashed",
            body=(
                "Once on [[old-staging-host]].\n\n"
                "## Auto-Related <!-- bastra:auto-related:start -->\n\n"
                "- [[old-staging-host]] (cosine 0.91)\n\n<!-- bastra:auto-related:end -->\n"
            ),
        )
        .replace("related: []", "related: [old-staging-host]")
        .replace(
            "related_via: []",
            "related_via:\n  - id: old-staging-host\n    reason: cosine 0.910\n    score: 0.91",
        )
    )
    root = build(make_repo, with_files(**{"memories__cites-the-trashed_DOT_md": linking}))
    run = vault_audit(doctor, root)
    (found,) = run.findings("memory-link", "cites-the-trashed")
    assert found["message"].startswith(
        "`related`, `related_via` and wikilink to `old-staging-host`, which is soft-deleted"
    )
    assert found["line"] == linking.split("\n").index("related: [old-staging-host]") + 1


def test_memory_link_resolves_by_id_only(doctor: Doctor, make_repo: MakeRepo) -> None:
    """A plain note's or an empty file's name is no memory id: Bastra lists the link."""
    linking = memory("by-name", body="Notes in [[Untitled]] and [[rollback-window]].\n").replace(
        "related: []", "related: [meeting-notes]"
    )
    files = with_files(**{"memories__by-name_DOT_md": linking})
    files["Inbox/meeting-notes.md"] = "# Meeting notes\n\nA plain note.\n"
    files["Inbox/Untitled.md"] = ""
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    messages = sorted(f["message"] for f in run.findings("memory-link", "by-name"))
    assert messages == [
        "`related` to `meeting-notes`, which is no memory id: only a plain note "
        "(Inbox/meeting-notes.md) has that name, and Bastra resolves links by memory id",
        "wikilink to `Untitled`, which is no memory id: only an empty file (Inbox/Untitled.md) "
        "has that name, and Bastra resolves links by memory id",
        # An alias is no id either (Bastra's report lists it as dangling).
        "wikilink to `rollback-window`, which is unknown (no memory has this id)",
    ]


def test_memory_link_skips_obsolete_memories_and_successor_citations(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    files = with_files()
    files["memories/all-projects/back-up-before-migration.md"] = memory(
        "back-up-before-migration",
        type="workflow",
        extra="superseded_by: newer-backup-rule\nobsolete: true",
        body="Old rule, see [[never-written]] and [[old-staging-host]].\n",
    ).replace("related: []", "related: [ghost-id]")
    files["memories/all-projects/newer-backup-rule.md"] = memory(
        "newer-backup-rule",
        extra="replaces: back-up-before-migration",
        body="Replaces [[back-up-before-migration]] (read it for the history).\n",
    )
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    assert run.findings("memory-link", "back-up-before-migration") == []
    assert run.findings("memory-link", "newer-backup-rule") == []
    # A third memory citing the superseded one is still told.
    (told,) = run.findings("memory-link", "deployment-rollback-window")
    assert "superseded by `newer-backup-rule`" in told["message"]
    assert run.json["coverage"]["memory-link"]["examined"] == 4  # the obsolete one is not judged


# -- secret-in-memory --------------------------------------------------------------------

TOKEN = "ghp_" + "Zq8rT2mW9xK4vB7nL1pS6dF3hJ5gC0aE8yU2"


def test_secret_in_memory_covers_memories_trash_and_log_snapshots(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    pasted = memory("debug-session", body=f"The CI token was {TOKEN} while debugging.\n")
    files = with_files(**{"memories__debug-session_DOT_md": pasted})
    files[".bastra/trash/old-staging-host.md"] = memory(
        "old-staging-host", body=f"host creds: {TOKEN}\n"
    )
    files[LOG] += log(
        entry("debug-session", "create", number=9, after={"id": "debug-session", "token": TOKEN})
    )
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    found = run.findings("secret-in-memory")
    paths = sorted((f["path"], f["line"]) for f in found)
    assert paths == [
        (".bastra/audit-log.ndjson", 7),
        (".bastra/trash/old-staging-host.md", 21),
        ("memories/debug-session.md", 21),
    ]
    assert TOKEN not in run.stdout
    assert all("(ghp_…)" in f["message"] for f in found)


# -- audit-log-line, trash-without-audit, audit-without-trash ------------------------------


def test_audit_log_line_reports_broken_lines_and_counts_unknown_shapes(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    files = with_files()
    files[LOG] += "{not json\n" + json.dumps({"memory_id": "x"}) + "\n"
    files[LOG] += entry("times-in-utc", "archive", number=12) + "\n"
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    messages = [f["message"] for f in run.findings("audit-log-line")]
    assert messages[0] == "audit-log line 7 is not JSON"
    assert messages[1].startswith("audit-log line 8 lacks `id`, `timestamp`")
    assert len(messages) == 2
    assert run.json["coverage"]["audit-log-line"]["reasons"] == {"unknown entry shape": 1}


def test_trash_and_log_that_disagree(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = with_files()
    files[".bastra/trash/hand-moved.md"] = memory("hand-moved")
    files[".bastra/trash/old-staging-host.2026-03-01T10-00-00-000Z.md"] = memory("old-staging-host")
    files[LOG] += log(
        entry("vanished", "create", number=20),
        entry("vanished", "delete", number=21, timestamp="2026-03-02T09:00:00.000Z"),
        entry("never-deleted", "restore", number=22, timestamp="2026-03-03T09:00:00.000Z"),
    )
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    without_audit = {f["project"]: f for f in run.findings("trash-without-audit")}
    assert set(without_audit) == {"hand-moved", "old-staging-host"}
    assert "only 1 undone delete" in without_audit["old-staging-host"]["message"]
    without_trash = {f["project"]: f for f in run.findings("audit-without-trash")}
    assert set(without_trash) == {"vanished", "never-deleted"}
    assert without_trash["vanished"]["line"] == 8
    assert (
        "restore of `never-deleted` with no delete before it"
        in (without_trash["never-deleted"]["message"])
    )


def test_a_restore_takes_the_trash_file_back(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = with_files()
    del files[".bastra/trash/old-staging-host.md"]
    files["memories/old-staging-host.md"] = memory("old-staging-host", type="project-fact")
    files[LOG] += log(
        entry("old-staging-host", "restore", number=30, timestamp="2026-03-01T09:00:00.000Z")
    )
    run = vault_audit(doctor, build(make_repo, files))
    assert vault_findings(run) == []


def test_trail_checks_are_skipped_without_a_log(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = with_files()
    del files[LOG]
    run = vault_audit(doctor, build(make_repo, files))
    # audit-log-line's units are the log's lines: with no log it has nothing to examine and
    # is not listed (docs/checks.md); the others count their units under the `no log` gate.
    assert "audit-log-line" not in run.json["coverage"]
    for check in ("trash-without-audit", "audit-without-trash"):
        assert run.json["coverage"][check]["reasons"] == {
            "no log": run.json["coverage"][check]["skipped"]
        }
    for check in ("audit-log-line", "trash-without-audit", "audit-without-trash"):
        assert run.findings(check) == []


# -- floors -------------------------------------------------------------------------------


def test_floor_checks_fire_and_skip(doctor: Doctor, make_repo: MakeRepo, tmp_path: Path) -> None:
    root = build(make_repo, clean_vault_files())
    floors = floors_file(
        tmp_path / "floors.json",
        floor("deployment-rollback-window", affirmed="2026-05-01T08:00:00.000Z"),
        floor("times-in-utc", affirmed="2026-06-10T08:00:00.000Z", affirmed_by="pierce"),
        floor("old-staging-host", affirmed="2026-06-10T08:00:00.000Z"),
        floor("never-a-memory", affirmed="2026-06-10T08:00:00.000Z"),
    )
    acts = tmp_path / "acts.jsonl"
    acts.write_text(
        json.dumps(
            {
                "memory_id": "deployment-rollback-window",
                "occurred_at": "2026-05-10T08:00:00.000Z",
                "affirmed_by": "pierce",
                "why": "",
                "recorded": "2026-06-12T08:00:00.000Z",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    env = {"BASTRA_FLOORS_PATH": str(floors), "BASTRA_FLOOR_ACTS_PATH": str(acts)}
    run = vault_audit(doctor, root, env=env)
    (stale,) = run.findings("floor-stale")
    # An act without its `why` is no affirmation: the floor's own last_affirmed is live.
    assert stale["project"] == "deployment-rollback-window"
    assert "last affirmed 2026-05-01, 45 days before 2026-06-15 (6 weeks" in stale["message"]
    why = {(f["project"], f["path"]) for f in run.findings("floor-without-why")}
    assert why == {("times-in-utc", str(floors)), ("deployment-rollback-window", str(acts))}
    targets = {f["project"]: f["message"] for f in run.findings("floor-target")}
    assert set(targets) == {"old-staging-host", "never-a-memory"}
    assert "soft-deleted" in targets["old-staging-host"]
    assert "not a memory id" in targets["never-a-memory"]


def test_floors_as_bastras_api_enforces_them(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = build(make_repo, clean_vault_files())
    rows = [
        floor("deployment-rollback-window", affirmed="2026-05-18T08:00:00.000Z"),  # 28 days
        floor("times-in-utc", affirmed="2026-05-19T08:00:00.000Z"),  # 27 days
        floor("answer-tersely", affirmed="2026-06-10T08:00:00.000Z", why="still open"),
        floor("back-up-before-migration", affirmed="2026-06-10T08:00:00.000Z", reason=" "),
        *(floor(f"pinned-{n:02d}", affirmed="2026-06-10T08:00:00.000Z") for n in range(9)),
    ]
    floors = floors_file(tmp_path / "floors.json", *rows)
    acts = tmp_path / "acts.jsonl"
    act = {"memory_id": "times-in-utc", "occurred_at": "2026-06-12T08:00:00.000Z",
           "affirmed_by": "", "why": "", "recorded": "2026-06-12T08:00:01.000Z"}  # fmt: skip
    acts.write_text(json.dumps(act) + "\n", encoding="utf-8")
    env = {"BASTRA_FLOORS_PATH": str(floors), "BASTRA_FLOOR_ACTS_PATH": str(acts)}
    run = vault_audit(doctor, root, env=env)
    stale = {f["project"]: f["message"] for f in run.findings("floor-stale")}
    # Exactly 28 days is stale (floor(28 / 7) = 4); the empty act did not move the clock.
    assert set(stale) == {"deployment-rollback-window"}
    assert "28 days before 2026-06-15 (4 weeks" in stale["deployment-rollback-window"]
    why = sorted((f["project"], f["message"]) for f in run.findings("floor-without-why"))
    assert why == [
        ("answer-tersely", "floor on `answer-tersely` has a `why` but no `affirmed_by`"),
        ("back-up-before-migration", "floor on `back-up-before-migration` has an empty "
         "`reason` (Bastra refuses a floor without its why)"),
        ("times-in-utc", "affirm act for `times-in-utc` has neither `affirmed_by` nor `why`: "
         "it is no affirmation and does not move the clock"),
    ]  # fmt: skip
    (cap,) = run.findings("floor-cap")
    assert cap["project"] == "pinned-08"
    assert "floor 13 of 13 on this machine, over Bastra's cap of 12" in cap["message"]
    assert (
        cap["line"]
        == json.dumps(rows, indent=2).split("\n").index('    "memory_id": "pinned-08",') + 1
    )


def test_floor_checks_skip_without_floors(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = build(make_repo, clean_vault_files())
    run = vault_audit(doctor, root)
    # No floors on this machine is a shape, not a gate (docs/checks.md): not applicable, counted,
    # never a coverage line of "examined 0, skipped 1".
    for check in ("floor-stale", "floor-without-why", "floor-target", "floor-cap"):
        assert check not in run.json["coverage"]
        assert run.json["not_applicable"][check] == {"count": 1, "reason": "no floors"}
    shown = doctor("check", "--vault", str(root), "--today", TODAY, "--show-coverage")
    assert "not applicable floor-stale: 1 (1 no floors)" in shown.stdout


@pytest.mark.parametrize("kind", ["symlink", "not json", "not a list"])
def test_a_floors_file_that_cannot_be_judged_is_reported_once(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, kind: str
) -> None:
    root = build(make_repo, clean_vault_files())
    floors = tmp_path / "floors.json"
    if kind == "symlink":
        real = floors_file(tmp_path / "real.json", floor("times-in-utc", affirmed="2026-01-01"))
        floors.symlink_to(real)
    else:
        floors.write_text("{broken" if kind == "not json" else '{"a": 1}', encoding="utf-8")
    run = vault_audit(doctor, root, env={"BASTRA_FLOORS_PATH": str(floors)})
    (found,) = run.findings("floor-stale")
    assert "no floor can be verified" in found["message"]
    assert run.json["coverage"]["floor-target"]["reasons"] == {"floors unreadable": 1}


def test_a_deeply_nested_frontmatter_entry_is_dropped_unread(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    """#23 item 4: the rescue parses each entry alone; a 3,000-deep one is not parsed at all."""
    deep = memory("deep-note", extra="x: " + "[" * 3000 + "]" * 3000)
    root = build(make_repo, with_files(**{"memories__deep-note_DOT_md": deep}))
    run = vault_audit(doctor, root)
    found = run.findings("memory-frontmatter", "deep-note")
    assert [f["severity"] for f in found] == ["defect"]
    assert "`x` are lost" in found[0]["message"] or "`x` is lost" in found[0]["message"]


# -- suppressions and the baseline: a memory's id is its unit ------------------------------


def test_suppressions_and_the_baseline_work_on_memory_ids(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    quiet = memory(
        "quiet-links",
        body="<!-- context-doctor: disable-next-line memory-link -->\nSee [[nowhere-one]].\n",
    )
    ignored = memory("ignored-links", body="See [[nowhere-two]].\n")
    loud = memory("loud-links", body="See [[nowhere-three]].\n")
    files = with_files(
        **{
            "memories__quiet-links_DOT_md": quiet,
            "memories__ignored-links_DOT_md": ignored,
            "memories__loud-links_DOT_md": loud,
            "context-doctor_DOT_toml": '[per-project-ignores]\n"ignored-links" = ["memory-link"]\n',
        }
    )
    root = build(make_repo, files)
    run = vault_audit(doctor, root)
    assert [f["project"] for f in run.findings("memory-link")] == ["loud-links"]
    assert run.json["suppressed"] == {"inline": 1, "config": 1, "baseline": 0}
    baseline = tmp_path / "baseline.json"
    written = doctor("check", "--vault", str(root), "--today", TODAY, "--write-baseline",
                     str(baseline))  # fmt: skip
    assert written.exit_code == 0, written.stderr
    run = vault_audit(doctor, root, "--baseline", str(baseline))
    assert run.findings("memory-link") == [] and run.json["suppressed"]["baseline"] >= 1


def test_fix_never_touches_a_vault_file(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = with_files(**{"memories__thin_DOT_md": memory("thin", omit=("summary",))})
    files[LOG] += "{not json\n"
    root = build(make_repo, files)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    for flags in (("--fix",), ("--fix", "--unsafe-fixes"), ("--diff",)):
        run = doctor("check", "--vault", str(root), "--today", TODAY, *flags)
        assert run.exit_code in (0, 1), run.stderr
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == before


def test_a_secret_only_in_the_audit_log_is_redacted_wherever_it_is_quoted(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    """The log's own fields reach other findings (a deleted memory's id): redacted there too."""
    files = with_files()
    files[LOG] += log(entry(TOKEN, "delete", number=9), entry("x", f"purge-{TOKEN}", number=10))
    root = build(make_repo, files)
    for output in ("--json", "--output-format=sarif", "--output-format=github"):
        run = doctor("check", "--vault", str(root), "--today", TODAY, output)
        assert run.exit_code in (0, 1), run.stderr
        assert TOKEN not in run.stdout + run.stderr
        assert TOKEN[:4] in run.stdout  # the finding stands, its quote redacted
