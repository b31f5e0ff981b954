"""The pre-push gate (docs/output.md `hook install`, `--pre-push`) and the pre-commit manifest.

The end-to-end cases push with a real ``git push`` to a real bare remote, so
git itself runs the installed hook, and the hook runs the doctor with the
interpreter in ``sys.executable``. Nothing here mocks git.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT
from ruamel.yaml import YAML
from support import Doctor, MakeRepo, commit_files, run_git, template_tail

from context_doctor.commands.hook_install import BEGIN, END, MARKER, hook_script, install_hook
from context_doctor.git.run import git_environment
from context_doctor.scenarios import remote_path

TODAY = "2026-06-02"
CONTEXT = "# Fine\n\n**Status:** Active\n**Last session:** 2026-06-01\n" + template_tail()
INDEX = "- id: fine\n  status: active\n  last_session: 2026-06-01\n"
FOREIGN = "#!/bin/sh\necho 'somebody else owns this hook'\nexit 0\n"


def healthy(**extra: Any) -> dict[str, Any]:
    return {
        "remote": True,
        "commits": [
            {
                "date": "2026-06-01T10:00:00+00:00",
                "files": {"projects/index.yaml": INDEX, "projects/fine/CONTEXT.md": CONTEXT},
            }
        ],
        **extra,
    }


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # Commits made here are dated like the scenario, so freshness stays clean on any real date.
    return run_git(root, *args, when="2026-06-01T12:00:00+00:00", identity=True, check=check)


def commit(root: Path, files: Mapping[str, str], message: str) -> str:
    return commit_files(root, files, message)


def remote_main(root: Path) -> str:
    return git(remote_path(root), "rev-parse", "refs/heads/main").stdout.strip()


def hook_path(root: Path) -> Path:
    return root / ".git" / "hooks" / "pre-push"


def backups(root: Path) -> list[Path]:
    return sorted(hook_path(root).parent.glob("pre-push.backup-*"))


# -- hook install ------------------------------------------------------------


def test_install_writes_an_executable_pre_push_hook(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    run = doctor("hook", "install", "--repo", str(root))
    assert run.exit_code == 0, run.stderr
    hook = hook_path(root)
    assert run.stdout.strip() == (f"installed {hook} (`context-doctor hook uninstall` removes it)")
    script = hook.read_text()
    assert script.startswith("#!/bin/sh\n")
    assert BEGIN in script and END in script
    assert sys.executable in script
    assert "check . --pre-push --no-report-cache" in script
    assert os.access(hook, os.X_OK)


def test_install_refuses_a_foreign_hook_without_force(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(FOREIGN)
    run = doctor("hook", "install", "--repo", str(root))
    assert run.exit_code == 2
    assert "was not installed by context-doctor" in run.stderr
    assert "--force" in run.stderr
    assert hook_path(root).read_text() == FOREIGN
    assert backups(root) == []


def test_install_with_force_keeps_a_backup(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(FOREIGN)
    run = doctor("hook", "install", "--repo", str(root), "--force")
    assert run.exit_code == 0, run.stderr
    [backup] = backups(root)
    assert backup.read_text() == FOREIGN
    assert f"kept the previous hook as {backup}" in run.stdout
    assert BEGIN in hook_path(root).read_text()


def test_reinstall_is_idempotent(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    first = hook_path(root).read_bytes()
    again = doctor("hook", "install", "--repo", str(root))
    assert again.exit_code == 0
    assert "kept the previous hook" not in again.stdout
    assert hook_path(root).read_bytes() == first
    assert backups(root) == []


def test_install_for_a_knowledge_base_whose_path_is_not_utf8(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    # A directory name git accepts but UTF-8 does not: the hook must name its bytes as they are.
    root = make_repo(healthy())
    odd = root / os.fsdecode(b"kb\xff")
    shutil.copytree(root / "projects", odd / "projects")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "A second knowledge base")
    run = doctor("hook", "install", "--repo", str(odd))
    assert run.exit_code == 0, run.stderr
    script = hook_path(root).read_bytes()
    assert b"check 'kb\xff' --pre-push" in script
    assert subprocess.run(["sh", "-n", str(hook_path(root))], check=False).returncode == 0


def test_install_outside_a_repository_is_exit_2(tmp_path: Path, doctor: Doctor) -> None:
    run = doctor("hook", "install", "--repo", str(tmp_path))
    assert run.exit_code == 2
    assert "not inside a git repository" in run.stderr


# -- the hook, run by git itself ---------------------------------------------


def push(root: Path) -> subprocess.CompletedProcess[str]:
    return git(root, "push", "origin", "main", check=False)


def test_hook_refuses_an_over_budget_push(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    before = remote_main(root)
    long_context = CONTEXT + "".join(f"Line {n}.\n" for n in range(160))
    commit(root, {"projects/fine/CONTEXT.md": long_context}, "grow the context")

    pushed = push(root)
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode != 0, output
    lines = len(long_context.splitlines())
    assert f"[context-budget] CONTEXT.md is {lines} lines, over the 150-line budget" in output
    assert "failed to push" in output
    assert remote_main(root) == before


def test_hook_lets_a_healthy_push_through(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    head = commit(root, {"projects/fine/notes.md": "A note.\n"}, "add a note")
    # Before the push the new commit is unpushed, and the doctor says so...
    before = doctor("check", "--source", str(root), "--today", "2026-06-02", "--json")
    assert [f["check"] for f in before.findings()] == ["unpushed-context"]

    pushed = push(root)
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode == 0, output
    assert remote_main(root) == head
    # ...but inside the hook the commits being pushed count as published: quiet, one line.
    assert "unpushed-context" not in output
    hook_lines = [line for line in output.splitlines() if "context-doctor" in line]
    # The hook audits on the real date: as the calendar moves past the scenario's dates a
    # warning about time (active-project-idle) may join; no defect may.
    assert len(hook_lines) == 1, hook_lines
    assert re.fullmatch(
        r"context-doctor: push ok: fine audited, 0 defects, [01] warnings?", hook_lines[0]
    )


def test_hook_push_of_a_new_branch_without_upstream(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    git(root, "checkout", "-q", "-b", "topic")
    head = commit(root, {"projects/fine/notes.md": "A note.\n"}, "add a note")
    pushed = git(root, "push", "origin", "topic", check=False)
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode == 0, output
    assert "unpushed-context" not in output
    assert git(remote_path(root), "rev-parse", "refs/heads/topic").stdout.strip() == head


# -- git run under hook-exported variables -----------------------------------


def test_hook_exported_git_variables_do_not_mislead_the_doctor(
    make_repo: MakeRepo, doctor: Doctor, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = make_repo(healthy(uncommitted={"files": {"projects/fine/notes.md": "Not added yet.\n"}}))
    index = root / ".git" / "index"
    # A stale stat cache: a plain `git status` would rewrite the index to refresh it.
    os.utime(root / "projects" / "fine" / "CONTEXT.md", (2_000_000_000, 2_000_000_000))
    before = index.read_bytes()
    bogus = tmp_path / "elsewhere"
    monkeypatch.setenv("GIT_DIR", str(bogus / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(bogus))
    monkeypatch.setenv("GIT_INDEX_FILE", str(bogus / "index"))
    run = doctor(
        "check", "--source", str(root), "--today", TODAY, "--readiness", "remote", "--json"
    )
    assert run.exit_code == 1, run.stderr
    [finding] = run.findings()
    assert finding["check"] == "uncommitted-context"
    assert finding["path"] == "projects/fine/notes.md"
    assert index.read_bytes() == before
    assert not bogus.exists()


# -- pre-commit --------------------------------------------------------------


def test_pre_commit_manifest() -> None:
    manifest = YAML(typ="safe").load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = manifest
    assert hook["id"] == "context-doctor"
    assert hook["pass_filenames"] is False
    assert hook["always_run"] is True
    assert hook["require_serial"] is True
    assert "pre-push" in hook["stages"]
    assert hook["entry"].split()[:2] == ["context-doctor", "check"]
    assert "--pre-push" in hook["entry"].split()


# -- hooks that survive (issue 12) ----------------------------------------------------


def push_with(root: Path, path: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """``git push`` with ``PATH`` replaced, so what the hook can find is chosen by the test
    (and ``extra`` variables set)."""
    env = {**git_environment(), "PATH": path, **extra}
    return subprocess.run(
        ["git", "push", "origin", "main"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def grow(root: Path) -> None:
    long_context = CONTEXT + "".join(f"Line {n}.\n" for n in range(160))
    commit(root, {"projects/fine/CONTEXT.md": long_context}, "grow the context")


def test_a_refused_push_ends_with_the_refusal_line(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    grow(root)
    pushed = push(root)
    assert pushed.returncode != 0
    # git forwards the hook's output; what it adds itself ("error: failed to push...") follows.
    hook_lines = [
        line
        for line in (pushed.stdout + pushed.stderr).splitlines()
        if line.strip() and not line.startswith(("error:", "To ", " ! ", "hint:"))
    ]
    assert hook_lines[-1] == (
        "push refused by context-doctor: 1 defect in fine (context-doctor check projects/fine)"
    )


def test_hook_without_its_interpreter_falls_back_to_path(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = make_repo(healthy())
    install_hook(root, python=str(tmp_path / "deleted-venv" / "bin" / "python"))
    grow(root)
    # The console script next to this interpreter stands for "context-doctor on PATH".
    scripts = Path(sys.executable).parent
    if not (scripts / "context-doctor").exists():
        pytest.skip("no context-doctor console script beside the test interpreter")
    pushed = push_with(root, f"{scripts}:{os.defpath}")
    assert pushed.returncode != 0
    output = pushed.stdout + pushed.stderr
    assert "[context-budget]" in output
    assert "push refused by context-doctor: 1 defect" in output


def test_hook_that_finds_no_doctor_refuses_with_one_line(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    root = make_repo(healthy())
    install_hook(root, python=str(tmp_path / "deleted-venv" / "bin" / "python"))
    before = remote_main(root)
    commit(root, {"projects/fine/notes.md": "A note.\n"}, "add a note")
    git_dir = Path(shutil.which("git") or "/usr/bin/git").parent
    pushed = push_with(root, f"{git_dir}:/bin:/usr/bin")
    assert pushed.returncode != 0
    output = pushed.stdout + pushed.stderr
    refusal = [line for line in output.splitlines() if "context-doctor" in line]
    assert len(refusal) == 1, pushed.stderr
    assert refusal[0].startswith("push refused by context-doctor: the hook cannot run the doctor")
    assert "context-doctor hook install" in refusal[0]
    assert "context-doctor hook uninstall" in refusal[0]
    assert "not found" not in output
    assert remote_main(root) == before


def test_uninstall_restores_the_newest_backup(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(FOREIGN)
    assert doctor("hook", "install", "--repo", str(root), "--force").exit_code == 0
    [backup] = backups(root)
    run = doctor("hook", "uninstall", "--repo", str(root))
    assert run.exit_code == 0, run.stderr
    assert f"restored the previous hook from {backup}" in run.stdout
    assert hook_path(root).read_text() == FOREIGN
    assert backups(root) == []
    # The restored hook is the foreign one again: uninstall refuses to touch it.
    again = doctor("hook", "uninstall", "--repo", str(root))
    assert again.exit_code == 1
    assert "was not installed by context-doctor" in again.stderr
    assert hook_path(root).read_text() == FOREIGN


def test_uninstall_without_a_backup_removes_the_hook(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    assert doctor("hook", "uninstall", "--repo", str(root)).exit_code == 0
    assert not hook_path(root).exists()
    nothing = doctor("hook", "uninstall", "--repo", str(root))
    assert nothing.exit_code == 1
    assert "nothing to uninstall" in nothing.stderr
    # With the hook gone, a push with defects goes through.
    grow(root)
    assert push(root).returncode == 0


def test_install_refuses_a_global_hooks_path_without_force(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(healthy())
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {shared}\n")
    env = {"GIT_CONFIG_GLOBAL": str(config)}
    run = doctor("hook", "install", "--repo", str(root), env=env)
    assert run.exit_code == 1
    assert "core.hooksPath is set in the global git config" in run.stderr
    assert "shared by every repository" in run.stderr
    assert run.stderr.count("\n") == 1
    assert list(shared.iterdir()) == []
    forced = doctor("hook", "install", "--repo", str(root), "--force", env=env)
    assert forced.exit_code == 0, forced.stderr
    assert BEGIN in (shared / "pre-push").read_text()


def test_a_push_the_doctor_cannot_judge_is_refused_saying_so(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    commit(root, {"projects/index.yaml": "projects: [unclosed\n"}, "break the index")
    pushed = push(root)
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode != 0
    assert "is not valid YAML" in output
    assert "push refused by context-doctor: ground truth not established" in output


# -- the user's hook is the user's --------------------------------------

USERS_OWN = (
    "#!/bin/sh\n# my own checks\nprintf 'ran\\n' > \"$(git rev-parse --git-dir)/users-hook-ran\"\n"
)


def merged_hook(root: Path, doctor: Doctor) -> str:
    """The user's hook with the doctor's block pasted in first, as the install refusal says."""
    block = doctor("hook", "install", "--repo", str(root), "--print")
    assert block.exit_code == 0, block.stderr
    assert block.stdout.startswith(BEGIN) and block.stdout.endswith(END + "\n")
    head, rest = USERS_OWN.split("\n", 1)
    text = f"{head}\n{block.stdout}{rest}"
    hook_path(root).write_text(text)
    hook_path(root).chmod(0o755)
    return text


def test_uninstall_removes_only_the_doctors_block_from_a_merged_hook(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    merged_hook(root, doctor)
    run = doctor("hook", "uninstall", "--repo", str(root))
    assert run.exit_code == 0, run.stderr
    assert "removed context-doctor's block" in run.stdout
    assert hook_path(root).read_text() == USERS_OWN  # every other line, byte for byte
    assert os.access(hook_path(root), os.X_OK)
    # Nothing of the doctor's is left: a second uninstall refuses and changes nothing.
    again = doctor("hook", "uninstall", "--repo", str(root))
    assert again.exit_code == 1
    assert hook_path(root).read_text() == USERS_OWN


def test_uninstall_never_restores_a_backup_over_a_merged_hook(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(FOREIGN)
    assert doctor("hook", "install", "--repo", str(root), "--force").exit_code == 0
    [backup] = backups(root)
    merged_hook(root, doctor)  # the user then merged by hand over the doctor's hook
    assert doctor("hook", "uninstall", "--repo", str(root)).exit_code == 0
    assert hook_path(root).read_text() == USERS_OWN
    assert backup.exists()


def test_a_merged_hook_runs_the_doctor_first_then_the_users_lines(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    merged_hook(root, doctor)
    ran = root / ".git" / "users-hook-ran"
    grow(root)
    refused = push(root)
    assert refused.returncode != 0
    assert "[context-budget]" in refused.stdout + refused.stderr
    assert not ran.exists()  # a refusal ends the hook
    commit(root, {"projects/fine/CONTEXT.md": CONTEXT}, "trim the context again")
    passed = push(root)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert ran.read_text() == "ran\n"  # a pass lets the rest of the user's hook run


def test_install_updates_the_block_inside_a_merged_hook(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(healthy())
    install_hook(root, python=str(tmp_path / "old-venv" / "bin" / "python"))
    old = hook_path(root).read_text()
    head, rest = USERS_OWN.split("\n", 1)
    hook_path(root).write_text(f"{head}\n{old.split(chr(10), 1)[1]}{rest}")
    run = doctor("hook", "install", "--repo", str(root))
    assert run.exit_code == 0, run.stderr
    text = hook_path(root).read_text()
    assert text == f"{head}\n{hook_script().split(chr(10), 1)[1]}{rest}"
    assert backups(root) == []


def test_uninstall_refuses_broken_markers(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    text = f"#!/bin/sh\n{BEGIN}\necho half a block\n"
    hook_path(root).write_text(text)
    run = doctor("hook", "uninstall", "--repo", str(root))
    assert run.exit_code == 1
    assert "[markers-broken]" in run.stderr
    assert hook_path(root).read_text() == text


def legacy_hook(python: str, target: str = ".") -> str:
    """The whole-file hook earlier versions wrote (kept verbatim for the migration tests)."""
    from context_doctor.commands.hook_install import _legacy_script

    return _legacy_script(python, target)


def test_uninstall_removes_an_earlier_versions_whole_hook(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(legacy_hook("/opt/venv with space/bin/python"))
    assert MARKER in hook_path(root).read_text()
    run = doctor("hook", "uninstall", "--repo", str(root))
    assert run.exit_code == 0, run.stderr
    assert not hook_path(root).exists()


def test_uninstall_keeps_a_hook_the_user_merged_an_earlier_version_into(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    # The old install refusal said "merge the hook by hand"; the old uninstall then deleted
    # the user's whole hook because it held the marker line. It is never deleted now.
    root = make_repo(healthy())
    text = USERS_OWN + legacy_hook(sys.executable).split("\n", 1)[1]
    hook_path(root).write_text(text)
    run = doctor("hook", "uninstall", "--repo", str(root))
    assert run.exit_code == 1
    assert "remove those by hand" in run.stderr
    assert hook_path(root).read_text() == text


def test_install_replaces_an_earlier_versions_whole_hook_without_a_backup(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(healthy())
    hook_path(root).write_text(legacy_hook(sys.executable))
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    assert hook_path(root).read_text() == hook_script()
    assert backups(root) == []


def test_no_message_advertises_bypassing_the_hook(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    assert "no-verify" not in hook_path(root).read_text()
    grow(root)
    pushed = push(root)
    assert pushed.returncode != 0
    assert "no-verify" not in pushed.stdout + pushed.stderr


def test_install_refuses_a_local_hooks_path_outside_the_repository(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    """A prepared .git/config may not aim the hook's write outside the repository."""
    root = make_repo(healthy())
    outside = tmp_path / "outside-hooks"
    outside.mkdir()
    subprocess.run(
        ["git", "-C", str(root), "config", "--local", "core.hooksPath", str(outside)], check=True
    )
    refused = doctor("hook", "install", "--repo", str(root))
    assert refused.exit_code == 1
    assert "hooks-path-outside" in refused.stderr
    assert list(outside.iterdir()) == []
    forced = doctor("hook", "install", "--repo", str(root), "--force")
    assert forced.exit_code == 0, forced.stderr
    assert (outside / "pre-push").is_file()


# -- round three: the hook runs no code of the pushed repository ------------------


PLANTED_PACKAGE = (
    "import os, pathlib, sys\n"
    "pathlib.Path(os.environ['PLANTED_MARKER']).write_text('ran')\n"
    "os._exit(0)  # and wave the push through\n"
)


def test_a_committed_context_doctor_package_never_runs_in_the_hook(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(healthy())
    assert doctor("hook", "install", "--repo", str(root)).exit_code == 0
    before = remote_main(root)
    long_context = CONTEXT + "".join(f"Line {n}.\n" for n in range(160))
    commit(
        root,
        {"context_doctor/__init__.py": PLANTED_PACKAGE, "projects/fine/CONTEXT.md": long_context},
        "grow the context, and ship a package named like the doctor",
    )
    marker = tmp_path / "planted-code-ran"
    pushed = push_with(root, os.environ["PATH"], PLANTED_MARKER=str(marker))
    output = pushed.stdout + pushed.stderr
    assert not marker.exists(), output
    assert pushed.returncode != 0, output
    assert "[context-budget]" in output
    assert remote_main(root) == before


# -- what a push costs: one interpreter, few git processes ------------------------

PYTHON_COUNTER = '#!/bin/sh\necho started >> "$PYTHON_STARTS"\nexec {python} "$@"\n'


def test_a_push_starts_one_interpreter_and_at_most_ten_gits(
    make_repo: MakeRepo, tmp_path: Path
) -> None:
    """Counted, never timed: the interpreter through a counting wrapper the hook is
    installed with, git's processes from ``GIT_TRACE`` (every git the hook and the doctor
    start inherits it), from the hook's start on."""
    root = make_repo(healthy())
    wrapper = tmp_path / "python"
    wrapper.write_text(PYTHON_COUNTER.format(python=sys.executable))
    wrapper.chmod(0o755)
    install_hook(root, python=str(wrapper))
    grow(root)  # a refused push: the whole audit of the pushed tree runs
    starts, trace = tmp_path / "starts", tmp_path / "trace"
    pushed = push_with(root, os.environ["PATH"], PYTHON_STARTS=str(starts), GIT_TRACE=str(trace))
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode != 0, output
    assert "push refused by context-doctor: 1 defect" in output
    assert starts.read_text().splitlines() == ["started"]
    lines = trace.read_text().splitlines()
    [hook_started] = [
        n for n, line in enumerate(lines) if "run_command: .git/hooks/pre-push" in line
    ]
    gits = [line for line in lines[hook_started:] if "trace: built-in: git " in line]
    assert 1 <= len(gits) <= 10, "\n".join(gits)
