"""The source a named path stands for (docs/layouts.md "Sources and projects").

A ``--source`` directory, a ``--project`` directory, a PATH argument (a file audits the
project holding it), or the current directory found by walking up inside its git work
tree: each is a declared ``[layout]``, a ``projects/`` folder, or a detected layout.
Every path problem is a :class:`DoctorError` (exit 2) that names the path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.config.settings import find_config, validate_config
from context_doctor.errors import DoctorError
from context_doctor.freshness.files import discover_files
from context_doctor.git.repository import (
    Repository,
    origin_name,
    repository_for,
    repository_or_none,
)
from context_doctor.layouts import Layout
from context_doctor.layouts.declared import declared_layout, require_match
from context_doctor.layouts.detect import detect, shapes_sentence
from context_doctor.model.instructions import holds_instruction_files
from context_doctor.model.source import DEFAULT_PROJECTS_DIR, Source

if TYPE_CHECKING:  # the vault modules (PyYAML among them) load only for a vault
    pass


def existing_directory(raw: str | Path, what: str) -> Path:
    path = Path(raw).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} {path} does not exist", "check the path")
    if not path.is_dir():
        raise DoctorError(f"{what} {path} is not a directory", "pass a directory")
    return path.resolve()


def existing_path(raw: str | Path, what: str) -> Path:
    path = Path(raw).expanduser()
    if not path.exists():
        raise DoctorError(f"{what} {path} does not exist", "check the path")
    return path.resolve()


def source_at(
    name: str, root: Path, projects_dir: str | None, only: set[str] | None = None
) -> Source:
    return Source(
        name=name, root=root, projects_dir=projects_dir, repository=repository_for(root), only=only
    )


def source_for_directory(path: Path, what: str) -> Source:
    """A directory's layout: declared, else ``projects/``, else detected (docs/layouts.md)."""
    declared = _declared(path)
    if declared is not None:
        return declared
    if (path / DEFAULT_PROJECTS_DIR).is_dir():
        return source_at(path.name, path, DEFAULT_PROJECTS_DIR)
    found = _without_projects(path, detect(path), path)
    if found is not None:
        return found
    raise no_layout_error(path, what)


def _without_projects(top: Path, detected: Layout | None, graded_root: Path) -> Source | None:
    """The source of a tree with no declared layout and no ``projects/``: its ``detected``
    layout (at ``top``), else its graded files alone (below ``graded_root``: docs/output.md's
    "nothing to audit" is no project *and* no graded file), else its instruction files
    alone; None when it holds none of them."""
    if detected is not None:
        return _layout_source(top, detected, repository_for(top))
    if next(discover_files(graded_root), None) is not None:
        source = source_at(graded_root.name, graded_root, DEFAULT_PROJECTS_DIR)
        source.grades_only = True
        return source
    return _instructions_source(top)


def _instructions_source(path: Path) -> Source | None:
    """A repository top with instruction files and nothing else to audit (docs/references.md):
    a source without projects, whose procedural tier alone is checked."""
    repository = repository_or_none(path)
    if repository is None or repository.toplevel != path or not holds_instruction_files(path):
        return None
    source = source_at(path.name, path, DEFAULT_PROJECTS_DIR)
    source.instructions_only = True
    return source


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
explicit_config: list[Path] = []


def _declared(path: Path) -> Source | None:
    """The source of a ``[layout]`` declared in the configuration ``path`` finds, if any."""
    repository = repository_or_none(path)
    if repository is None:
        return None
    layout = declared_for(path, repository, explicit_config[0] if explicit_config else None)
    if layout is None:
        return None
    return _layout_source(repository.toplevel, layout, repository)


def declared_for(path: Path, repository: Repository, config: Path | None) -> Layout | None:
    """The ``[layout]`` of ``config``, else of the nearest config at or above ``path``;
    exit 2 when its ``context`` matches nothing there (docs/layouts.md)."""
    found = find_config(_up_to(path, repository.toplevel), config)
    if found is None:
        return None
    origin, data = found
    validate_config(data, str(origin))
    layout = declared_layout(data, origin, repository.toplevel)
    if layout is not None:
        require_match(layout, repository.toplevel)
    return layout


def _layout_source(root: Path, layout: Layout, repository: Repository) -> Source:
    """A source built from ``layout``: one project, or one per ``*`` match (a ``*`` at the
    top, ``*/STATUS.md``, too: one project per folder of the root, like any other ``*``)."""
    if not layout.is_glob:
        source = Source(root.name, root, None, repository, given_layout=layout)
        source.named_by_project = True
        return source
    return Source(root.name, root, layout.projects_folder, repository, given_layout=layout)


ID_DECLARED = "`[layout] name`"
ID_PUSHED = "the pushing repository's identity"
ID_ORIGIN = "the origin remote's name"
ID_TOP_FOLDER = "the repository's folder name (no origin remote)"
ID_FOLDER = "the project folder's name"
DERIVED_IDS = frozenset({ID_PUSHED, ID_ORIGIN, ID_TOP_FOLDER})
"""The id sources a recorded id outranks (docs/layouts.md "Project ids"): what a new remote,
a renamed origin or another checkout folder would change."""


def single_project_id_and_source(
    layout: Layout,
    repository: Repository,
    identity: Callable[[], str | None] | None,
    root: Path | None = None,
) -> tuple[str, str]:
    """A single project's id (docs/layouts.md) and where it came from: ``[layout] name``, else
    the pushing repository's identity (the pre-push hook), else the ``origin`` remote's name,
    else the top folder's (an id a baseline recorded outranks the last two:
    :mod:`context_doctor.pipeline.ids`).

    Never the folder a checkout happens to sit in when anything steadier is known, so a
    baseline or suppression written in one clone holds in every clone and in the hook.
    """
    if layout.name:
        return layout.name, ID_DECLARED
    if root is not None and root != repository.toplevel:
        return root.name, ID_FOLDER  # a folder inside the repository: its own name
    pushed = identity() if identity is not None else None
    if pushed:
        return pushed, ID_PUSHED
    origin = origin_name(repository)
    if origin:
        return origin, ID_ORIGIN
    return repository.toplevel.name, ID_TOP_FOLDER


def source_for_path(path: Path, what: str, *, one_project: bool = False) -> Source:
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
            return source_for_directory(path, what)  # says what a directory should hold
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
        return source_at(start.name, start, DEFAULT_PROJECTS_DIR)
    upwards = _up_to(start, top)
    for directory in upwards:
        parent = directory.parent
        is_project = not directory.name.startswith((".", "_")) and directory != top
        if is_project and (parent / "index.yaml").is_file():  # a project, CONTEXT.md or not
            return source_at(parent.parent.name, parent.parent, parent.name)
        if (directory / DEFAULT_PROJECTS_DIR / "index.yaml").is_file():
            return source_at(directory.name, directory, DEFAULT_PROJECTS_DIR)
    if top in upwards:
        if (top / DEFAULT_PROJECTS_DIR).is_dir():
            return source_at(top.name, top, DEFAULT_PROJECTS_DIR)
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


def source_for_working_directory(here: Path) -> Source:
    """The current directory's source, found by walking up inside its git work tree.

    The nearest directory at or above ``here`` holding ``projects/index.yaml`` is
    the source (as ruff or git find their root from a subfolder); else a
    ``projects/`` directory right here; else a repository whose root holds
    ``CONTEXT.md`` is one project.
    """
    top = repository_for(here).toplevel
    for directory in _up_to(here, top):
        if (directory / DEFAULT_PROJECTS_DIR / "index.yaml").is_file():
            return source_at(directory.name, directory, DEFAULT_PROJECTS_DIR)
    if (here / DEFAULT_PROJECTS_DIR).is_dir():
        return source_at(here.name, here, DEFAULT_PROJECTS_DIR)
    declared = _declared(here)
    if declared is not None:
        return declared
    detected = None if (top / DEFAULT_PROJECTS_DIR).is_dir() else detect(top)
    # A tree of graded files without projects (a LifeOS install): the whole work tree.
    found = _without_projects(top, detected, top if here.is_relative_to(top) else here)
    if found is not None:
        return found
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
