"""A declared layout: the ``[layout]`` table of the configuration (docs/layouts.md).

The table is validated by ``schemas/config.schema.json`` with the rest of the file; here
its paths are checked for what the schema cannot say. Paths are relative to the
repository root, whichever config file holds them (a user's own ``--config`` too), and
must stay inside it (docs/caches.md: :func:`context_doctor.guards.contain.contained`). ``context``
holds at most one ``*``, and only as a whole folder name before the file
(``services/*/STATUS.md``); ``sessions`` and ``reference`` of such a layout sit under the
same ``*`` (``services/*/sessions``) or are ``"context"``. Every refusal is exit 2 naming
the file and key.
"""

from __future__ import annotations

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
