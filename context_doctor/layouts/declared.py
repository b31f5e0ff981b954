"""A declared layout: the ``[layout]`` table of the configuration (docs/layouts.md).

The table is validated by ``schemas/config.schema.json`` with the rest of the file; here
its paths are checked for what the schema cannot say. Paths are relative to the
repository root, whichever config file holds them (a user's own ``--config`` too), and
must stay inside it (docs/caches.md: :func:`context_doctor.guards.contain.contained`). ``context``
holds at most one ``*``, and only as a whole folder name before the file
(``services/*/STATUS.md``); ``sessions`` and ``reference`` of such a layout sit under the
same ``*`` (``services/*/sessions``) or are ``"context"``. Every refusal is exit 2 naming
the file and key.

A declared ``context`` must name what is there (:func:`require_match`): a file, or for a
``*`` at least one folder holding one. A declaration that matches nothing audits nothing, so
it is exit 2 naming the path and the nearest file that is there (``docs/STATUS.MD`` for
``docs/STATUS.md``: names are case-sensitive), never a run that says HEALTHY of no record.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.guards.contain import contained
from context_doctor.layouts import (
    DECLARED,
    DEFAULT_LAST_SESSION,
    DEFAULT_PHASE,
    DEFAULT_STATUS,
    IN_CONTEXT,
    Layout,
    LayoutFields,
)

TABLE = "layout"


def _refuse(origin: Path, key: str, value: object, why: str, remedy: str) -> DoctorError:
    return DoctorError(f"config {origin}: key `layout.{key}` = {value!r}: {why}", remedy)


def _path(origin: Path, key: str, raw: str, toplevel: Path) -> str:
    """``raw`` as a clean POSIX path relative to ``toplevel``, refused when it leaves it."""
    if raw.startswith("/") or "\\" in raw or "\x00" in raw:
        raise _refuse(
            origin, key, raw, "not a relative POSIX path",
            "name a path relative to the repository root, with `/` (e.g. `docs/STATUS.md`)",
        )  # fmt: skip
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or ".git" in parts:
        raise _refuse(
            origin, key, raw, "leaves the repository (or enters .git)",
            "name a path inside the repository, relative to its root",
        )  # fmt: skip
    clean = "/".join(parts)
    contained(
        clean.replace("*", "_"),
        base=toplevel,
        root=toplevel,
        what=f"config {origin}: `layout.{key}`",
    )
    return clean


def _star(origin: Path, key: str, path: str) -> str | None:
    """The folder before the ``*`` of ``path`` (None: no ``*``), refused when misplaced."""
    if "*" not in path:
        return None
    parts = path.split("/")
    starred = [index for index, part in enumerate(parts) if "*" in part]
    if path.count("*") > 1 or parts[starred[0]] != "*" or starred[0] == len(parts) - 1:
        raise _refuse(
            origin,
            key,
            path,
            "a `*` must be a whole folder name, once, before the file",
            "write one project per folder as `services/*/STATUS.md`",
        )
    return "/".join(parts[: starred[0]])


def _names(table: dict[str, Any], key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    given = table.get(key)
    return default if given is None else tuple(str(name).strip() for name in given)


def declared_layout(data: dict[str, Any], origin: Path, toplevel: Path) -> Layout | None:
    """The validated config's ``[layout]`` table as a layout (None when there is none)."""
    table = data.get(TABLE)
    if not isinstance(table, dict):
        return None
    context = _path(origin, "context", str(table["context"]), toplevel)
    folder = _star(origin, "context", context)
    located: dict[str, str | None] = {}
    for key in ("sessions", "reference"):
        raw = table.get(key)
        if raw is None or (key == "sessions" and raw == IN_CONTEXT):
            located[key] = raw
            continue
        path = _path(origin, key, str(raw), toplevel)
        if _star(origin, key, path) != folder:
            raise _refuse(
                origin, key, path,
                f"must sit under the same `*` as `context` ({context})" if folder is not None
                else "has a `*` but `context` has none",
                "use one `*` in the same place in `context`, `sessions` and `reference`",
            )  # fmt: skip
        located[key] = path
    name = table.get("name")
    if name is not None and ("/" in name or name.strip() != name or name in (".", "..")):
        raise _refuse(
            origin, "name", name, "a project id is one plain name",
            "name the project as its id, without `/` or surrounding spaces",
        )  # fmt: skip
    if name is not None and folder is not None:
        raise _refuse(
            origin, "name", name, "a layout with `*` names each project by what `*` matched",
            "remove `name`, or drop the `*` from `context`",
        )  # fmt: skip
    fields = table.get("fields", {})
    matched = [("context", f"declared in {origin}")]
    return Layout(
        kind=DECLARED,
        context=context,
        sessions=located["sessions"],
        reference=located["reference"],
        name=name,
        budget=int(table.get("budget", 0)),
        work_ignore=tuple(str(glob) for glob in table.get("work_ignore", ())),
        order=table.get("order"),
        fields=LayoutFields(
            last_session=_names(fields, "last_session", DEFAULT_LAST_SESSION),
            status=_names(fields, "status", DEFAULT_STATUS),
            phase=_names(fields, "phase", DEFAULT_PHASE),
        ),
        declared=True,
        origin=str(origin),
        matched=tuple(matched),
    )


# -- what a declaration matches -------------------------------------------------------------


def _children(folder: Path, *, files: bool) -> list[str]:
    """The names of ``folder``'s files (or folders), links left out: a near match is a
    suggestion, and never a reason to look through a link (it could lead anywhere)."""
    try:
        with os.scandir(folder) as listing:
            return sorted(
                entry.name
                for entry in listing
                if (
                    entry.is_file(follow_symlinks=False)
                    if files
                    else entry.is_dir(follow_symlinks=False)
                )
            )
    except OSError:
        return []


def _nearest_name(wanted: str, names: list[str]) -> str | None:
    if wanted in names:
        return wanted
    folded = [name for name in names if name.casefold() == wanted.casefold()]
    if folded:
        return folded[0]
    import difflib  # only to word a declaration that matches nothing

    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.75)
    return close[0] if close else None


def near_match(top: Path, relative: str) -> str | None:
    """The file under ``top`` whose path is nearest ``relative``: each part as spelled, else
    in another case, else the closest name; a ``*`` part is any folder. None: nothing near."""
    head, _, rest = relative.partition("/")
    if not rest:
        return _nearest_name(head, _children(top, files=True))
    if head == "*":
        for name in _children(top, files=False):
            if not name.startswith((".", "_")):
                found = near_match(top / name, rest)
                if found is not None:
                    return f"{name}/{found}"
        return None
    folder = _nearest_name(head, _children(top, files=False))
    if folder is None:
        return None
    found = near_match(top / folder, rest)
    return None if found is None else f"{folder}/{found}"


def matches(layout: Layout, toplevel: Path) -> bool:
    """Whether ``layout``'s context names a file there (for a ``*``, in at least one of the
    folders discovery takes as projects)."""
    if not layout.is_glob:
        return (toplevel / layout.context).is_file()
    folder = toplevel / layout.projects_folder
    inner = layout.inner(layout.context) or ""
    return any(
        (folder / name / inner).is_file()
        for name in _children(folder, files=False)
        if not name.startswith((".", "_"))
    )


def require_match(layout: Layout, toplevel: Path) -> None:
    """Exit 2 unless the declared ``context`` matches a file (see the module docstring)."""
    if not layout.declared or matches(layout, toplevel):
        return
    context = layout.context
    what = "no folder holds it" if layout.is_glob else "no such file"
    near = near_match(toplevel, context)
    if near is None:
        create = context
        if layout.is_glob:
            folder = f"{layout.projects_folder}/" if layout.projects_folder else "the root"
            create = f"{layout.inner(context)} in a folder of {folder}"
        raise DoctorError(
            f"config {layout.origin}: key `layout.context` = {context!r} matches nothing in "
            f"{toplevel}: {what}",
            f"create {create}, or declare the file that holds the working memory (relative "
            "to the repository root; `context-doctor layout` shows what detection sees)",
        )
    if layout.is_glob:  # the folder matched stands for the `*` again
        prefix = f"{layout.projects_folder}/" if layout.projects_folder else ""
        _, _, inside = near[len(prefix) :].partition("/")
        declare = f"{prefix}*/{inside}"
    else:
        declare = near
    spelled = near.casefold() == context.casefold() or declare.casefold() == context.casefold()
    hint = "in another case: names are case-sensitive" if spelled else "the nearest file"
    raise DoctorError(
        f"config {layout.origin}: key `layout.context` = {context!r} matches nothing in "
        f"{toplevel}: {what}; {near} is there ({hint})",
        f'declare what is there (`context = "{declare}"`)',
    )
