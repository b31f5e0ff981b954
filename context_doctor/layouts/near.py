"""Near misses (docs/layouts.md "Near misses"): working memory kept just off the layouts table.

After every shape of the layouts table, detection looks for these, in order, each file
name in any case:

1. ``SESSION_LOG.md``, then ``docs/SESSION_LOG.md``: a log that is its own record;
2. ``.claude/STATUS.md``;
3. ``docs/session-handoff.md``;
4. ``STATUS.md``, ``PROGRESS.md``, ``HANDOFF.md`` at the root or under ``docs/`` in another
   case (``progress.md``, ``docs/Status.md``);
5. ``NOTES.md``, then ``docs/NOTES.md``, with dated entries;
6. ``SESSION_HANDOFF.md``, ``PROJECT_STATUS.md``, ``.planning/STATE.md``,
   ``docs/SESSION_NOTES.md``, ``context/STATUS.md``.

A case variant of a table's name (4) and ``.claude/STATUS.md`` are working memory by their
role, as the table's own names are. Every other near miss is taken only when it says so:
a date field (a date line among its first lines, a last-session field, an ``<!-- Updated:
… -->`` comment) or a dated entry; ``NOTES.md`` only with a dated entry. A near-miss file
without them (a design document named ``session-handoff.md``) is *seen*, never audited:
``context-doctor layout`` names it, with the ``[layout]`` table that declares it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from context_doctor.guards.dates import find_date
from context_doctor.layouts import DEFAULT_LAST_SESSION, IN_CONTEXT, Layout
from context_doctor.layouts.single_file import find_named, layout_of
from context_doctor.layouts.tree import Tree
from context_doctor.layouts.words import (
    FIRST_LINES,
    date_line,
    dated_entry_line,
    field_name,
    numbered_prose_lines,
)

ROLE = "role"
"""Working memory by its name, as the layouts table's names are."""
DATED = "dated"
"""Working memory when it holds a date field or a dated entry."""
ENTRIES = "entries"
"""Working memory when it holds a dated entry."""


@dataclass(frozen=True)
class NearMiss:
    """One place of the list: its path, what makes it working memory, whether it is its
    own log."""

    path: str
    needs: str
    own_log: bool = False


NEAR_MISSES: tuple[NearMiss, ...] = (
    NearMiss("SESSION_LOG.md", DATED, own_log=True),
    NearMiss("docs/SESSION_LOG.md", DATED, own_log=True),
    NearMiss(".claude/STATUS.md", ROLE),
    NearMiss("docs/session-handoff.md", DATED),
    *(
        NearMiss(f"{folder}{name}", ROLE)
        for name in ("STATUS.md", "PROGRESS.md", "HANDOFF.md")
        for folder in ("", "docs/")
    ),
    NearMiss("NOTES.md", ENTRIES),
    NearMiss("docs/NOTES.md", ENTRIES),
    NearMiss("SESSION_HANDOFF.md", DATED),
    NearMiss("PROJECT_STATUS.md", DATED),
    NearMiss(".planning/STATE.md", DATED),
    NearMiss("docs/SESSION_NOTES.md", DATED),
    NearMiss("context/STATUS.md", DATED),
)
SHAPE = (
    "near misses: SESSION_LOG.md, .claude/STATUS.md, progress.md in any case, NOTES.md with "
    "dated entries, and the others of docs/layouts.md"
)
_LAST_SESSION = frozenset(name.casefold() for name in DEFAULT_LAST_SESSION)


def _dated(lines: list[str], *, entries_only: bool) -> str | None:
    """What dates ``lines`` as working memory (None: nothing does)."""
    for number, line in numbered_prose_lines(lines):
        if dated_entry_line(line):
            return "dated entries"
        if entries_only:
            continue
        if number <= FIRST_LINES and date_line(line) is not None:
            return "a date line"
        if ":" in line and field_name(line) in _LAST_SESSION and find_date(line) is not None:
            return "a last-session field"
        if "<!--" in line and "updated" in line.casefold() and find_date(line) is not None:
            return "an `<!-- Updated: -->` comment"
    return None


@dataclass(frozen=True)
class Seen:
    """A near-miss file detection saw and did not take, and why not."""

    path: str
    why: str
    layout: Layout  # the layout that declares it


def survey(tree: Tree) -> tuple[Layout | None, tuple[Seen, ...]]:
    """The first near miss that is working memory (None: none is), and the near-miss files
    seen before it that are not."""
    seen: list[Seen] = []
    for place in NEAR_MISSES:
        path = find_named(tree, place.path)
        if path is None:
            continue
        if place.needs == ROLE:
            spelled = "its name in another case" if path != place.path else "by its name"
            return layout_of(tree, path, near=spelled), tuple(seen)
        lines = tree.lines(path) or []
        why = _dated(lines, entries_only=place.needs == ENTRIES)
        missing = "no dated entry" if place.needs == ENTRIES else "no date field and no dated entry"
        found = layout_of(tree, path, near=why or missing, working=why is not None)
        if place.own_log:
            found = _own_log(found, path, dated=why is not None)
        if why is not None:
            return found, tuple(seen)
        seen.append(Seen(path, missing, found))
    return None, tuple(seen)


def _own_log(found: Layout, path: str, *, dated: bool) -> Layout:
    """A ``SESSION_LOG.md`` is its own log, whatever lies beside it. The comment says only
    what was read (docs/layouts.md "Quiet where nothing is claimed"): an undated one is
    offered as its own log that holds no dated entry yet."""
    notes = dict(found.matched)
    notes["sessions"] = (
        f"the dated entries inside {path} (a log that is its own record)"
        if dated
        else f"{path} is its own log (it holds no dated entry yet)"
    )
    return replace(found, sessions=IN_CONTEXT, matched=tuple(notes.items()))


def probe(tree: Tree) -> Layout | None:
    return survey(tree)[0]
