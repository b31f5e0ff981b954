"""A hostile repository must not make the doctor run its commands or misread its history.

Every attack is reproduced on a real git repository: the audited repository's own
config names a command (fsmonitor hook, clean/smudge/process filter, external diff,
ssh command, pager) that touches a marker file; the doctor's run must leave no marker.
File names use every byte git accepts, so the history parse must be NUL-framed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, run_git

from context_doctor.git.commits import Scope
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.history import read_history
from context_doctor.git.repository import Repository

TODAY = "2026-06-15"
CONTEXT = "# Alpha\n\n**Status:** active\n**Last session:** 2026-06-01\n"
INDEX = "projects:\n  - id: alpha\n    status: active\n    last_session: 2026-06-01\n"


def corpus(extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    files = {"projects/index.yaml": INDEX, "projects/alpha/CONTEXT.md": CONTEXT}
    files.update(extra or {})
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]}


def make_stat_dirty(path: Path) -> None:
    """Same bytes, new mtime: git must look at the content (and would run a clean filter)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def audit_all_formats(doctor: Doctor, root: Path) -> None:
    for output in ("human", "json", "sarif", "github"):
        run = doctor("check", str(root), "--today", TODAY, "--output-format", output)
        assert run.exit_code in (0, 1), (output, run.stdout, run.stderr)


# -- (1) never execute the audited repository's config ---------------------------


def test_fsmonitor_hook_is_never_run(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    root = make_repo(corpus())
    marker = tmp_path / "pwned-fsmonitor"
    run_git(root, "config", "core.fsmonitor", f"touch {marker}; false")
    make_stat_dirty(root / "projects/alpha/CONTEXT.md")
    # The attack is real: git itself runs the hook.
    run_git(root, "status", "--porcelain")
    assert marker.exists()
    marker.unlink()
    audit_all_formats(doctor, root)
    assert not marker.exists()


@pytest.mark.parametrize("driver", ["evil", "odd.name=with=equals", "MixedCase"])
@pytest.mark.parametrize("kind", ["clean", "process"])
def test_filter_drivers_are_never_run(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, driver: str, kind: str
) -> None:
    root = make_repo(corpus({".gitattributes": f"*.md filter={driver}\n"}))
    marker = tmp_path / "pwned-filter"
    # A clean filter that passes the bytes through (so git sees no change) and leaves a mark.
    run_git(root, "config", f"filter.{driver}.{kind}", f"touch {marker}; cat")
    run_git(root, "config", f"filter.{driver}.smudge", f"touch {marker}; cat")
    run_git(root, "config", f"filter.{driver}.required", "true")
    make_stat_dirty(root / "projects/alpha/CONTEXT.md")
    if kind == "clean":  # the attack is real: `git status` runs the clean filter
        run_git(root, "status", "--porcelain", check=False)
        assert marker.exists()
        marker.unlink()
    audit_all_formats(doctor, root)
    assert not marker.exists()


def test_filtered_file_with_unchanged_bytes_is_not_reported_changed(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    """The filter is not run, yet a stat-dirty file whose bytes match its blob is clean."""
    root = make_repo(corpus({".gitattributes": "*.md filter=evil\n"}))
    run_git(root, "config", "filter.evil.clean", f"touch {tmp_path / 'pwned'}; cat")
    make_stat_dirty(root / "projects/alpha/CONTEXT.md")
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.json["coverage"]["uncommitted-context"]["examined"] == 1
    assert run.findings("uncommitted-context") == []
    # An actual edit is still seen.
    (root / "projects/alpha/CONTEXT.md").write_text(CONTEXT + "more\n", encoding="utf-8")
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert [f["path"] for f in run.findings("uncommitted-context")] == ["projects/alpha/CONTEXT.md"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("diff.external", "touch {marker}; false"),
        ("core.pager", "touch {marker}; cat"),
        ("pager.log", "touch {marker}; cat"),
        ("core.sshCommand", "touch {marker}; false"),
        ("log.showSignature", "true"),
        ("gpg.program", "touch {marker}; false"),
        ("core.hooksPath", "{hooks}"),
    ],
)
def test_other_command_keys_are_never_run(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, key: str, value: str
) -> None:
    root = make_repo(corpus())
    marker = tmp_path / "pwned"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "post-checkout"):
        script = hooks / hook
        script.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        script.chmod(0o755)
    run_git(root, "config", key, value.format(marker=marker, hooks=hooks))
    run_git(root, "config", "gpg.program", f"touch {marker}; false")
    make_stat_dirty(root / "projects/alpha/CONTEXT.md")
    audit_all_formats(doctor, root)
    assert not marker.exists()


# -- (2) any byte git accepts in a file name -------------------------------------

HOSTILE_NAMES = [
    "a\x1eb.md",  # the old record separator
    "a\x1fb.md",  # the old field separator
    "new\nline.md",
    "\nleading-newline.md",
    "tab\there.md",
    "0123456789abcdef0123456789abcdef01234567",  # looks like a sha
    "",  # an empty component is impossible; replaced below by a lone space
    "\udcff\udcfe-not-utf8.md",
    "\x1b[2J.md",
]


def hostile_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for number, name in enumerate(HOSTILE_NAMES):
        name = name or " "
        files[f"projects/alpha/notes/{name}"] = f"note {number}\n"
        files[f"elsewhere/{name}"] = f"outside {number}\n"
    return files


def build_hostile(tmp_path: Path) -> Path:
    """A repository whose commits add files with hostile names (non-UTF-8 bytes included)."""
    root = tmp_path / "kb"
    root.mkdir()
    run_git(root, "init", "-q")
    for relative, text in {**corpus()["commits"][0]["files"], **hostile_files()}.items():
        target = root / relative  # surrogate escapes become the raw bytes on disk
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    run_git(root, "add", "-A")
    run_git(
        root,
        "commit",
        "-q",
        "-m",
        "hostile\x1enames",
        when="2026-06-01T09:00:00+00:00",
        identity=True,
    )
    (root / "projects/alpha/CONTEXT.md").write_text(CONTEXT + "\nsecond\n", encoding="utf-8")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "second", when="2026-06-02T09:00:00+00:00", identity=True)
    return root


def test_history_survives_every_byte_in_names(tmp_path: Path) -> None:
    root = build_hostile(tmp_path)
    history = read_history(Repository(root.resolve()), (Scope("projects"),))
    commits = history.of(Scope("projects"), "alpha")
    assert [entry.commit.work_date.isoformat() for entry in commits] == [
        "2026-06-02",
        "2026-06-01",
    ]
    first = commits[1]
    assert first.touched("CONTEXT.md")
    names = {path.removeprefix("notes/") for path in first.files if path.startswith("notes/")}
    assert "a\x1eb.md" in names
    assert "new\nline.md" in names
    assert "\nleading-newline.md" in names
    assert "0123456789abcdef0123456789abcdef01234567" in names
    assert len(names) == len(HOSTILE_NAMES)
    # the files outside the projects directory are counted, not attributed
    assert first.commit.outside_files == len(HOSTILE_NAMES)


def test_check_survives_every_byte_in_names(tmp_path: Path, doctor: Doctor) -> None:
    root = build_hostile(tmp_path)
    facts = RepositoryFacts(Repository(root.resolve()))
    assert facts.changed_paths == []
    for output in ("human", "json", "sarif", "github"):
        run = doctor("check", str(root), "--today", TODAY, "--output-format", output)
        assert run.exit_code in (0, 1), (output, run.stdout, run.stderr)


# -- (8) diagnoses that name the real cause ----------------------------------------


def test_safe_directory_refusal_is_named(make_repo: MakeRepo, doctor: Doctor) -> None:
    """A repository owned by another user: git refuses it, and the doctor says so."""
    root = make_repo(corpus())
    env: dict[str, str] = {}
    if os.geteuid() == 0:
        for path in [root, *root.rglob("*")]:
            os.lchown(path, 54321, 54321)
    else:  # git's own switch for testing the same refusal without root
        env["GIT_TEST_ASSUME_DIFFERENT_OWNER"] = "1"
    run = doctor("check", str(root), "--today", TODAY, "--json", env=env)
    assert run.exit_code == 2, run.stdout
    error = run.json["error"]
    assert "dubious ownership" in error  # what git said
    assert "safe.directory" in run.json["remedy"]
    assert "git init" not in run.json["remedy"]


def test_submodule_project_is_reported_as_a_submodule(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    inner = make_repo({"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": {
        "CONTEXT.md": CONTEXT, "sessions/2026-06.md": "# Log\n\n## 2026-06-01 — x\n"}}]})  # fmt: skip
    index = INDEX + "  - id: beta\n    status: active\n    last_session: 2026-06-01\n"
    root = make_repo(corpus({"projects/index.yaml": index}))
    run_git(
        root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner),
        "projects/beta", identity=True,
    )  # fmt: skip
    run_git(root, "commit", "-q", "-m", "beta", when="2026-06-01T10:00:00+00:00", identity=True)
    run = doctor("check", str(root), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1), run.stderr
    (finding,) = run.findings("untracked-context", "beta")
    assert "submodule projects/beta" in finding["message"]
    assert "ignored" not in finding["message"]
    assert finding["severity"] == "warning"


def test_a_submodules_own_config_is_never_run(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    """`git status` would recurse into a dirty submodule and run *its* fsmonitor."""
    inner = make_repo({"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": {"f": "x\n"}}]})
    root = make_repo(corpus())
    run_git(
        root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "vendor",
        identity=True,
    )  # fmt: skip
    run_git(root, "commit", "-q", "-m", "vendor", when="2026-06-01T10:00:00+00:00", identity=True)
    marker = tmp_path / "pwned-submodule"
    run_git(root / "vendor", "config", "core.fsmonitor", f"touch {marker}; false")
    (root / "vendor" / "f").write_text("changed\n", encoding="utf-8")
    run_git(root, "status", "--porcelain")
    assert marker.exists()  # the attack is real
    marker.unlink()
    audit_all_formats(doctor, root)
    assert not marker.exists()


# -- (3) bounded: no git call hangs, none outlives the doctor (#23 items 4 and 6) -------


def _processes_in(directory: Path) -> list[int]:
    """Processes whose working directory is ``directory`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == directory:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _wait_for(condition: Any, what: str) -> None:
    """Poll ``condition`` (no timing is asserted: the bound only keeps a broken run finite)."""
    for _ in range(6000):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


needs_proc = pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="needs /proc")


@needs_proc
def test_a_fifo_gitignore_is_exit_2_naming_it_with_no_git_left_behind(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(corpus()).resolve()
    os.mkfifo(root / "projects" / ".gitignore")
    run = doctor("check", str(root), "--today", TODAY, env={"CONTEXT_DOCTOR_GIT_TIMEOUT": "1"})
    assert run.exit_code == 2
    assert "did not finish within 1 s" in run.stderr
    assert "projects/.gitignore" in run.stderr
    assert run.stderr.count("\n") == 1
    assert _processes_in(root) == []


@needs_proc
@pytest.mark.parametrize(
    ("sent", "status"),
    [
        # A CI job's timeout sends SIGTERM: the doctor kills the git it waits on.
        (signal.SIGTERM, 128 + signal.SIGTERM),
        # SIGKILL runs no handler: the kernel's parent-death signal takes git along.
        pytest.param(
            signal.SIGKILL,
            -signal.SIGKILL,
            marks=pytest.mark.skipif(
                not sys.platform.startswith("linux"), reason="parent-death signal is Linux's"
            ),
        ),
    ],
)
def test_a_terminated_or_killed_doctor_leaves_no_git_behind(
    make_repo: MakeRepo, tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    root = make_repo(corpus()).resolve()
    os.mkfifo(root / "projects" / ".gitignore")  # git status blocks on it for ever
    env = {**os.environ, "CONTEXT_DOCTOR_GIT_TIMEOUT": "600"}
    doctor_process = subprocess.Popen(
        [sys.executable, "-m", "context_doctor", "check", str(root), "--today", TODAY],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: _processes_in(root), "git starts in the repository")
        doctor_process.send_signal(sent)
        assert doctor_process.wait(timeout=60) == status
    finally:
        doctor_process.kill()
        doctor_process.wait()
    _wait_for(lambda: not _processes_in(root), "no git left in the repository")
