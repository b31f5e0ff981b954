"""Path arguments of the MCP tools: where they point, and where an agent may write (docs/caches.md).

An agent is not the user: a tool argument is corpus input, whatever the agent
was told. So a path argument is resolved here, once, and a write tool accepts it
only when it names a file the editor owns inside the git repository the path
names:

* a relative path (or, for ``check``, no path) resolves against the client's
  roots (MCP ``roots/list``): the first root under which it exists, else the
  first root; a client that declares no roots gets the server's working
  directory;
* an over-long path (a name over 255 bytes, the whole over 4,095) is a one-line
  tool error before anything touches the file system;
* a write target must lie in a git work tree, every symlink on the way
  resolved, and be a file of a project (a directory holding ``CONTEXT.md``):
  ``CONTEXT.md``, ``REFERENCE.md``, ``reference/*.md``, ``sessions/*.md``,
  ``CURRENT_STATE.json``, or the ``index.yaml`` beside the project. Anything
  else (``~/.bashrc``, ``~/notes/todo.txt``) is refused before the editor opens it;
* ``log_add``'s project must be a project inside a repository (of its layout, found as
  ``log add`` finds it, else one holding ``CONTEXT.md`` or ``sessions/``), and the log
  file it writes (and, with ``set_header``, the record it moves) must resolve inside that
  repository (a committed ``sessions -> ../elsewhere`` is refused).

Decision where the spec is silent: ``~`` is not expanded (the doctor is no shell);
``~/.bashrc`` is a relative path that names nothing under the roots.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from context_doctor.model.sessions import NOT_LOGS
from context_doctor.model.state_file import STATE_FILE
from context_doctor.write import inside, repository_root

MAX_PATH_BYTES = 4095
MAX_NAME_BYTES = 255
TOP_FILES = frozenset({"CONTEXT.md", "REFERENCE.md", STATE_FILE})
FOLDERS = ("sessions", "reference")  # their Markdown files (a log folder's README aside)
OWNED = (
    "a project's CONTEXT.md, REFERENCE.md, reference/*.md, sessions/*.md, "
    f"{STATE_FILE} or the index.yaml beside it"
)


class PathRefused(Exception):
    """A path argument the tool will not use; the message is one line naming the parameter."""


def roots_of(uris: Sequence[str]) -> list[Path]:
    """The local directories among the client's root URIs (``file://`` only)."""
    found: list[Path] = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            continue
        path = Path(unquote(parsed.path))
        if path.is_absolute() and path.is_dir():
            found.append(path)
    return found


def _measure(raw: str, parameter: str) -> None:
    if "\0" in raw:
        raise PathRefused(f"`{parameter}` holds a NUL byte; give a file system path")
    encoded = os.fsencode(raw)
    if len(encoded) > MAX_PATH_BYTES:
        raise PathRefused(
            f"`{parameter}` is {len(encoded)} bytes long; a path may have at most "
            f"{MAX_PATH_BYTES} bytes"
        )
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > MAX_NAME_BYTES:
        raise PathRefused(
            f"`{parameter}` has a {longest}-byte name; a file or folder name may have at most "
            f"{MAX_NAME_BYTES} bytes"
        )


def resolve(raw: str, roots: Sequence[Path], parameter: str) -> Path:
    """The absolute, normalised path ``raw`` names (relative: against the roots)."""
    _measure(raw, parameter)
    if not raw.strip():
        raise PathRefused(f"`{parameter}` is empty; give a path")
    path = Path(raw)
    if not path.is_absolute():
        bases = list(roots) or [Path.cwd()]
        existing = [base for base in bases if os.path.lexists(base / path)]
        path = (existing or bases)[0] / path
    return Path(os.path.normpath(path))


def _repository(path: Path, raw: str, parameter: str) -> Path:
    repository = repository_root(path)
    if repository is None:
        raise PathRefused(
            f"`{parameter}` = {raw!r} is not inside a git repository; the MCP tools write "
            "only inside the repository a path names"
        )
    if not inside(path, repository):
        raise PathRefused(
            f"`{parameter}` = {raw!r} leads outside its repository {repository} (a symlink on "
            "the way); the MCP tools write only inside the repository a path names"
        )
    return repository


def _project_of(path: Path, repository: Path) -> Path | None:
    """The nearest directory at or above ``path``'s folder holding CONTEXT.md, within the
    repository."""
    for directory in (path.parent, *path.parent.parents):
        if not directory.is_relative_to(repository):
            return None
        if (directory / "CONTEXT.md").is_file():
            return directory
    return None


def _owned(path: Path, project: Path) -> bool:
    if path == project.parent / "index.yaml":
        return True
    parts = path.relative_to(project).parts if path.is_relative_to(project) else ()
    if len(parts) == 1:
        return parts[0] in TOP_FILES
    if len(parts) == 2 and parts[0] in FOLDERS and parts[1].endswith(".md"):
        return parts[0] != "sessions" or parts[1].lower() not in NOT_LOGS
    return False


def writable_file(raw: str, roots: Sequence[Path], parameter: str) -> Path:
    """``raw`` resolved, when it is a file the editor owns inside its repository."""
    path = resolve(raw, roots, parameter)
    repository = _repository(path, raw, parameter)
    candidates = [
        project
        for project in (_project_of(path, repository), _project_beside_index(path, repository))
        if project is not None
    ]
    if not any(_owned(path, project) for project in candidates):
        raise PathRefused(
            f"`{parameter}` = {raw!r} is not a file the editor owns; the MCP `edit` tool "
            f"writes only {OWNED}"
        )
    return path


def _project_beside_index(path: Path, repository: Path) -> Path | None:
    """For ``index.yaml``: a project folder beside it (the registry it belongs to)."""
    if path.name != "index.yaml" or not path.parent.is_relative_to(repository):
        return None
    try:
        with os.scandir(path.parent) as entries:
            for entry in entries:
                if (
                    entry.is_dir(follow_symlinks=False)
                    and (Path(entry.path) / "CONTEXT.md").is_file()
                ):
                    return Path(entry.path)
    except OSError:
        return None
    return None


def writable_project(raw: str, roots: Sequence[Path], parameter: str, log_file: str) -> Path:
    """``raw`` resolved, when it is a project (holds CONTEXT.md or sessions/) inside its
    repository and ``log_file`` (relative to it) resolves inside that repository too."""
    path, repository = project_directory(raw, roots, parameter)
    if not path.is_dir() or not ((path / "CONTEXT.md").is_file() or (path / "sessions").is_dir()):
        raise PathRefused(
            f"`{parameter}` = {raw!r} is not a project directory (one holding CONTEXT.md or "
            "sessions/); `log_add` writes only a project's session log"
        )
    writable_log_files(raw, parameter, [path / log_file], repository)
    return path


def project_directory(raw: str, roots: Sequence[Path], parameter: str) -> tuple[Path, Path]:
    """``raw`` resolved, and the repository it lies in (else :class:`PathRefused`)."""
    path = resolve(raw, roots, parameter)
    return path, _repository(path, raw, parameter)


def writable_log_files(raw: str, parameter: str, files: Sequence[Path], repository: Path) -> None:
    """Every file ``log_add`` would write for the project ``raw`` (its layout's log, and
    with ``set_header`` its context file) resolves inside ``repository``."""
    for file in files:
        if not inside(file, repository):
            shown = file.relative_to(repository) if file.is_relative_to(repository) else file
            raise PathRefused(
                f"`{parameter}` = {raw!r}: its {shown} leads outside the repository "
                f"{repository} (a symlink on the way); nothing was written"
            )
