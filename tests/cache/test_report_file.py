"""The report cache and `context-doctor report` (docs/output.md "Report cache").

Only a run over ``$SYNTHESIS_HOME/console.yaml`` sources describes the corpus,
so only it writes ``$SYNTHESIS_HOME/context-doctor/last-report.json``;
``isolated_home`` points ``SYNTHESIS_HOME`` at a fresh directory per test.
Every corpus is a real git repository with a real bare remote.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from support import Doctor, MakeRepo, load_report_validator, run_git, template_tail

TODAY = "2026-06-02"
CONTEXT = "# Fine\n\n**Status:** Active\n**Last session:** 2026-06-01\n" + template_tail()
INDEX = "- id: fine\n  status: active\n  last_session: 2026-06-01\n"
OLD_CACHE = b'{"an": "older report, to be left alone"}\n'


@pytest.fixture(scope="module")
def report_validator() -> Draft202012Validator:
    return load_report_validator()


def corpus(uncommitted: Mapping[str, Any] | None = None) -> dict[str, Any]:
    built: dict[str, Any] = {
        "remote": True,
        "commits": [
            {
                "date": "2026-06-01T10:00:00+00:00",
                "files": {"projects/index.yaml": INDEX, "projects/fine/CONTEXT.md": CONTEXT},
            }
        ],
    }
    if uncommitted:
        built["uncommitted"] = dict(uncommitted)
    return built


EDITED = {"files": {"projects/fine/CONTEXT.md": CONTEXT + "\nEdited.\n"}}


def write_console(home: Path, *roots: Path) -> Path:
    sources = "".join(
        f"  - name: src{number}\n    root: {root}\n    projects_dir: projects\n"
        for number, root in enumerate(roots)
    )
    console = home / "console.yaml"
    console.write_text(f"sources:\n{sources}")
    return console


def default_cache(home: Path) -> Path:
    return home / "context-doctor" / "last-report.json"


def leftovers(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir()) if directory.exists() else []


# -- which runs write the cache ----------------------------------------------


@pytest.mark.parametrize(
    ("readiness", "exit_code", "defects", "warnings"),
    [("local", 0, 0, 1), ("remote", 1, 1, 0)],
)
def test_console_run_writes_the_cache_whatever_the_verdict(
    make_repo: MakeRepo,
    doctor: Doctor,
    isolated_home: Path,
    report_validator: Draft202012Validator,
    readiness: str,
    exit_code: int,
    defects: int,
    warnings: int,
) -> None:
    write_console(isolated_home, make_repo(corpus(EDITED)))
    run = doctor("check", "--today", TODAY, "--readiness", readiness, "--json")
    assert run.exit_code == exit_code, run.stderr
    cached = json.loads(default_cache(isolated_home).read_text())
    report_validator.validate(cached)
    assert (cached["defects"], cached["warnings"]) == (defects, warnings)
    assert cached["readiness"] == readiness
    assert cached == run.raw  # the cache holds exactly the report the run printed


def test_console_run_with_human_output_still_writes_json(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    run = doctor("check", "--today", TODAY, "-q")
    assert run.exit_code == 0
    assert run.stdout.startswith("HEALTHY")
    assert json.loads(default_cache(isolated_home).read_text())["ok"] is True


def test_explicit_source_run_does_not_write_the_cache(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    root = make_repo(corpus())
    write_console(isolated_home, root)  # present, but the run names its own source
    assert doctor("check", "--source", str(root), "--today", TODAY, "-q").exit_code == 0
    assert doctor("check", str(root), "--today", TODAY, "-q").exit_code == 0
    assert not (isolated_home / "context-doctor").exists()


def test_no_report_cache_suppresses_the_write(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    run = doctor("check", "--today", TODAY, "-q", "--no-report-cache")
    assert run.exit_code == 0
    assert not (isolated_home / "context-doctor").exists()


def test_report_cache_path_redirects_the_write(
    make_repo: MakeRepo,
    doctor: Doctor,
    isolated_home: Path,
    tmp_path: Path,
    report_validator: Draft202012Validator,
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    target = tmp_path / "elsewhere" / "report.json"
    run = doctor("check", "--today", TODAY, "-q", "--report-cache", str(target))
    assert run.exit_code == 0
    report_validator.validate(json.loads(target.read_text()))
    assert not default_cache(isolated_home).exists()


def test_a_symlinked_report_cache_is_exit_2_and_its_target_untouched(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_bytes(b"not a report\n")
    link = tmp_path / "report.json"
    link.symlink_to(elsewhere)
    run = doctor("check", "--today", TODAY, "-q", "--report-cache", str(link))
    assert run.exit_code == 2
    assert "symlink" in run.stderr
    assert link.is_symlink() and elsewhere.read_bytes() == b"not a report\n"


def test_exit_2_run_leaves_the_old_cache_untouched(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    # index.yaml that is not YAML: the doctor cannot establish ground truth.
    root = make_repo(corpus({"files": {"projects/index.yaml": "projects: [unclosed\n"}}))
    write_console(isolated_home, root)
    cache = default_cache(isolated_home)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(OLD_CACHE)
    run = doctor("check", "--today", TODAY, "--json")
    assert run.exit_code == 2
    assert run.json["ok"] is False
    assert cache.read_bytes() == OLD_CACHE
    assert leftovers(cache.parent) == ["last-report.json"]


def test_failed_step_summary_is_exit_2_and_writes_no_cache(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    unwritable = tmp_path / "no-such-directory" / "summary.md"
    run = doctor(
        "check",
        "--today",
        TODAY,
        "--output-format",
        "github",
        env={"GITHUB_STEP_SUMMARY": str(unwritable)},
    )
    assert run.exit_code == 2
    assert not (isolated_home / "context-doctor").exists()


@pytest.mark.parametrize("had_cache", [True, False])
@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), RuntimeError("boom")])
def test_crash_mid_write_leaves_no_truncated_cache_and_no_temp_file(
    make_repo: MakeRepo,
    doctor: Doctor,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    had_cache: bool,
    error: Exception,
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    cache = default_cache(isolated_home)
    if had_cache:
        cache.parent.mkdir(parents=True)
        cache.write_bytes(OLD_CACHE)
    calls: list[tuple[str, str]] = []

    def crash(source: str, target: str, **_dir_fds: int) -> None:
        calls.append((str(source), str(target)))
        raise error

    # The rename is the write path's last step (relative to the directory's descriptor).
    monkeypatch.setattr("context_doctor.write.atomic.os.rename", crash)
    run = doctor("check", "--today", TODAY, "--json", "--no-cache")  # the report cache only
    assert run.exit_code == 2
    assert run.json["ok"] is False
    assert [target for _, target in calls] == [cache.name]
    assert leftovers(cache.parent) == (["last-report.json"] if had_cache else [])
    if had_cache:
        assert cache.read_bytes() == OLD_CACHE


# -- context-doctor report -----------------------------------------------------


def cached_run(doctor: Doctor, home: Path, root: Path, readiness: str = "remote") -> dict[str, Any]:
    write_console(home, root)
    doctor("check", "--today", TODAY, "--readiness", readiness, "-q")
    loaded: dict[str, Any] = json.loads(default_cache(home).read_text())
    return loaded


def test_report_prints_the_summary_of_the_cache(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    cached = cached_run(doctor, isolated_home, make_repo(corpus(EDITED)))
    run = doctor("report")
    assert run.exit_code == 1  # as `check` would have exited: the cache holds a defect
    first, *counts = run.stdout.splitlines()
    # check's own verdict words (one renderer), then the cache's age.
    assert first.startswith(
        "DEFECTS: 1 project audited, 1 defect, 0 warnings (1 source; readiness remote; "
        f"today {TODAY}); defects from uncommitted-context; cached {cached['generated_at']}, "
    )
    assert [line.split() for line in counts] == [["1", "uncommitted-context"]]


def test_report_of_a_healthy_cache_exits_0(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    cached_run(doctor, isolated_home, make_repo(corpus()))
    run = doctor("report")
    assert run.exit_code == 0
    check = doctor("check", "--today", TODAY, "--readiness", "remote", "--no-report-cache")
    verdict = check.stdout.splitlines()[-1]
    assert verdict.startswith("HEALTHY: 1 project audited, 0 defects, 0 warnings (1 source;")
    assert run.stdout.splitlines()[0].startswith(f"{verdict}; cached ")


def test_report_json_prints_the_cache_itself(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    cached = cached_run(doctor, isolated_home, make_repo(corpus()))
    assert doctor("report", "--json").raw == cached


def test_report_max_age(make_repo: MakeRepo, doctor: Doctor, isolated_home: Path) -> None:
    cached = cached_run(doctor, isolated_home, make_repo(corpus()))
    now = (datetime.fromisoformat(cached["generated_at"]) + timedelta(hours=3)).isoformat()
    fresh = doctor("report", "--max-age", "4", "--now", now)
    assert fresh.exit_code == 0
    assert "3.0 h ago" in fresh.stdout
    stale = doctor("report", "--max-age", "2", "--now", now)
    assert stale.exit_code == 2
    assert stale.stdout == ""
    assert "is 3.0 hours old, older than --max-age 2" in stale.stderr
    assert str(default_cache(isolated_home)) in stale.stderr


@pytest.mark.parametrize(
    ("stamp", "wording"),
    [
        ("yesterday", "has no valid generated_at ('yesterday' is not an ISO-8601 time)"),
        ("2027-01-01T00:00:00+00:00", "is dated in the future (2027-01-01T00:00:00+00:00)"),
    ],
)
def test_report_of_a_cache_without_a_true_age_is_exit_2(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, stamp: str, wording: str
) -> None:
    """#23 item 6: an odd stamp was an internal error; a future one read as fresh."""
    cached = cached_run(doctor, isolated_home, make_repo(corpus()))
    cache = default_cache(isolated_home)
    cache.write_text(json.dumps({**cached, "generated_at": stamp}), encoding="utf-8")
    now = "2026-06-21T09:00:00+00:00"
    for run in (doctor("report", "--now", now), doctor("report", "--max-age", "24", "--now", now)):
        assert run.exit_code == 2
        assert run.stdout == ""
        assert f"the cached report {cache} {wording}" in run.stderr
        assert run.stderr.count("\n") == 1 and "internal error" not in run.stderr


def test_report_without_a_cache_is_exit_2(doctor: Doctor, isolated_home: Path) -> None:
    run = doctor("report")
    assert run.exit_code == 2
    assert f"no cached report at {default_cache(isolated_home)}" in run.stderr


@pytest.mark.parametrize(
    ("content", "wording"),
    [
        (b"{not json", "is unreadable (JSONDecodeError)"),
        (b"\xff\xfe garbage", "is unreadable (UnicodeDecodeError)"),
        (b'{"ok": true}\n', "does not match schemas/report.schema.json"),
        (b"[]\n", "does not match schemas/report.schema.json"),
    ],
)
def test_report_of_an_unreadable_cache_is_exit_2(
    doctor: Doctor, isolated_home: Path, content: bytes, wording: str
) -> None:
    cache = default_cache(isolated_home)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(content)
    run = doctor("report")
    assert run.exit_code == 2
    assert f"the cached report {cache} {wording}" in run.stderr


def test_report_reads_an_explicit_cache(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path, tmp_path: Path
) -> None:
    write_console(isolated_home, make_repo(corpus()))
    target = tmp_path / "report.json"
    assert doctor("check", "--today", TODAY, "-q", "--report-cache", str(target)).exit_code == 0
    assert doctor("report").exit_code == 2  # nothing at the default place
    assert doctor("report", "--cache", str(target)).exit_code == 0


# -- the repository's own report cache (docs/surfaces.md) -----------------------------------------


def repository_cache(root: Path) -> Path:
    common = run_git(root, "rev-parse", "--git-common-dir").stdout.strip()
    return (root / common).resolve() / "context-doctor" / "last-report.json"


@pytest.mark.parametrize("how", ["path", "source", "cwd"])
def test_a_whole_repository_check_writes_its_report_in_the_git_directory(
    make_repo: MakeRepo,
    doctor: Doctor,
    isolated_home: Path,
    report_validator: Draft202012Validator,
    how: str,
) -> None:
    root = make_repo(corpus(EDITED))
    args = {"path": (str(root),), "source": ("--source", str(root)), "cwd": ()}[how]
    run = doctor("check", *args, "--today", TODAY, "--json", cwd=root)
    assert run.exit_code == 0, run.stderr
    cached = json.loads(repository_cache(root).read_text())
    report_validator.validate(cached)
    assert cached == run.raw
    assert not (isolated_home / "context-doctor").exists()  # the console's is not touched
    assert run_git(root, "status", "--porcelain").stdout.splitlines() == [
        " M projects/fine/CONTEXT.md"  # the work tree holds nothing the doctor wrote
    ]


def test_the_repository_report_is_the_printed_json_byte_for_byte(
    make_repo: MakeRepo, doctor: Doctor, isolated_home: Path
) -> None:
    """The JSON is built once for the cache and the output: the same bytes in both."""
    root = make_repo(corpus(EDITED))
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.exit_code == 0, run.stderr
    assert repository_cache(root).read_bytes() == run.stdout.encode("utf-8")
    written = root.parent / "out.json"
    again = doctor("check", str(root), "--today", TODAY, "--json", "-o", str(written))
    assert again.exit_code == 0, again.stderr
    assert repository_cache(root).read_bytes() == written.read_bytes()


@pytest.mark.parametrize(
    "narrowed",
    [
        ("--project", "{root}/projects/fine"),
        ("{root}/projects/fine/CONTEXT.md",),
        ("{root}", "--select", "session-freshness"),
        ("{root}", "--ignore", "session-freshness"),
        ("{root}", "--no-report-cache"),
    ],
    ids=["project", "file", "select", "ignore", "no-report-cache"],
)
def test_a_narrowed_check_writes_no_repository_report(
    make_repo: MakeRepo, doctor: Doctor, narrowed: tuple[str, ...]
) -> None:
    root = make_repo(corpus())
    args = [arg.format(root=root) for arg in narrowed]
    assert doctor("check", *args, "--today", TODAY, "-q").exit_code == 0
    assert not repository_cache(root).parent.joinpath("last-report.json").exists()


def test_a_linked_worktree_writes_the_common_git_directory(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(corpus())
    linked = tmp_path / "linked"
    run_git(root, "worktree", "add", "-q", str(linked))
    assert doctor("check", str(linked), "--today", TODAY, "-q").exit_code == 0
    assert repository_cache(linked) == repository_cache(root)
    assert json.loads(repository_cache(root).read_text())["source_details"][0]["root"] == str(
        linked.resolve()
    )


@pytest.mark.parametrize("planted", ["symlink", "fifo"])
def test_a_planted_repository_report_is_refused_and_left_alone(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, planted: str
) -> None:
    root = make_repo(corpus())
    cache = repository_cache(root)
    cache.parent.mkdir(parents=True)
    target = tmp_path / "elsewhere.json"
    target.write_bytes(OLD_CACHE)
    if planted == "symlink":
        cache.symlink_to(target)
    else:
        os.mkfifo(cache)
    run = doctor("check", str(root), "--today", TODAY, "-q")
    assert run.exit_code == 0  # the audit is complete; only its copy was refused
    assert "repository report cache not written" in run.stderr, run.stderr
    assert target.read_bytes() == OLD_CACHE
    assert cache.is_symlink() if planted == "symlink" else stat.S_ISFIFO(cache.lstat().st_mode)


def test_a_symlinked_doctor_directory_in_git_is_refused(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(corpus())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    repository_cache(root).parent.symlink_to(elsewhere)
    run = doctor("check", str(root), "--today", TODAY, "-q")
    assert run.exit_code == 0 and "not written" in run.stderr
    assert list(elsewhere.iterdir()) == []
