from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import REPO_ROOT, Run
from support import Doctor, git, short_sha_of

from context_doctor.scenarios import build_scenario, load_scenario


def test_demo_corpus_audits_with_defects(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    root = scenario_repo("demo")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    assert run.exit_code == 1
    assert run.json["projects_audited"] == 10
    assert run.findings("context-budget", "beacon")


def test_demo_keeps_a_compiled_structured_project_and_a_broken_citation(
    scenario_repo: Callable[[str], Path], doctor: Callable[..., Run]
) -> None:
    """keel's CURRENT_STATE.json is valid and compiled; harbor's artifact cites a lost script."""
    root = scenario_repo("demo")
    run = doctor(
        "check", "--project", str(root / "projects" / "keel"), "--today", "2026-06-20", "--json"
    )
    assert run.findings(project="keel") == [], run.findings(project="keel")
    assert run.json["coverage"]["body-currency"]["reasons"] == {"structured state": 1}
    assert run.json["coverage"]["semantic-current-state"]["examined"] == 1
    harbor = doctor(
        "check", "--project", str(root / "projects" / "harbor"), "--today", "2026-06-20", "--json"
    )
    (finding,) = harbor.findings("artifact-cites-missing-script")
    assert finding["path"] == "projects/harbor/resources/artifacts/vendor-scores.md"
    assert "`resources/scripts/score_vendors.py`, which does not exist" in finding["message"]


def test_the_demo_audits_a_layout_beside_the_seed_corpus(doctor: Doctor, tmp_path: Path) -> None:
    """#27: docs/STATUS.md with its log inside it, and a nightly bot that is never work."""
    run = doctor("demo", "--keep", str(tmp_path), "--output-format", "json")
    assert run.exit_code == 1, run.stderr
    beside = tmp_path / "demo-status"
    (finding,) = run.findings("unlogged-session", "feed-service")
    assert finding["path"] == "docs/STATUS.md"
    assert short_sha_of(beside, "Retry a failed fetch once") in finding["message"]
    bot = git(beside, "log", "--format=%h", "--abbrev=7", "--grep=data: nightly feed").split()
    assert len(bot) == 6 and not any(sha in json.dumps(run.json) for sha in bot)
    assert run.findings("context-budget", "beacon")  # the seed's corpus, audited beside it


def test_demo_vault_shows_every_planted_fault(doctor: Callable[..., Run], tmp_path: Path) -> None:
    run = doctor("demo", "--vault", "--output-format", "json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    fired = {finding["check"] for finding in run.json["findings"]}
    readme = (REPO_ROOT / "fixtures" / "scenarios" / "vault-demo.yaml").read_text("utf-8")
    named = set(re.findall(r"\| ([a-z-]+)(?: \((?:defect|warning)\))? \|\n", readme))
    assert named - {"check"} <= fired | {"audit-log-rewritten", "unaudited-change"}, named
    assert {"memory-frontmatter", "secret-in-memory", "floor-target"} <= fired


# -- every command a remedy proposes is one the doctor's own tools accept -------
#
# "A remedy is a promise": each backticked command a finding proposes is run, as printed,
# from the repository root of a copy of the audited corpus, and must succeed (exit 0). No
# printed remedy may hand its reader a placeholder instead of the file, slug or date.

# A backticked span that runs the doctor (alone, piped from printf, or after `migrate &&`).
_COMMAND = re.compile(r"`((?:printf '%s' [^`]*\| )?context-doctor [^`]*)`")
_PLACEHOLDER = re.compile(r"\b(?:FILE|SLUG|PATH|PROJECT|NAME|YYYY-MM(?:-DD)?|Nd)\b|<[a-z][^<>]*>")
# Every check whose remedies propose a doctor command, and so must be exercised below.
_COMMAND_CHECKS = {
    "context-header-freshness",
    "freshness-derived-reviewed",
    "freshness-future",
    "freshness-never-reviewed",
    "freshness-overdue",
    "section-freshness-overdue",
    "semantic-current-state",
}
_SCENARIOS = (
    "currency",
    "demo",
    "demo-status",
    "freshness",
    "hygiene",
    "lifecycle",
    "references",
    "structure",
    "terminal",
)

# Paths with spaces, files the writers must migrate first, a review dated in the future and
# a stale section: the freshness remedies at their hardest to quote and to get right.
_REMEDY_CORPUS = {
    "commits": [
        {
            "date": "2026-06-01T10:00:00+02:00",
            "files": {
                "context-doctor.toml": "[freshness]\nregistry = [{slug = 'notes', path = "
                "'context/Bare Notes.md'}]\n",
                "context/Bare Notes.md": "# Notes kept before the convention\n\nLong prose.\n",
                "context/Life Goals.md": "---\nlast_updated: 2026-06-01\nlast_updated_by: "
                "principal\nconvention: pai-freshness-v1\nlast_reviewed: 2026-07-01\n"
                "last_reviewed_by: principal\n---\n# Goals\n\n## Current State (where you are now)\n"
                "<!-- updated: 2026-05-01 by:principal -->\nThree goals in flight.\n",
                "context/Never.md": "---\nlast_updated: 2026-06-01\nlast_updated_by: principal\n"
                "convention: pai-freshness-v1\n---\n# Never reviewed\n",
                "projects/index.yaml": "projects:\n  - id: north star\n    status: active\n",
                "projects/north star/CONTEXT.md": "# North star — Working Context\n\n"
                "**Phase:** Discovery — interviews with the three pilot teams, notes in REFERENCE.md\n"
                "**Status:** Active — waiting on the second pilot's answers before scoping\n"
                "**Last session:** 2026-06-01\n\n---\n\n## Current State\nInterviews half done.\n",
                "projects/north star/sessions/2026-06.md": "# June\n\n## 2026-06-01 — kickoff\n"
                "\n## 2026-06-12 — interviews\nTwo of three teams interviewed.\n",
            },
        }
    ]
}


def _copies(root: Path, tmp_path: Path) -> Callable[[str], Path]:
    counter = iter(range(10_000))

    def copy(name: str) -> Path:
        target = tmp_path / f"{name}-{next(counter)}"
        shutil.copytree(root, target, symlinks=True)
        return target

    return copy


def _assert_remedies_keep_their_promise(
    doctor: Doctor, root: Path, today: str, copy: Callable[[str], Path], name: str
) -> set[str]:
    """Every remedy free of placeholders; every proposed command succeeds on a copy. Returns
    the checks that proposed one."""
    run = doctor("check", "--source", str(root), "--today", today, "--json", "--no-report-cache")
    assert run.exit_code in (0, 1), run.stderr
    proposed: set[tuple[str, str]] = set()
    for finding in run.json["findings"]:
        remedy = finding["remedy"]
        assert not _PLACEHOLDER.search(remedy), (name, finding["check"], remedy)
        for command in _COMMAND.findall(remedy):
            # No command may end on a missing argument (`state compile ` with nothing after).
            assert not re.search(r"(?:compile|init|add|review|migrate)\s*$", command), command
            proposed.add((finding["check"], command))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for check, command in sorted(proposed):
        fresh = copy(name)
        done = subprocess.run(
            ["bash", "-c", command], cwd=fresh, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (name, check, command, done.stdout, done.stderr)
        if check == "context-header-freshness":  # the whole remedy is the command: it resolves
            after = doctor("check", "--source", str(fresh), "--today", today, "--json")
            assert not [f for f in after.json["findings"] if command in f["remedy"]], command
    return {check for check, _ in proposed}


def test_every_remedy_is_concrete_and_every_proposed_command_succeeds(
    tmp_path: Path, doctor: Doctor, scenario_repo: Callable[[str], Path]
) -> None:
    proposing: set[str] = set()
    for name in _SCENARIOS:
        today = str(load_scenario(name)["today"])
        root = scenario_repo(name)
        proposing |= _assert_remedies_keep_their_promise(
            doctor, root, today, _copies(root, tmp_path), name
        )
    inline = build_scenario(_REMEDY_CORPUS, tmp_path / "remedy-kb")
    proposing |= _assert_remedies_keep_their_promise(
        doctor, inline, "2026-06-20", _copies(inline, tmp_path), "remedy-kb"
    )
    assert proposing >= _COMMAND_CHECKS, _COMMAND_CHECKS - proposing


def test_the_remedy_corpus_quotes_paths_with_spaces(tmp_path: Path, doctor: Doctor) -> None:
    root = build_scenario(_REMEDY_CORPUS, tmp_path / "kb")
    run = doctor("check", "--source", str(root), "--today", "2026-06-20", "--json")
    remedies = {f["check"]: f["remedy"] for f in run.json["findings"]}
    never = sorted(f["remedy"] for f in run.findings("freshness-never-reviewed"))
    assert never == [
        "Review it with its owner, then run `context-doctor freshness migrate "
        "'context/Bare Notes.md' && context-doctor freshness review 'context/Bare Notes.md'`.",
        "Review it with its owner, then run `context-doctor freshness review context/Never.md`.",
    ]
    assert (
        "review-section 'context/Life Goals.md' current_state`"
        in (remedies["section-freshness-overdue"])
    )
    assert (
        "`context-doctor freshness review 'context/Life Goals.md'`"
        in (remedies["freshness-future"])
    )
    assert "'projects/north star/CONTEXT.md'" in remedies["context-header-freshness"]


def test_the_baseline_remedy_rewrites_the_baseline_it_names(tmp_path: Path, doctor: Doctor) -> None:
    """baseline-stale proposes `check --write-baseline FILE` for the very file (quoted)."""
    root = build_scenario(_REMEDY_CORPUS, tmp_path / "kb")
    baseline = root / "my baseline.json"
    written = doctor("check", "--today", "2026-06-20", "--write-baseline", baseline.name, cwd=root)
    assert written.exit_code == 0, written.stderr
    data = json.loads(baseline.read_text("utf-8"))
    data["findings"].append({**data["findings"][0], "fingerprint": "0" * 16, "message": "gone"})
    baseline.write_text(json.dumps(data), "utf-8")
    run = doctor("check", "--today", "2026-06-20", "--baseline", baseline.name, "--json", cwd=root)
    (stale,) = run.findings("baseline-stale")
    (command,) = _COMMAND.findall(stale["remedy"])
    assert command == "context-doctor check --write-baseline 'my baseline.json'"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", command], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    # The command ran on the real date (no --today), as a person would: judged the same way,
    # the rewritten baseline has no stale entry left.
    again = doctor("check", "--baseline", baseline.name, "--json", cwd=root)
    assert again.findings("baseline-stale") == []


def test_demo_keep_relative_puts_the_bare_remote_beside_the_corpus(
    tmp_path: Path, doctor: Callable[..., Run]
) -> None:
    """`demo --keep kept` from a working directory: corpus and remote side by side in kept/."""
    run = doctor("demo", "--keep", "kept", "--output-format", "json", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    corpus, remote = tmp_path / "kept" / "kb", tmp_path / "kept" / "kb-remote.git"
    assert (remote / "HEAD").is_file()
    assert not list(corpus.rglob("*remote.git")), "a bare remote inside the corpus"
    origin = subprocess.run(
        ["git", "-C", str(corpus), "remote", "get-url", "origin"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(origin) == remote
    again = doctor("demo", "--keep", "kept", cwd=tmp_path)
    assert again.exit_code == 2 and "already exists" in again.stderr


# -- a demo that teaches ----------------------------------------------------


def test_the_demo_keeps_its_folder_and_says_what_to_do_next(
    doctor: Callable[..., Run], tmp_path: Path
) -> None:
    run = doctor("demo", cwd=tmp_path)
    assert run.exit_code == 1, run.stderr
    folder = tmp_path / "context-doctor-demo"
    assert (folder / "kb" / ".git").is_dir() and (folder / "demo-status" / ".git").is_dir()
    first, *_, expected, following = run.stderr.strip().splitlines()
    assert "context-doctor-demo" in first
    assert expected.startswith("Exit 1 is expected")
    assert "`context-doctor check`" in following and "your own repository" in following
    # Every path it printed is there to open (or, for a file a finding asks for, its folder
    # is): none points into a folder already deleted.
    for path in re.findall(r"\bcontext-doctor-demo/[\w./-]*[\w/]", run.stdout + run.stderr):
        assert (tmp_path / path).exists() or (tmp_path / path).parent.is_dir(), path


def test_the_demo_never_overwrites_a_path(doctor: Callable[..., Run], tmp_path: Path) -> None:
    taken = tmp_path / "context-doctor-demo"
    taken.mkdir()
    (taken / "notes.md").write_text("mine\n", encoding="utf-8")
    run = doctor("demo", cwd=tmp_path)
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "already exists" in run.stderr
    assert "--dir" in run.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.md"]
    elsewhere = doctor("demo", "--dir", "my-demo", "--output-format", "concise", cwd=tmp_path)
    assert elsewhere.exit_code == 1, elsewhere.stderr
    assert (tmp_path / "my-demo" / "kb").is_dir()
    a_file = doctor("demo", "--dir", "my-demo/kb/projects/index.yaml", cwd=tmp_path)
    assert a_file.exit_code == 2 and a_file.stderr.count("\n") == 1


def test_the_demo_leads_with_defects_and_the_working_memory_checks(
    doctor: Callable[..., Run], tmp_path: Path
) -> None:
    run = doctor("demo", cwd=tmp_path)
    blocks = [block.splitlines() for block in run.stdout.split("\n\n") if "  → " in block]
    labels = [[line.split()[1] for line in block if line.startswith("  ") and not
               line.startswith("      ")] for block in blocks]  # fmt: skip
    with_defects = [("FAIL" in block) for block in labels]
    assert with_defects == sorted(with_defects, reverse=True), labels  # defect blocks first
    for block in labels:
        assert block == sorted(block, key=lambda label: label != "FAIL")  # FAIL before warn
    first_finding = blocks[0][1]
    assert "FAIL" in first_finding
    # The freshness grades (source-wide here) come after every working-memory finding.
    assert "(source-wide)" in blocks[-1][0]
    assert "[freshness-derived-reviewed]" not in "\n".join(blocks[0])
