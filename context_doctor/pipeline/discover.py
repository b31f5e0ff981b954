"""Discovery (docs/layouts.md "Sources and projects"): which sources and projects a run audits.

Where the sources come from, in order: ``--source``/``--project``/PATH
arguments; else ``$SYNTHESIS_HOME/console.yaml``; else synthesis v5's own list,
``knowledge_roots`` in ``V5/config.json`` (docs/surfaces.md); else the Synthesis Console's
own auto-detection (``~/workspaces/*/ai-knowledge-*``); else the current directory,
walking up inside its git work tree to the nearest ``projects/index.yaml`` (or a
single-project repository's root ``CONTEXT.md``).  ``check FILE`` audits the
project holding the file.
Every path problem is a :class:`DoctorError` (exit 2) that names the path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_doctor.cache.store import Store
from context_doctor.config.settings import find_config, validate_config
from context_doctor.config.synthesis import console_home, v5_home
from context_doctor.errors import DoctorError
from context_doctor.freshness.grades import discover_files
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.repository import (
    Repository,
    origin_name,
    repository_for,
    repository_or_none,
)
from context_doctor.guards.limits import MAX_CONFIG_BYTES, TooLarge, read_limited
from context_doctor.guards.yamlio import load_yaml, plain, validator
from context_doctor.layouts import Layout
from context_doctor.layouts.declared import declared_layout
from context_doctor.layouts.detect import detect, shapes_sentence
from context_doctor.model.index import load_index
from context_doctor.model.project import Project
from context_doctor.model.source import DEFAULT_PROJECTS_DIR, Corpus, Source, UnauditedSource
from context_doctor.report.report import UNREACHABLE

if TYPE_CHECKING:  # the vault modules (PyYAML among them) load only for a vault (#32)
    from context_doctor.vault.model import Vault


def synthesis_home() -> Path:
    """The console's folder (``console.yaml``, the report cache): v5-aware, docs/surfaces.md."""
    return console_home()


def _existing_directory(raw: str | Path, what: str) -> Path:
    path = Path(raw).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} {path} does not exist", "check the path")
    if not path.is_dir():
        raise DoctorError(f"{what} {path} is not a directory", "pass a directory")
    return path.resolve()


def _existing_path(raw: str | Path, what: str) -> Path:
    path = Path(raw).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} {path} does not exist", "check the path")
    return path.resolve()


def _source(
    name: str, root: Path, projects_dir: str | None, only: set[str] | None = None
) -> Source:
    return Source(
        name=name, root=root, projects_dir=projects_dir, repository=repository_for(root), only=only
    )


# -- memory vaults (docs/vaults.md) -------------------------------------------------------------

VAULT_MARKER = ".bastra"
VAULT_ENV = "BASTRA_VAULT_PATH"


def is_vault(path: Path) -> bool:
    """A directory holding ``.bastra/`` is a Bastra Recall vault; ``~/.bastra`` is Bastra's
    machine state (floors, archive), so the home directory itself is never one."""
    return (path / VAULT_MARKER).is_dir() and path != Path.home().resolve()


def vault_above(start: Path) -> Path | None:
    """The nearest directory from ``start`` upwards that is a vault."""
    for directory in (start, *start.parents):
        if is_vault(directory):
            return directory
    return None


def _vault(
    path: Path,
    *,
    cache: bool,
    floors: tuple[Path, Path] | None,
    name: str | None = None,
) -> Vault:
    from context_doctor.vault.floors import floors_location
    from context_doctor.vault.model import Vault

    repository = repository_or_none(path)
    store = Store.for_repository(repository) if cache and repository is not None else None
    return Vault(name or path.name, path, repository, floors or floors_location(), store)


def _source_for_directory(path: Path, what: str) -> Source:
    """A directory's layout: declared, else ``projects/``, else detected (docs/layouts.md)."""
    declared = _declared(path)
    if declared is not None:
        return declared
    if (path / DEFAULT_PROJECTS_DIR).is_dir():
        return _source(path.name, path, DEFAULT_PROJECTS_DIR)
    detected = detect(path)
    if detected is not None:
        return _layout_source(path, detected, repository_for(path))
    if next(discover_files(path), None) is not None:
        # docs/output.md: nothing to audit is no project *and* no graded file.
        source = _source(path.name, path, DEFAULT_PROJECTS_DIR)
        source.grades_only = True
        return source
    raise no_layout_error(path, what)


def no_layout_error(path: Path, what: str) -> DoctorError:
    """Exit 2 for a directory no layout matches, listing the shapes detection looked for."""
    # `what` is not in the message: `check --project PATH` says what `check PATH` says.
    return DoctorError(
        f"{path} matches no layout: it holds none of {shapes_sentence()}; nor a "
        "file declaring `convention: pai-freshness-v1`",
        "declare where the working memory is (`[layout]` in context-doctor.toml, e.g. "
        '`context = "docs/NOTES.md"`; `context-doctor layout PATH` shows what it sees), or '
        "point at a knowledge repository root or one project directory",
    )


# A `--config` the user named for this run: its `[layout]` applies to every source.
_explicit_config: list[Path] = []


def _declared(path: Path) -> Source | None:
    """The source of a ``[layout]`` declared in the configuration ``path`` finds, if any."""
    repository = repository_or_none(path)
    if repository is None:
        return None
    layout = declared_for(path, repository, _explicit_config[0] if _explicit_config else None)
    if layout is None:
        return None
    return _layout_source(repository.toplevel, layout, repository)


def declared_for(path: Path, repository: Repository, config: Path | None) -> Layout | None:
    """The ``[layout]`` of ``config``, else of the nearest config at or above ``path``."""
    found = find_config(_up_to(path, repository.toplevel), config)
    if found is None:
        return None
    origin, data = found
    validate_config(data, str(origin))
    return declared_layout(data, origin, repository.toplevel)


def _layout_source(root: Path, layout: Layout, repository: Repository) -> Source:
    """A source built from ``layout``: one project, or one per ``*`` match."""
    folder = layout.projects_folder
    if not folder:
        source = Source(root.name, root, None, repository, given_layout=layout)
        source.named_by_project = True
        return source
    return Source(root.name, root, folder, repository, given_layout=layout)


def single_project_id(
    layout: Layout,
    repository: Repository,
    identity: Callable[[], str | None] | None,
    root: Path | None = None,
) -> str:
    """A single project's id (docs/layouts.md): ``[layout] name``, else the pushing repository's
    identity (the pre-push hook), else the ``origin`` remote's name, else the top folder's.

    Never the folder a checkout happens to sit in when anything steadier is known, so a
    baseline or suppression written in one clone holds in every clone and in the hook.
    """
    if root is not None and root != repository.toplevel:
        return layout.name or root.name  # a folder inside the repository: its own name
    pushed = identity() if identity is not None and not layout.name else None
    return layout.name or pushed or origin_name(repository) or repository.toplevel.name


def _source_for_path(path: Path, what: str, *, one_project: bool = False) -> Source:
    """A PATH argument, a ``--project`` or a file: the source holding it, narrowed to the
    project it lies in (docs/layouts.md "One path, one project").

    ``check DIR``, ``check --project DIR`` and ``check DIR/CONTEXT.md`` find one project the
    same way: walk up from the folder to the layout that holds it (a declared ``[layout]``,
    the nearest ``projects/index.yaml``, the repository root's detected layout), then keep
    the project the path lies in. A subfolder of a corpus is never a single-project
    repository of its own; only a folder no layout above holds is audited by its own
    record (a monorepo's tool keeping its ``CONTEXT.md``). A file or folder in a source but
    in no project audits that source; ``one_project`` (``--project``) refuses it instead.
    """
    start = path if path.is_dir() else path.parent
    if (
        one_project
        and (start / DEFAULT_PROJECTS_DIR).is_dir()
        and not (start / "CONTEXT.md").exists()
    ):
        raise DoctorError(
            f"{what} {path} is a knowledge repository (it holds projects/), not one project",
            f"use --source {path}, or --project {path / DEFAULT_PROJECTS_DIR}/<id>",
        )
    top = repository_for(start).toplevel
    source = _holding_source(start, top)
    if source is None:
        if path.is_dir():
            return _source_for_directory(path, what)  # says what a directory should hold
        raise DoctorError(
            f"{what} {path} is in no project and no source (no projects/index.yaml at or "
            "above it, no layout at its repository root)",
            "point at a knowledge repository, a project, or a file inside one",
        )
    _narrow(source, start)
    if one_project and source.only is None and not source.is_single_project:
        raise DoctorError(
            f"{what} {path} is in source {source.root} but in none of its projects",
            f"use --source {source.root}, or name a project folder inside {source.projects_path}",
        )
    return source


def _holding_source(start: Path, top: Path) -> Source | None:
    """The source whose layout holds ``start``: declared, else the nearest corpus at or
    above it, else the repository root's layout, else the nearest folder whose own record
    is a layout (when nothing above holds it)."""
    declared = _declared(start)
    if declared is not None:
        return declared
    if (start / DEFAULT_PROJECTS_DIR).is_dir():
        return _source(start.name, start, DEFAULT_PROJECTS_DIR)
    upwards = _up_to(start, top)
    for directory in upwards:
        parent = directory.parent
        is_project = not directory.name.startswith((".", "_")) and directory != top
        if is_project and (parent / "index.yaml").is_file():  # a project, CONTEXT.md or not
            return _source(parent.parent.name, parent.parent, parent.name)
        if (directory / DEFAULT_PROJECTS_DIR / "index.yaml").is_file():
            return _source(directory.name, directory, DEFAULT_PROJECTS_DIR)
    if top in upwards:
        if (top / DEFAULT_PROJECTS_DIR).is_dir():
            return _source(top.name, top, DEFAULT_PROJECTS_DIR)
        detected = detect(top)
        if detected is not None:
            return _layout_source(top, detected, repository_for(top))
    for directory in upwards:
        if directory == top:
            break
        detected = detect(directory)
        if detected is not None:
            return _layout_source(directory, detected, repository_for(directory))
    return None


def _narrow(source: Source, start: Path) -> None:
    """Narrow a many-project source to the project ``start`` lies in, if it lies in one."""
    if source.is_single_project:
        return
    folder = source.projects_path
    if start == folder or not start.is_relative_to(folder):
        return
    name = start.relative_to(folder).parts[0]
    if not name.startswith((".", "_")):
        source.only = {name}


def _source_for_working_directory(here: Path) -> Source:
    """The current directory's source, found by walking up inside its git work tree.

    The nearest directory at or above ``here`` holding ``projects/index.yaml`` is
    the source (as ruff or git find their root from a subfolder); else a
    ``projects/`` directory right here; else a repository whose root holds
    ``CONTEXT.md`` is one project.
    """
    top = repository_for(here).toplevel
    for directory in _up_to(here, top):
        if (directory / DEFAULT_PROJECTS_DIR / "index.yaml").is_file():
            return _source(directory.name, directory, DEFAULT_PROJECTS_DIR)
    if (here / DEFAULT_PROJECTS_DIR).is_dir():
        return _source(here.name, here, DEFAULT_PROJECTS_DIR)
    declared = _declared(here)
    if declared is not None:
        return declared
    detected = None if (top / DEFAULT_PROJECTS_DIR).is_dir() else detect(top)
    if detected is not None:
        return _layout_source(top, detected, repository_for(top))
    graded_root = top if here.is_relative_to(top) else here
    if next(discover_files(graded_root), None) is not None:
        # A tree of graded files without projects (a LifeOS install): docs/output.md's "nothing
        # to audit" is no project *and* no graded file. The whole work tree is graded.
        source = _source(graded_root.name, graded_root, DEFAULT_PROJECTS_DIR)
        source.grades_only = True
        return source
    raise DoctorError(
        f"current directory {here}: no projects/index.yaml at or above it in its repository "
        f"({top}), no layout at the repository root (none of {shapes_sentence()}), and no "
        "file declaring `convention: pai-freshness-v1`",
        "cd into a knowledge repository, pass --source PATH, declare `[layout]` in "
        "context-doctor.toml, or list sources in $SYNTHESIS_HOME/console.yaml",
    )


def _up_to(start: Path, top: Path) -> list[Path]:
    """``start`` and its parents up to ``top`` (inclusive); just ``start`` when outside it."""
    if not start.is_relative_to(top):
        return [start]
    return [start, *[parent for parent in start.parents if parent.is_relative_to(top)]]


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
            vaults.append((name, _existing_directory(raw_root, f"console vault `{name}` root")))
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
    root = _existing_directory(raw_root, f"{what} root")
    if project is not None:
        directory = _inside(root, project, f"{what}: project `{project}`")
        if not (directory / "CONTEXT.md").is_file():
            raise DoctorError(
                f"{what}: {directory} holds no CONTEXT.md",
                "point `project` at the directory holding the project's CONTEXT.md",
            )
        return _source(name, directory, None)
    assert projects_dir is not None
    projects = _inside(root, projects_dir, f"{what}: projects_dir `{projects_dir}`")
    if not projects.is_dir():
        raise DoctorError(f"{what}: {root / projects_dir} does not exist", "fix `projects_dir`")
    if projects == root and (root / "CONTEXT.md").is_file() and not (root / "index.yaml").exists():
        return _source(name, root, None)
    return _source(name, root, projects_dir)


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
                    sources.append(_source(name, entry.resolve(), DEFAULT_PROJECTS_DIR))
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
    console = (home or synthesis_home()) / "console.yaml"
    # Anything by that name is read, so a link to a device or a dangling link is exit 2
    # naming it, never passed over for the working directory (#30).
    if console.exists() or console.is_symlink():
        listed, unaudited = _console_sources(console, vaults)
        return Corpus(listed, from_console=True, console_path=console, unaudited=unaudited)
    v5_listed = knowledge_roots()
    if v5_listed is not None:
        # v5's own list, each root audited as `--source ROOT` (a root that holds nothing
        # to audit is exit 2, as there). `console_path` keys the run's replay on the file.
        config, roots = v5_listed
        what = f"synthesis v5 knowledge root (`knowledge_roots` in {config})"
        found = [_source_for_directory(root, what) for root in roots]
        return Corpus(found, from_console=True, console_path=config)
    detected, skipped = _workspace_sources(user_home or Path.home())
    if not detected and not any(u.reason == UNREACHABLE for u in skipped):
        return None
    return Corpus(detected, from_console=True, unaudited=skipped)


# -- synthesis v5's own list of sources (docs/layouts.md, docs/surfaces.md) ----------------------------------

V5_CONFIG = "config.json"
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


def _merge(sources: list[Source]) -> list[Source]:
    """Collapse repeats of one source; --project narrowings of it become a union."""
    merged: dict[tuple[Path, str | None], Source] = {}
    for source in sources:
        key = (source.root, source.projects_dir)
        kept = merged.get(key)
        if kept is None:
            merged[key] = source
        elif kept.only is not None:
            kept.only = None if source.only is None else kept.only | source.only
    return list(merged.values())


def discover(
    paths: tuple[str, ...] = (),
    sources: tuple[str, ...] = (),
    projects: tuple[str, ...] = (),
    *,
    cwd: Path | None = None,
    home: Path | None = None,
    user_home: Path | None = None,
    require_console: bool = False,
    allow_shallow: bool = False,
    pushing: tuple[str, ...] = (),
    ci: bool = False,
    cache: bool = False,
    audit: bool = False,
    vaults: tuple[str, ...] = (),
    floors: tuple[Path, Path] | None = None,
    config: Path | None = None,
    identity: Callable[[], str | None] | None = None,
) -> Corpus:
    """The sources and their projects; ``cache``: use the persistent cache (``cache/store.py``).

    ``home`` is ``$SYNTHESIS_HOME``, ``user_home`` the directory holding ``workspaces/``
    (the console's auto-detection); ``require_console``: no fallback to the current
    directory (``sweep``).
    ``audit``: the corpus is about to be audited, so a history pass that will be read
    afresh is started at once (``RepositoryFacts.begin_history``) and git walks while
    the index is parsed; the commands that only look at a project leave it unstarted.
    """
    _explicit_config[:] = [config] if config is not None else []
    try:
        return _discover(
            paths, sources, projects, cwd=cwd, home=home, user_home=user_home,
            require_console=require_console, allow_shallow=allow_shallow, pushing=pushing,
            ci=ci, cache=cache, audit=audit, vaults=vaults, floors=floors, identity=identity,
        )  # fmt: skip
    finally:
        _explicit_config.clear()


def _discover(
    paths: tuple[str, ...],
    sources: tuple[str, ...],
    projects: tuple[str, ...],
    *,
    cwd: Path | None,
    home: Path | None,
    user_home: Path | None,
    require_console: bool,
    allow_shallow: bool,
    pushing: tuple[str, ...],
    ci: bool,
    cache: bool,
    audit: bool,
    vaults: tuple[str, ...],
    floors: tuple[Path, Path] | None,
    identity: Callable[[], str | None] | None,
) -> Corpus:
    found: list[Source] = []
    vault_roots: list[tuple[str | None, Path]] = [
        (None, _existing_directory(raw, "vault")) for raw in vaults
    ]
    for raw in sources:
        found.append(_source_for_directory(_existing_directory(raw, "source"), "source"))
    for raw in projects:
        found.append(
            _source_for_path(_existing_directory(raw, "project"), "project", one_project=True)
        )
    for raw in paths:
        path = _existing_path(raw, "path")
        if path.is_dir() and is_vault(path) and not _holds_projects(path):
            vault_roots.append((None, path))
        else:
            found.append(_source_for_path(path, "path"))
    corpus = Corpus(sources=found)
    if not found and not vault_roots:
        configured = os.environ.get(VAULT_ENV)
        if configured:
            vault_roots.append((None, _existing_directory(configured, f"${VAULT_ENV}")))
        listed_vaults: list[tuple[str, Path]] = []
        listed = console_corpus(home, user_home, listed_vaults)
        if listed is not None:
            vault_roots += listed_vaults
            corpus = listed
        elif require_console and not vault_roots:
            console = (home or synthesis_home()) / "console.yaml"
            raise DoctorError(
                f"no sources: {console} does not exist, synthesis v5 lists no "
                f"`knowledge_roots`, and no ~/{WORKSPACES}/*/{KNOWLEDGE_PREFIX}* holds "
                "projects/index.yaml",
                "create console.yaml (`sources: [{name, root, projects_dir}]`) or set "
                "SYNTHESIS_HOME; for one repository use `context-doctor check PATH`",
            )
        elif not require_console:
            here = (cwd or Path.cwd()).resolve()
            above = vault_above(here)
            if above is not None:
                vault_roots.append((None, above))
            if not vault_roots or _holds_projects(here):
                corpus = Corpus([_source_for_working_directory(here)])
    corpus.sources = _merge(corpus.sources)
    seen_vaults: set[Path] = set()
    for name, root in vault_roots:
        if root not in seen_vaults:
            seen_vaults.add(root)
            corpus.vaults.append(_vault(root, cache=cache, floors=floors, name=name))
    facts: dict[Path, RepositoryFacts] = {}
    for source in corpus.sources:
        toplevel = source.repository.toplevel
        if toplevel not in facts:
            store = Store.for_repository(source.repository) if cache else None
            facts[toplevel] = RepositoryFacts(source.repository, allow_shallow, pushing, ci, store)
        source.facts = facts[toplevel]
        source.facts.add_scope(source.scope)
    for repository_facts in facts.values() if audit else ():
        repository_facts.begin_history()  # git walks while the index is parsed (#13)
    for source in list(corpus.sources):
        source.identity = identity
        try:
            populate(source)
        except DoctorError as error:
            if not corpus.from_console:
                raise
            # One unreadable console source (a broken index) never sinks the others.
            corpus.sources.remove(source)
            corpus.unaudited.append(
                UnauditedSource(source.name, str(source.root), UNREACHABLE, error.problem)
            )
    return corpus


def _holds_projects(path: Path) -> bool:
    return (path / DEFAULT_PROJECTS_DIR).is_dir() or (path / "CONTEXT.md").is_file()


def populate(source: Source) -> None:
    """Read the index and list the projects: directories and registered ids alike.

    A layout other than the seed's names its projects itself: one (its id from
    :func:`single_project_id`), or one per folder its ``*`` matches that holds the file.
    """
    layout = source.layout
    if source.is_single_project:
        project_id = single_project_id(layout, source.repository, source.identity, source.root)
        if source.named_by_project:
            source.name = project_id  # the hook's lines and the report name the project
        source.projects = [Project(source, project_id, source.root, None)]
        return
    if not layout.is_seed:
        inner = layout.inner(layout.context) or ""
        folder = source.projects_path
        names = sorted(
            child.name
            for child in (folder.iterdir() if folder.is_dir() else ())
            if not child.name.startswith((".", "_")) and (child / inner).is_file()
        )
        if source.only is not None:
            names = [name for name in names if name in source.only]
        source.projects = [Project(source, name, folder / name, None) for name in names]
        return
    if source.grades_only:
        source.projects = []
        return
    projects_path = source.projects_path
    index_path = projects_path / "index.yaml"
    if index_path.exists() and not index_path.is_file():
        raise DoctorError(
            f"index file {index_path} is not a regular file",
            "projects/index.yaml must be a YAML file registering the projects",
        )
    if index_path.is_file():
        source.index = load_index(
            index_path, source.repository.relative(index_path), source.repository_facts().store
        )
    by_id = source.index.by_id() if source.index else {}
    directories = {
        child.name
        for child in projects_path.iterdir()
        if child.is_dir() and not child.name.startswith((".", "_"))
    }
    ids = sorted(directories | set(by_id))
    if source.only is not None:
        ids = [project_id for project_id in ids if project_id in source.only]
    source.projects = [
        Project(
            source,
            project_id,
            projects_path / project_id,
            by_id[project_id][0] if project_id in by_id else None,
            by_id.get(project_id, [])[1:],
        )
        for project_id in ids
    ]
