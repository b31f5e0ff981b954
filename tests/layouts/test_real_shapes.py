"""Every real shape of #27, built as a real repository with commits at chosen dates.

Each shape is the convention people actually keep for working memory (docs/layouts.md), in
two twins: a planted stale record that must fire (a finding about that file, naming the
date a careful reader sees is behind) and a current one that must stay silent (no
finding at all). The glossary ``CONTEXT.md`` is not working memory: it gets no finding,
however old. The text is written here, in the shapes real users write; nothing is copied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, git, short_sha_of

Files = dict[str, str]
FRESHNESS = frozenset(
    {"context-header-freshness", "unlogged-session", "last-session-freshness", "header-ahead"}
)


def commit(day: str, message: str, files: Files, hour: int = 10) -> dict[str, Any]:
    return {"date": f"{day}T{hour:02}:00:00+00:00", "message": message, "files": files}


def code(day: str, what: str) -> dict[str, Any]:
    """A commit of ordinary work: a source file changes, no record does."""
    return commit(day, what, {"src/app.py": f"# {what}\nVERSION = {day!r}\n"})


def days(first: str, last: str, step: int = 1) -> Iterator[str]:
    day, end = date.fromisoformat(first), date.fromisoformat(last)
    while day <= end:
        yield day.isoformat()
        day += timedelta(days=step)


@dataclass(frozen=True)
class Shape:
    """One real shape: its scenario for a twin, the day it is audited, the file that fires."""

    build: Callable[[bool], dict[str, Any]]
    today: str
    record: str  # the file a stale twin's finding names
    cites: str | None = None  # a commit message the stale finding must cite (newest work)
    never_cites: str | None = None  # a commit message no finding may cite (set-aside work)
    # The seed's own layout keeps its template checks (docs/layouts.md): a current twin there may
    # hear about its template, never about its freshness.
    template: bool = False


# -- a hand-off note headed `## Last Session:` (the seed's single project) -------------


def hand_off(stale: bool) -> dict[str, Any]:
    note = (
        "# Hand-off\n\n## Last Session: 2026-04-08\n\n### Done\n- Split the importer.\n\n"
        "### Next\n- [ ] Wire the importer into the nightly job.\n"
    )
    history = [commit("2026-04-08", "importer split", {"CONTEXT.md": note, "src/app.py": "x\n"})]
    if stale:
        history += [code("2026-04-15", "importer retries"), code("2026-04-22", "nightly wiring")]
    return {"commits": history, "remote": True}


# -- docs/STATUS.md with an in-file session log and a daily data bot (declared) ---------

STATUS_CONFIG = (
    '[layout]\ncontext = "docs/STATUS.md"\nsessions = "context"\nwork_ignore = ["data/**"]\n'
)


def status_file(last: str, entries: list[tuple[str, str]]) -> str:
    log = "".join(f"### {day} — {what}\n\n{what.capitalize()}.\n\n" for day, what in entries)
    return (
        f"# Feed service — status\n\n- **Last updated:** {last}\n- **Status:** active\n\n"
        "## Now\n\n- The parser rewrite is live.\n\n## Session Log\n\n"
        f"{log}## Links\n\n- Runbook: docs/runbook.md\n"
    )


def status_with_bot(stale: bool) -> dict[str, Any]:
    logged = [("2026-07-14", "parser"), ("2026-07-20", "deploy")]
    history = [
        commit(
            "2026-07-14",
            "parser rewrite",
            {
                "context-doctor.toml": STATUS_CONFIG,
                "src/app.py": "parser\n",
                "docs/STATUS.md": status_file("2026-07-14", logged[:1]),
            },
        ),
        commit("2026-07-20", "deploy", {"docs/STATUS.md": status_file("2026-07-20", logged)}),
        code("2026-07-27", "fix feed timeouts"),
        code("2026-08-05", "fix duplicate items"),
    ]
    if not stale:
        logged += [("2026-08-12", "fixes")]
        history.append(
            commit(
                "2026-08-12",
                "fix the retry loop",
                {"src/app.py": "retry\n", "docs/STATUS.md": status_file("2026-08-12", logged)},
            )
        )
    else:
        history.append(code("2026-08-12", "fix the retry loop"))
    # The bot commits the day's feed every day, up to the day before the audit.
    history += [
        commit(day, f"data: feed for {day}", {"data/feed.json": f'{{"day": "{day}"}}\n'}, hour=3)
        for day in days("2026-07-21", "2026-08-30")
    ]
    history.sort(key=lambda item: item["date"])
    return {"commits": history, "remote": True}


# -- docs/handoff/state.md with a table log under docs/handoff/sessions/ (detected) ------


def state_files(rows: list[str]) -> Files:
    table = "".join(f"| {day} | session on {day} | ok |\n" for day in rows)
    state = (
        f"# Hand-off state\n\n**Updated:** {rows[-1]}\n\n## Where things are\n\n"
        "- The sync job runs hourly.\n\n## Open\n\n- [ ] Alerting for failed syncs.\n"
    )
    log = f"# Sessions\n\n| Date | Session | Result |\n|------|---------|--------|\n{table}"
    return {"docs/handoff/state.md": state, "docs/handoff/sessions/log.md": log}


def state_table(stale: bool) -> dict[str, Any]:
    rows = ["2026-07-20", "2026-07-28", "2026-07-29"]
    history = [
        commit("2026-07-20", "sync job", {"src/app.py": "sync\n"}),
        code("2026-07-28", "sync retries"),
        commit("2026-07-29", "hand-off", state_files(rows)),
        code("2026-08-05", "sync alerts draft"),
    ]
    if stale:
        history.append(code("2026-08-12", "sync alerts"))
    else:
        files = {"src/app.py": "alerts\n", **state_files([*rows, "2026-08-12"])}
        history.append(commit("2026-08-12", "sync alerts", files))
    return {"commits": history, "remote": True}


# -- docs/handoff/state.md with a month log of dated list items (detected) -------------


def handoff_list_files(items: list[str]) -> Files:
    log = "# Sessions, July 2026\n\n" + "".join(
        f"- {day} — **Sync work.** Ran the sync on {day}; all green.\n" for day in items
    )
    state = (
        "# Hand-off state\n\n## Where things are\n\n"
        f"- The sync job runs hourly; {len(items)} sessions logged.\n\n"
        "## Open\n\n- [ ] Alerting for failed syncs.\n"
    )
    return {"docs/handoff/state.md": state, "docs/handoff/sessions/2026-07.md": log}


def state_list(stale: bool) -> dict[str, Any]:
    items = ["2026-07-06", "2026-07-14"]
    history = [
        commit("2026-07-06", "sync job", {"src/app.py": "sync\n", **handoff_list_files(items[:1])}),
        commit(
            "2026-07-14", "sync retries", {"src/app.py": "retry\n", **handoff_list_files(items)}
        ),
        code("2026-07-21", "sync alerts draft"),
    ]
    if stale:
        history.append(code("2026-07-28", "sync alerts"))
    else:
        files = {
            "src/app.py": "alerts\n",
            **handoff_list_files([*items, "2026-07-21", "2026-07-28"]),
        }
        history.append(commit("2026-07-28", "sync alerts", files))
    return {"commits": history, "remote": True}


# -- docs/PROGRESS.md whose field is declared in German, docs/sessions/YYYY-MM.md ---------

PROGRESS_CONFIG = (
    '[layout]\ncontext = "docs/PROGRESS.md"\nsessions = "docs/sessions"\n\n'
    '[layout.fields]\nlast_session = ["Zuletzt aktualisiert"]\n'
)


def progress_page(updated: str) -> str:
    return (
        f"# Fortschritt\n\n**Zuletzt aktualisiert:** {updated}\n\n## Erledigt\n\n"
        "- Export nach CSV.\n\n## Als Nächstes\n\n- [ ] Import aus CSV.\n"
    )


def progress(stale: bool) -> dict[str, Any]:
    """The stale twin's page stays at 2026-04-30 while its log reaches 2026-05-13/14."""
    finished = progress_page("2026-04-30" if stale else "2026-05-14")
    april = "# April 2026\n\n## 2026-04-30 — Export begonnen\n\nErste Fassung.\n"
    may = (
        "# Mai 2026\n\n## 2026-05-06 — Export\n\nSpalten geklärt.\n\n"
        "### 2026-05-13/14 — Export fertig\n\nZwei Tage, ein Eintrag.\n"
    )
    history = [
        commit(
            "2026-04-30",
            "export begun",
            {
                "context-doctor.toml": PROGRESS_CONFIG,
                "docs/PROGRESS.md": progress_page("2026-04-30"),
                "docs/sessions/2026-04.md": april,
                "src/app.py": "export\n",
            },
        ),
        commit(
            "2026-05-06",
            "export columns",
            {"docs/sessions/2026-05.md": may.split("\n###")[0] + "\n", "src/app.py": "columns\n"},
        ),
        commit(
            "2026-05-14",
            "export done",
            {"docs/sessions/2026-05.md": may, "docs/PROGRESS.md": finished, "src/app.py": "done\n"},
            hour=18,
        ),
    ]
    if stale:  # four commits after the log, none of them logged
        history += [
            code(day, f"import step {n}")
            for n, day in enumerate(["2026-05-18", "2026-05-20", "2026-05-25", "2026-05-28"], 1)
        ]
    return {"commits": history, "remote": True}


# -- CLAUDE.md with a `## Current status` section and docs/sessions/ (detected) ----------


def claude_status(stale: bool) -> dict[str, Any]:
    last = "2026-06-10" if stale else "2026-06-24"
    guide = (
        "# CLAUDE.md\n\nGuidance for agents working in this repository.\n\n## Conventions\n\n"
        "- Run the tests before every commit.\n- Status: see below, never in commit messages.\n\n"
        f"## Current status\n\nPhase: storage migration (round 2)\nLast updated: {last}\n\n"
        "- Moving the blobs to the new bucket.\n\n## Commands\n\n- `make test`\n"
    )
    june = "# June 2026\n\n## 2026-06-03 — bucket layout\n\n## 2026-06-10 — blob copier\n"
    history = [
        commit(
            "2026-06-03",
            "bucket layout",
            {
                "src/app.py": "layout\n",
                "docs/sessions/2026-06.md": june.split("\n## 2026-06-10")[0] + "\n",
            },
        ),
        commit(
            "2026-06-10",
            "blob copier",
            {
                "src/app.py": "copier\n",
                "CLAUDE.md": guide.replace(last, "2026-06-10"),
                "docs/sessions/2026-06.md": june,
            },
        ),
        code("2026-06-17", "copier resumes"),
    ]
    if stale:
        history.append(code("2026-06-24", "copier checksums"))
    else:
        june += "\n## 2026-06-17 — resumes\n\n## 2026-06-24 — checksums\n"
        history.append(
            commit(
                "2026-06-24",
                "copier checksums",
                {"src/app.py": "sums\n", "CLAUDE.md": guide, "docs/sessions/2026-06.md": june},
            )
        )
    return {"commits": history, "remote": True}


# -- Cline's memory bank (detected) --------------------------------------------------


def bank_files(entries: list[str]) -> Files:
    progress_md = "# Progress\n\n## What works\n\n- Sign-in.\n\n## Log\n\n" + "".join(
        f"### {day}\n\n- Worked on sign-in.\n\n" for day in entries
    )
    return {
        "memory-bank/projectbrief.md": "# Project Brief\n\nA small sign-in service.\n",
        "memory-bank/productContext.md": "# Product Context\n\nPeople sign in with e-mail.\n",
        "memory-bank/systemPatterns.md": "# System Patterns\n\n- One handler per route.\n",
        "memory-bank/techContext.md": "# Tech Context\n\n- Python 3.11.\n",
        "memory-bank/activeContext.md": "# Active Context\n\n## Current Focus\n\n"
        f"- Password reset ({len(entries)} sessions in).\n\n## Next Steps\n\n"
        "- Rate-limit the reset mail.\n",
        "memory-bank/progress.md": progress_md,
    }


def memory_bank(stale: bool) -> dict[str, Any]:
    history = [
        commit("2026-07-01", "sign-in", {"src/app.py": "signin\n"}),
        commit("2026-07-08", "memory bank", bank_files(["2026-07-01", "2026-07-08"])),
        code("2026-07-15", "password reset"),
    ]
    if stale:
        history.append(code("2026-07-22", "reset mail"))
    else:
        files = bank_files(["2026-07-01", "2026-07-08", "2026-07-15", "2026-07-22"])
        history.append(commit("2026-07-22", "reset mail", {"src/app.py": "mail\n", **files}))
    return {"commits": history, "remote": True}


SHAPES = {
    "hand-off-heading": Shape(hand_off, "2026-04-30", "CONTEXT.md", template=True),
    "status-in-file-log-with-bot": Shape(
        status_with_bot,
        "2026-08-31",
        "docs/STATUS.md",
        cites="fix the retry loop",
        never_cites="data: feed for 2026-08-30",
    ),
    "state-table-log": Shape(state_table, "2026-08-31", "docs/handoff/state.md"),
    "state-list-log": Shape(state_list, "2026-07-31", "docs/handoff/state.md"),
    "progress-declared-in-german": Shape(progress, "2026-05-31", "docs/PROGRESS.md"),
    "claude-current-status": Shape(claude_status, "2026-06-30", "CLAUDE.md"),
    "cline-memory-bank": Shape(memory_bank, "2026-07-31", "memory-bank/activeContext.md"),
}


# Where else a stale twin's finding may point: the log that lags.
LOGS = {
    "state-table-log": ("docs/handoff/sessions/log.md",),
    "state-list-log": ("docs/handoff/sessions/2026-07.md",),
    "progress-declared-in-german": ("docs/sessions/2026-05.md",),
    "claude-current-status": ("docs/sessions/2026-06.md",),
    "cline-memory-bank": ("memory-bank/progress.md",),
}


def audit_repo(doctor: Doctor, root: Path, today: str) -> Run:
    run = doctor("check", str(root), "--today", today, "--json")
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_stale_record_fires(name: str, make_repo: MakeRepo, doctor: Doctor) -> None:
    shape = SHAPES[name]
    root = make_repo(shape.build(True))
    run = audit_repo(doctor, root, shape.today)
    stale = [f for f in run.json["findings"] if f["check"] in FRESHNESS]
    assert stale, run.json["findings"]
    assert all(finding["project"] for finding in stale)
    assert {finding["path"] for finding in stale} & {shape.record, *LOGS.get(name, ())}, stale
    every = " ".join(f"{f['message']} {f.get('remedy') or ''}" for f in run.json["findings"])
    if shape.cites is not None:
        assert short_sha_of(root, shape.cites) in every, every
    if shape.never_cites is not None:
        assert short_sha_of(root, shape.never_cites) not in every, every


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_current_record_is_silent(name: str, make_repo: MakeRepo, doctor: Doctor) -> None:
    shape = SHAPES[name]
    run = audit_repo(doctor, make_repo(shape.build(False)), shape.today)
    findings = run.json["findings"]
    if shape.template:  # the seed's own checks still speak; never about freshness, no defect
        assert all(f["severity"] != "defect" for f in findings), findings
        findings = [f for f in findings if f["check"] in FRESHNESS]
    assert findings == []


def test_the_stale_hand_off_note_is_read_not_unreadable(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """#27: its date was 'unreadable', and the remedy stamped a later date on a stale note."""
    root = make_repo(hand_off(True))
    run = audit_repo(doctor, root, "2026-04-30")
    finding = next(f for f in run.findings("context-header-freshness"))
    assert finding["path"] == "CONTEXT.md" and finding["line"] == 3
    assert "2026-04-08" in finding["message"]
    assert "readable" not in finding["message"]
    assert "2026-04-30" not in (finding.get("remedy") or "")  # never today's date


def test_a_progress_file_behind_its_log_names_the_later_day_of_a_span(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The log reached `### 2026-05-13/14`: the record of 2026-04-30 is behind 2026-05-14."""
    run = audit_repo(doctor, make_repo(progress(True)), "2026-05-31")
    messages = " ".join(f["message"] for f in run.findings("context-header-freshness"))
    assert "2026-04-30" in messages and "2026-05-14" in messages
    unlogged = run.findings("unlogged-session")
    assert unlogged and "2026-05-28" in unlogged[0]["message"]


# -- a 400-line glossary CONTEXT.md: not working memory, no finding at all --------------


def glossary_text() -> str:
    terms = ["Accrual", "Batch", "Cutoff", "Ledger", "Posting", "Reversal", "Settlement"]
    lines = ["# Domain glossary", "", "The words this code base uses, and what they mean.", ""]
    number = 0
    while len(lines) < 400:
        term = f"{terms[number % len(terms)]} {number // len(terms) + 1}"
        lines += [f"## {term}", "", f"**{term}**: a term of the ledger, entry {number}.", ""]
        number += 1
    lines += ["## Status", "", "**Status**: the lifecycle state of an order (open, settled)."]
    return "\n".join(lines) + "\n"


def test_a_glossary_context_file_gets_no_finding(make_repo: MakeRepo, doctor: Doctor) -> None:
    glossary = glossary_text()
    assert len(glossary.splitlines()) >= 400
    root = make_repo(
        {
            "remote": True,
            "commits": [
                commit("2026-01-10", "glossary", {"CONTEXT.md": glossary, "src/app.py": "v1\n"}),
                *(code(day, f"work on {day}") for day in days("2026-02-01", "2026-08-01", 30)),
            ],
        }
    )
    run = audit_repo(doctor, root, "2026-08-31")
    assert run.json["findings"] == []
    assert run.exit_code == 0


# -- the writers follow the layout: `log add --set-header` settles a stale record --------

# The newest work day each stale twin left unlogged.
CATCH_UP = {
    "hand-off-heading": "2026-04-22",
    "status-in-file-log-with-bot": "2026-08-12",
    "state-table-log": "2026-08-12",
    "state-list-log": "2026-07-28",
    "progress-declared-in-german": "2026-05-28",
    "claude-current-status": "2026-06-24",
    "cline-memory-bank": "2026-07-22",
}
# The records with no date field: their own last commit dates them (docs/layouts.md).
UNDATED = frozenset({"cline-memory-bank", "state-list-log"})
# A remedy's proposed entry: `### 2026-08-12 — …`, `| 2026-08-12 | … |` and where it goes.
PROPOSED = re.compile(
    r"`((?:#+ |\| |- )\d{4}-\d{2}-\d{2}[^`]*?)…[^`]*`.*? to (?:the `[^`]*` log in )?(\S+?),? saying"
)


@pytest.mark.parametrize("name", list(CATCH_UP))
def test_log_add_writes_the_layouts_log_and_field(
    name: str, make_repo: MakeRepo, doctor: Doctor
) -> None:
    """The remedy is a promise: one `log add --set-header` in the layout's own log and field,
    committed, and the stale record is current."""
    shape = SHAPES[name]
    root = make_repo(shape.build(True))
    stale = audit_repo(doctor, root, shape.today)
    proposed = [
        found.groups()
        for finding in stale.json["findings"]
        if (found := PROPOSED.search(finding.get("remedy") or "")) is not None
    ]
    assert proposed or name == "hand-off-heading", stale.json["findings"]
    added = doctor(
        "log",
        "add",
        str(root),
        "--date",
        CATCH_UP[name],
        "--title",
        "caught up",
        # A record with no date field (its commit dates it): the log alone.
        *(() if name in UNDATED else ("--set-header",)),
        "--today",
        shape.today,
    )
    assert added.exit_code == 0, added.stdout + added.stderr
    record = LOGS[name][0] if name in UNDATED else shape.record
    assert f"{CATCH_UP[name]}" in (root / record).read_text(encoding="utf-8")
    # What a remedy proposed is what log add wrote, in the file it named: the same
    # heading level and separator, or a new table row.
    for spelled, where in proposed:
        written = (root / where).read_text(encoding="utf-8").splitlines()
        assert any(line.startswith(spelled) and "caught up" in line for line in written), (
            spelled,
            where,
            written,
        )
    if name in UNDATED:  # its commit dates it: the session brings it up to date
        undated = root / shape.record
        undated.write_text(undated.read_text(encoding="utf-8") + "- Caught up.\n", "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "log the session", when=f"{shape.today}T08:00:00+00:00")
    run = audit_repo(doctor, root, shape.today)
    assert [f for f in run.json["findings"] if f["check"] in FRESHNESS] == []
