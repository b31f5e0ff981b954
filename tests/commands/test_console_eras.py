"""``console install``/``console status`` against both Synthesis Console eras.

Each era's skill resolution is restated here as its code does it (console 1.x's
``skill-resolution.ts`` with ``SYNTHESIS_CONTEXT_LIFECYCLE_DIR``, console 2.x's
``skill-resolution.ts`` over ``v5.ts``), independently of the doctor's own module, and
asked which script the console would run on machines built the way each setup leaves a
home directory: a synthesis v5 runtime, harness plugin caches (Claude Code, Codex, Muse),
a real upstream skill already installed, and no synthesis v5 at all.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from commands.test_console import bare_python
from support import Doctor, MakeRepo

from context_doctor.checks.registry import PLUGINS_OFF
from context_doctor.commands.console_eras import compare_versions
from context_doctor.commands.console_launcher import MARK

SKILL = "synthesis-context-lifecycle"
UPSTREAM = "#!/usr/bin/env python3\n# the upstream context doctor\nprint('upstream')\n"
SKILL_MD = "---\nname: synthesis-context-lifecycle\ndescription: upstream\n---\n"


# -- the consoles' rules, as their code has them -------------------------------------------


def _dirs(path: Path) -> list[str]:
    try:
        return [e.name for e in os.scandir(path) if e.is_dir(follow_symlinks=False)
                and not e.name.startswith(".")]  # fmt: skip
    except OSError:
        return []


def _compare(a: str, b: str) -> int:
    """compareVersions, line for line."""
    left, right = re.split(r"[.\-+]", a), re.split(r"[.\-+]", b)
    for index in range(max(len(left), len(right))):
        lv = left[index] if index < len(left) else ""
        rv = right[index] if index < len(right) else ""
        l_num, r_num = re.fullmatch(r"\d+", lv) is not None, re.fullmatch(r"\d+", rv) is not None
        if not l_num and not r_num:
            continue
        if not l_num:
            return -1
        if not r_num:
            return 1
        if int(lv) != int(rv):
            return int(lv) - int(rv)
    return 0


def _newest_first(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """``found.sort((a, b) => compareVersions(b.version, a.version))``: stable, as V8's."""
    return sorted(found, key=functools.cmp_to_key(lambda a, b: _compare(b[0], a[0])))


def _caches(home: Path) -> list[Path]:
    return [home / ".claude/plugins/cache", home / ".codex/plugins/cache",
            home / ".local/share/muse/plugins/cache"]  # fmt: skip


def console_2x_script(env: Mapping[str, str]) -> Path | None:
    """Console 2.x: ``resolveSkillScript(SKILL, "context_doctor.py", skillSearch(env))``."""
    home = Path(env["HOME"])
    runtime = Path(env.get("SYNTHESIS_HOME") or home / ".synthesis" / "v5")
    dirs = []
    if (runtime / "current" / "synthesis" / "hook.py").exists():
        dirs.append(runtime / "current" / "skills" / SKILL)
    roots = []
    for cache in _caches(home):
        for market in _dirs(cache):
            for plugin in _dirs(cache / market):
                for version in _dirs(cache / market / plugin):
                    for root in (cache / market / plugin / version,
                                 cache / market / plugin / version / "package"):  # fmt: skip
                        if (root / "synthesis" / "hook.py").exists():
                            roots.append((version, root))
    dirs += [root / "skills" / SKILL for _, root in _newest_first(roots)]
    return next((d / "scripts/context_doctor.py" for d in dirs
                 if (d / "scripts/context_doctor.py").exists()), None)  # fmt: skip


def console_1x_script(env: Mapping[str, str]) -> Path | None:
    """Console 1.x: ``resolveSkillScript(SKILL, "context_doctor.py", $LIFECYCLE_DIR)``."""
    home = Path(env["HOME"])
    synthesis = Path(env.get("SYNTHESIS_HOME") or home / ".synthesis")
    candidates = [Path(env["SYNTHESIS_CONTEXT_LIFECYCLE_DIR"])] if env.get(
        "SYNTHESIS_CONTEXT_LIFECYCLE_DIR") else []  # fmt: skip
    candidates.append(synthesis / "skills" / SKILL)
    found = []
    for cache in _caches(home):
        for market in _dirs(cache):
            for plugin in _dirs(cache / market):
                for version in _dirs(cache / market / plugin):
                    for middle in ("skills", "package/skills"):
                        folder = cache / market / plugin / version / middle / SKILL
                        if folder.exists():
                            found.append((version, folder))
    candidates += [folder for _, folder in _newest_first(found)]
    candidates += [home / ".claude/skills" / SKILL, home / ".agents/skills" / SKILL]
    return next((d / "scripts/context_doctor.py" for d in candidates
                 if (d / "scripts/context_doctor.py").exists()), None)  # fmt: skip


def ours(script: Path | None) -> bool:
    return script is not None and script.read_text().splitlines()[1].startswith(MARK)


def environment(**changes: str | None) -> dict[str, str]:
    env = {key: os.environ[key] for key in ("HOME",)}
    for key in ("SYNTHESIS_HOME", "SYNTHESIS_CONTEXT_LIFECYCLE_DIR"):
        if os.environ.get(key):
            env[key] = os.environ[key]
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def markers(home: Path) -> list[Path]:
    return sorted(home.rglob("synthesis/hook.py"))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- machines --------------------------------------------------------------------------------


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def v5_runtime(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """synthesis v5 installed: ~/.synthesis/v5/current holds the runtime; SYNTHESIS_HOME unset."""
    monkeypatch.delenv("SYNTHESIS_HOME", raising=False)
    runtime = home / ".synthesis" / "v5"
    write(runtime / "current" / "synthesis" / "hook.py", "# v5 runtime\n")
    write(runtime / "config.json", "{}\n")
    return runtime


def plugin(
    home: Path, cache: str, version: str, *, marker: bool = True, muse: bool = False
) -> Path:
    root = home / cache / "synthesis" / "synthesis-skills" / version
    root = root / "package" if muse else root
    root.mkdir(parents=True, exist_ok=True)
    if marker:
        write(root / "synthesis" / "hook.py", "# v5 runtime package\n")
    return root


def test_the_version_order_is_the_consoles() -> None:
    versions = ["5.2.0", "a3f9c2", "5.10.0", "5.2.0-rc1", "4.9", "0c1d"]
    theirs = [v for v, _ in _newest_first([(v, Path(v)) for v in versions])]
    mine = sorted(versions, key=functools.cmp_to_key(lambda a, b: compare_versions(b, a)))
    assert mine == theirs
    assert theirs[:3] == ["5.10.0", "5.2.0", "5.2.0-rc1"] and theirs[-2:] == ["a3f9c2", "0c1d"]


def test_a_v5_runtime_gets_the_doctor_console_2x_runs(
    doctor: Doctor, v5_runtime: Path, home: Path
) -> None:
    before = markers(home)
    run = doctor("console", "install")
    assert run.exit_code == 0, run.stderr
    script = v5_runtime / "current" / "skills" / SKILL / "scripts" / "context_doctor.py"
    assert run.stdout.splitlines()[0] == f"wrote {script} (the synthesis v5 runtime)"
    assert console_2x_script(environment(SYNTHESIS_HOME=None)) == script
    assert ours(script)
    assert f"console 2.x: runs this doctor: {script}" in run.stdout
    assert "export SYNTHESIS_CONTEXT_LIFECYCLE_DIR" not in run.stdout  # 2.x ignores it
    assert markers(home) == before  # never a runtime marker of the doctor's making
    status = doctor("console", "status", "--json")
    assert status.exit_code == 0
    eras = {entry["era"]: entry for entry in json.loads(status.stdout)}
    assert eras["console 2.x"]["runs_this_doctor"] is True
    assert eras["console 2.x"]["script"] == str(script)


def test_a_real_upstream_skill_is_replaced_only_when_forced(
    doctor: Doctor, v5_runtime: Path, isolated_home: Path, home: Path
) -> None:
    skill = v5_runtime / "current" / "skills" / SKILL
    script = write(skill / "scripts" / "context_doctor.py", UPSTREAM)
    write(skill / "SKILL.md", SKILL_MD)
    write(skill / "scripts" / "context_currency.py", "# upstream helper\n")
    before = {p: p.read_bytes() for p in skill.rglob("*") if p.is_file()}
    status = doctor("console", "status")
    assert status.exit_code == 1
    assert f"console 2.x: runs another context doctor, {script}" in status.stdout
    refused = doctor("console", "install")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("context-doctor: refused [foreign-skill]")
    assert "`context-doctor console install --force`" in refused.stderr
    assert {p: p.read_bytes() for p in skill.rglob("*") if p.is_file()} == before
    forced = doctor("console", "install", "--force")
    assert forced.exit_code == 0, forced.stderr
    (backup,) = (home / ".synthesis" / "context-doctor" / "backups").iterdir()
    assert backup.read_text() == UPSTREAM
    assert f"kept as {backup}" in forced.stdout
    assert ours(console_2x_script(environment(SYNTHESIS_HOME=None)))
    assert (skill / "SKILL.md").read_text() == SKILL_MD  # the rest of the skill stays
    assert (skill / "scripts" / "context_currency.py").read_text() == "# upstream helper\n"
    again = doctor("console", "install")
    assert again.exit_code == 0 and again.stdout.startswith("up to date:")
    assert not (isolated_home / "context-doctor" / "skill").exists()


@pytest.mark.parametrize(
    ("cache", "muse"),
    [
        (".claude/plugins/cache", False),
        (".codex/plugins/cache", False),
        (".local/share/muse/plugins/cache", True),
    ],
    ids=["claude-code", "codex", "muse"],
)
def test_a_plugin_cache_gets_the_doctor_both_eras_run(
    doctor: Doctor, home: Path, isolated_home: Path, cache: str, muse: bool
) -> None:
    plugin(home, cache, "5.1.0", muse=muse)
    newest = plugin(home, cache, "5.2.0", muse=muse)
    plugin(home, cache, "5.3.0", marker=False, muse=muse)  # an older plugin: no v5 package
    before = markers(home)
    run = doctor("console", "install")
    assert run.exit_code == 0, run.stderr
    script = newest / "skills" / SKILL / "scripts" / "context_doctor.py"
    assert console_2x_script(environment()) == script
    assert console_1x_script(environment()) == script
    assert "console 2.x: runs this doctor" in run.stdout
    assert "console 1.x: runs this doctor" in run.stdout
    assert markers(home) == before
    assert doctor("console", "status").exit_code == 0


def test_an_upstream_skill_in_the_newest_plugin_is_refused(doctor: Doctor, home: Path) -> None:
    root = plugin(home, ".claude/plugins/cache", "5.2.0")
    upstream = write(root / "skills" / SKILL / "scripts" / "context_doctor.py", UPSTREAM)
    run = doctor("console", "install")
    assert run.exit_code == 1 and "[foreign-skill]" in run.stderr
    assert upstream.read_text() == UPSTREAM
    assert doctor("console", "install", "--force").exit_code == 0
    assert ours(console_2x_script(environment()))


def test_without_synthesis_v5_the_1x_directory_and_its_export(
    doctor: Doctor, isolated_home: Path
) -> None:
    run = doctor("console", "install")
    assert run.exit_code == 0, run.stderr
    skill = isolated_home / "context-doctor" / "skill"
    assert f"export SYNTHESIS_CONTEXT_LIFECYCLE_DIR={skill}" in run.stdout
    assert console_1x_script(environment()) is None  # until the line is set
    assert console_1x_script(environment(SYNTHESIS_CONTEXT_LIFECYCLE_DIR=str(skill))) == (
        skill / "scripts" / "context_doctor.py"
    )
    assert console_2x_script(environment()) is None
    assert "console 1.x: runs this doctor" in run.stdout and "once the export line" in run.stdout
    assert "console 2.x: finds no context doctor" in run.stdout


def test_a_v5_home_without_its_release_is_exit_2_naming_what_is_missing(
    doctor: Doctor, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v5 = home / "runtime"
    write(v5 / "config.json", "{}\n")  # v5 configured, its release not installed
    monkeypatch.setenv("SYNTHESIS_HOME", str(v5))
    run = doctor("console", "install")
    assert run.exit_code == 2
    assert f"{v5}/current/synthesis/hook.py does not exist" in run.stderr
    assert "console 1.x and 2.x" in run.stderr
    assert sorted(p for p in home.rglob("*") if p.is_file()) == [v5 / "config.json"]
    status = doctor("console", "status")
    assert status.exit_code == 1 and "console 2.x: finds no context doctor" in status.stdout
    assert "console install`" not in status.stdout  # it would exit 2 here


def test_status_names_the_upstream_doctor_a_lifecycle_dir_puts_first(
    doctor: Doctor, home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    plugin(home, ".claude/plugins/cache", "5.2.0")
    assert doctor("console", "install").exit_code == 0
    upstream = tmp_path / "old-skill"
    write(upstream / "scripts" / "context_doctor.py", UPSTREAM)
    monkeypatch.setenv("SYNTHESIS_CONTEXT_LIFECYCLE_DIR", str(upstream))
    assert console_1x_script(environment()) == upstream / "scripts" / "context_doctor.py"
    lines = doctor("console", "status").stdout.splitlines()
    assert lines[0].startswith("console 2.x: runs this doctor")
    assert lines[1].startswith(
        f"console 1.x: runs another context doctor, {upstream}/scripts/context_doctor.py"
    )


def test_console_2x_runs_the_installed_launcher_for_real(
    doctor: Doctor, v5_runtime: Path, make_repo: MakeRepo, hermetic_session: Path
) -> None:
    """The script console 2.x resolves, run as it runs it: ``python3 -I -B script --root R
    --json`` with a bare interpreter."""
    assert doctor("console", "install").exit_code == 0
    script = console_2x_script(environment(SYNTHESIS_HOME=None))
    assert script is not None
    root = make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "files": {
                        "projects/index.yaml": "- id: one\n  status: active\n",
                        "projects/one/CONTEXT.md": "# One\n\n**Status:** Active\n",
                    },
                }
            ]
        }
    )
    done = subprocess.run(
        [bare_python(), "-I", "-B", str(script), "--root", str(root), "--json"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env={"HOME": os.environ["HOME"], "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1",
             "GIT_CONFIG_GLOBAL": str(hermetic_session), "GIT_CONFIG_NOSYSTEM": "1",
             "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],
             PLUGINS_OFF: "1"},
    )  # fmt: skip
    report = json.loads(done.stdout)
    assert report["exit"] == done.returncode in (0, 1), done.stderr
    assert report["projects_audited"] == 1
