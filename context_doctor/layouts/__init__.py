"""Layouts (docs/layouts.md): where a repository keeps its working memory, its log and its reference.

The seed's convention (``projects/<id>/`` + ``index.yaml``, or a root ``CONTEXT.md``) is
one layout among those real repositories use for the same job: a file an agent resumes
from, a dated session log, and git history to hold them to. A :class:`Layout` is a value:
discovery builds projects from it, the model reads the files it names, and a check asks
the project (never a path convention) and declares the layout kinds it applies to.

A layout is declared (``[layout]`` in the configuration, :mod:`.declared`) or detected
(:mod:`.detect`, docs/layouts.md's order, one probe per family: :mod:`.seed`,
:mod:`.seed_single`, :mod:`.single_file`, :mod:`.memory_bank`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

SEED: Final = "seed"
"""``projects/<id>/`` with ``projects/index.yaml``: the seed's own layout."""
SEED_SINGLE: Final = "seed-single"
"""A root ``CONTEXT.md``: the seed's single project."""
SINGLE_FILE: Final = "single-file"
"""One working-memory file (``STATUS.md``, ``PROGRESS.md``, ``HANDOFF.md``,
``docs/handoff/state.md``, a ``## Current status`` section of ``CLAUDE.md``/``AGENTS.md``)."""
MEMORY_BANK: Final = "memory-bank"
"""Cline's memory bank: ``memory-bank/activeContext.md``, ``memory-bank/progress.md`` its log."""
DECLARED: Final = "declared"
"""A ``[layout]`` table in the configuration."""

SEED_KINDS: Final = frozenset({SEED, SEED_SINGLE})
"""Where the seed's template, reference sharding, index and structured-state checks apply."""
EVERY_KIND: Final = frozenset({SEED, SEED_SINGLE, SINGLE_FILE, MEMORY_BANK, DECLARED})

IN_CONTEXT: Final = "context"
"""``sessions = "context"``: the log lives inside the context file, under any heading."""

ANOTHER_LAYOUT: Final = "another layout"
"""The not-applicable reason of a check declared for other layout kinds (docs/checks.md)."""
NOT_WORKING_MEMORY: Final = "not working memory"
"""The not-applicable reason of every check on a file that is not working memory (docs/layouts.md)."""

NEWEST_FIRST: Final = "newest-first"
OLDEST_FIRST: Final = "oldest-first"
ORDERS: Final = (NEWEST_FIRST, OLDEST_FIRST)
"""``[layout] order``: how the log's entries are ordered (docs/layouts.md "Order")."""
NEAR: Final = "near the layouts table"
"""How the verdict line names a layout detected off the layouts table (docs/layouts.md
"Near misses"): ``layout SESSION_LOG.md, detected (near the layouts table)``."""

DEFAULT_LAST_SESSION: Final = ("Last session", "Last updated", "Updated")
DEFAULT_STATUS: Final = ("Status",)
DEFAULT_PHASE: Final = ("Phase",)


@dataclass(frozen=True)
class LayoutFields:
    """The header field names the layout's context file uses, case-insensitive (docs/layouts.md)."""

    last_session: tuple[str, ...] = DEFAULT_LAST_SESSION
    status: tuple[str, ...] = DEFAULT_STATUS
    phase: tuple[str, ...] = DEFAULT_PHASE


@dataclass(frozen=True)
class Layout:
    """Where one repository (or source) keeps its records; paths are relative to its root.

    ``context`` may hold one ``*`` as a whole folder name (``services/*/STATUS.md``): one
    project per match, named by what ``*`` matched; ``sessions`` and ``reference`` then
    use the same ``*``. ``sessions`` is a folder of logs, one file, :data:`IN_CONTEXT`, or
    None (no log). ``origin`` says where it came from (the config file declaring it, or
    the probe that found it); ``matched`` what each key matched, for ``context-doctor
    layout``. ``working_memory`` is False only for a root ``CONTEXT.md`` found by the seed's
    name that holds none of the fields and no dated entry (a glossary). ``near``: detected
    off the layouts table (:data:`NEAR`). ``order``: the log's declared order
    (:data:`ORDERS`; None: read from the log itself).
    """

    kind: str
    context: str
    sessions: str | None = None
    reference: str | None = None
    name: str | None = None
    budget: int = 0
    work_ignore: tuple[str, ...] = ()
    fields: LayoutFields = field(default_factory=LayoutFields)
    section: str | None = None  # the heading of the section holding the record (CLAUDE.md)
    declared: bool = False
    origin: str = ""
    matched: tuple[tuple[str, str], ...] = ()
    working_memory: bool = True
    near: bool = False
    order: str | None = None

    @property
    def is_seed(self) -> bool:
        return self.kind in SEED_KINDS

    @property
    def is_glob(self) -> bool:
        return "*" in self.context

    @property
    def how(self) -> str:
        if self.declared:
            return "declared"
        return f"detected ({NEAR})" if self.near else "detected"

    def describe(self) -> str:
        """``layout docs/STATUS.md, detected``: the verdict line's and --show-settings' words."""
        return f"layout {self.context}, {self.how}"

    def split(self, path: str) -> tuple[str, str]:
        """``services/*/STATUS.md`` -> (``services``, ``STATUS.md``): the folder holding the
        projects and the path inside each; a path without ``*`` is (``""``, ``path``)."""
        if "*" not in path:
            return "", path
        before, _, after = path.partition("*")
        return before.rstrip("/"), after.lstrip("/")

    @property
    def projects_folder(self) -> str:
        """The folder whose matching children are the projects (``""``: one project)."""
        return self.split(self.context)[0]

    def inner(self, path: str | None) -> str | None:
        """``path`` as seen from a project's directory (None stays None, ``context`` too)."""
        if path is None or path == IN_CONTEXT:
            return path
        return self.split(path)[1] if self.is_glob else path

    @property
    def records(self) -> tuple[str, ...]:
        """The project-relative paths of its own records (context, log, reference)."""
        found = [self.inner(self.context) or self.context]
        for path in (self.sessions, self.reference):
            inner = self.inner(path)
            if inner is not None and inner != IN_CONTEXT:
                found.append(inner)
        return tuple(found)

    def toml(self) -> str:
        """The ``[layout]`` table a user pastes to declare this layout, each key commented
        with what it matched."""
        notes = dict(self.matched)
        rows: list[tuple[str, str]] = [("context", _quote(self.context))]
        if self.sessions is not None:
            rows.append(("sessions", _quote(self.sessions)))
        if self.reference is not None:
            rows.append(("reference", _quote(self.reference)))
        if self.name is not None:
            rows.append(("name", _quote(self.name)))
        if self.budget:
            rows.append(("budget", str(self.budget)))
        if self.order is not None:
            rows.append(("order", _quote(self.order)))
        if self.work_ignore:
            rows.append(("work_ignore", "[" + ", ".join(_quote(g) for g in self.work_ignore) + "]"))
        lines = ["[layout]"]
        width = max(len(f"{key} = {value}") for key, value in rows)
        for key, value in rows:
            text = f"{key} = {value}"
            note = notes.get(key)
            lines.append(f"{text:<{width}}  # {note}" if note else text)
        if self.fields != LayoutFields():
            lines.append("[layout.fields]")
            for key in ("last_session", "status", "phase"):
                names = getattr(self.fields, key)
                lines.append(f"{key} = [" + ", ".join(_quote(n) for n in names) + "]")
        return "\n".join(lines)


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
