"""``context-doctor console install`` and the Synthesis Console's two readers.

The console's contracts are re-implemented here rule for rule, from its own code:

* the **v5 runner** (console 2.x) runs ``python3 -I -B <skill>/scripts/context_doctor.py
  --root <knowledge root> --json`` once per source, with a bare interpreter, no
  virtualenv, ``PYTHONPATH``/``PYTHONHOME`` removed, 60 s and 8 MiB at most, and
  rejects the source unless the JSON passes :func:`parse_context_report`;
* the **cache reader** (console 1.x) renders ``$SYNTHESIS_HOME/context-doctor/
  last-report.json``, which its "Audit now" button refreshes by running the script
  with ``--quiet`` alone.

The launcher is run the way the console runs it: a real process, the system's python3
(not this virtualenv's), a minimal environment, against real git corpora.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo

from context_doctor.checks.registry import PLUGINS_OFF
from context_doctor.commands.console_launcher import MARK, SCRIPT, launcher_text

TODAY = "2026-06-20"
TIMEOUT_SECONDS = 60  # the console's CONTEXT_TIMEOUT_MS
MAX_OUTPUT_BYTES = 8 * 1024 * 1024  # the console's MAX_OUTPUT_BYTES


# -- the console's rules ---------------------------------------------------------------


def is_count(value: object) -> bool:
    """``Number.isSafeInteger(value) && value >= 0`` (a JSON boolean is no number there)."""
    return type(value) is int and 0 <= value <= 2**53 - 1


def parse_context_report(value: object) -> dict[str, Any]:
    """The v5 runner's ``parseContextReport``: raises ValueError where the console throws."""
    if not isinstance(value, dict):
        raise ValueError("not an object")
    if not (
        type(value.get("ok")) is bool
        and is_count(value.get("exit"))
        and is_count(value.get("projects_audited"))
        and is_count(value.get("defects"))
        and is_count(value.get("warnings"))
        and isinstance(value.get("findings"), list)
        and ("coverage" not in value or isinstance(value["coverage"], dict))
    ):
        raise ValueError("JSON without its counts and findings")
    for finding in value["findings"]:
        for key in ("project", "check", "severity", "message", "remedy"):
            if not isinstance(finding, dict) or not isinstance(finding.get(key), str):
                raise ValueError(f"a finding without a string {key}")
    for entry in (value.get("coverage") or {}).values():
        if not (
            isinstance(entry, dict)
            and is_count(entry.get("examined"))
            and is_count(entry.get("skipped"))
            and isinstance(entry.get("why"), list)
        ):
            raise ValueError("coverage without examined, skipped and why")

    def count(severity: str) -> int:
        return sum(1 for finding in value["findings"] if finding["severity"] == severity)

    if count("defect") != value["defects"] or count("warning") != value["warnings"]:
        raise ValueError("counts do not match the findings")
    return value


def audit_root(code: int, stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    """The v5 runner's ``auditRoot`` after the process ended: (report, error)."""
    if code > 2:
        return None, f"exited with status {code}"
    try:
        value = json.loads(stdout)
    except json.JSONDecodeError:
        return None, f"did not print JSON (exit {code})"
    if code == 2:
        reason = value.get("error") if isinstance(value, dict) else None
        return None, f"cannot tell: {reason if isinstance(reason, str) else 'no reason given'}"
    try:
        report = parse_context_report(value)
    except ValueError as error:
        return None, str(error)
    if report["exit"] != code or report["ok"] is not (code == 0):
        return report, f"exited with status {code} but reported exit {report['exit']}"
    return report, None


def knowledge_root(root: Path, projects_dir: str) -> Path:
    """The v5 runner's ``knowledgeRoot``: the folder above a projects folder named `projects`."""
    projects = (root / projects_dir).resolve()
    assert projects.name == "projects", "the console audits only a projects/ folder"
    return projects.parent


def render_cache_header(report: dict[str, Any]) -> str:
    """The 1.x page's header line, as its template literal writes the values."""

    def text(value: object) -> str:
        if isinstance(value, (list, dict)):
            return "[object Object]" if isinstance(value, dict) else ",".join(map(text, value))
        return (
            "?" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )

    return (
        f"Last full audit: {text(report.get('generated_at', 'unknown'))} · "
        f"{text(report.get('projects_audited'))} projects across {text(report.get('sources'))} "
        f"sources · doctor v{text(report.get('doctor_version'))}"
    )


def read_cache(path: Path) -> dict[str, Any]:
    """The 1.x reader: JSON.parse of the cache, then every field the page renders."""
    report = json.loads(path.read_text(encoding="utf-8"))
    assert type(report["ok"]) is bool
    for key in ("doctor_version", "generated_at"):
        assert isinstance(report[key], str)
    for key in ("sources", "projects_audited", "defects", "warnings"):
        assert is_count(report[key]), (key, report[key])
    for finding in report["findings"]:
        for key in ("source", "project", "check", "severity", "message", "remedy"):
            assert isinstance(finding[key], str), (key, finding)  # escapeHtml takes strings
    return report


# -- running the launcher as the console does -------------------------------------------


def bare_python() -> str:
    """A python3 that is not this virtualenv's (the console's `python3` on PATH)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"):
        if os.access(candidate, os.X_OK):
            prefix = subprocess.run(
                [candidate, "-I", "-c", "import sys; print(sys.prefix)"],
                capture_output=True, text=True, check=False,
            ).stdout.strip()  # fmt: skip
            if prefix and prefix != sys.prefix:
                return candidate
    pytest.skip("no system python3 outside this virtualenv")


@pytest.fixture
def launcher(doctor: Doctor, tmp_path: Path) -> Path:
    skill = tmp_path / "skill"
    run = doctor("console", "install", "--dir", str(skill))
    assert run.exit_code == 0, run.stderr
    return skill / SCRIPT


Console = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def console(launcher: Path, isolated_home: Path, hermetic_session: Path) -> Console:
    """Run the launcher like the console: ``python3 -I -B script ARGS``, a minimal environment."""
    python = bare_python()
    git = shutil.which("git")
    assert git is not None
    environment = {
        "HOME": os.environ["HOME"],
        "PATH": os.pathsep.join([os.path.dirname(git), "/usr/bin", "/bin"]),
        "SYNTHESIS_HOME": str(isolated_home),
        "PYTHONDONTWRITEBYTECODE": "1",  # the console's pythonEnvironment
        # The suite's hermetic git config and no plugins, as for every test.
        "GIT_CONFIG_GLOBAL": str(hermetic_session),
        "GIT_CONFIG_NOSYSTEM": "1",
        PLUGINS_OFF: "1",
        "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [python, "-I", "-B", str(launcher), *args],
            capture_output=True, text=True, env=environment, stdin=subprocess.DEVNULL,
            timeout=TIMEOUT_SECONDS, check=False, cwd=launcher.parent,
        )  # fmt: skip
        assert len(done.stdout.encode()) <= MAX_OUTPUT_BYTES
        assert "Traceback" not in done.stderr, done.stderr
        return done

    return run


def test_the_v5_runner_accepts_the_report(
    console: Console, scenario_repo: Callable[[str], Path]
) -> None:
    root = knowledge_root(scenario_repo("demo"), "projects")
    done = console("--root", str(root), "--json")
    report, error = audit_root(done.returncode, done.stdout)
    assert error is None, (error, done.stderr)
    assert report is not None
    assert done.returncode == 1 and report["defects"] > 0  # the demo corpus has defects
    assert report["readiness"] == "remote"  # the upstream doctor's default
    assert any(entry["why"] for entry in report["coverage"].values())
    assert report["projects_audited"] == 10


def test_the_v5_runner_on_a_healthy_root_gets_exit_0(console: Console, make_repo: MakeRepo) -> None:
    context = "# A\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T09:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: a\n  status: active\n",
                        "projects/a/CONTEXT.md": context,
                    },
                }
            ],
        }
    )
    done = console("--root", str(root), "--json", "--readiness", "local")
    report, error = audit_root(done.returncode, done.stdout)
    assert error is None, (error, done.stderr)
    assert report is not None and report["exit"] == done.returncode
    strict = console("--root", str(root), "--json", "--readiness", "local", "--warnings-as-defects")
    report, error = audit_root(strict.returncode, strict.stdout)
    assert error is None and report is not None
    assert report["ok"] is (report["warnings"] == 0)


def test_a_root_that_is_not_a_repository_is_the_consoles_exit_2(
    console: Console, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    (plain / "projects" / "a").mkdir(parents=True)
    (plain / "projects" / "a" / "CONTEXT.md").write_text("# A\n", encoding="utf-8")
    done = console("--root", str(plain), "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["exit"] == 2
    report, error = audit_root(done.returncode, done.stdout)
    assert report is None
    assert error is not None and "not inside a git repository" in error
    missing = console("--root", str(tmp_path / "nowhere"), "--json")
    assert audit_root(missing.returncode, missing.stdout)[1] == (
        f"cannot tell: source {tmp_path / 'nowhere'} does not exist"
    )


def test_audit_now_writes_the_cache_the_1x_page_renders(
    console: Console, scenario_repo: Callable[[str], Path], isolated_home: Path, tmp_path: Path
) -> None:
    demo = scenario_repo("demo")
    (isolated_home / "console.yaml").write_text(
        "sources:\n"
        f"  - name: work\n    root: {demo}\n    projects_dir: projects\n"
        f"  - name: sample\n    root: {demo}\n    projects_dir: projects\n    demo: true\n"
        f"  - name: gone\n    root: {tmp_path / 'gone'}\n    projects_dir: projects\n",
        encoding="utf-8",
    )
    done = console("--quiet")  # the page's "Audit now" button
    assert done.returncode == 2  # `gone` could not be audited; the rest was
    report = read_cache(isolated_home / "context-doctor" / "last-report.json")
    assert render_cache_header(report).split(" · ")[1] == "10 projects across 1 sources"
    assert "[object Object]" not in render_cache_header(report)
    assert (report["ok"], report["defects"] > 0) == (False, True)
    reasons = [(s["name"], s.get("reason")) for s in report["source_details"]]
    assert reasons == [("work", None), ("sample", "sample data"), ("gone", "unreachable")]


def test_the_upstream_flags_are_taken(console: Console, make_repo: MakeRepo) -> None:
    context = "# A\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
    files = {
        "projects/index.yaml": "- id: a\n  status: active\n- id: b\n  status: active\n",
        "projects/a/CONTEXT.md": context,
        "projects/b/CONTEXT.md": context,
    }
    root = make_repo(
        {"remote": True, "commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]}
    )
    one = console("--project", str(root / "projects" / "a"), "--json", "--no-report-cache")
    assert json.loads(one.stdout)["projects_audited"] == 1
    both = console(f"--root={root}", "--readiness=local", "--json")
    assert (json.loads(both.stdout)["projects_audited"], json.loads(both.stdout)["readiness"]) == (
        2,
        "local",
    )
    quiet = console("--source", str(root), "--quiet")
    assert quiet.returncode in (0, 1) and len(quiet.stdout.splitlines()) == 1


def test_a_context_doctor_package_where_the_launcher_runs_never_runs(
    console: Console, launcher: Path, make_repo: MakeRepo, tmp_path: Path
) -> None:
    # The console starts the launcher in its skill folder; the doctor it re-executes must
    # import itself, never a `context_doctor/` package found there (docs/caches.md, round three).
    marker = tmp_path / "planted-code-ran"
    planted = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    (launcher.parent / "context_doctor").mkdir()
    (launcher.parent / "context_doctor" / "__init__.py").write_text(planted)
    assert "FLAGS = ['-I']" in launcher.read_text(encoding="utf-8")
    context = "# A\n\n**Status:** Active\n**Last session:** 2026-06-01\n"
    files = {"projects/index.yaml": "- id: a\n  status: active\n", "projects/a/CONTEXT.md": context}
    root = make_repo({"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": files}]})
    done = console("--root", str(root), "--json", "--readiness", "local")
    _report, error = audit_root(done.returncode, done.stdout)
    assert error is None, (error, done.stderr)
    assert not marker.exists()


def test_a_launcher_whose_python_is_gone_says_so(tmp_path: Path) -> None:
    script = tmp_path / "context_doctor.py"
    script.write_text(launcher_text(str(tmp_path / "deleted-venv" / "bin" / "python")))
    done = subprocess.run(
        [bare_python(), "-I", "-B", str(script), "--root", str(tmp_path), "--json"],
        capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2
    assert "is gone" in json.loads(done.stdout)["error"]
    assert done.stderr.count("\n") == 1


# -- console install ----------------------------------------------------------------------


def test_install_writes_the_launcher_and_prints_the_export_line(
    doctor: Doctor, isolated_home: Path
) -> None:
    run = doctor("console", "install")
    assert run.exit_code == 0, run.stderr
    skill = isolated_home / "context-doctor" / "skill"
    script = skill / SCRIPT
    assert script.read_text(encoding="utf-8").splitlines()[1].startswith(MARK)
    assert repr(os.path.abspath(sys.executable)) in script.read_text(encoding="utf-8")
    assert f"export SYNTHESIS_CONTEXT_LIFECYCLE_DIR={skill}" in run.stdout.splitlines()
    assert os.access(script, os.X_OK)


def test_install_is_idempotent(doctor: Doctor, tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    assert doctor("console", "install", "--dir", str(skill)).exit_code == 0
    script = skill / SCRIPT
    before = (script.read_bytes(), script.stat().st_ino, script.stat().st_mtime_ns)
    again = doctor("console", "install", "--dir", str(skill))
    assert again.exit_code == 0
    assert again.stdout.startswith("up to date:")
    assert (script.read_bytes(), script.stat().st_ino, script.stat().st_mtime_ns) == before
    # An older launcher of ours (another interpreter) is replaced.
    script.write_text(launcher_text("/old/venv/bin/python"), encoding="utf-8")
    assert doctor("console", "install", "--dir", str(skill)).stdout.startswith("wrote ")
    assert script.read_text(encoding="utf-8") == launcher_text(os.path.abspath(sys.executable))


@pytest.mark.parametrize(
    "foreign",
    [
        {"SKILL.md": "---\nname: synthesis-context-lifecycle\n---\n"},
        {"scripts/context_doctor.py": "#!/usr/bin/env python3\n# the upstream doctor\n"},
        {"scripts/context_currency.py": "# upstream\n"},
    ],
)
def test_install_never_writes_into_someone_elses_skill(
    doctor: Doctor, tmp_path: Path, foreign: dict[str, str]
) -> None:
    skill = tmp_path / "synthesis-context-lifecycle"
    for name, text in foreign.items():
        (skill / name).parent.mkdir(parents=True, exist_ok=True)
        (skill / name).write_text(text, encoding="utf-8")
    before = {path: path.read_bytes() for path in skill.rglob("*") if path.is_file()}
    run = doctor("console", "install", "--dir", str(skill))
    assert run.exit_code == 1
    assert run.stderr.startswith("context-doctor: refused [foreign-skill]")
    assert run.stderr.count("\n") == 1 and "--dir" in run.stderr
    assert {path: path.read_bytes() for path in skill.rglob("*") if path.is_file()} == before


def test_install_refuses_a_symlinked_directory(doctor: Doctor, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    run = doctor("console", "install", "--dir", str(link))
    assert run.exit_code == 1
    assert "symlink" in run.stderr
    assert list(real.iterdir()) == []


def test_install_into_a_file_is_one_clear_line(doctor: Doctor, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    run = doctor("console", "install", "--dir", str(target))
    assert run.exit_code == 2  # click's usage error, naming the option and the file
    assert "'--dir'" in run.stderr and "is a file" in run.stderr
    assert "Traceback" not in run.stderr
