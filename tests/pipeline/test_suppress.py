"""Suppressions and the baseline (docs/suppressions.md): every way, its count, and what keeps it honest."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import load_report_validator, run_git

from context_doctor.scenarios import remote_path

Doctor = Callable[..., Run]
MakeRepo = Callable[[Mapping[str, Any]], Path]
TODAY = "2026-06-10"
LONG = "".join(f"line {n}\n" for n in range(160))  # over the 150-line budget


def context(body: str = "") -> str:
    return f"# P\n\n**Status:** Active\n**Last session:** 2026-06-01\n\n{body}"


INDEX = """projects:
  - id: alpha
    status: active
  - id: beta
    # context-doctor: disable-next-line status-vocabulary
    status: new
  - id: gamma
    status: new
  - id: delta
    status: active
"""

FILES = {
    "projects/index.yaml": INDEX,
    # rest of file: the whole-file budget finding; next line: the checked item.
    "projects/alpha/CONTEXT.md": context(
        "<!-- context-doctor: disable context-budget -->\n\n## Done\n\n"
        "<!-- context-doctor: disable-next-line completed-items-in-context -->\n"
        "- [x] shipped\n\n" + LONG
    ),
    # A comment shown in a code fence is an example: beta's budget finding stays.
    "projects/beta/CONTEXT.md": context(
        "```markdown\n<!-- context-doctor: disable context-budget -->\n```\n\n" + LONG
    ),
    # Suppresses nothing; names an unknown check; is malformed.
    "projects/gamma/CONTEXT.md": context(
        "<!-- context-doctor: disable-next-line context-budget -->\nplain line\n\n"
        "<!-- context-doctor: disable-next-line context-budgt -->\nanother line\n\n"
        "<!-- context-doctor: disabel context-budget -->\n"
    ),
    "projects/delta/CONTEXT.md": context(LONG),
    # A freshness-graded file outside any project: its findings can be waived inline too.
    "context/GOALS.md": (
        "---\nconvention: pai-freshness-v1\nlast_updated: 2026-01-01\n---\n"
        "<!-- context-doctor: disable freshness-never-reviewed -->\n# Goals\n"
    ),
}


@pytest.fixture
def corpus(make_repo: MakeRepo) -> Path:
    return make_repo(
        {"remote": True, "commits": [{"date": "2026-06-01T10:00:00+00:00", "files": FILES}]}
    )


def check(doctor: Doctor, root: Path, *args: str) -> Run:
    return doctor("check", "--source", str(root), "--today", TODAY, "--json", *args)


def checks_of(run: Run, project: str | None = None) -> list[str]:
    return [finding["check"] for finding in run.findings(project=project)]


def test_inline_markdown_comments_suppress_and_are_counted(corpus: Path, doctor: Doctor) -> None:
    run = check(doctor, corpus)
    assert run.exit_code == 1
    assert "context-budget" not in checks_of(run, "alpha")
    assert "completed-items-in-context" not in checks_of(run, "alpha")
    assert "context-budget" in checks_of(run, "beta")  # the fenced comment is no suppression
    assert run.json["suppressed"] == {"inline": 4, "config": 0, "baseline": 0}
    assert not run.findings("freshness-never-reviewed")  # waived in context/GOALS.md
    load_report_validator().validate(run.raw)


def test_yaml_comment_suppresses_the_field_on_the_next_line(corpus: Path, doctor: Doctor) -> None:
    run = check(doctor, corpus)
    assert "status-vocabulary" not in checks_of(run, "beta")
    assert "status-vocabulary" in checks_of(run, "gamma")  # the same status, no comment


def test_unused_malformed_and_unknown_comments_are_warnings(corpus: Path, doctor: Doctor) -> None:
    run = check(doctor, corpus)
    unused = run.findings("unused-suppression")
    assert {finding["severity"] for finding in unused} == {"warning"}
    assert {finding["path"] for finding in unused} == {"projects/gamma/CONTEXT.md"}
    messages = [finding["message"] for finding in unused]
    assert len(messages) == 3, messages
    assert any("suppresses no `context-budget` finding" in m for m in messages)
    assert any(
        "unknown check `context-budgt` (did you mean `context-budget`?)" in m for m in messages
    )
    assert any("malformed" in m and "disabel" in m for m in messages)
    assert [finding["line"] for finding in unused] == [6, 9, 12]


def test_human_verdict_line_counts_suppressions(corpus: Path, doctor: Doctor) -> None:
    run = doctor("check", "--source", str(corpus), "--today", TODAY)
    verdict = run.stdout.splitlines()[-1]
    assert verdict.startswith("DEFECTS:")
    assert "; 4 suppressed (4 inline)" in verdict
    assert "defects from context-budget" in verdict


def test_config_ignores_per_project_and_per_path(corpus: Path, doctor: Doctor) -> None:
    (corpus / "context-doctor.toml").write_text(
        '[per-project-ignores]\ngamma = ["lifecycle"]\n\n'
        '[per-path-ignores]\n"projects/delta/" = ["context-budget"]\n'
        '"projects/*/CONTEXT.md" = ["context-present"]\n',
        encoding="utf-8",
    )
    run = check(doctor, corpus)
    assert "status-vocabulary" not in checks_of(run, "gamma")  # a group name works
    assert "context-budget" not in checks_of(run, "delta")
    assert "context-budget" in checks_of(run, "beta")
    assert run.json["suppressed"]["config"] >= 2
    assert run.json["suppressed"]["inline"] == 4


def test_config_ignore_with_an_unknown_check_is_exit_2(corpus: Path, doctor: Doctor) -> None:
    (corpus / "context-doctor.toml").write_text(
        '[per-project-ignores]\ngamma = ["status-vocabulay"]\n', encoding="utf-8"
    )
    run = doctor("check", "--source", str(corpus), "--today", TODAY)
    assert run.exit_code == 2
    assert "did you mean `status-vocabulary`?" in run.stderr
    assert run.stderr.count("\n") == 1


def test_baseline_cycle(corpus: Path, doctor: Doctor) -> None:
    baseline = corpus / "context-doctor-baseline.json"
    written = doctor("check", "--source", str(corpus), "--today", TODAY, "--write-baseline")
    assert written.exit_code == 0, written.stderr
    recorded = json.loads(baseline.read_text(encoding="utf-8"))
    assert recorded["context_doctor_baseline"] == 1
    before = check(doctor, corpus)
    assert len(recorded["findings"]) == len(before.json["findings"])

    # Everything known is baselined: the run passes and says how much it hides.
    passing = check(doctor, corpus, "--baseline")
    assert passing.exit_code == 0, passing.stdout
    assert passing.json["findings"] == []
    assert passing.json["suppressed"]["baseline"] == len(recorded["findings"])

    # A new defect fails; a fixed finding leaves a stale entry behind.
    (corpus / "projects/alpha/CONTEXT.md").write_text(context(LONG), encoding="utf-8")
    index = (corpus / "projects/index.yaml").read_text(encoding="utf-8")
    (corpus / "projects/index.yaml").write_text(
        index.replace("  - id: gamma\n    status: new\n", "  - id: gamma\n    status: active\n"),
        encoding="utf-8",
    )
    after = check(doctor, corpus, "--baseline", str(baseline))
    assert after.exit_code == 1
    new = {(f["check"], f["project"]) for f in after.findings() if f["check"] != "baseline-stale"}
    assert ("context-budget", "alpha") in new
    assert ("context-budget", "beta") not in new  # still in the baseline
    stale = after.findings("baseline-stale")
    assert any("[status-vocabulary]" in f["message"] and f["project"] == "gamma" for f in stale)
    assert {f["severity"] for f in stale} == {"warning"}


def test_baseline_from_the_config(corpus: Path, doctor: Doctor) -> None:
    doctor(
        "check",
        "--source",
        str(corpus),
        "--today",
        TODAY,
        "--write-baseline",
        str(corpus / "b.json"),
    )
    (corpus / "context-doctor.toml").write_text('baseline = "b.json"\n', encoding="utf-8")
    run = check(doctor, corpus)
    assert run.exit_code == 0
    assert run.json["suppressed"]["baseline"] > 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("not json {", "is not JSON"),
        ('{"context_doctor_baseline": 99, "findings": []}', "written by another version"),
        ("[1, 2]", "is not a context-doctor baseline"),
        (None, "is a directory"),
    ],
)
def test_bad_baseline_is_one_line_exit_2(
    corpus: Path, doctor: Doctor, tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "baseline.json"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content, encoding="utf-8")
    run = doctor("check", "--source", str(corpus), "--today", TODAY, "--baseline", str(path))
    assert run.exit_code == 2
    assert expected in run.stderr
    assert run.stderr.count("\n") == 1
    assert "Traceback" not in run.stderr


def test_write_baseline_into_a_missing_directory_writes_nothing(
    corpus: Path, doctor: Doctor, tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "baseline.json"
    run = doctor(
        "check", "--source", str(corpus), "--today", TODAY, "--write-baseline", str(target)
    )
    assert run.exit_code == 2
    assert "does not exist" in run.stderr
    assert not target.parent.exists()


def test_baseline_matches_in_a_clone_under_another_name(
    corpus: Path, doctor: Doctor, tmp_path: Path
) -> None:
    """`check .` names the source after the checkout directory; the baseline must not care."""
    baseline = tmp_path / "baseline.json"
    written = doctor(
        "check", "--source", str(corpus), "--today", TODAY, "--write-baseline", str(baseline)
    )
    assert written.exit_code == 0, written.stderr
    clone = tmp_path / "ci-runner-checkout"
    run_git(tmp_path, "clone", "-q", str(remote_path(corpus)), str(clone))
    run = check(doctor, clone, "--baseline", str(baseline))
    assert run.exit_code == 0, run.stdout
    assert run.json["findings"] == []
    assert run.json["suppressed"]["baseline"] == len(json.loads(baseline.read_text())["findings"])


def test_the_cached_report_summary_says_what_was_suppressed(
    corpus: Path, doctor: Doctor, tmp_path: Path
) -> None:
    cache = tmp_path / "last-report.json"
    doctor("check", "--source", str(corpus), "--today", TODAY, "--report-cache", str(cache))
    run = doctor("report", "--cache", str(cache))
    assert run.exit_code == 1
    assert "; 4 suppressed (4 inline)" in run.stdout.splitlines()[0]
