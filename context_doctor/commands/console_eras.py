"""Where each Synthesis Console looks for its context doctor, and where to install ours (docs/surfaces.md).

Both eras' rules, restated from their code:

* **console 1.x** runs the first ``<dir>/scripts/context_doctor.py`` among
  ``$SYNTHESIS_CONTEXT_LIFECYCLE_DIR``, ``$SYNTHESIS_HOME/skills/<skill>`` (its
  ``SYNTHESIS_HOME``: the folder holding console.yaml, default ``~/.synthesis``), every
  plugin cache's ``<marketplace>/<plugin>/<version>/[package/]skills/<skill>`` (newest
  version first), ``~/.claude/skills/<skill>`` and ``~/.agents/skills/<skill>``; it
  renders ``$SYNTHESIS_HOME/context-doctor/last-report.json``.
* **console 2.x** ignores that variable: it runs the skill in the synthesis v5 runtime,
  ``V5/current/skills/<skill>``, only when ``V5/current/synthesis/hook.py`` exists,
  else in a plugin cache root ``<cache>/<marketplace>/<plugin>/<version>[/package]``
  that holds ``synthesis/hook.py`` (newest version first).

The plugin caches are ``~/.claude/plugins/cache``, ``~/.codex/plugins/cache`` and
``~/.local/share/muse/plugins/cache``; ``<skill>`` is ``synthesis-context-lifecycle``.

``console install`` writes the launcher where the machine's console looks: the v5
runtime when its marker exists, else the newest v5 plugin root, else (no synthesis v5
here) the 1.x directory with its ``export`` line. It never creates a runtime marker.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from context_doctor.commands.console_launcher import SCRIPT, is_launcher
from context_doctor.config.synthesis import (
    RUNTIME_MARKER,
    configured_home,
    console_home,
    is_v5_runtime,
    v5_home,
)

SKILL = "synthesis-context-lifecycle"
LIFECYCLE_DIR = "SYNTHESIS_CONTEXT_LIFECYCLE_DIR"
PLUGIN_CACHES = (
    Path(".claude") / "plugins" / "cache",
    Path(".codex") / "plugins" / "cache",
    Path(".local") / "share" / "muse" / "plugins" / "cache",
)
ERA_1, ERA_2 = "console 1.x", "console 2.x"


@dataclass(frozen=True)
class Candidate:
    """One folder a console would look in for ``<skill>/scripts/context_doctor.py``."""

    directory: Path
    why: str  # how the console comes to look there

    @property
    def script(self) -> Path:
        return self.directory / SCRIPT


def _directories(path: Path) -> list[str]:
    """What the consoles' ``readdirSync(withFileTypes)`` keeps: real directories, not hidden."""
    try:
        with os.scandir(path) as entries:
            return [
                entry.name
                for entry in entries
                if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
            ]
    except OSError:
        return []


def compare_versions(left: str, right: str) -> int:
    """The consoles' ``compareVersions``: numeric segments compared as numbers; a segment
    that is not all digits (a content-hash folder) sorts below every real release."""
    lefts, rights = re.split(r"[.\-+]", left), re.split(r"[.\-+]", right)
    for index in range(max(len(lefts), len(rights))):
        a = lefts[index] if index < len(lefts) else ""
        b = rights[index] if index < len(rights) else ""
        a_number, b_number = a.isdigit() and a.isascii(), b.isdigit() and b.isascii()
        if not a_number and not b_number:
            continue
        if not a_number:
            return -1
        if not b_number:
            return 1
        if int(a) != int(b):
            return int(a) - int(b)
    return 0


def _newest_first(found: list[tuple[str, Path]]) -> list[Path]:
    """By version, newest first; equal versions keep their order (JavaScript's sort is stable)."""

    def newer(left: tuple[str, Path], right: tuple[str, Path]) -> int:
        return compare_versions(right[0], left[0])

    return [path for _version, path in sorted(found, key=functools.cmp_to_key(newer))]


def plugin_caches(home: Path | None = None) -> list[Path]:
    base = home or Path.home()
    return [base / cache for cache in PLUGIN_CACHES]


def _plugin_versions(home: Path | None) -> list[tuple[str, Path]]:
    """Every ``<cache>/<marketplace>/<plugin>/<version>`` folder and its version name."""
    found = []
    for cache in plugin_caches(home):
        for marketplace in _directories(cache):
            for plugin in _directories(cache / marketplace):
                folder = cache / marketplace / plugin
                found += [(version, folder / version) for version in _directories(folder)]
    return found


def v5_plugin_roots(home: Path | None = None) -> list[Path]:
    """Console 2.x's plugin roots: those holding the v5 runtime package, newest first."""
    found = [
        (version, root)
        for version, folder in _plugin_versions(home)
        for root in (folder, folder / "package")  # Claude Code and Codex; Muse
        if (root / RUNTIME_MARKER).exists()
    ]
    return _newest_first(found)


def runtime_current() -> Path:
    return v5_home() / "current"


def era_2_candidates(home: Path | None = None) -> list[Candidate]:
    """Console 2.x's skill folders, in its order (``skillDirs``)."""
    found = []
    current = runtime_current()
    if (current / RUNTIME_MARKER).exists():
        found.append(Candidate(current / "skills" / SKILL, "the synthesis v5 runtime"))
    found += [
        Candidate(root / "skills" / SKILL, "a v5 plugin in a harness plugin cache")
        for root in v5_plugin_roots(home)
    ]
    return found


def era_1_home() -> Path:
    """Console 1.x's ``SYNTHESIS_HOME``: the variable as it is, else ``~/.synthesis``."""
    configured = os.environ.get("SYNTHESIS_HOME")
    return Path(configured) if configured else Path.home() / ".synthesis"


def era_1_candidates(home: Path | None = None, override: str | None = None) -> list[Candidate]:
    """Console 1.x's skill folders, in its order (``resolveSkillFile``); ``override`` is
    ``$SYNTHESIS_CONTEXT_LIFECYCLE_DIR`` (default: this process's)."""
    base = home or Path.home()
    chosen = os.environ.get(LIFECYCLE_DIR) if override is None else override
    found = []
    if chosen:
        found.append(Candidate(Path(chosen), f"${LIFECYCLE_DIR}"))
    found.append(Candidate(era_1_home() / "skills" / SKILL, "$SYNTHESIS_HOME/skills"))
    plugin = [
        (version, folder / middle / SKILL)
        for version, folder in _plugin_versions(home)
        for middle in (Path("skills"), Path("package") / "skills")
        if (folder / middle / SKILL).exists()
    ]
    found += [Candidate(path, "a harness plugin cache") for path in _newest_first(plugin)]
    found.append(Candidate(base / ".claude" / "skills" / SKILL, "~/.claude/skills"))
    found.append(Candidate(base / ".agents" / "skills" / SKILL, "~/.agents/skills"))
    return found


def resolve(candidates: list[Candidate]) -> Candidate | None:
    """The candidate whose script exists first: the one the console runs."""
    return next((c for c in candidates if c.script.exists()), None)


@dataclass(frozen=True)
class Finding:
    """What one console era would run, in words."""

    era: str
    ours: bool
    script: Path | None
    line: str


def _interpreter_gone(script: Path) -> str | None:
    """The launcher's interpreter when it no longer runs (the virtualenv was deleted)."""
    try:
        text = script.read_text(encoding="utf-8", errors="replace")[:8192]
    except OSError:
        return None
    match = re.search(r"^INTERPRETER = '([^'\n]*)'$", text, re.MULTILINE)
    if match and not os.access(match.group(1), os.X_OK):
        return match.group(1)
    return None


def judge(era: str, candidates: list[Candidate], searched: str) -> Finding:
    found = resolve(candidates)
    if found is None:
        return Finding(era, False, None, f"{era}: finds no context doctor ({searched})")
    if not is_launcher(found.script):
        return Finding(
            era,
            False,
            found.script,
            f"{era}: runs another context doctor, {found.script} ({found.why}), not this one",
        )
    gone = _interpreter_gone(found.script)
    if gone is not None:
        return Finding(
            era,
            False,
            found.script,
            f"{era}: finds this doctor's launcher {found.script} ({found.why}), but the Python "
            f"it starts, {gone}, is gone",
        )
    return Finding(
        era, True, found.script, f"{era}: runs this doctor: {found.script} ({found.why})"
    )


def era_2_searched(home: Path | None = None) -> str:
    current = runtime_current()
    runtime = (
        f"the v5 runtime {current / 'skills'}"
        if (current / RUNTIME_MARKER).exists()
        else f"no v5 runtime: {current / RUNTIME_MARKER} does not exist"
    )
    caches = ", ".join(str(cache) for cache in plugin_caches(home))
    plugins = "" if v5_plugin_roots(home) else f"; no plugin holding synthesis/hook.py in {caches}"
    return f"{runtime}{plugins}"


def findings(home: Path | None = None) -> list[Finding]:
    """What each console era would run on this machine, from this environment."""
    era_1 = era_1_candidates(home)
    return [
        judge(ERA_2, era_2_candidates(home), era_2_searched(home)),
        judge(ERA_1, era_1, "looked in " + ", ".join(str(c.directory) for c in era_1)),
    ]


# -- where to install ---------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where ``console install`` writes: the skill folder and how the console comes there."""

    directory: Path
    why: str
    needs_export: bool  # the 1.x directory: only the `export` line makes console 1.x look


class NoPlace(Exception):
    """A synthesis v5 setup in which no console would look anywhere the doctor may write."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def install_place(home: Path | None = None) -> Place:
    """The v5 runtime when its marker exists; else the newest v5 plugin root; else (no
    synthesis v5 on this machine) the 1.x directory. A v5 runtime folder without its
    release (no ``current/synthesis/hook.py``) and no v5 plugin is :class:`NoPlace`: the
    marker is v5's to write, never the doctor's."""
    current = runtime_current()
    if (current / RUNTIME_MARKER).exists():
        return Place(current / "skills" / SKILL, "the synthesis v5 runtime", False)
    roots = v5_plugin_roots(home)
    if roots:
        return Place(roots[0] / "skills" / SKILL, "the newest v5 plugin in a plugin cache", False)
    v5 = v5_home()
    # A SYNTHESIS_HOME that is not a v5 runtime is a 1.x home; unset, ~/.synthesis/v5 is v5's.
    if is_v5_runtime(v5) or (configured_home() is None and v5.is_dir()):
        caches = ", ".join(str(cache) for cache in plugin_caches(home))
        raise NoPlace(
            f"synthesis v5 is set up here ({v5}) but console 2.x would find no doctor anywhere: "
            f"{current / RUNTIME_MARKER} does not exist and no plugin in {caches} holds "
            "synthesis/hook.py"
        )
    return Place(console_home() / "context-doctor" / "skill", "the console 1.x directory", True)
