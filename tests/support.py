"""Helpers shared by the test modules: auditing scenarios, reading findings and coverage, git.

Imported as ``from support import ...`` (``tests/`` is on ``sys.path``, as for ``conftest``).
The fixtures themselves live in ``conftest.py``; this module holds plain functions, plus
``scenario_audit_fixtures``, which builds the per-module ``root``/``corpus``/``one`` fixtures.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import REPO_ROOT, Run
from jsonschema import Draft202012Validator

import context_doctor
from context_doctor.git.run import git_environment

Doctor = Callable[..., Run]
"""The ``doctor`` fixture: runs ``context-doctor ARGS`` in-process."""
MakeRepo = Callable[[Mapping[str, Any]], Path]
"""The ``make_repo`` fixture: builds an inline scenario into a real git repository."""

INDEX = "projects/index.yaml"
"""Where a scenario's project index lives, relative to its root."""

IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
"""Options naming a committer, for git commands that commit outside the scenario builder."""


# -- files -----------------------------------------------------------------------


def write_files(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root`` (folders made as needed)."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


# -- auditing ------------------------------------------------------------------


def audit(doctor: Doctor, *args: str, today: str) -> Run:
    """``check ARGS --today TODAY --json``, which must report (exit 0 or 1) with findings."""
    run = doctor("check", *args, "--today", today, "--json")
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    assert "findings" in run.json, run.stdout
    return run


_RUNS: dict[tuple[str, ...], Run] = {}


def cached_audit(doctor: Doctor, *args: str, today: str) -> Run:
    """``audit``, run once per ARGS and TODAY: for read-only scenario corpora only."""
    key = (*args, today)
    if key not in _RUNS:
        _RUNS[key] = audit(doctor, *args, today=today)
    return _RUNS[key]


def scenario_audit_fixtures(scenario: str, today: str) -> tuple[Any, Any, Any]:
    """The fixtures ``root``, ``corpus`` and ``one`` for ``fixtures/scenarios/<scenario>.yaml``.

    ``root`` is the built scenario; ``corpus`` the audit of the whole source on ``today``;
    ``one(project)`` the audit narrowed to one project with ``--project``, so its coverage
    counts belong to that project alone. Bind them in the test module::

        root, corpus, one = scenario_audit_fixtures(SCENARIO, TODAY)
    """

    @pytest.fixture(name="root")
    def root_fixture(scenario_repo: Callable[[str], Path]) -> Path:
        return scenario_repo(scenario)

    @pytest.fixture(name="corpus")
    def corpus_fixture(root: Path, doctor: Doctor) -> Run:
        return cached_audit(doctor, "--source", str(root), today=today)

    @pytest.fixture(name="one")
    def one_fixture(root: Path, doctor: Doctor) -> Callable[[str], Run]:
        def audit_project(project: str) -> Run:
            run = cached_audit(doctor, "--project", str(root / "projects" / project), today=today)
            assert run.json["projects_audited"] == 1
            return run

        return audit_project

    return root_fixture, corpus_fixture, one_fixture


def load_report_validator(*, check_schema: bool = False) -> Draft202012Validator:
    """A validator for ``schemas/report.schema.json``; ``check_schema`` first checks the schema."""
    schema = json.loads((REPO_ROOT / "schemas" / "report.schema.json").read_text())
    if check_schema:
        Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


# -- findings and coverage -----------------------------------------------------


def sole(run: Run, check: str, project: str | None) -> dict[str, Any]:
    """The one finding of ``check`` on ``project``; ``None`` means the one about the source as
    a whole (its project is the source's name in parentheses, ``(acme)``)."""
    found = run.findings(check, project)
    if project is None:
        found = [finding for finding in found if is_whole_source(finding)]
    assert len(found) == 1, found
    return found[0]


def is_whole_source(finding: Mapping[str, Any]) -> bool:
    """A finding about its source as a whole: ``project`` is ``(source)`` (docs/checks.md)."""
    return bool(finding["project"] == f"({finding['source']})")


def assert_quiet(run: Run, check: str) -> None:
    """The check looked at the (single) project and found nothing."""
    assert run.json["coverage"][check] == {"examined": 1, "skipped": 0, "reasons": {}}
    assert run.findings(check) == []


def assert_examined(run: Run, check: str) -> None:
    """The check looked at the (single) project, whatever it found."""
    assert run.json["coverage"][check]["examined"] == 1, run.json["coverage"][check]
    assert run.json["coverage"][check]["skipped"] == 0


def assert_skipped(run: Run, check: str, reason: str) -> None:
    """The check skipped the (single) project for ``reason`` and found nothing."""
    assert run.json["coverage"][check] == {"examined": 0, "skipped": 1, "reasons": {reason: 1}}
    assert run.findings(check) == []


def assert_not_applicable(run: Run, check: str, reason: str) -> None:
    """The (single) project is not of the shape ``check`` is about: counted under
    ``not_applicable``, neither examined nor skipped, and no finding (docs/checks.md)."""
    assert run.json["not_applicable"][check] == {"count": 1, "reason": reason}
    assert check not in run.json["coverage"], run.json["coverage"][check]
    assert run.findings(check) == []


def not_applicable(run: Run, check: str) -> Mapping[str, int]:
    """How many units ``check`` did not apply to, by shape (``{}`` when none)."""
    entry = run.json["not_applicable"].get(check)
    if entry is None:
        return {}
    count, reason = entry["count"], entry["reason"]
    if ", " not in reason:  # one reason covers them all: written bare
        return {reason: count}
    parts = (part.split(" ", 1) for part in reason.split(", "))
    return {name: int(number) for number, name in parts}


def reasons(run: Run, check: str) -> Mapping[str, int]:
    """How many projects ``check`` skipped, by reason."""
    reasons: Mapping[str, int] = run.json["coverage"][check]["reasons"]
    return reasons


# -- lines in a built corpus -----------------------------------------------------


def line_of(
    root: Path, relative: str, needle: str, *, exact: bool = False, occurrence: int | None = None
) -> int:
    """The 1-based line of ``root/relative`` containing ``needle`` (``exact``: equal to it, stripped).

    By default there must be exactly one such line; ``occurrence=N`` takes the N-th of
    at least N.
    """
    lines = (root / relative).read_text(encoding="utf-8").splitlines()
    hits = [
        number
        for number, text in enumerate(lines, start=1)
        if (text.strip() == needle if exact else needle in text)
    ]
    if occurrence is None:
        assert len(hits) == 1, (relative, needle, hits)
        return hits[0]
    assert len(hits) >= occurrence, (relative, needle, hits)
    return hits[occurrence - 1]


def entry_line(root: Path, project: str) -> int:
    """The line of the one ``- id: <project>`` entry in the index."""
    return line_of(root, INDEX, f"- id: {project}")


def field_line(root: Path, project: str, field: str, *, occurrence: int = 1) -> int:
    """The line of ``field:`` in the ``occurrence``-th index entry ``- id: <project>``."""
    lines = (root / INDEX).read_text(encoding="utf-8").splitlines()
    starts = [n for n, text in enumerate(lines, 1) if text.strip() == f"- id: {project}"]
    start = starts[occurrence - 1]
    for number in range(start, len(lines) + 1):
        text = lines[number - 1].strip().removeprefix("- ")
        if number > start and text.startswith("id:") and lines[number - 1].lstrip().startswith("-"):
            break
        if text.startswith(f"{field}:"):
            return number
    raise AssertionError((project, field))


# -- git -----------------------------------------------------------------------


def run_git(
    root: Path, *args: str, when: str | None = None, identity: bool = False, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``root`` under the doctor's own git environment.

    ``when`` dates any commit made (author and committer); ``identity`` names a committer.
    """
    env = git_environment()
    if when is not None:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    return subprocess.run(
        ["git", *(IDENTITY if identity else ()), *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=check,
    )


def git(root: Path, *args: str, when: str | None = None, identity: bool = False) -> str:
    """``run_git`` that must succeed; its stripped standard output."""
    return run_git(root, *args, when=when, identity=identity).stdout.strip()


def commit_files(
    root: Path, files: Mapping[str, str], message: str, *, when: str = "2026-06-01T12:00:00+00:00"
) -> str:
    """Write ``files`` (repo-relative), commit everything at ``when``; the new HEAD's sha."""
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", message, when=when, identity=True)
    return head(root)


def head(root: Path) -> str:
    """The full sha of HEAD."""
    return git(root, "rev-parse", "HEAD")


def short_sha_of(root: Path, message: str) -> str:
    """The 7-character sha of the one commit whose subject is ``message``."""
    found = git(root, "log", "--format=%h", "--abbrev=7", "--fixed-strings", f"--grep={message}")
    assert len(found.split()) == 1, found
    return found


# -- structured state ------------------------------------------------------------


def state_object(**changes: Any) -> dict[str, Any]:
    """A schema-valid CURRENT_STATE.json object for project ``alpha``, with ``changes`` applied."""
    state: dict[str, Any] = {
        "schema_version": 1,
        "project_id": "alpha",
        "phase": "Build (round 3)",
        "status": "Active",
        "controlling_plan": "plans/plan.md",
        "accepted_baseline": "v1.2.0",
        "next_actions": ["Ship the parser"],
        "last_session": "2026-06-18",
        "session_id": None,
        "content_hashes": {},
        "repository": "kb",
        "project_path": "projects/alpha",
        "git_head": None,
        "source_heads": {},
        "updated_at": "2026-06-18T10:00:00+00:00",
    }
    state.update(changes)
    return state


def commit_tree(root: Path, when: str = "2026-06-01T09:00:00+00:00") -> None:
    """Make ``root`` (files already written, any bytes in their names) a repository of one commit."""
    run_git(root, "init", "-q")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "c", when=when, identity=True)


# -- CONTEXT.md text -----------------------------------------------------------


def template_tail(as_of: str = "2026-06-01") -> str:
    """What the seed's working-context template adds under a header (#11 `context-template`).

    Append it to a minimal ``# Title`` + header CONTEXT.md so a test corpus meant to be
    healthy follows the template: both operational sections with an as-of marker dated
    ``as_of`` (not older than the project's newest session) and the budget footer. A
    project with REFERENCE.md or sessions/ also needs links to them.
    """
    return (
        f"\n## Current State\nWorking.\n\n*State as of: {as_of}*\n\n"
        f"## What's Next\nNothing open.\n\n*State as of: {as_of}*\n\n"
        "---\n*This file follows the Tiered Context Architecture. Budget: ≤150 lines.*\n"
    )


# -- the doctor's own cache files (docs/caches.md: each carries the user's tag) ----------


def read_cache(path: Path) -> Any:
    """A cache file's contents as the user's doctor reads them: its tag must verify."""
    from context_doctor.cache.secret import machine_secret
    from context_doctor.cache.store import unseal

    secret = machine_secret()
    assert secret is not None
    body = unseal(secret, path.name, path.read_bytes())
    assert body is not None, f"{path}: the tag does not verify"
    return msgspec.msgpack.decode(body)


def write_cache(path: Path, stored: Any) -> None:
    """Write a cache file with the user's own tag: what lies behind the tag is still checked."""
    from context_doctor.cache.secret import machine_secret
    from context_doctor.cache.store import seal

    secret = machine_secret()
    assert secret is not None
    path.write_bytes(seal(secret, path.name, msgspec.msgpack.encode(stored)))


def forge_cache(path: Path, stored: Any) -> None:
    """Write a cache file as someone without the user's secret can: the old tag, a new body."""
    from context_doctor.cache.store import TAG_BYTES, seal

    header = len(seal(bytes(TAG_BYTES), path.name, b""))  # the format's header and the tag
    path.write_bytes(path.read_bytes()[:header] + msgspec.msgpack.encode(stored))


HEAVY_STANDARD_LIBRARY = ("typing", "pathlib", "dataclasses", "inspect", "shutil", "importlib")
"""Standard modules that each cost a light command a large share of its start-up."""


def loaded_by(script: str, *args: str) -> set[str]:
    """The watched modules ``script`` leaves loaded (it prints them on stderr), run without
    ``site`` so that what an install's start-up imports (an editable install's finder loads
    pathlib) is not counted: the package's folder is put on the path by hand."""
    package_parent = str(Path(context_doctor.__file__).resolve().parent.parent)
    prelude = f"import sys\nsys.path.insert(0, {package_parent!r})\n"
    prelude += f"HEAVY_STANDARD_LIBRARY = {HEAVY_STANDARD_LIBRARY!r}\n"
    done = subprocess.run(
        [sys.executable, "-S", "-c", prelude + script, *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stderr.split())


_IMPORTS_OF_A_RUN = """
import sys
from context_doctor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("imported:", *sorted(sys.modules), file=sys.stderr)
"""


def run_in_a_process(cwd: Path, *args: str) -> tuple[str, str, set[str]]:
    """A whole doctor run (``args`` after ``context-doctor``) in its own interpreter, as a
    user's is (nothing remembered from an earlier run in the process): its stdout, stderr
    and the names of the modules it imported."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS_OF_A_RUN, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    lines = done.stderr.splitlines()
    imported = next(line for line in lines if line.startswith("imported:")).split()[1:]
    return done.stdout, done.stderr, set(imported)
