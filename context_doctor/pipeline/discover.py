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

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.cache.store import Store
from context_doctor.config.synthesis import console_home
from context_doctor.errors import DoctorError
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.repository import (
    repository_or_none,
)
from context_doctor.model.index import load_index
from context_doctor.model.project import Project
from context_doctor.model.source import DEFAULT_PROJECTS_DIR, Corpus, Source, UnauditedSource
from context_doctor.pipeline.console import KNOWLEDGE_PREFIX, WORKSPACES, console_corpus
from context_doctor.pipeline.sources import (
    existing_directory,
    existing_path,
    explicit_config,
    single_project_id_and_source,
    source_for_directory,
    source_for_path,
    source_for_working_directory,
)
from context_doctor.report.report import UNREACHABLE

if TYPE_CHECKING:  # the vault modules (PyYAML among them) load only for a vault
    from context_doctor.vault.model import Vault


def synthesis_home() -> Path:
    """The console's folder (``console.yaml``, the report cache): v5-aware, docs/surfaces.md."""
    return console_home()


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
    explicit_config[:] = [config] if config is not None else []
    try:
        return _discover(
            paths, sources, projects, cwd=cwd, home=home, user_home=user_home,
            require_console=require_console, allow_shallow=allow_shallow, pushing=pushing,
            ci=ci, cache=cache, audit=audit, vaults=vaults, floors=floors, identity=identity,
        )  # fmt: skip
    finally:
        explicit_config.clear()


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
        (None, existing_directory(raw, "vault")) for raw in vaults
    ]
    for raw in sources:
        found.append(source_for_directory(existing_directory(raw, "source"), "source"))
    for raw in projects:
        found.append(
            source_for_path(existing_directory(raw, "project"), "project", one_project=True)
        )
    for raw in paths:
        path = existing_path(raw, "path")
        if path.is_dir() and is_vault(path) and not _holds_projects(path):
            vault_roots.append((None, path))
        else:
            found.append(source_for_path(path, "path"))
    corpus = Corpus(sources=found)
    if not found and not vault_roots:
        configured = os.environ.get(VAULT_ENV)
        if configured:
            vault_roots.append((None, existing_directory(configured, f"${VAULT_ENV}")))
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
                corpus = Corpus([source_for_working_directory(here)])
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
        source.facts.add_scope(source.scope, source.record_pathspecs)
    for repository_facts in facts.values() if audit else ():
        repository_facts.begin_history()  # git walks while the index is parsed
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
    :func:`single_project_id_and_source`), or one per folder its ``*`` matches that holds the file.
    """
    layout = source.layout
    if source.is_single_project:
        project_id, source.id_source = single_project_id_and_source(
            layout, source.repository, source.identity, source.root
        )
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
    if source.grades_only or source.instructions_only:
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
