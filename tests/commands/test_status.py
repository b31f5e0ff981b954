"""``context-doctor status``: one line from the report cache for a session-start hook (docs/surfaces.md).

The cache is written by a real run over a console.yaml corpus (the demo scenario built
into a real git repository); ``status`` then reads it back without auditing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from support import Doctor, MakeRepo, loaded_by, run_git, template_tail

TODAY = "2026-06-15"


@pytest.fixture(autouse=True)
def elsewhere(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Status reads the current repository's report first: each test stands outside any
    repository unless it says otherwise."""
    place = tmp_path_factory.mktemp("outside")
    monkeypatch.chdir(place)
    return place


@pytest.fixture
def cached(scenario_repo: Callable[[str], Path], doctor: Doctor, isolated_home: Path) -> Path:
    """The demo corpus audited over console.yaml: the report cache it writes."""
    root = scenario_repo("demo")
    (isolated_home / "console.yaml").write_text(
        f"sources:\n  - name: demo\n    root: {root}\n    projects_dir: projects\n"
    )
    run = doctor("check", "--today", TODAY, "--quiet")
    assert run.exit_code in (0, 1), run.stderr
    cache = isolated_home / "context-doctor" / "last-report.json"
    assert cache.is_file()
    return cache


def later(cache: Path, hours: float) -> str:
    generated = datetime.fromisoformat(json.loads(cache.read_text())["generated_at"])
    return (generated + timedelta(hours=hours)).isoformat()


def test_status_is_one_line_from_the_cache(cached: Path, doctor: Doctor) -> None:
    report = json.loads(cached.read_text())
    assert report["defects"] > 0  # the demo has defects on purpose
    run = doctor("status", "--now", later(cached, 3.2))
    assert run.exit_code == 0  # a session must start whatever the corpus says
    assert run.stdout == (
        f"context: {report['projects_audited']} projects audited, {report['defects']} defects, "
        f"{report['warnings']} warnings; 3 h ago (console report)\n"
    )
    assert run.stderr == ""


def test_status_json_for_hooks(cached: Path, doctor: Doctor) -> None:
    report = json.loads(cached.read_text())
    run = doctor("status", "--json", "--now", later(cached, 0.25))
    assert run.exit_code == 0
    data = run.json
    assert data["available"] is True
    assert data["ok"] is False
    assert (data["defects"], data["warnings"], data["projects_audited"]) == (
        report["defects"],
        report["warnings"],
        report["projects_audited"],
    )
    assert data["generated_at"] == report["generated_at"]
    assert data["age_hours"] == 0.25
    assert data["line"].endswith("; 15 min ago (console report)")
    assert data["cache"] == str(cached)


def test_strict_exits_1_on_defects(cached: Path, doctor: Doctor) -> None:
    assert doctor("status", "--strict", "--now", later(cached, 1)).exit_code == 1


def test_strict_exits_0_on_a_healthy_report(cached: Path, doctor: Doctor) -> None:
    report = json.loads(cached.read_text())
    report.update(defects=0, warnings=2, findings=[])
    cached.write_text(json.dumps(report))
    run = doctor("status", "--strict", "--now", later(cached, 50))
    assert run.exit_code == 0
    assert re.match(r"context: \d+ projects? audited, 0 defects, 2 warnings; ", run.stdout)
    assert run.stdout.endswith("; 2 d ago (console report)\n")


def test_no_cache_is_one_line_and_exit_0(
    doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    run = doctor("status", cwd=tmp_path)
    assert run.exit_code == 0
    assert run.stdout == (
        f"context: no report yet; nothing here writes one: no {isolated_home}/console.yaml, "
        "and no knowledge base in a git repository here\n"
    )
    assert doctor("status", "--strict", cwd=tmp_path).exit_code == 2
    data = doctor("status", "--json", cwd=tmp_path).json
    assert data["available"] is False
    assert "no report yet" in data["error"]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "unreadable (JSONDecodeError)"),
        ("[1, 2]", "is not a report"),
        ('{"defects": -1, "warnings": 0, "projects_audited": 1}', "lacks its counts"),
        ('{"defects": true, "warnings": 0, "projects_audited": 1}', "lacks its counts"),
        (
            '{"defects": 0, "warnings": 0, "projects_audited": 1, "generated_at": "yesterday"}',
            "has no valid generated_at",
        ),
        (
            '{"defects": 0, "warnings": 0, "projects_audited": 1, '
            '"generated_at": "2099-01-01T00:00:00+00:00"}',
            "is dated in the future",
        ),
        ("\xff\xfe{}", "unreadable (UnicodeDecodeError)"),
    ],
)
def test_a_bad_cache_is_one_clear_line(
    doctor: Doctor, tmp_path: Path, content: str, said: str
) -> None:
    cache = tmp_path / "last-report.json"
    cache.write_bytes(content.encode("latin-1"))
    run = doctor("status", "--cache", str(cache), "--now", "2026-06-15T09:00:00+00:00")
    assert run.exit_code == 0
    assert run.stdout.count("\n") == 1
    assert run.stdout.startswith("context: report cache ")
    assert said in run.stdout
    assert "Traceback" not in run.stdout + run.stderr
    strict = doctor("status", "--strict", "--cache", str(cache), "--now", "2026-06-15T09:00Z")
    assert strict.exit_code == 2


def test_a_cache_that_is_a_directory_is_one_line(doctor: Doctor, tmp_path: Path) -> None:
    run = doctor("status", "--cache", str(tmp_path))
    assert run.exit_code == 0
    assert run.stdout.startswith("context: report cache ")


def test_status_loads_nothing_of_the_audit(cached: Path) -> None:
    # A session-start hook pays only for what the line needs: no audit, no git, no schema,
    # not even click, nor typing, pathlib or dataclasses; the one bounded reader
    # (limits.py, standard library only) keeps a FIFO where the cache is from hanging it.
    script = (
        "sys.argv = ['context-doctor', 'status']\n"
        "from context_doctor.cli import main\n"
        "try:\n    main()\nexcept SystemExit as done:\n    code = done.code\n"
        "watched = ('context_doctor', 'git', 'click', 'jsonschema', 'ruamel', 'rich', "
        "'detect_secrets', 'msgspec', 'importlib', 'signal', *HEAVY_STANDARD_LIBRARY)\n"
        "print(code, *sorted(m for m in sys.modules if m.split('.')[0] in watched), "
        "file=sys.stderr)\n"
    )
    assert loaded_by(script) == {
        "0",
        "context_doctor",
        "context_doctor.cli",
        "context_doctor.commands",
        "context_doctor.commands.status",
        "context_doctor.config",  # a room's package: a docstring, nothing else
        "context_doctor.config.synthesis",
        "context_doctor.guards",
        "context_doctor.guards.escape",
        "context_doctor.guards.limits",
    }


@pytest.mark.parametrize(
    "options",
    [[], ["--json"], ["--strict"], ["--json", "--strict", "--json"], ["--cache=MISSING"]],
)
def test_status_without_click_says_what_click_says(
    doctor: Doctor, tmp_path: Path, options: list[str]
) -> None:
    """The console script answers a plain ``status`` without click: same bytes, same exit."""
    cache = tmp_path / "last-report.json"
    cache.write_text(
        json.dumps(
            {
                "defects": 2,
                "warnings": 5,
                "projects_audited": 14,
                "generated_at": "2020-01-01T00:00Z",
            }
        )
    )
    args = ["status", "--cache", str(cache)]
    args += [option.replace("MISSING", str(tmp_path / "none.json")) for option in options]
    script = "import sys\nfrom context_doctor.cli import main\nmain(sys.argv[1:])\n"
    plain = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    clicked = doctor(*args)
    assert (plain.returncode, plain.stdout, plain.stderr) == (
        clicked.exit_code,
        clicked.stdout,
        clicked.stderr,
    )
    assert plain.stdout.startswith(("context: ", "{"))


# -- which report: --cache, this repository's, the console's (docs/surfaces.md) ---------------------

KB = {
    "commits": [
        {
            "date": "2026-06-01T10:00:00+00:00",
            "files": {
                "projects/index.yaml": "- id: fine\n  status: active\n  last_session: 2026-06-01\n",
                "projects/fine/CONTEXT.md": "# Fine\n\n**Status:** Active\n"
                "**Last session:** 2026-06-01\n" + template_tail(),
            },
        }
    ]
}


def _report(path: Path, defects: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "defects": defects,
                "warnings": 0,
                "projects_audited": 1,
                "generated_at": "2026-06-15T08:00:00+00:00",
            }
        )
    )
    return path


def _repository_cache(root: Path) -> Path:
    common = run_git(root, "rev-parse", "--git-common-dir").stdout.strip()
    return (root / common).resolve() / "context-doctor" / "last-report.json"


NOW = ("--now", "2026-06-15T09:00:00+00:00")


def test_status_reads_the_cache_given_then_the_repository_then_the_console(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    root = make_repo(KB)
    inside = root / "projects" / "fine"
    console = _report(isolated_home / "context-doctor" / "last-report.json", 3)
    assert doctor("status", *NOW, cwd=inside).stdout.endswith("1 h ago (console report)\n")
    _report(_repository_cache(root), 2)
    repository = doctor("status", "--json", *NOW, cwd=inside).json
    assert (repository["defects"], repository["read"]) == (2, "repository")
    assert repository["line"].endswith("(repository report)")
    assert repository["cache"] == str(_repository_cache(root))
    given = _report(tmp_path / "mine.json", 1)
    run = doctor("status", "--cache", str(given), *NOW, cwd=inside)
    assert run.stdout == (
        f"context: 1 project audited, 1 defect, 0 warnings; 1 h ago (report {given})\n"
    )
    assert doctor("status", "--json", *NOW).json["read"] == "console"  # outside: the console's
    assert console.is_file()


def test_a_linked_worktree_reads_the_common_repository_report(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(KB)
    linked = tmp_path / "linked"
    run_git(root, "worktree", "add", "-q", str(linked))
    _report(_repository_cache(root), 4)
    assert doctor("status", "--json", *NOW, cwd=linked).json["defects"] == 4


def test_the_hint_names_the_check_that_writes_this_repository_report(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    """No console.yaml: `sweep` would exit 2 here, so the hint names the `check` that runs."""
    root = make_repo(KB)
    inside = root / "projects" / "fine"
    line = doctor("status", cwd=inside).stdout
    assert "sweep" not in line
    (command,) = re.findall(r"`context-doctor (check [^`]+)`", line)
    assert command == f"check {root}"
    ran = doctor(*shlex.split(command), "--today", TODAY, "-q", cwd=inside)
    assert ran.exit_code == 0, ran.stderr
    assert "(repository report)" in doctor("status", cwd=inside).stdout
    (isolated_home / "console.yaml").write_text(
        f"sources:\n  - name: kb\n    root: {root}\n    projects_dir: projects\n"
    )
    outside = doctor("status").stdout  # no repository here, a console.yaml to sweep
    assert "run `context-doctor sweep` to write one" in outside
    assert doctor("sweep", "--today", TODAY).exit_code == 0
    assert "(console report)" in doctor("status").stdout


@pytest.mark.parametrize("planted", ["symlink", "fifo"])
def test_a_planted_repository_report_is_refused_unread(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, planted: str
) -> None:
    root = make_repo(KB)
    cache = _repository_cache(root)
    cache.parent.mkdir(parents=True)
    if planted == "fifo":
        os.mkfifo(cache)  # an open() that blocks forever, were it read as a file
    else:
        cache.symlink_to(_report(tmp_path / "planted.json", 0))
    run = doctor("status", "--strict", cwd=root)
    assert run.exit_code == 2
    assert run.stdout.startswith(f"context: report cache {cache} refused (")
    assert f"run `context-doctor check {root}` to refresh it" in run.stdout


def test_a_v5_synthesis_home_keeps_the_console_report_in_dot_synthesis(
    doctor: Doctor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SYNTHESIS_HOME naming a v5 runtime: the console's files are ~/.synthesis's (docs/surfaces.md)."""
    runtime = tmp_path / "v5"
    (runtime / "current" / "synthesis").mkdir(parents=True)
    (runtime / "current" / "synthesis" / "hook.py").write_text("")
    monkeypatch.setenv("SYNTHESIS_HOME", str(runtime))
    _report(Path.home() / ".synthesis" / "context-doctor" / "last-report.json", 5)
    data = doctor("status", "--json", *NOW).json
    assert data["defects"] == 5
    assert data["cache"] == str(Path.home() / ".synthesis" / "context-doctor" / "last-report.json")
