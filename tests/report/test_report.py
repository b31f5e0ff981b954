"""The report as every output sees it: no quote spreads a detected secret.

The attack: a token recorded in CONTEXT.md is redacted by ``secret-in-context`` but
quoted whole, or cut short, by the checks that quote the corpus (a checked item, a
stale session heading, a misplaced attribution line, a malformed suppression comment),
and so reaches SARIF uploads, CI annotations, the step summary, ``last-report.json``
and the caches.  Token-shaped values are assembled at run time (see test_secrets.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Run
from support import Doctor, MakeRepo, load_report_validator, template_tail
from vault_support import TODAY as VAULT_TODAY
from vault_support import clean_vault_files, vault_scenario

from context_doctor.cli import main
from context_doctor.guards.redact import redact, scrub
from context_doctor.report.findings import Finding, Severity
from context_doctor.report.report import Report, redacted

TODAY = "2026-06-20"
TOKEN = "".join(("gh", "p_", "Q1w2E3r4T5y6U7i8O9p0", "A1s2D3f4G5h6J7k8"))
PASSWORD = "".join(("hunter", "2", "horse", "Battery"))


def fragments(secret: str) -> list[str]:
    """Every run of 8 characters of ``secret``: what no output may hold."""
    return [secret[at : at + 8] for at in range(len(secret) - 7)]


def assert_clean(text: str | bytes, where: str) -> None:
    data = text.encode("utf-8") if isinstance(text, str) else text
    for secret in (TOKEN, PASSWORD):
        for piece in fragments(secret):
            assert piece.encode("utf-8") not in data, f"{where} holds {piece!r}"


def assert_stores_clean(root: Path) -> int:
    """Every file the doctor keeps in ``root``'s git directory is clean; how many there are."""
    stores = [path for path in (root / ".git" / "context-doctor").rglob("*") if path.is_file()]
    for kept in stores:
        assert_clean(kept.read_bytes(), str(kept))
    return len(stores)


def twice_as_json(
    doctor: Doctor, root: Path, tmp_path: Path
) -> Iterator[tuple[str, list[str], Run]]:
    """``check --json`` of ``root`` twice (audited, then replayed from the store), each time
    written with ``-o`` and printed, both clean; yields the attempt, the arguments and the
    printed run, then checks the report cache it wrote is clean too."""
    last = tmp_path / "last-report.json"
    written = tmp_path / "out.json"
    for attempt in ("audited", "replayed"):
        args = ["check", "--source", str(root), "--today", TODAY, "--report-cache", str(last)]
        run = doctor(*args, "--json", "-o", str(written))
        assert run.exit_code == 1, run.stderr
        assert_clean(written.read_bytes(), f"-o ({attempt})")
        printed = doctor(*args, "--json")
        assert_clean(printed.stdout, f"json ({attempt})")
        yield attempt, args, printed
    assert_clean(last.read_bytes(), "last-report.json")


def fix_unsafely(doctor: Doctor, root: Path) -> Run:
    return doctor("check", "--source", str(root), "--today", TODAY, "--fix", "--unsafe-fixes")


CONTEXT = f"""# Alpha — Working Context

**Status:** Active
**Last session:** 2026-06-18
*Attribution — agent: Codex {TOKEN} · model: gpt · effort: high · scope: deploy · verified: yes · ref: x*

## Current State
*State as of: 2026-06-18*
Deploys run from CI; deploy_password: "{PASSWORD}" until rotated.

## Session 2026-05-02 — rotated the deploy key {TOKEN}
Rotated.

## Done
- [x] Rotated the deploy key {TOKEN} and pushed the new one
- [x] Set db password = "{PASSWORD}" on the staging box

## What's Next
*State as of: 2026-06-18*
- [ ] Move deploys to OIDC (as of 2026-06-18, review 7d)

<!-- context-doctor: ignore[context-budget] reason: pasted {TOKEN} -->

See [REFERENCE.md](REFERENCE.md) and [sessions/](sessions/).

Budget: 150 lines
"""


def leaky_repo(make_repo: MakeRepo) -> Path:
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "message": "alpha: deploy work",
                    "files": {
                        "projects/index.yaml": "projects:\n  - id: alpha\n    status: active\n"
                        "    last_session: 2026-06-18\n",
                        "projects/alpha/CONTEXT.md": CONTEXT,
                        "projects/alpha/REFERENCE.md": "# Alpha — Reference\n\nStable facts.\n",
                        "projects/alpha/sessions/2026-06.md": "# June\n\n## 2026-06-18\nDeploys.\n",
                    },
                }
            ]
        }
    )


@pytest.mark.parametrize("output", ["human", "concise", "json", "sarif", "github", "gitlab"])
def test_no_output_quotes_a_detected_secret(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, output: str
) -> None:
    root = leaky_repo(make_repo)
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    written = tmp_path / f"out.{output}"
    last = tmp_path / "last-report.json"
    for attempt in ("audited", "from the cache"):
        args = ["check", "--source", str(root), "--today", TODAY, "--output-format", output]
        args += ["--report-cache", str(last)]
        run = doctor(*args, env={"GITHUB_STEP_SUMMARY": str(summary)})
        assert run.exit_code == 1, run.stderr
        assert "secret-in-context" in run.stdout
        assert_clean(run.stdout, f"{output} ({attempt})")
        assert_clean(run.stderr, f"stderr ({attempt})")
        run = doctor(*args, "-o", str(written))
        assert run.exit_code == 1, run.stderr
        assert_clean(written.read_bytes(), f"-o {output} ({attempt})")
    assert_clean(summary.read_bytes(), "the step summary")
    assert_clean(last.read_bytes(), "last-report.json")
    assert_stores_clean(root)


QUOTING_CHECKS = {
    "completed-items-in-context",
    "stale-session-in-context",
    "attribution-placement",
    "unused-suppression",
}
"""The checks that quote the corpus in their messages."""


def test_the_quoting_checks_still_fire_with_the_secret_redacted(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = leaky_repo(make_repo)
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    quoted = {
        finding["check"]: finding["message"]
        for finding in run.json["findings"]
        if finding["check"] in QUOTING_CHECKS
    }
    assert set(quoted) == QUOTING_CHECKS
    assert "ghp_…" in quoted["completed-items-in-context"]
    assert "ghp_…" in quoted["unused-suppression"]
    # Each secret reported once, whatever number of detectors saw it.
    secrets = run.findings("secret-in-context")
    assert sorted(finding["line"] for finding in secrets) == [5, 9, 11, 15, 16, 22]


def test_a_quote_cut_inside_a_secret_is_redacted_too() -> None:
    cut = f"first: '[x] Rotated the deploy key {TOKEN[:30]}'"
    assert scrub(cut, [TOKEN]) == f"first: '[x] Rotated the deploy key {redact(TOKEN)}'"
    tail = f"…{TOKEN[12:]} was pasted"
    assert scrub(tail, [TOKEN]) == f"…{redact(TOKEN)} was pasted"
    # What merely shares a few characters with a secret is left alone.
    url = "https://app.example.com/oauth/callback"
    assert scrub("see https://github.com/x", [url]) == "see https://github.com/x"
    assert scrub(f"at {url} today", [url]) == f"at {redact(url)} today"


def test_redacted_leaves_a_report_without_secrets_as_it_is() -> None:
    from datetime import date

    finding = Finding("x", Severity.WARNING, "kb", "alpha", "p", 1, f"has {TOKEN}", "fix it")
    report = Report(date(2026, 6, 20), "local", "", [], 1, [finding], {})
    assert redacted(report, []) is report
    assert redacted(report, [TOKEN]).findings[0].message == f"has {redact(TOKEN)}"


# -- the Synthesis Console's contract -------------------------------
# The console renders `sources` as a number, checks `exit` against the process's exit
# status and `ok == (exit == 0)`, reads each coverage entry's `why` list, and requires
# every finding's `project` to be a string.

CONTRACT_TODAY = "2026-01-11"
CONTRACT_CONTEXT = "# Alpha\n\n**Status:** Active\n**Last session:** 2026-01-10\n" + template_tail(
    "2026-01-10"
)
CONTRACT_LOG = "# Sessions\n\n## 2026-01-10 — work\n\nDid the work.\n"


def knowledge(make_repo: MakeRepo, files: dict[str, str] | None = None) -> Path:
    base = {
        "projects/index.yaml": "- id: alpha\n  status: active\n  last_session: 2026-01-10\n"
        "- id: dormant\n  status: paused\n",
        "projects/alpha/CONTEXT.md": CONTRACT_CONTEXT,
        "projects/alpha/REFERENCE.md": "# Alpha reference\n",
        "projects/alpha/sessions/2026-01.md": CONTRACT_LOG,
        "projects/dormant/CONTEXT.md": "# Dormant\n\n**Status:** Paused\n",
    }
    base.update(files or {})
    return make_repo(
        {"remote": True, "commits": [{"date": "2026-01-10T10:00:00+00:00", "files": base}]}
    )


def check(doctor: Doctor, root: Path, *args: str) -> tuple[int, dict[str, object]]:
    run = doctor("check", "--source", str(root), "--today", CONTRACT_TODAY, "--json", *args)
    return run.exit_code, run.raw


def test_sources_is_a_count_and_the_list_is_source_details(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = knowledge(make_repo)
    code, report = check(doctor, root)
    load_report_validator().validate(report)
    assert report["sources"] == 1
    assert report["source_details"] == [
        {
            "name": root.name,
            "root": str(root.resolve()),
            "projects_dir": "projects",
            "projects": 2,
            "audited": True,
        }
    ]
    assert report["exit"] == code
    assert report["ok"] is (code == 0)


def test_why_is_written_as_upstream_writes_it(make_repo: MakeRepo, doctor: Doctor) -> None:
    """One reason covering every skip is written bare (`dormant`); several carry their counts."""
    index = (
        "- id: alpha\n  status: active\n  last_session: 2026-01-10\n"
        "- id: dormant\n  status: paused\n- id: done\n  status: completed\n"
        "  completed_date: 2026-01-09\n"
    )
    files = {"projects/index.yaml": index, "projects/done/CONTEXT.md": "# Done\n"}
    _, report = check(doctor, knowledge(make_repo, files))
    coverage = report["coverage"]
    assert isinstance(coverage, dict)
    assert coverage["completed-items-in-context"]["why"] == ["dormant"]
    assert coverage["context-budget"]["why"] == []
    assert coverage["terminal-project-open-items"]["why"] == ["1 live", "1 paused"]


def test_coverage_shows_gates_and_not_applicable_counts_shapes(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """docs/checks.md: `not sharded` is a shape (counted in not_applicable), `dormant` a gate."""
    _, report = check(doctor, knowledge(make_repo))
    load_report_validator().validate(report)
    coverage, shapes = report["coverage"], report["not_applicable"]
    assert isinstance(coverage, dict) and isinstance(shapes, dict)
    assert shapes["reference-index-orphan"] == {"count": 2, "reason": "not sharded"}
    assert "reference-index-orphan" not in coverage  # nothing examined, no gate applied
    assert coverage["context-template"]["reasons"] == {"dormant": 1}
    assert "memory-link" not in coverage  # no vault: nothing to examine, not listed
    assert "memory-link" not in shapes
    for entry in coverage.values():
        assert entry["examined"] or entry["skipped"], entry


def test_a_finding_about_the_source_as_a_whole_names_the_source(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """docs/checks.md: `project` is never empty; `(source)` for the source as a whole, as upstream."""
    index = "- id: alpha\n  status: active\n  last_session: 2026-01-10\n- status: active\n"
    root = knowledge(make_repo, {"projects/index.yaml": index})
    _, report = check(doctor, root)
    findings = report["findings"]
    assert isinstance(findings, list)
    assert all(isinstance(finding["project"], str) and finding["project"] for finding in findings)
    whole = [
        f for f in findings if f["check"] == "status-agreement" and f["project"].startswith("(")
    ]
    assert whole and all(f["project"] == f"({root.name})" for f in whole), findings


def test_a_stored_report_reads_a_whole_source_finding_back() -> None:
    """`(kb)` (and the `""` an older doctor stored) is the source as a whole, not a project."""
    data: dict[str, object] = {
        "today": "2026-01-11",
        "readiness": "local",
        "generated_at": "x",
        "projects_audited": 1,
        "findings": [
            {
                "check": "c",
                "severity": "warning",
                "source": "kb",
                "project": project,
                "path": "p",
                "line": None,
                "message": "m",
                "remedy": "r",
            }
            for project in ("(kb)", "", "alpha")
        ],
    }
    stored = Report.from_json(data)
    assert [f.project for f in stored.findings] == [None, None, "alpha"]
    assert [f.to_json()["project"] for f in stored.findings] == ["(kb)", "(kb)", "alpha"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), 0),  # warnings only: healthy
        (("--warnings-as-defects",), 1),
    ],
)
def test_exit_is_the_process_status_and_ok_follows_it(
    make_repo: MakeRepo, doctor: Doctor, args: tuple[str, ...], expected: int
) -> None:
    # An uncommitted edit is a warning under local readiness.
    root = knowledge(make_repo)
    (root / "projects/alpha/REFERENCE.md").write_text("# Alpha reference\n\nEdited.\n")
    code, report = check(doctor, root, *args)
    assert report["warnings"] and not report["defects"]
    assert (code, report["exit"], report["ok"]) == (expected, expected, expected == 0)


def test_exit_zero_says_zero_in_the_json_too(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = knowledge(make_repo, {"projects/alpha/CONTEXT.md": "# Alpha\n" + "line\n" * 200})
    code, report = check(doctor, root, "--exit-zero")
    assert report["defects"]
    assert (code, report["exit"], report["ok"]) == (0, 0, True)


def test_exit_2_json_names_its_exit(doctor: Doctor, tmp_path: Path) -> None:
    run = doctor("check", "--source", str(tmp_path / "missing"), "--json")
    assert run.exit_code == 2
    assert run.raw["ok"] is False
    assert run.raw["exit"] == 2
    assert str(tmp_path / "missing") in str(run.raw["error"])
    assert run.raw["remedy"]
    load_report_validator().validate(run.raw)


def test_a_usage_error_under_json_names_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["check", "--json", "--readiness", "sideways"])
    assert ended.value.code == 2
    printed = json.loads(capsys.readouterr().out)
    assert (printed["ok"], printed["exit"]) == (False, 2)


def test_no_output_or_cache_quotes_a_secret_found_in_a_memory_vault(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """A token pasted as a memory's title and link target: `memory-link` quotes the target."""
    files = clean_vault_files()
    name = "memories/all-projects/deployment-rollback-window.md"
    files[name] = (
        files[name]
        .replace("related: []", f"related: [{TOKEN}]", 1)
        .replace('title: "Deployment rollback window"', f'title: "Rollback with key {TOKEN}"', 1)
    )
    root = make_repo(vault_scenario(files))
    for attempt in ("audited", "from the cache"):
        for output in ("json", "sarif", "concise"):
            run = doctor(
                "check", "--vault", str(root), "--today", VAULT_TODAY, "--output-format", output
            )
            assert run.exit_code == 1, run.stderr
            assert "secret-in-memory" in run.stdout and "memory-link" in run.stdout
            assert_clean(run.stdout, f"{output} ({attempt})")
    assert_stores_clean(root)


def one_topic(make_repo: MakeRepo, project: str, topic: str, text: str) -> Path:
    """A project with one reference topic ``topic`` that REFERENCE.md does not link."""
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-18T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": f"projects:\n  - id: {project}\n"
                        "    status: active\n    last_session: 2026-06-18\n",
                        f"projects/{project}/CONTEXT.md": "# Alpha\n\n**Status:** Active\n"
                        "**Last session:** 2026-06-18\n\nSee [REFERENCE.md](REFERENCE.md).\n",
                        f"projects/{project}/REFERENCE.md": "# Alpha — Reference\n\nFacts.\n",
                        f"projects/{project}/reference/{topic}": text,
                    },
                }
            ]
        }
    )


def test_a_fix_that_would_copy_a_secret_is_redacted_from_every_output_and_store(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    # A topic named after a token (pasted into its file name and its text) is not linked from
    # REFERENCE.md: reference-index-orphan's fix would append a link holding the token.
    root = one_topic(make_repo, "alpha", f"deploy-{TOKEN}.md", f"# Deploy\n\nThe key is {TOKEN}.\n")
    for _attempt, _args, printed in twice_as_json(doctor, root, tmp_path):
        [orphan] = printed.findings("reference-index-orphan")
        assert orphan["fix"] is None
        assert "it would copy a detected secret" in orphan["remedy"]
    # The second attempt above is replayed from the store: what it keeps is clean. (The caches
    # key files by their names, which the work tree and git's own trees hold anyway.)
    reference = root / "projects" / "alpha" / "REFERENCE.md"
    before = reference.read_bytes()
    fixed = fix_unsafely(doctor, root)
    assert fixed.exit_code in (0, 1), fixed.stderr
    assert reference.read_bytes() == before


@pytest.mark.parametrize("where", ["reference shard", "project folder"])
def test_a_token_in_a_file_name_is_found_and_kept_out_of_every_output_and_store(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path, where: str
) -> None:
    # The token is only in a name (a topic's file name, or the project's folder and index id):
    # every path a finding prints would carry it, and the history cache lists file names.
    from context_doctor.mcp import tools

    project = "alpha" if where == "reference shard" else f"ops-{TOKEN}"
    topic = "deploy.md" if where == "project folder" else f"deploy-{TOKEN}.md"
    root = one_topic(make_repo, project, topic, "# Deploy\n\nNo key here.\n")
    for attempt, args, printed in twice_as_json(doctor, root, tmp_path):
        [found] = printed.findings("secret-in-context")
        named = "a file name" if where == "reference shard" else "a folder name"
        assert f"{named} (ghp_…)" in found["message"]
        assert "Rename" in found["remedy"]
        human = doctor(*args)
        assert_clean(human.stdout + human.stderr, f"text ({attempt})")
    fixed = fix_unsafely(doctor, root)
    assert_clean(fixed.stdout + fixed.stderr, "--fix")
    agent = tools.check(str(root), today=TODAY, include_coverage=True)
    assert_clean(json.dumps(agent), "MCP check")
    assert assert_stores_clean(root) > 0, "nothing was stored"
