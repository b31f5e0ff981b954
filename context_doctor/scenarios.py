"""Scenario corpora turned into real git repositories (tests and ``demo`` share this).

A scenario is YAML::

    description: what the corpus shows
    today: 2026-06-15            # the date the story is told on (demo default)
    commits:
      - date: 2026-06-01T10:00:00+02:00   # author date; committer_date defaults to it
        committer_date: 2026-06-02T09:00:00+00:00
        author: "dependabot[bot] <support@github.com>"   # default: Scenario Author
        message: start alpha
        files:
          projects/alpha/CONTEXT.md: |
            # Alpha
          projects/big/CONTEXT.md: {text: "# Big\\n", pad_to: 200}
          projects/bin/CONTEXT.md: {base64: "/+4AAA=="}
        delete: [projects/old/CONTEXT.md]
    uncommitted:                  # left in the work tree after the last commit
      files: {...}
      delete: [...]
    remote: true                  # a bare remote beside the repository, `main` pushed to it
    unpushed_commits: 1           # ...except the last N commits (default 0)

``pad_to`` appends numbered filler lines until the file has that many lines.
Every commit is real, made with ``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE``.
"""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Mapping
from datetime import date, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from context_doctor.git.run import git_environment

_IDENTITY = [
    "-c",
    "user.name=Scenario Author",
    "-c",
    "user.email=author@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
]


def scenario_path(name: str) -> Path:
    """A bundled scenario by name (``fixtures/scenarios/<name>.yaml``)."""
    return Path(str(files("context_doctor.fixtures").joinpath("scenarios", f"{name}.yaml")))


def load_scenario(source: str | Path | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(source, Mapping):
        return dict(source)
    path = (
        Path(source)
        if isinstance(source, Path) or source.endswith(".yaml")
        else scenario_path(source)
    )
    loaded: dict[str, Any] = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return loaded


def _git(args: list[str], cwd: Path, extra_env: Mapping[str, str] | None = None) -> str:
    env = git_environment()
    env.update(extra_env or {})
    result = subprocess.run(
        ["git", *_IDENTITY, *args], cwd=cwd, env=env, capture_output=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace')}")
    return result.stdout.decode("utf-8", "replace")


def file_bytes(spec: Any) -> bytes:
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if isinstance(spec, Mapping):
        if "base64" in spec:
            return base64.b64decode(str(spec["base64"]))
        text = str(spec.get("text", ""))
        pad_to = int(spec.get("pad_to", 0))
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        filler = str(spec.get("filler", "Filler line {n}."))
        while len(lines) < pad_to:
            lines.append(filler.format(n=len(lines) + 1))
        return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""
    raise ValueError(f"a scenario file must be text or a mapping, not {type(spec).__name__}")


def _stamp(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return f"{value.isoformat()}T12:00:00+00:00"
    return str(value)


def _apply(root: Path, changes: Mapping[str, Any]) -> None:
    for relative, spec in (changes.get("files") or {}).items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(file_bytes(spec))
    for relative in changes.get("delete") or []:
        (root / relative).unlink()


def build_scenario(source: str | Path | Mapping[str, Any], destination: Path) -> Path:
    """Create ``destination`` as a git repository holding the scenario; returns it."""
    scenario = load_scenario(source)
    destination.mkdir(parents=True, exist_ok=True)
    _git(["init", "-q"], destination)
    for number, commit in enumerate(scenario.get("commits") or [], start=1):
        _apply(destination, commit)
        author = _stamp(commit["date"])
        committer = _stamp(commit.get("committer_date", commit["date"]))
        _git(["add", "-A"], destination)
        stamps = {"GIT_AUTHOR_DATE": author, "GIT_COMMITTER_DATE": committer}
        if commit.get("author"):
            name, _, email = str(commit["author"]).rpartition(" <")
            stamps |= {"GIT_AUTHOR_NAME": name.strip(), "GIT_AUTHOR_EMAIL": email.rstrip(">")}
        _git(
            ["commit", "-q", "--allow-empty", "-m", str(commit.get("message", f"commit {number}"))],
            destination,
            stamps,
        )
    if scenario.get("remote"):
        _add_remote(destination, scenario)
    if scenario.get("uncommitted"):
        _apply(destination, scenario["uncommitted"])
    return destination


def remote_path(destination: Path) -> Path:
    """Where ``build_scenario`` puts a scenario's bare remote: beside the repository (an
    absolute path: git runs inside the repository, where a relative one would land)."""
    destination = destination.absolute()
    return destination.parent / f"{destination.name}-remote.git"


def _add_remote(destination: Path, scenario: Mapping[str, Any]) -> None:
    bare = remote_path(destination)
    _git(["init", "-q", "--bare", str(bare)], destination)
    _git(["remote", "add", "origin", str(bare)], destination)
    held_back = int(scenario.get("unpushed_commits", 0))
    commits = len(scenario.get("commits") or [])
    if commits > held_back:
        _git(["push", "-q", "origin", f"HEAD~{held_back}:refs/heads/main"], destination)
        _git(["branch", "-q", "--set-upstream-to", "origin/main"], destination)


def scenario_today(source: str | Path | Mapping[str, Any]) -> date | None:
    value = load_scenario(source).get("today")
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)) if value else None


def write_floors(source: str | Path | Mapping[str, Any], directory: Path) -> Path | None:
    """A vault scenario's machine-side floors (``floors:`` and ``floor_acts:``, docs/vaults.md),
    written into ``directory`` (beside the vault, never in it); None when it has none."""
    scenario = load_scenario(source)
    if "floors" not in scenario:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    floors = directory / "floors.json"
    floors.write_bytes(file_bytes(scenario["floors"]))
    if "floor_acts" in scenario:
        (directory / "floor-acts.jsonl").write_bytes(file_bytes(scenario["floor_acts"]))
    return floors
