"""The sources a console lists (docs/layouts.md, docs/surfaces.md).

``$SYNTHESIS_HOME/console.yaml``; else synthesis v5's own list, ``knowledge_roots`` in
``V5/config.json``; else the Synthesis Console's own auto-detection
(``~/workspaces/*/ai-knowledge-*``). A source the doctor cannot audit is listed, with
why, never an error; a file that defines what a run audits fails closed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_doctor.config.synthesis import console_home, v5_home
from context_doctor.errors import DoctorError
from context_doctor.guards.limits import MAX_CONFIG_BYTES, TooLarge, read_limited
from context_doctor.guards.yamlio import load_yaml, plain, validator
from context_doctor.model.source import DEFAULT_PROJECTS_DIR, Corpus, Source, UnauditedSource
from context_doctor.pipeline.sources import existing_directory, source_at, source_for_directory
from context_doctor.report.report import UNREACHABLE

if TYPE_CHECKING:  # the vault modules (PyYAML among them) load only for a vault
    pass


NO_PROJECTS_DIR = "no projects_dir"


SAMPLE_DATA = "sample data"  # `demo: true`: the console's own sample corpus, never audited


def _console_sources(
    console: Path, vaults: list[tuple[str, Path]] | None = None
) -> tuple[list[Source], list[UnauditedSource]]:
    """The console's sources: those it can audit, and those listed unaudited, with why.

    The file is the Synthesis Console's own (docs/layouts.md): a source may declare only
    ``lessons_dir``/``plans_dir``/``notes_dir`` (a personal overlay), ``demo: true``
    marks its sample data, and keys the doctor does not read are allowed.  Neither
    kind holds projects to audit: each is listed as not audited, never an error, and
    its root is not even required to exist.  A source that cannot be read (a missing
    root, a projects directory that is not there, no git repository, a broken
    index) is listed as ``unreachable``: the others are still audited, and the run
    exits 2 (one bad source never sinks the sweep, nor passes for a clean one).
    """
    data = load_yaml(console, "console file")
    errors = sorted(
        validator("console.schema.json").iter_errors(plain(data)), key=lambda e: list(e.path)
    )
    if errors:
        error = errors[0]
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise DoctorError(
            f"console file {console}: {where}: {error.message}",
            "every source needs a `name` and a `root` (and `projects_dir` to be audited)",
        )
    sources: list[Source] = []
    unaudited: list[UnauditedSource] = []
    for item in data["sources"]:
        name = str(item["name"])
        # A relative root is relative to console.yaml, not to wherever the doctor runs.
        raw_root = Path(str(item["root"])).expanduser()
        if not raw_root.is_absolute():
            raw_root = console.parent / raw_root
        if item.get("vault") is True and vaults is not None:  # a memory vault (docs/vaults.md)
            vaults.append((name, existing_directory(raw_root, f"console vault `{name}` root")))
            continue
        if item.get("demo") is True:  # the console's own test: a real boolean true
            unaudited.append(UnauditedSource(name, str(raw_root), SAMPLE_DATA))
            continue
        try:
            source = _console_source(name, raw_root, item.get("projects_dir"), item.get("project"))
        except DoctorError as error:
            unaudited.append(UnauditedSource(name, str(raw_root), UNREACHABLE, error.problem))
            continue
        if source is None:
            unaudited.append(UnauditedSource(name, str(raw_root), NO_PROJECTS_DIR))
        else:
            sources.append(source)
    return sources, unaudited


def _console_source(
    name: str, raw_root: Path, projects_dir: str | None, project: str | None
) -> Source | None:
    """One console source, or None when it holds no projects (no ``projects_dir``).

    A single-project repository is ``project: .`` (or a directory under the root),
    or a root holding ``CONTEXT.md`` with no ``projects/`` beside it; so is a
    ``projects_dir: .`` whose root holds ``CONTEXT.md`` and no ``index.yaml``, whose
    folders (``css/``, ``sessions/``) are the project's own, never projects.
    """
    what = f"console source `{name}`"
    if project is None and projects_dir is None:
        if not (raw_root / "CONTEXT.md").is_file() or (raw_root / DEFAULT_PROJECTS_DIR).is_dir():
            return None
        project = "."
    root = existing_directory(raw_root, f"{what} root")
    if project is not None:
        directory = _inside(root, project, f"{what}: project `{project}`")
        if not (directory / "CONTEXT.md").is_file():
            raise DoctorError(
                f"{what}: {directory} holds no CONTEXT.md",
                "point `project` at the directory holding the project's CONTEXT.md",
            )
        return source_at(name, directory, None)
    assert projects_dir is not None
    projects = _inside(root, projects_dir, f"{what}: projects_dir `{projects_dir}`")
    if not projects.is_dir():
        raise DoctorError(f"{what}: {root / projects_dir} does not exist", "fix `projects_dir`")
    if projects == root and (root / "CONTEXT.md").is_file() and not (root / "index.yaml").exists():
        return source_at(name, root, None)
    return source_at(name, root, projects_dir)


def _inside(root: Path, relative: str, what: str) -> Path:
    """``root / relative`` resolved, refused when it leaves ``root`` or enters ``.git``."""
    inside = (root / relative).resolve()
    if not inside.is_relative_to(root) or ".git" in inside.relative_to(root).parts:
        raise DoctorError(
            f"{what} leaves the source root {root} (or enters .git)",
            "name a directory inside `root`, e.g. `projects` (or `project: .`)",
        )
    return inside


WORKSPACES = "workspaces"


KNOWLEDGE_PREFIX = "ai-knowledge-"


# What the console's own auto-detection takes for content (besides projects/index.yaml):
# a root holding only these is a source without projects.
_CONTENT_DIRS = ("lessons", "daily-plans", "notes", "projects/_lessons", "projects/_daily-plans")


def _workspace_sources(user_home: Path) -> tuple[list[Source], list[UnauditedSource]]:
    """The console's auto-detection, with no console.yaml: ``~/workspaces/*/ai-knowledge-*``.

    A root whose ``projects/`` holds ``index.yaml`` is audited; one holding only
    lessons, plans or notes is listed without projects, as the console lists it.
    Symlinked entries are skipped, as the console's directory walk skips them.
    """
    sources: list[Source] = []
    unaudited: list[UnauditedSource] = []
    names: set[str] = set()
    for workspace in _directories(user_home / WORKSPACES):
        for entry in _directories(workspace):
            if not entry.name.startswith(KNOWLEDGE_PREFIX):
                continue
            name = entry.name.removeprefix(KNOWLEDGE_PREFIX) or workspace.name
            if name in names:  # two workspaces with one suffix: keep both, told apart
                name = f"{name} ({workspace.name})"
            projects = entry / DEFAULT_PROJECTS_DIR
            if projects.is_dir() and (projects / "index.yaml").exists():
                try:
                    sources.append(source_at(name, entry.resolve(), DEFAULT_PROJECTS_DIR))
                except DoctorError as error:
                    unaudited.append(UnauditedSource(name, str(entry), UNREACHABLE, error.problem))
            elif any((entry / content).is_dir() for content in _CONTENT_DIRS):
                unaudited.append(UnauditedSource(name, str(entry), NO_PROJECTS_DIR))
            else:
                continue
            names.add(name)
    return sources, unaudited


def _directories(path: Path) -> list[Path]:
    """The real (not symlinked) subdirectories of ``path``, by name; none when unreadable."""
    try:
        with os.scandir(path) as entries:
            found = [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    return sorted(found)


def console_corpus(
    home: Path | None = None,
    user_home: Path | None = None,
    vaults: list[tuple[str, Path]] | None = None,
) -> Corpus | None:
    """The console's corpus: ``console.yaml``'s sources, else synthesis v5's
    ``knowledge_roots`` (``V5/config.json``, docs/surfaces.md), else the console's auto-detected ones.

    None when there is neither: the caller falls back to the current directory.
    ``vaults`` collects the console's memory vaults (``vault: true``).
    """
    console = (home or console_home()) / "console.yaml"
    # Anything by that name is read, so a link to a device or a dangling link is exit 2
    # naming it, never passed over for the working directory.
    if console.exists() or console.is_symlink():
        listed, unaudited = _console_sources(console, vaults)
        return Corpus(listed, from_console=True, console_path=console, unaudited=unaudited)
    v5_listed = knowledge_roots()
    if v5_listed is not None:
        # v5's own list, each root audited as `--source ROOT` (a root that holds nothing
        # to audit is exit 2, as there). `console_path` keys the run's replay on the file.
        config, roots = v5_listed
        what = f"synthesis v5 knowledge root (`knowledge_roots` in {config})"
        found = [source_for_directory(root, what) for root in roots]
        return Corpus(found, from_console=True, console_path=config)
    detected, skipped = _workspace_sources(user_home or Path.home())
    if not detected and not any(u.reason == UNREACHABLE for u in skipped):
        return None
    return Corpus(detected, from_console=True, unaudited=skipped)


V5_CONFIG = "config.json"


# -- synthesis v5's own list of sources (docs/layouts.md, docs/surfaces.md) --------------

KNOWLEDGE_ROOTS = "knowledge_roots"


def knowledge_roots(v5: Path | None = None) -> tuple[Path, list[Path]] | None:
    """synthesis v5's own list of sources, ``knowledge_roots`` in ``V5/config.json`` (docs/layouts.md, docs/surfaces.md): that file and its roots, resolved; None when v5 lists none (no ``config.json``, no
    ``knowledge_roots`` key, or an empty list), and discovery goes on to the console's
    auto-detection.

    A root is a path string, ``~`` expanded, a relative one taken from ``V5`` (where the
    file is, as a relative console.yaml root is taken from console.yaml's folder); each is
    audited as ``--source ROOT`` would be. The file is v5's, read as v5 writes it: other
    keys are allowed. It defines what a run audits, so it fails closed (exit 2, one line
    naming the file and what to fix): unreadable, over 256 KiB, not UTF-8, not JSON, not
    an object, ``knowledge_roots`` not a list of non-empty strings, a root that does not
    exist or is not a folder. None of it is passed over for the working directory.
    """
    v5 = v5 if v5 is not None else v5_home()
    config = v5 / V5_CONFIG
    if not config.exists() and not config.is_symlink():
        return None
    data = _json_object(config)
    listed = data.get(KNOWLEDGE_ROOTS)
    if listed is None or listed == []:
        return None
    if not isinstance(listed, list) or not all(isinstance(r, str) and r for r in listed):
        raise DoctorError(
            f"synthesis v5 config {config}: `{KNOWLEDGE_ROOTS}` is not a list of paths",
            f'write it as a list of folder paths, e.g. "{KNOWLEDGE_ROOTS}": '
            '["~/workspaces/me/ai-knowledge-me"]',
        )
    roots: list[Path] = []
    for raw in listed:
        root = Path(raw).expanduser()
        root = root if root.is_absolute() else v5 / root
        if not root.is_dir():
            problem = "is not a folder" if root.exists() else "does not exist"
            raise DoctorError(
                f"synthesis v5 knowledge root {root} (`{KNOWLEDGE_ROOTS}` in {config}) {problem}",
                f"fix or remove it in `{KNOWLEDGE_ROOTS}`, or name the sources to audit "
                "(`context-doctor check PATH`)",
            )
        roots.append(root.resolve())
    return config, roots


def _json_object(config: Path) -> dict[str, Any]:
    """``config.json``'s top-level object, bounded like every configuration file."""
    remedy = "fix the file (synthesis v5 writes it as a JSON object), or move it aside"
    try:
        text = read_limited(config, MAX_CONFIG_BYTES).decode("utf-8")
    except TooLarge as error:
        raise DoctorError(f"synthesis v5 config {config} {error}", remedy) from error
    except OSError as error:
        raise DoctorError(
            f"cannot read synthesis v5 config {config}: {error.strerror or error}",
            "check the file and its permissions, or move it aside",
        ) from error
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"synthesis v5 config {config} is not valid UTF-8 (byte {error.start})", remedy
        ) from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DoctorError(
            f"synthesis v5 config {config} is not valid JSON at line {error.lineno} "
            f"column {error.colno}: {error.msg}",
            remedy,
        ) from error
    except RecursionError as error:  # `[[[[…` nested past the interpreter's limit
        raise DoctorError(
            f"synthesis v5 config {config} is not valid JSON: nested too deeply", remedy
        ) from error
    if not isinstance(data, dict):
        raise DoctorError(
            f"synthesis v5 config {config} is not a JSON object (it holds {_json_kind(data)})",
            remedy,
        )
    return data


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "null" if value is None else "a number"
