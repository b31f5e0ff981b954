"""Discovery (SPEC §1 "Sources and projects"): which sources and projects a run audits.

Where the sources come from, in order: ``--source``/``--project``/PATH
arguments; else ``$SYNTHESIS_HOME/console.yaml``; else the current directory.
Every path problem is a :class:`DoctorError` (exit 2) that names the path.
"""

from __future__ import annotations

import os
from pathlib import Path

from context_doctor.cache.store import Store
from context_doctor.errors import DoctorError
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.repository import repository_for, repository_or_none
from context_doctor.model.index import load_index
from context_doctor.model.project import Project
from context_doctor.model.source import DEFAULT_PROJECTS_DIR, Corpus, Source, UnauditedSource
from context_doctor.vault.floors import floors_location
from context_doctor.vault.model import Vault
from context_doctor.yamlio import load_yaml, plain, validator


def synthesis_home() -> Path:
    configured = os.environ.get("SYNTHESIS_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".synthesis"


def _existing_directory(raw: str | Path, what: str) -> Path:
    path = Path(raw).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} {path} does not exist", "check the path")
    if not path.is_dir():
        raise DoctorError(f"{what} {path} is not a directory", "pass a directory")
    return path.resolve()


def _source(
    name: str, root: Path, projects_dir: str | None, only: set[str] | None = None
) -> Source:
    return Source(
        name=name, root=root, projects_dir=projects_dir, repository=repository_for(root), only=only
    )


# -- memory vaults (SPEC §9) -------------------------------------------------------------

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
    repository = repository_or_none(path)
    store = Store.for_repository(repository) if cache and repository is not None else None
    return Vault(name or path.name, path, repository, floors or floors_location(), store)


def _source_for_directory(path: Path, what: str) -> Source:
    """A directory holding ``projects/`` or, failing that, a top-level ``CONTEXT.md``."""
    if (path / DEFAULT_PROJECTS_DIR).is_dir():
        return _source(path.name, path, DEFAULT_PROJECTS_DIR)
    if (path / "CONTEXT.md").is_file():
        return _project_source(path, what)
    raise DoctorError(
        f"{what} {path} holds neither a projects/ directory nor a CONTEXT.md",
        "point at a knowledge repository root or at one project directory",
    )


def _project_source(path: Path, what: str) -> Source:
    """One project: inside a projects directory, or a single-project repository."""
    parent = path.parent
    repository = repository_for(path)
    if (path / DEFAULT_PROJECTS_DIR).is_dir() and not (path / "CONTEXT.md").exists():
        raise DoctorError(
            f"{what} {path} is a knowledge repository (it holds projects/), not one project",
            f"use --source {path}, or --project {path / DEFAULT_PROJECTS_DIR}/<id>",
        )
    if not (parent / "index.yaml").is_file() and repository.toplevel == path:
        return Source(name=path.name, root=path, projects_dir=None, repository=repository)
    if not (path / "CONTEXT.md").exists() and not (parent / "index.yaml").is_file():
        raise DoctorError(
            f"{what} {path} has no CONTEXT.md and its parent has no index.yaml",
            "point --project at a project directory (projects/<id>/)",
        )
    return _source(parent.parent.name, parent.parent, parent.name, only={path.name})


NO_PROJECTS_DIR = "no projects_dir"


def _console_sources(
    console: Path, vaults: list[tuple[str, Path]] | None = None
) -> tuple[list[Source], list[UnauditedSource]]:
    """The console's sources: those with a ``projects_dir``, and those listed unaudited.

    The file is the Synthesis Console's own (SPEC §1): a source may declare only
    ``lessons_dir``/``plans_dir``/``notes_dir`` (a personal overlay), and keys the
    doctor does not read are allowed.  A source without ``projects_dir`` holds no
    projects: it is reported as not audited, never an error, and its root is not
    even required to exist.
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
        # A relative root is relative to console.yaml, not to wherever the doctor runs.
        raw_root = Path(str(item["root"])).expanduser()
        if not raw_root.is_absolute():
            raw_root = console.parent / raw_root
        if item.get("vault") is True and vaults is not None:
            vaults.append(
                (
                    str(item["name"]),
                    _existing_directory(raw_root, f"console vault `{item['name']}` root"),
                )
            )
            continue
        if item.get("projects_dir") is None:
            unaudited.append(UnauditedSource(str(item["name"]), str(raw_root), NO_PROJECTS_DIR))
            continue
        root = _existing_directory(raw_root, f"console source `{item['name']}` root")
        projects_dir = str(item["projects_dir"])
        if not (root / projects_dir).is_dir():
            raise DoctorError(
                f"console source `{item['name']}`: {root / projects_dir} does not exist",
                "fix `projects_dir` in console.yaml",
            )
        inside = (root / projects_dir).resolve()
        if not inside.is_relative_to(root) or ".git" in inside.relative_to(root).parts:
            raise DoctorError(
                f"console source `{item['name']}`: projects_dir `{projects_dir}` leaves the "
                f"source root {root} (or enters .git)",
                "make `projects_dir` a directory inside `root`, e.g. `projects`",
            )
        sources.append(_source(str(item["name"]), root, projects_dir))
    return sources, unaudited


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
    allow_shallow: bool = False,
    pushing: tuple[str, ...] = (),
    ci: bool = False,
    cache: bool = False,
    audit: bool = False,
    vaults: tuple[str, ...] = (),
    floors: tuple[Path, Path] | None = None,
) -> Corpus:
    """The sources and their projects; ``cache``: use the persistent cache (``cache/store.py``).

    ``audit``: the corpus is about to be audited, so a history pass that will be read
    afresh is started at once (``RepositoryFacts.begin_history``) and git walks while
    the index is parsed; the commands that only look at a project leave it unstarted.
    """
    found: list[Source] = []
    vault_roots: list[tuple[str | None, Path]] = [
        (None, _existing_directory(raw, "vault")) for raw in vaults
    ]
    for raw in sources:
        found.append(_source_for_directory(_existing_directory(raw, "source"), "source"))
    for raw in projects:
        found.append(_project_source(_existing_directory(raw, "project"), "project"))
    for raw in paths:
        path = _existing_directory(raw, "path")
        if is_vault(path) and not _holds_projects(path):
            vault_roots.append((None, path))
        else:
            found.append(_source_for_directory(path, "path"))
    corpus = Corpus(sources=found)
    if not found and not vault_roots:
        console = (home or synthesis_home()) / "console.yaml"
        configured = os.environ.get(VAULT_ENV)
        if configured:
            vault_roots.append((None, _existing_directory(configured, f"${VAULT_ENV}")))
        if console.is_file():
            listed_vaults: list[tuple[str, Path]] = []
            listed, unaudited = _console_sources(console, listed_vaults)
            vault_roots += listed_vaults
            corpus = Corpus(listed, from_console=True, console_path=console, unaudited=unaudited)
        else:
            here = (cwd or Path.cwd()).resolve()
            above = vault_above(here)
            if above is not None:
                vault_roots.append((None, above))
            if not vault_roots or _holds_projects(here):
                corpus = Corpus([_source_for_directory(here, "current directory")])
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
    for source in corpus.sources:
        populate(source)
    return corpus


def _holds_projects(path: Path) -> bool:
    return (path / DEFAULT_PROJECTS_DIR).is_dir() or (path / "CONTEXT.md").is_file()


def populate(source: Source) -> None:
    """Read the index and list the projects: directories and registered ids alike."""
    if source.is_single_project:
        source.projects = [Project(source, source.root.name, source.root, None)]
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
