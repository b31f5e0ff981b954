"""What the readings of a layout mean (docs/layouts.md): an undated record claims nothing,
a bot's commit is work only when it changes code.

Each shape is built as a real repository with commits at chosen times, in two twins: a
planted stale record that must fire, naming the true lag, and a current one that must stay
silent. The files are written here, in the shapes people write; nothing is copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Run
from support import Doctor, MakeRepo, git, short_sha_of

Files = dict[str, str]
FRESHNESS = frozenset({"context-header-freshness", "unlogged-session", "last-session-freshness"})

DEPENDABOT = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>"
GRADER = "Nightly Grader <actions@github.com>"
AGENT = "coding-agent[bot] <210000+coding-agent[bot]@users.noreply.github.com>"


def commit(when: str, message: str, files: Files, *, author: str | None = None) -> dict[str, Any]:
    """``when`` is ``YYYY-MM-DD`` (10:00 UTC) or ``YYYY-MM-DDTHH:MM``."""
    stamp = f"{when}T10:00" if "T" not in when else when
    made: dict[str, Any] = {"date": f"{stamp}:00+00:00", "message": message, "files": files}
    if author is not None:
        made["author"] = author
    return made


def code(when: str, what: str, **options: Any) -> dict[str, Any]:
    return commit(when, what, {"src/app.py": f"# {what}\n"}, **options)


def audit(doctor: Doctor, root: Path, today: str) -> Run:
    run = doctor("check", str(root), "--today", today, "--json")
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


def freshness(run: Run) -> list[dict[str, Any]]:
    return [f for f in run.json["findings"] if f["check"] in FRESHNESS]


def everything_said(run: Run) -> str:
    return " ".join(f"{f['message']} {f.get('remedy') or ''}" for f in run.json["findings"])


# -- a memory bank whose progress.md holds no dated entry ----------------------------------


def bank(focus: str) -> Files:
    return {
        "memory-bank/activeContext.md": f"# Active Context\n\n## Current Focus\n\n- {focus}\n\n"
        "## Next Steps\n\n- Wire the exporter into the nightly job.\n",
        "memory-bank/progress.md": "# Progress\n\n## What Works\n\n- Import.\n\n"
        "## What's Left\n\n- Export.\n",
        "memory-bank/projectbrief.md": "# Project Brief\n\nA small import/export tool.\n",
    }


def undated_bank(stale: bool) -> dict[str, Any]:
    """The bank is written at 09:00 on 2026-05-19; work follows it that day and two days on."""
    history = [
        commit("2026-05-19T09:00", "import and the bank", {"src/app.py": "v1\n", **bank("Import")}),
        code("2026-05-19T11:30", "exporter skeleton"),
        code("2026-05-19T16:45", "exporter columns"),
        code("2026-05-21", "exporter done"),
    ]
    if not stale:
        history.append(commit("2026-05-21T18:00", "bank: export done", bank("Export")))
    return {"commits": history, "remote": True}


def test_an_undated_record_counts_every_later_commit_same_day_too(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(undated_bank(stale=True))
    run = audit(doctor, root, "2026-05-31")
    (finding,) = freshness(run)
    assert finding["check"] == "context-header-freshness"
    assert finding["path"] == "memory-bank/activeContext.md"
    message = finding["message"]
    # Three commits after the bank's own (09:00): two later that day, one two days on.
    assert "3 commits" in message and "(2 of them later on 2026-05-19)" in message, message
    assert short_sha_of(root, "exporter done") in message
    assert short_sha_of(root, "exporter skeleton") in message  # same-day work is named


def test_a_current_undated_record_is_silent_and_coverage_says_no_dated_log(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    run = audit(doctor, make_repo(undated_bank(stale=False)), "2026-05-31")
    assert run.json["findings"] == []
    assert run.json["coverage"]["unlogged-session"]["reasons"] == {"no dated log": 1}
    text = doctor("check", str(make_repo(undated_bank(stale=False))), "--today", "2026-05-31")
    assert "no dated log" in text.stdout  # printed beside HEALTHY, never silent


def test_the_same_days_later_commits_alone_are_a_lag(make_repo: MakeRepo, doctor: Doctor) -> None:
    """Decision (docs/layouts.md): a commit claims its minute, not its day, so work later the
    same day lags an undated record; a `Last updated:` line claims the day and covers it."""
    history = undated_bank(stale=True)["commits"][:3]
    root = make_repo({"commits": history, "remote": True})
    (finding,) = freshness(audit(doctor, root, "2026-05-31"))
    assert "2 commits" in finding["message"] and "later on 2026-05-19" in finding["message"]
    dated = [dict(c, files=dict(c["files"])) for c in history]
    dated[0]["files"]["memory-bank/activeContext.md"] = (
        "# Active Context\n\nLast updated: 2026-05-19\n\n## Current Focus\n\n- Import.\n"
    )
    assert (
        freshness(audit(doctor, make_repo({"commits": dated, "remote": True}), "2026-05-31")) == []
    )


# -- a hand-off file with its log inside, dated entries, no date field -----------------------


def hand_off(entries: list[str], note: str) -> str:
    log = "".join(f"### {day} — session\n\n- Worked.\n\n" for day in entries)
    return f"# Hand-off\n\n## Where things are\n\n- {note}\n\n## Session Log\n\n{log}"


def test_unlogged_work_counts_from_the_newest_entry_never_from_a_commit_date(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The record was last committed on 2026-03-20 without a new entry: that commit's date
    is no claim, so every later work commit is unlogged, not only those before it."""
    history = [
        commit(
            "2026-03-02",
            "start",
            {"src/app.py": "v1\n", "HANDOFF.md": hand_off(["2026-03-02"], "v1")},
        ),
        code("2026-03-10", "parser"),
        commit("2026-03-20", "hand-off note", {"HANDOFF.md": hand_off(["2026-03-02"], "v2")}),
        *(code(day, f"work of {day}") for day in ("2026-04-07", "2026-05-12", "2026-08-18")),
    ]
    root = make_repo({"commits": history, "remote": True})
    run = audit(doctor, root, "2026-08-31")
    (unlogged,) = run.findings("unlogged-session")
    assert unlogged["message"].startswith("4 commits"), unlogged["message"]
    assert short_sha_of(root, "work of 2026-08-18") in unlogged["message"]


# -- bots: work only when they change code ----------------------------------------------------

STATUS_ACTIVE = "# Status\n\n**Last updated:** {day}\n**Status:** active\n\n## Now\n\n- {what}\n"


def with_bots(bots: list[dict[str, Any]], *, agent_work: bool = False) -> dict[str, Any]:
    history = [
        commit(
            "2026-07-01",
            "status",
            {"src/app.py": "v1\n", "STATUS.md": STATUS_ACTIVE.format(day="2026-07-01", what="v1")},
        ),
        *bots,
    ]
    if agent_work:
        history.append(code("2026-07-20", "agent: implement the exporter", author=AGENT))
    return {"commits": sorted(history, key=lambda c: c["date"]), "remote": True}


DEPENDENCY_BUMPS = [
    commit(
        "2026-07-14",
        "chore(deps): bump actions/checkout from 4 to 5",
        {".github/workflows/ci.yml": "uses: actions/checkout@v5\n"},
        author=DEPENDABOT,
    ),
    commit(
        "2026-07-21",
        "chore(deps): bump certifi",
        {"uv.lock": "certifi 2026.7\n", "pyproject.toml": "[project]\nname='x'\n"},
        author=DEPENDABOT,
    ),
]
GRADER_RUNS = [
    commit(
        day,
        f"Auto: grader {day}",
        {"docs/grader/history.json": f'["{day}"]\n', "docs/grader/index.html": f"<p>{day}</p>\n"},
        author=GRADER,
    )
    for day in ("2026-07-10", "2026-07-17", "2026-07-24")
]


def test_dependency_bumps_and_a_graders_runs_are_set_aside(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(with_bots(DEPENDENCY_BUMPS + GRADER_RUNS))
    run = audit(doctor, root, "2026-07-31")
    assert freshness(run) == [], freshness(run)
    assert run.json["source_details"][0]["set_aside"] == 5
    text = doctor("check", str(root), "--today", "2026-07-31").stdout
    assert "5 commits set aside" in text


def test_a_coding_agents_pull_request_is_work(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(with_bots(DEPENDENCY_BUMPS + GRADER_RUNS, agent_work=True))
    run = audit(doctor, root, "2026-07-31")
    (finding,) = freshness(run)
    assert short_sha_of(root, "agent: implement the exporter") in finding["message"]
    assert "bump" not in everything_said(run) and "grader" not in everything_said(run)
    assert run.json["source_details"][0]["set_aside"] == 5


def seed_single(bot_day: str) -> dict[str, Any]:
    """The seed's single project whose header claims a day only a bot's run touched."""
    context = (
        "# Headlines\n\n**Status:** active\n**Last session:** 2026-04-18\n\n"
        "## Current State\n\n- Grader live.\n\n## What's Next\n\n- [ ] Weekly digest.\n"
    )
    history = [
        commit(
            "2026-04-15",
            "grader",
            {
                "src/app.py": "v1\n",
                "CONTEXT.md": context.replace("2026-04-18", "2026-04-15"),
                "sessions/2026-04.md": "# April 2026\n\n### 2026-04-15 — grader\n\n- Built.\n",
            },
        ),
        commit("2026-04-17", "context", {"CONTEXT.md": context}),
        commit(
            bot_day,
            f"Auto: grader {bot_day}",
            {"docs/grader/index.html": "<p>run</p>\n"},
            author=GRADER,
        ),
    ]
    return {"commits": history, "remote": True}


def test_a_bots_run_never_supports_a_records_claim(make_repo: MakeRepo, doctor: Doctor) -> None:
    """The header claims 2026-04-18; only the grader committed that day: no session backs it,
    and no finding cites the grader's commit."""
    root = make_repo(seed_single("2026-04-18"))
    run = audit(doctor, root, "2026-04-30")
    (header,) = run.findings("context-header-freshness")
    assert "2026-04-18" in header["message"] and "2026-04-15" in header["message"]
    assert short_sha_of(root, "Auto: grader 2026-04-18") not in everything_said(run)
    assert run.json["source_details"][0]["set_aside"] == 1


# -- quiet where nothing is claimed --------------------------------------------------------

SEED_CONTEXT = (
    "# Importer\n\n**Status:** active\n**Last session:** 2026-06-01\n\n"
    "## Current State\n\n- Import works.\n\n## What's Next\n\n- [ ] Export.\n"
)
SEED_LOG = "# June 2026\n\n### 2026-06-01 — import\n\n- Built it.\n"


def seed_code_repo(**extra: Any) -> dict[str, Any]:
    files = {"src/main.py": "v1\n", "CONTEXT.md": SEED_CONTEXT, "sessions/2026-06.md": SEED_LOG}
    return {"commits": [commit("2026-06-01", "import", files)], "remote": True, **extra}


def test_a_dirty_code_file_is_not_the_doctors_business(make_repo: MakeRepo, doctor: Doctor) -> None:
    """A root CONTEXT.md repository: the code beside the records is the user's to commit."""
    root = make_repo(seed_code_repo(uncommitted={"files": {"src/main.py": "v2\n"}}))
    run = audit(doctor, root, "2026-06-02")
    assert run.findings("uncommitted-context") == []
    remote = doctor("check", str(root), "--today", "2026-06-02", "--readiness", "remote", "--json")
    (ready,) = remote.findings("branch-not-ready")  # remote readiness still asks for a clean tree
    assert "beside the working-memory records" in ready["message"]
    assert "projects directory" not in ready["message"]


def test_a_dirty_record_is_named_with_its_own_add(make_repo: MakeRepo, doctor: Doctor) -> None:
    dirty = {"src/main.py": "v2\n", "sessions/2026-06.md": SEED_LOG + "\n### 2026-06-02\n"}
    root = make_repo(seed_code_repo(uncommitted={"files": dirty}))
    (finding,) = audit(doctor, root, "2026-06-02").findings("uncommitted-context")
    assert finding["path"] == "sessions/2026-06.md"
    assert "git add sessions/2026-06.md && git commit" in finding["remedy"]
    assert "src/main.py" not in finding["message"]


def test_a_memory_banks_other_files_are_its_records(make_repo: MakeRepo, doctor: Doctor) -> None:
    history = undated_bank(stale=False)
    dirty = {"memory-bank/projectbrief.md": "# Project Brief\n\nNow with export.\n"}
    root = make_repo({**history, "uncommitted": {"files": {"src/app.py": "v9\n", **dirty}}})
    (finding,) = audit(doctor, root, "2026-05-31").findings("uncommitted-context")
    assert finding["path"] == "memory-bank/projectbrief.md"


def test_unpushed_code_alone_is_not_unpushed_context(make_repo: MakeRepo, doctor: Doctor) -> None:
    history = seed_code_repo()["commits"] + [code("2026-06-02", "export")]
    root = make_repo({"commits": history, "remote": True, "unpushed_commits": 1})
    assert audit(doctor, root, "2026-06-02").findings("unpushed-context") == []
    history.append(commit("2026-06-02T12:00", "log", {"sessions/2026-06.md": SEED_LOG + "\n"}))
    root = make_repo({"commits": history, "remote": True, "unpushed_commits": 2})
    (finding,) = audit(doctor, root, "2026-06-02").findings("unpushed-context")
    assert "1 commit touches the working-memory records" in finding["message"]
    assert "projects directory" not in finding["message"]


GLOSSARY = (
    "# Ledger words\n\n## Accrual\n\nRecognised when earned.\n\n"
    "## Reversal\n\nAn entry undoing another.\n"
)


def test_a_file_that_is_not_working_memory_gets_no_durability_finding(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """A glossary CONTEXT.md on a new branch with no upstream: no finding at all."""
    history = [commit("2026-06-01", "glossary", {"CONTEXT.md": GLOSSARY, "src/main.py": "v1\n"})]
    root = make_repo({"commits": history})  # no remote at all
    run = audit(doctor, root, "2026-06-02")
    assert run.json["findings"] == [], run.json["findings"]
    assert run.json["not_applicable"]["unpushed-context"]["reason"] == "not working memory"
    assert "set aside" not in doctor("check", str(root), "--today", "2026-06-02").stdout


# -- `layout` comments only what it read -----------------------------------------------------


def test_layout_says_there_is_no_dated_log_when_there_is_none(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    status = "# Status\n\n**Status:** active\n\n## Now\n\n- Import.\n"
    root = make_repo({"commits": [commit("2026-06-01", "status", {"docs/HANDOFF.md": status})]})
    text = doctor("layout", str(root)).stdout
    assert "the dated entries inside docs/HANDOFF.md" not in text
    assert "no dated entry inside docs/HANDOFF.md: no dated log" in text
    bank_root = make_repo(undated_bank(stale=False))
    assert "which holds no dated entry: no dated log" in doctor("layout", str(bank_root)).stdout


# -- remedies write into the live log --------------------------------------------------------


def two_logs(live_rows: bool) -> str:
    """A status file that kept one log and moved to another: the abandoned one is older."""
    rows = "| Date | What |\n|---|---|\n" + "".join(
        f"| {day} | work |\n"
        for day in (("2026-05-02", "2026-06-20") if live_rows else ("2026-03-02", "2026-03-09"))
    )
    headings = "".join(
        f"### {day} — work\n\n- Done.\n\n"
        for day in (("2026-03-02", "2026-03-09") if live_rows else ("2026-05-02", "2026-06-20"))
    )
    return (
        "# Status\n\n**Last updated:** 2026-06-20\n\n## Now\n\n- Export.\n\n"
        f"## Session Log\n\n{headings}## Table\n\n{rows}"
    )


def test_a_remedy_and_log_add_write_into_the_live_log(make_repo: MakeRepo, doctor: Doctor) -> None:
    for live_rows, proposed in ((False, "`### 2026-07-08 — …`"), (True, "`| 2026-07-08 | … |`")):
        history = [
            commit("2026-06-20", "status", {"STATUS.md": two_logs(live_rows), "src/app.py": "1\n"}),
            code("2026-07-08", "export"),
        ]
        root = make_repo({"commits": history, "remote": True})
        (unlogged,) = audit(doctor, root, "2026-07-10").findings("unlogged-session")
        assert proposed in unlogged["remedy"], unlogged["remedy"]
        added = doctor("log", "add", str(root), "--date", "2026-07-08", "--title", "export")
        assert added.exit_code == 0, added.stdout + added.stderr
        written = (root / "STATUS.md").read_text(encoding="utf-8")
        assert ("| 2026-07-08 | export" in written) is live_rows, written
        assert ("### 2026-07-08 — export" in written) is not live_rows, written


# -- a root CONTEXT.md with an undated status section ----------------------------------------


def status_context(note: str) -> str:
    return (
        "# Plaud bridge\n\nThis file tells agents where the work stands.\n\n"
        f"## Current State\n\n- {note}\n\n## Principles\n\n- Small modules.\n"
    )


def context_with_current_state(stale: bool) -> dict[str, Any]:
    history = [
        commit(
            "2026-07-08", "reorganise", {"CONTEXT.md": status_context("v0.7"), "src/a.py": "1\n"}
        ),
        code("2026-07-31", "feat: v0.8 audit"),
        commit("2026-07-31T12:00", "bump", {"uv.lock": "x\n"}, author=DEPENDABOT),
    ]
    if not stale:
        history.append(
            commit("2026-07-31T18:00", "context", {"CONTEXT.md": status_context("v0.8")})
        )
    return {"commits": history, "remote": True}


def test_a_root_context_with_an_undated_current_state_is_working_memory(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(context_with_current_state(stale=True))
    run = audit(doctor, root, "2026-08-10")
    (finding,) = freshness(run)
    assert finding["path"] == "CONTEXT.md" and "no readable date field" in finding["message"]
    assert short_sha_of(root, "feat: v0.8 audit") in finding["message"]
    assert [f for f in run.json["findings"] if f["check"].startswith("context-template")] == []
    current = audit(doctor, make_repo(context_with_current_state(stale=False)), "2026-08-10")
    assert current.json["findings"] == []


# -- a dated note in the log folder is no misnamed log -----------------------------------------


def test_a_meeting_note_beside_the_logs_is_not_a_misnamed_log(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    files = {
        "CONTEXT.md": SEED_CONTEXT,
        "sessions/2026-06.md": SEED_LOG,
        "sessions/meeting-2026-06-01-client.md": "# Call with the client\n\n- Wants export.\n",
        "sessions/june-notes.md": "# June\n\n### 2026-06-01 — more\n\n- A misnamed log.\n",
    }
    root = make_repo({"commits": [commit("2026-06-01", "start", files)], "remote": True})
    named = [
        f["path"]
        for f in audit(doctor, root, "2026-06-02").findings("session-log-layout")
        if "not named" in f["message"]
    ]
    assert named == ["sessions/june-notes.md"]


# -- ids that hold across remotes --------------------------------------------------------------

FRESH = ("--select", "session-freshness")  # the record's own warning, no durability finding


def stale_status_repo(make_repo: MakeRepo, work: str = "Import") -> Path:
    """A STATUS.md behind a later work commit: one warning to baseline."""
    status = f"# Status\n\n**Status:** active\n\n## Now\n\n- {work}.\n"
    history = [
        commit("2026-06-01", "status", {"STATUS.md": status, "src/app.py": "1\n"}),
        code("2026-06-10", "export"),
    ]
    return make_repo({"commits": history})  # no remote: the id is the folder's name


def check(doctor: Doctor, root: Path, *args: str) -> Run:
    run = doctor("check", str(root), "--today", "2026-06-20", *FRESH, *args, "--json")
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


def ids_of(run: Run) -> set[str]:
    return {f["project"] for f in run.json["findings"]}


def test_a_baselined_id_holds_when_origin_is_added_then_renamed(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = stale_status_repo(make_repo)
    assert ids_of(check(doctor, root)) == {root.name}
    baseline = root / "context-doctor-baseline.json"
    written = doctor("check", str(root), "--today", "2026-06-20", *FRESH, "--write-baseline")
    assert written.exit_code == 0, written.stdout + written.stderr
    recorded = json.loads(baseline.read_text(encoding="utf-8"))["projects"]
    assert [(item["id"], item["from"]) for item in recorded] == [
        (root.name, "the repository's folder name (no origin remote)")
    ]
    git(root, "remote", "add", "origin", f"https://example.invalid/me/{root.name}-remote.git")
    assert ids_of(check(doctor, root)) == {f"{root.name}-remote"}  # what moved the id
    for rename in (False, True):
        if rename:
            git(root, "remote", "set-url", "origin", "git@example.invalid:me/x.git")
        run = check(doctor, root, "--baseline", str(baseline))
        assert run.json["findings"] == [], run.json["findings"]  # still baselined, none stale
        assert run.json["suppressed"].get("baseline") == 1
    layout = doctor("layout", str(root), "--config", str(config_with_baseline(root)))
    assert f'name = "{root.name}"' in layout.stdout
    assert "recorded in the baseline context-doctor-baseline.json" in layout.stdout
    assert "is now `x`" in layout.stdout


def config_with_baseline(root: Path, ignores: str = "") -> Path:
    config = root / "context-doctor.toml"
    config.write_text(f'baseline = "context-doctor-baseline.json"\n{ignores}', encoding="utf-8")
    return config


def test_per_project_ignores_keep_their_key_under_a_recorded_id(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = stale_status_repo(make_repo)
    written = doctor("check", str(root), "--today", "2026-06-20", "--write-baseline")
    assert written.exit_code == 0, written.stdout + written.stderr
    config_with_baseline(
        root, f'[per-project-ignores]\n"{root.name}" = ["context-header-freshness"]\n'
    )
    git(root, "remote", "add", "origin", f"https://example.invalid/me/{root.name}-remote.git")
    run = check(doctor, root)
    assert run.findings("context-header-freshness") == []
    assert run.json["suppressed"].get("config") == 1


def test_without_a_record_the_origin_names_the_project(make_repo: MakeRepo, doctor: Doctor) -> None:
    """The control: nothing recorded, so the origin's name is the id, as documented; and
    `[layout] name` pins an id whatever the remotes say."""
    root = stale_status_repo(make_repo)
    git(root, "remote", "add", "origin", "https://example.invalid/me/comics.git")
    assert ids_of(check(doctor, root)) == {"comics"}
    assert "# the origin remote's name" in doctor("layout", str(root)).stdout
    (root / "context-doctor.toml").write_text(
        '[layout]\ncontext = "STATUS.md"\nname = "pinned"\n', encoding="utf-8"
    )
    assert ids_of(check(doctor, root)) == {"pinned"}
    assert "# `[layout] name`" not in doctor("layout", str(root)).stdout  # declared, not derived


def test_a_baseline_outside_the_repository_is_matched_by_its_root_commit(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = stale_status_repo(make_repo)
    other = stale_status_repo(make_repo, "Export")  # another repository: another root commit
    baseline = tmp_path / "kept" / "baseline.json"
    baseline.parent.mkdir()
    written = doctor(
        "check", str(root), "--today", "2026-06-20", *FRESH, "--write-baseline", str(baseline)
    )
    assert written.exit_code == 0, written.stdout + written.stderr
    git(root, "remote", "add", "origin", "https://example.invalid/me/renamed.git")
    assert check(doctor, root, "--baseline", str(baseline)).json["findings"] == []
    git(other, "remote", "add", "origin", "https://example.invalid/me/renamed.git")
    run = check(doctor, other, "--baseline", str(baseline))
    assert ids_of(run) == {"renamed"}  # not this repository's record: its own id stands
