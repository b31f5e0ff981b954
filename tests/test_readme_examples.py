"""Every command example in the README and in ``docs/`` runs, as printed, on a real repository.

The convention (docs/architecture.md, "Examples are run"):

- a fenced ``console`` block holds commands after ``$ `` and, under each, the output it
  must print, line for line (``…`` stands for any text); the commands run in order;
- a fenced ``sh`` block holds commands only, one a line (a trailing ``\\`` continues a
  line); each must exit ``0``, or the status a trailing ``# exits N`` names;
- an HTML comment on the line right above a block steers it: ``<!-- not run: why -->``
  skips it (the reason is required, and the skips are counted), ``<!-- cwd: DIR -->``
  runs it in DIR of the workspace (default ``demo-kb``), ``<!-- setup: COMMAND -->`` runs
  COMMAND first, unseen by the reader, and ``<!-- file: PATH[, committed YYYY-MM-DD] -->``
  makes the block's text the file PATH of the workspace (committed on that day), before
  any command of the page runs;
- ``toml`` blocks parse, and those that are a ``context-doctor.toml`` are valid against
  the configuration schema; ``json`` and ``yaml`` blocks parse; a ``yaml`` block that is a
  CI job runs its ``context-doctor`` lines (``run:``, ``script:``) in ``demo-status``, as
  do the workflow files of ``docs/ci/``.

Each page runs in a workspace of its own: the demo knowledge base (``demo-kb``, with its
remote), the demo's other layout (``demo-status``), the demo vault (``demo-vault``, its
floors in ``demo-vault-machine``), a home folder of its own, and the files the page
declares. Whoever changes what the doctor prints updates the pages this test reads.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import REPO_ROOT
from jsonschema import Draft202012Validator

from context_doctor.cli import cli
from context_doctor.scenarios import build_scenario, write_floors

PAGES = sorted([REPO_ROOT / "README.md", *(REPO_ROOT / "docs").glob("*.md")])
COMMAND_LANGUAGES = frozenset({"console", "sh"})
SHELL_LANGUAGES = frozenset({"bash", "shell", "zsh"})  # not a convention: say console or sh
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)(?P<info>[\w-]*)\s*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*(?P<key>not run|cwd|setup|file):\s*(?P<value>.*?)\s*-->\s*$")
_EXITS = re.compile(r"#\s*exits\s+(?P<code>\d+)\b")
DEFAULT_CWD = "demo-kb"
TIMEOUT = 120


@dataclass
class Block:
    page: Path
    line: int
    language: str
    text: str
    directives: dict[str, list[str]] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO_ROOT)}:{self.line}"

    def directive(self, key: str) -> str | None:
        values = self.directives.get(key)
        return values[0] if values else None


def blocks(page: Path) -> Iterator[Block]:
    """Every fenced block of ``page``, with the directives in the comments right above it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        opened = _FENCE.match(lines[number])
        if not opened or (not opened.group("info") and not _opens(lines, number)):
            number += 1
            continue
        indent, fence = opened.group("indent"), opened.group("fence")
        directives: dict[str, list[str]] = {}
        above = number - 1
        while above >= 0 and (said := _DIRECTIVE.match(lines[above])):
            directives.setdefault(said.group("key"), []).insert(0, said.group("value"))
            above -= 1
        body = []
        number += 1
        while number < len(lines) and lines[number].strip() != fence:
            text = lines[number]
            body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
            number += 1
        yield Block(page, number - len(body), opened.group("info"), "\n".join(body) + "\n",
                    directives)  # fmt: skip
        number += 1


def _opens(lines: list[str], number: int) -> bool:
    """A bare fence opens a block when an even number of fences came before it."""
    return sum(1 for line in lines[:number] if _FENCE.match(line)) % 2 == 0


def commands(block: Block) -> Iterator[tuple[str, list[str] | None]]:
    """``(command, expected output lines or None)`` of a command block, in order."""
    joined: list[str] = []
    for raw in block.text.splitlines():
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + raw.strip()
        else:
            joined.append(raw)
    if block.language == "sh":
        for line in joined:
            if line.strip() and not line.lstrip().startswith("#"):
                yield line.strip(), None
        return
    command: str | None = None
    output: list[str] = []
    for line in joined:
        if line.startswith("$ "):
            if command is not None:
                yield command, output
            command, output = line[2:].strip(), []
        elif command is not None:
            output.append(line)
    if command is not None:
        yield command, output


def expected_exit(command: str) -> int:
    said = _EXITS.search(command)
    return int(said.group("code")) if said else 0


def matches(expected: list[str], printed: list[str]) -> bool:
    if len(expected) != len(printed):
        return False
    for want, got in zip(expected, printed, strict=True):
        pattern = ".*".join(re.escape(part) for part in want.rstrip().split("…"))
        if not re.fullmatch(pattern, got.rstrip()):
            return False
    return True


# -- the workspace ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpora, built once; every page copies them."""
    root = tmp_path_factory.mktemp("examples-template")
    scenarios = REPO_ROOT / "fixtures" / "scenarios"
    build_scenario(scenarios / "demo.yaml", root / "demo-kb")
    build_scenario(scenarios / "demo-status.yaml", root / "demo-status")
    vault = scenarios / "vault-demo.yaml"
    if vault.exists():
        build_scenario(vault, root / "demo-vault")
        write_floors(vault, root / "demo-vault-machine")
    return root


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)


def workspace(template: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "workspace"
    shutil.copytree(template, root, symlinks=True)
    for repository in ("demo-kb", "demo-status"):
        remote = root / f"{repository}-remote.git"
        if remote.exists():
            _git(root / repository, "remote", "set-url", "origin", str(remote))
    home = root / "home"
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CI", "SYNTHESIS_HOME", "COLUMNS", "GITHUB_STEP_SUMMARY")
        and not key.startswith(("BASTRA_", "PRE_COMMIT_", "GITHUB_"))
    }
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        TZ="UTC",
    )
    return root, env


def write_declared_files(page_blocks: list[Block], root: Path, env: dict[str, str]) -> None:
    for block in page_blocks:
        declared = block.directive("file")
        if declared is None:
            continue
        name, _, when = declared.partition(",")
        path = root / name.strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        day = when.replace("committed", "").strip()
        if day:
            top = root / Path(name.strip()).parts[0]
            if not (top / ".git").exists():
                _git(top, "init", "-q", env=env)
            stamp = f"{day}T12:00:00+00:00"
            dated = {**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
            _git(top, "add", "-A", env=dated)
            _git(top, "commit", "-q", "-m", f"add {path.relative_to(top)}", env=dated)


_SHELL_WORDS = re.compile(r"[$`|<>;&*?(){}~\\]")


def run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``command`` as a shell runs it; a plain ``context-doctor ARGS`` (no shell word but a
    trailing comment) runs in this process, as the shell would run it, only faster."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = []
    if words[:1] == ["context-doctor"] and not any(_SHELL_WORDS.search(w) for w in words):
        return _in_process(words[1:], cwd, env)
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def _in_process(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    previous = Path.cwd()
    os.chdir(cwd)
    changed = {key: os.environ.get(key) for key in {*env, *os.environ}}
    try:
        os.environ.clear()
        os.environ.update(env)
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.environ.clear()
        os.environ.update({key: value for key, value in changed.items() if value is not None})
        os.chdir(previous)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def run_block(block: Block, root: Path, env: dict[str, str]) -> int:
    """Run ``block``'s commands; returns how many ran. Fails at the first that does not
    do what the page says."""
    cwd = root / (block.directive("cwd") or DEFAULT_CWD)
    for setup in block.directives.get("setup", []):
        done = run(setup, cwd, env)
        assert done.returncode == 0, f"{block.where}: setup `{setup}`: {done.stderr}"
    ran = 0
    for command, expected in commands(block):
        if command.startswith("cd ") and "&&" not in command and ";" not in command:
            cwd = (cwd / command[3:].strip()).resolve()
            assert cwd.is_dir(), f"{block.where}: `{command}`: no such folder"
            continue
        done = run(command, cwd, env)
        ran += 1
        said = f"{block.where}: `{command}` (in {cwd.relative_to(root)})"
        want = expected_exit(command)
        assert done.returncode == want, (
            f"{said} exited {done.returncode}, the page says {want}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
        if expected:
            printed = (done.stdout + done.stderr).splitlines()
            assert matches(expected, printed), (
                f"{said} printed other lines than the page shows\n"
                "page:\n" + "\n".join(expected) + "\nprinted:\n" + "\n".join(printed)
            )
    return ran


def workflow_commands(text: str) -> list[str]:
    """The doctor's commands of a CI workflow or job: every ``run:`` and ``script:`` line
    that starts with ``context-doctor`` (the install line holds a placeholder)."""
    found: list[str] = []

    def walk(node: object, key: str | None = None) -> None:
        if isinstance(node, dict):
            for name, value in node.items():
                walk(value, str(name))
        elif isinstance(node, list):
            for item in node:
                walk(item, key)
        elif isinstance(node, str) and key in ("run", "script"):
            found.extend(
                line.strip()
                for line in node.splitlines()
                if line.strip().startswith("context-doctor")
            )

    walk(yaml.safe_load(text.replace("<repository-url>", "repository-url")))
    return found


def run_workflow(text: str, where: str, root: Path, env: dict[str, str]) -> int:
    """Run a workflow's doctor commands as its job would, in the demo's other layout."""
    commands = workflow_commands(text)
    for command in commands:
        done = run(command, root / "demo-status", env)
        assert done.returncode == 0, f"{where}: `{command}` exited {done.returncode}: {done.stderr}"
    return len(commands)


def check_data_block(block: Block) -> None:
    if block.language == "toml":
        loaded = tomllib.loads(block.text)
        if "project" not in loaded and "tool" not in loaded:
            schema = json.loads((REPO_ROOT / "schemas" / "config.schema.json").read_text("utf-8"))
            errors = sorted(
                error.message for error in Draft202012Validator(schema).iter_errors(loaded)
            )
            assert errors == [], f"{block.where}: not a valid context-doctor.toml: {errors}"
    elif block.language == "json":
        json.loads(block.text)
    elif block.language == "yaml":
        yaml.safe_load(block.text.replace("<repository-url>", "repository-url"))


# -- the tests -------------------------------------------------------------------------------


def every_block() -> Iterator[Block]:
    for page in PAGES:
        yield from blocks(page)


def test_every_command_block_follows_the_convention() -> None:
    wrong = [f"{block.where} ({block.language})" for block in every_block()
             if block.language in SHELL_LANGUAGES]  # fmt: skip
    assert wrong == [], f"write command examples as ```console or ```sh blocks: {wrong}"
    silent = [block.where for block in every_block()
              if "not run" in block.directives and not block.directive("not run")]  # fmt: skip
    assert silent == [], f"a block that is not run says why: {silent}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_pages_examples_run_as_printed(page: Path, template: Path, tmp_path: Path) -> None:
    page_blocks = list(blocks(page))
    root, env = workspace(template, tmp_path)
    write_declared_files(page_blocks, root, env)
    for block in page_blocks:
        if "not run" in block.directives:
            continue
        if block.language in COMMAND_LANGUAGES:
            run_block(block, root, env)
        elif block.language == "yaml" and workflow_commands(block.text):
            run_workflow(block.text, block.where, root, env)
        else:
            check_data_block(block)


@pytest.mark.parametrize(
    "workflow", sorted((REPO_ROOT / "docs" / "ci").glob("*.yml")), ids=lambda path: path.name
)
def test_the_ci_recipes_run_as_printed(workflow: Path, template: Path, tmp_path: Path) -> None:
    """``docs/ci/*.yml``: every doctor command of the job runs, and writes what it names."""
    root, env = workspace(template, tmp_path)
    assert run_workflow(workflow.read_text(encoding="utf-8"), workflow.name, root, env) >= 2
    written = [
        path for path in (root / "demo-status").glob("*") if path.suffix in (".sarif", ".json")
    ]
    for path in written:
        json.loads(path.read_text(encoding="utf-8"))
    assert written, f"{workflow.name} wrote no report file"
