"""Shared test plumbing: real git repositories from scenarios, and the CLI run in-process."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import settings

from context_doctor.checks.registry import PLUGINS_OFF
from context_doctor.cli import cli
from context_doctor.scenarios import build_scenario

# Hypothesis: CI runs a fixed seed (derandomize) and, where a test names no count, a few
# examples; `HYPOTHESIS_PROFILE=large` runs many, with fresh randomness, by hand.
settings.register_profile("ci", derandomize=True, max_examples=6, database=None)
settings.register_profile("large", derandomize=False, max_examples=300, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO_ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = REPO_ROOT / "fixtures" / "scenarios"


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def raw(self) -> dict[str, Any]:
        """The JSON on stdout exactly as printed (what schema validation sees)."""
        loaded: dict[str, Any] = json.loads(self.stdout)
        return loaded

    @property
    def json(self) -> dict[str, Any]:
        """The JSON on stdout; a report's coverage ``why`` is checked here, then left out.

        ``why`` (the Synthesis Console's form of ``reasons``) must say exactly what
        ``reasons`` says, in every report the suite reads; the tests that pin
        coverage then compare ``examined``, ``skipped`` and ``reasons`` alone.
        """
        loaded: dict[str, Any] = json.loads(self.stdout)
        coverage = loaded.get("coverage") if isinstance(loaded, dict) else None
        for entry in (coverage or {}).values():
            reasons = sorted(entry["reasons"].items())
            said = (
                [reason for reason, _ in reasons]
                if len(reasons) == 1
                else [f"{count} {reason}" for reason, count in reasons]
            )
            assert entry.pop("why") == said, entry
        return loaded

    def findings(
        self, check: str | None = None, project: str | None = None
    ) -> list[dict[str, Any]]:
        return [
            finding
            for finding in self.json["findings"]
            if (check is None or finding["check"] == check)
            and (project is None or finding["project"] == project)
        ]


# The git config every test runs under, whatever the developer's own says: a global
# `commit.gpgsign=true`, `core.hooksPath` or `safe.directory=*` changed what tests saw.
PINNED_GIT_CONFIG = """\
[user]
\tname = Test Suite
\temail = tests@example.invalid
[commit]
\tgpgsign = false
[tag]
\tgpgsign = false
[init]
\tdefaultBranch = main
"""
# What a caller's shell or a git hook may export that would steer git away from the repository
# a test names, or inject config behind the pinned file's back.
_LEAKED_GIT_VARIABLES = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
)


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test, and every process it starts, sees the pinned git config and no plugin.

    ``GIT_CONFIG_GLOBAL`` replaces ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config``;
    ``GIT_CONFIG_NOSYSTEM`` drops ``/etc/gitconfig``. Installed third-party check modules
    are not loaded (a test that means a plugin unsets :data:`PLUGINS_OFF`).
    """
    config = tmp_path_factory.mktemp("git-config") / "gitconfig"
    config.write_text(PINNED_GIT_CONFIG, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        for name in _LEAKED_GIT_VARIABLES:
            patch.delenv(name, raising=False)
        for name in [key for key in os.environ if key.startswith("GIT_CONFIG_KEY_")]:
            patch.delenv(name)
        for name in [key for key in os.environ if key.startswith("GIT_CONFIG_VALUE_")]:
            patch.delenv(name)
        patch.setenv("GIT_CONFIG_GLOBAL", str(config))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        patch.setenv(PLUGINS_OFF, "1")
        # Wrapped text follows COLUMNS (render/terminal.py): a developer's wide terminal must
        # not re-wrap snapshots. Tests that mean a width say so with ``env={"COLUMNS": …}``.
        patch.delenv("COLUMNS", raising=False)
        yield config


@pytest.fixture(scope="session")
def session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ``$XDG_CACHE_HOME`` for the session: the replay secret is made once, not per test."""
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    session_cache_home: Path,
) -> Path:
    """No test ever reads the developer's own ~/.synthesis/console.yaml."""
    home = tmp_path_factory.mktemp("synthesis-home")
    monkeypatch.setenv("SYNTHESIS_HOME", str(home))
    # Nor writes the replay secret (context_doctor/replay.py) into the developer's ~/.cache.
    monkeypatch.setenv("XDG_CACHE_HOME", str(session_cache_home))
    # Nor finds the developer's ~/workspaces/*/ai-knowledge-* (the console's auto-detection).
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("user-home")))
    # The suite itself runs in CI: `CI=true` would skip the durability checks on detached
    # checkouts under test. Tests that mean CI say so with ``env={"CI": "true"}``.
    monkeypatch.delenv("CI", raising=False)
    # Nor the developer's Bastra Recall vault and floors (docs/vaults.md): a test names its own.
    monkeypatch.delenv("BASTRA_VAULT_PATH", raising=False)
    monkeypatch.setenv("BASTRA_FLOORS_PATH", str(home / "no-floors.json"))
    monkeypatch.setenv("BASTRA_FLOOR_ACTS_PATH", str(home / "no-floor-acts.jsonl"))
    return home


@pytest.fixture
def doctor() -> Callable[..., Run]:
    """Run ``context-doctor ARGS`` in-process; ``cwd`` changes directory for auto-detection."""

    def invoke(
        *args: str,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        input: bytes | str | None = None,  # stdin
    ) -> Run:
        runner = CliRunner()
        if cwd is not None:
            previous = Path.cwd()
            os.chdir(cwd)
            try:
                result = runner.invoke(
                    cli, list(args), input=input, env=dict(env or {}), catch_exceptions=False
                )
            finally:
                os.chdir(previous)
        else:
            result = runner.invoke(
                cli, list(args), input=input, env=dict(env or {}), catch_exceptions=False
            )
        return Run(result.exit_code, result.stdout, result.stderr)

    return invoke


@pytest.fixture(scope="session")
def scenario_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Path]]:
    """Build ``fixtures/scenarios/<name>.yaml`` into a real git repository, once per session."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = build_scenario(
                SCENARIOS / f"{name}.yaml", tmp_path_factory.mktemp(name) / "kb"
            )
        return built[name]

    yield get


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[Mapping[str, Any]], Path]:
    """Build an inline scenario (a dict in the same shape as the YAML files)."""
    counter = iter(range(1000))

    def make(scenario: Mapping[str, Any]) -> Path:
        return build_scenario(scenario, tmp_path / f"kb{next(counter)}")

    return make


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Let pytest remove the old temporary folders once every test has run.

    Some tests plant trees over 1,000 folders deep (a walk must not recurse); pytest's
    own clean-up of earlier runs' folders (`shutil.rmtree`) recurses once per level and
    would end the session with a RecursionError after every test passed. The limit is
    raised only now, so no test of the doctor runs under it.
    """
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
