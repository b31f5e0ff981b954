"""``.pre-commit-hooks.yaml``: every hook works in every stage it lists, run by pre-commit itself.

pre-commit (from PyPI, in the dev environment) runs each manifest hook as a ``repo: local``
hook, offline: the hook's own fields, with ``language: system`` so that pre-commit uses the
installed doctor instead of building an environment from the network. Each stage is run
the way a user runs it: ``pre-commit run --hook-stage STAGE`` (``manual``, and
``pre-push`` with and without ``--from-ref``/``--to-ref``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from commands.test_pre_push import corpus, over_budget
from conftest import REPO_ROOT
from support import MakeRepo, commit_files, run_git

from context_doctor.guards.yamlio import load_yaml

MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")
WHEN = "2026-06-02T12:00:00+00:00"


def manifest_hooks() -> list[dict[str, Any]]:
    hooks: list[dict[str, Any]] = json.loads(json.dumps(load_yaml(MANIFEST, "manifest")))
    return hooks


def stages() -> list[tuple[str, str]]:
    return [(hook["id"], stage) for hook in manifest_hooks() for stage in hook["stages"]]


def pre_commit(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{PRE_COMMIT.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(home),
        "PRE_COMMIT_COLOR": "never",
    }
    return subprocess.run(
        [str(PRE_COMMIT), "run", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


@pytest.fixture
def knowledge_base(make_repo: MakeRepo) -> Path:
    """A healthy knowledge base, pushed, whose pre-commit config holds the manifest's hooks."""
    root = make_repo(corpus())
    hooks = [{**hook, "language": "system"} for hook in manifest_hooks()]
    config = {"repos": [{"repo": "local", "hooks": hooks}]}
    commit_files(
        root, {".pre-commit-config.yaml": json.dumps(config, indent=2)}, "pre-commit", when=WHEN
    )
    run_git(root, "push", "-q", "origin", "HEAD:refs/heads/main")
    return root


def test_the_manifest_lists_the_stages_its_users_run() -> None:
    (hook,) = manifest_hooks()
    assert set(hook["stages"]) == {"pre-push", "manual"}
    assert hook["entry"] == "context-doctor check . --pre-push"


@pytest.mark.parametrize(("hook", "stage"), stages())
def test_each_hook_passes_a_healthy_head_in_each_stage(
    knowledge_base: Path, tmp_path: Path, hook: str, stage: str
) -> None:
    done = pre_commit(knowledge_base, tmp_path / "pre-commit-home", "--hook-stage", stage, hook)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout, done.stdout


@pytest.mark.parametrize(("hook", "stage"), stages())
def test_each_hook_refuses_a_defect_head_in_each_stage(
    knowledge_base: Path, tmp_path: Path, hook: str, stage: str
) -> None:
    commit_files(
        knowledge_base, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta", when=WHEN
    )
    done = pre_commit(knowledge_base, tmp_path / "pre-commit-home", "--hook-stage", stage, hook)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "push refused by context-doctor: 1 defect in beta" in done.stdout, done.stdout
    assert "found no pushed refs" not in done.stdout


def test_the_pre_push_stage_takes_pre_commits_refs(knowledge_base: Path, tmp_path: Path) -> None:
    pushed = run_git(knowledge_base, "rev-parse", "HEAD").stdout.strip()
    bad = commit_files(
        knowledge_base, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta", when=WHEN
    )
    home = tmp_path / "pre-commit-home"
    (hook,) = manifest_hooks()
    refs = ("--from-ref", pushed, "--to-ref", bad)
    done = pre_commit(knowledge_base, home, "--hook-stage", "pre-push", *refs, hook["id"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 defect in beta" in done.stdout and "a manual run" not in done.stdout
    earlier = ("--from-ref", pushed, "--to-ref", pushed)
    clean = pre_commit(knowledge_base, home, "--hook-stage", "pre-push", *earlier, hook["id"])
    assert clean.returncode == 0, clean.stdout + clean.stderr


@pytest.mark.parametrize(("hook", "stage"), stages())
def test_each_stage_refuses_a_defect_head_without_an_upstream(
    knowledge_base: Path, tmp_path: Path, hook: str, stage: str
) -> None:
    """CI's checkout: the defect is pushed (on ``origin/main``), HEAD detached at it, no
    refs given. The stage judges every project in HEAD and fails (it passed: "the push
    changes no project's context", #42 item 9)."""
    commit_files(
        knowledge_base, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta", when=WHEN
    )
    run_git(knowledge_base, "push", "-q", "origin", "HEAD:refs/heads/main")
    run_git(knowledge_base, "checkout", "-q", "--detach")
    done = pre_commit(knowledge_base, tmp_path / "pre-commit-home", "--hook-stage", stage, hook)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "push refused by context-doctor: 1 defect in beta" in done.stdout, done.stdout
    assert "has no upstream: judging every project in HEAD" in done.stdout
