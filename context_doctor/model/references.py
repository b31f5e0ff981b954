"""Whether each reference resolves, and when not, what history says (docs/references.md).

A reference (:mod:`context_doctor.model.reference_text`) is looked up in the work tree
(:mod:`context_doctor.model.repository_tree`) as its syntax implies: a link or an import
relative to the file holding it (``mdc:`` and a leading ``/`` from the repository's top);
a code span or a command's file relative to the file's folder, then to every folder above
it up to the top (a nested ``AGENTS.md`` writes paths from its package or from the root);
a ``cd D`` earlier on the line moves the base. A link without an extension also resolves
as ``.md``, ``.mdx``, or a folder's ``index.md``/``README.md``.

What is not judged even when it does not resolve (the precision rules of
docs/references.md): a path the repository's ignore rules match (a ``.env``, a local
notes folder), a path leading out of the repository, a code span that is the tail of a
tracked path (package shorthand: ``src/tools/`` for ``src/pkg/tools/``), a file name
that a tracked file still has somewhere, a path the same line also names under ``~/``
(a list of where a tool looks), and a code span or command path with no trace in history
(a path that never existed reads as an example or another tree's as often as a typo).

A reference that does not resolve is then told by the history pass (git/removals.py):

* **renamed**: the path was renamed (followed to where it is now); an exact rename is a
  safe fix, a rename with changed contents an unsafe one;
* **deleted**: it was deleted and nothing took its place;
* **lost**: a rename led to a path the tree no longer holds, with no commit removing it
  (a merge moved it): history cannot say where it is;
* **folder removed**: a folder reference whose files all left; or a file that never
  existed in a folder that was emptied;
* **name deleted**: a bare file name whose every file is gone;
* **never existed**: no commit reachable from ``HEAD`` ever held it (links and imports only);
* **no history**: a shallow clone under ``--allow-shallow``, so nothing can be told.

A package script or a recipe is looked up in the nearest ``package.json`` (up to the
top), or the ``Makefile``/``justfile`` of the folder it runs in; when the file cannot be
known (an ``include``, a pattern rule, a filter naming another package), it is not judged.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.removals import Removal, Removals
from context_doctor.model.reference_text import (
    IMPORT,
    LINK,
    OUTSIDE_PATH,
    PACKAGE_SCRIPT,
    RECIPE,
    ROOT_BASE,
    SCRIPT,
    SPAN,
    Reference,
)
from context_doctor.model.repository_tree import FILE, FOLDER, OUTSIDE, RepositoryTree

RENAMED = "renamed"
DELETED = "deleted"
LOST = "lost"
FOLDER_REMOVED = "folder removed"
NAME_DELETED = "name deleted"
NEVER_EXISTED = "never existed"
NO_HISTORY = "no history"
NO_SCRIPT = "no script"
NO_RECIPE = "no recipe"

MAX_RENAME_HOPS = 16
_DOC_EXTENSIONS = (".md", ".mdx")
_FOLDER_INDEXES = ("index.md", "README.md", "index.mdx")


class Hop(NamedTuple):
    """One step of a removed path's story: the commit that took it out, and where it went."""

    removal: Removal
    to: str | None


@dataclass(frozen=True)
class Unresolved:
    """A reference that does not resolve, and what the history says of its target.

    ``document`` is the repository-relative file holding it; ``looked_up`` the
    repository-relative path it names (as the first base reads it). For a rename,
    ``now_at`` is where the target is today and ``rewrite`` the text the reference
    should hold instead (in the reference's own style: relative stays relative);
    ``exact`` says git saw the same bytes on both sides. ``compared`` is False when git
    could not compare the contents of the deleting commit's files (a missing blob):
    then a deletion may have been a move. ``detail`` names the file a script or recipe
    was looked up in.
    """

    document: str
    reference: Reference
    looked_up: str
    state: str
    removal: Removal | None = None
    now_at: str | None = None
    rewrite: str | None = None
    exact: bool = True
    compared: bool = True
    via: tuple[Hop, ...] = ()
    detail: str = ""


def _join(base: str, target: str) -> str:
    joined = (
        posixpath.normpath(posixpath.join(base, target)) if base else posixpath.normpath(target)
    )
    return "" if joined == "." else joined


def _escapes(path: str) -> bool:
    return path == ".." or path.startswith("../")


def _ancestors(folder: str) -> list[str]:
    parts = folder.split("/") if folder else []
    return ["/".join(parts[:end]) for end in range(len(parts), -1, -1)]


class Resolver:
    """Judges references against one repository's tree and its history pass."""

    def __init__(
        self,
        tree: RepositoryTree,
        removals: Removals | None,
        facts: RepositoryFacts | None = None,
    ) -> None:
        self.tree = tree
        self.removals = removals
        self.facts = facts

    def bases(self, document: str, reference: Reference) -> list[str]:
        """The folders ``reference`` is looked up from, in order (repository-relative)."""
        folder = posixpath.dirname(document)
        if reference.base == ROOT_BASE:
            return [""]
        if reference.kind in (LINK, IMPORT):
            return [folder]
        if reference.base:
            moved = [_join(folder, reference.base), _join("", reference.base)]
            return [base for base in dict.fromkeys(moved) if not _escapes(base)]
        return _ancestors(folder)

    def judge(self, documents: Iterable[tuple[str, Iterable[Reference]]]) -> list[Unresolved]:
        """Every reference of ``documents`` ((repository-relative path, references)) that does
        not resolve and that the rules judge, in document and line order."""
        pending: list[tuple[str, Reference, list[str]]] = []
        found: list[Unresolved] = []
        for document, references in documents:
            for reference in references:
                if reference.kind == OUTSIDE_PATH:
                    continue  # outside the repository: counted (``layout``), never judged
                if reference.kind in (PACKAGE_SCRIPT, RECIPE):
                    missing = self._command_target(document, reference)
                    if missing is not None:
                        found.append(missing)
                    continue
                candidates = self._unresolved_candidates(document, reference)
                if candidates:
                    pending.append((document, reference, candidates))
        if pending:
            ignored = self.tree.ignored([path for _, _, paths in pending for path in paths])
            for document, reference, candidates in pending:
                if ignored.intersection(candidates) or reference.home_twin:
                    continue
                verdict = self._history(document, reference, candidates)
                if verdict is not None:
                    found.append(verdict)
        found.sort(key=lambda item: (item.document, item.reference.line, item.reference.column))
        return found

    # -- paths -------------------------------------------------------------------------

    def _unresolved_candidates(self, document: str, reference: Reference) -> list[str]:
        """The paths ``reference`` may name when none of them resolves; [] when one does
        (or when it leads out of the repository: never judged)."""
        candidates: list[str] = []
        for base in self.bases(document, reference):
            path = _join(base, reference.target)
            if _escapes(path) or not path:
                if reference.kind in (LINK, IMPORT):
                    return []  # out of the repository (a sibling checkout): not this tree's
                continue
            kind = self.tree.kind(path)
            if kind in (FILE, FOLDER, OUTSIDE):
                return []
            if reference.kind == LINK and self._resolves_as_document(path):
                return []
            candidates.append(path)
        if not candidates:
            return []
        if reference.kind in (SPAN, SCRIPT):
            target = reference.target.removeprefix("./")
            if ("/" in target.strip("/") or target.endswith("/")) and self.tree.ends_with(target):
                return []  # package shorthand: the tail of a tracked path, or a folder's name
            if "/" not in target and self.tree.named(target):
                return []  # a file of that name exists somewhere: the reader finds it
        return candidates

    def _resolves_as_document(self, path: str) -> bool:
        last = path.rsplit("/", 1)[-1]
        if "." not in last:
            for extension in _DOC_EXTENSIONS:
                if self.tree.kind(path + extension) == FILE:
                    return True
        return any(self.tree.kind(f"{path}/{name}") == FILE for name in _FOLDER_INDEXES)

    # -- history ---------------------------------------------------------------------------

    def _history(
        self, document: str, reference: Reference, candidates: list[str]
    ) -> Unresolved | None:
        looked_up = candidates[0]
        removals = self.removals
        strict = reference.kind in (LINK, IMPORT)
        if removals is None:
            if strict:
                return Unresolved(document, reference, looked_up, NO_HISTORY)
            return None
        for path in candidates:
            removal = removals.get(path)
            if removal is not None:
                return self._removed(document, reference, path, removal)
        for path in candidates:
            inside = removals.under(path)
            if inside and self.tree.kind(path) is None:
                return self._folder_removed(document, reference, path, inside)
        if "/" not in reference.target.strip("./") and reference.kind == SPAN:
            named = [r for r in removals.named(reference.target) if self.tree.kind(r.path) is None]
            if named:
                newest = max(named, key=lambda r: r.authored)
                return Unresolved(document, reference, newest.path, NAME_DELETED, newest)
            return None
        for path in candidates:
            parent = posixpath.dirname(path)
            if parent and self.tree.kind(parent) is None:
                inside = removals.under(parent)
                if inside:
                    newest = max(inside, key=lambda r: r.authored)
                    return Unresolved(
                        document, reference, path, FOLDER_REMOVED, newest, detail=parent
                    )
        if strict and removals.complete:
            return Unresolved(document, reference, looked_up, NEVER_EXISTED)
        return None

    def _removed(
        self, document: str, reference: Reference, path: str, removal: Removal
    ) -> Unresolved:
        """Follow a removed path's renames to where it is today, or to its deletion.

        A chain that ends at a path no commit removed yet the tree does not hold (a
        subtree merged under a folder: the merge's own change is never listed) is looked
        for under the reference's other bases: found there, it is a move (not exact)."""
        hops: list[Hop] = []
        current, exact, compared = removal, True, True
        lost: str | None = None  # a path a rename led to, gone with no commit removing it
        while len(hops) < MAX_RENAME_HOPS:
            new = current.renamed_to
            if new is None and self.facts is not None:
                moves = self.facts.moves_in(current.sha)
                if moves is None:
                    compared = False
                elif current.path in moves:
                    new, exact = moves[current.path], False
            hops.append(Hop(current, new))
            if new is None:
                break
            kind = self.tree.kind(new)
            if kind in (FILE, FOLDER):
                base = self._base_of(document, reference, path)
                return Unresolved(
                    document, reference, path, RENAMED, removal, now_at=new,
                    rewrite=_rewritten(reference, base, path, new), exact=exact,
                    via=tuple(hops),
                )  # fmt: skip
            following = self.removals.get(new) if self.removals is not None else None
            if following is None:
                lost = new
                break
            current = following
        if lost is not None:
            found = self._under_another_base(document, reference, path, lost)
            if found is not None:
                now_at, rewrite = found
                return Unresolved(
                    document, reference, path, RENAMED, removal, now_at=now_at,
                    rewrite=rewrite, exact=False, via=tuple(hops),
                )  # fmt: skip
            return Unresolved(document, reference, path, LOST, removal, via=tuple(hops))
        return Unresolved(
            document, reference, path, DELETED, hops[-1].removal, compared=compared,
            via=tuple(hops),
        )  # fmt: skip

    def _under_another_base(
        self, document: str, reference: Reference, path: str, lost: str
    ) -> tuple[str, str | None] | None:
        """Where ``lost`` (relative to the base ``path`` was found from) is under another of
        the reference's bases, and the text the reference should hold then."""
        used = self._base_of(document, reference, path)
        relative = posixpath.relpath(lost, used or ".")
        if _escapes(relative):
            return None
        for base in self.bases(document, reference):
            if base == used:
                continue
            candidate = _join(base, relative)
            if self.tree.kind(candidate) in (FILE, FOLDER):
                old = _join(base, reference.target)
                return candidate, _rewritten(reference, base, old, candidate)
        return None

    def _folder_removed(
        self, document: str, reference: Reference, path: str, inside: list[Removal]
    ) -> Unresolved | None:
        newest = max(inside, key=lambda r: r.authored)
        last_commit = [r for r in inside if r.sha == newest.sha]
        prefix = path + "/"
        targets: set[str] = set()
        for removal in last_commit:
            rest = removal.path[len(prefix) :]
            new = removal.renamed_to
            if new is None or not new.endswith("/" + rest):
                targets = set()
                break
            targets.add(new[: -len(rest) - 1])
        if self.tree.ignored([removal.path for removal in last_commit]):
            return None  # taken out of git and ignored since: local files, by intent
        if len(targets) == 1:
            (moved,) = targets
            if self.tree.kind(moved) == FOLDER:
                base = self._base_of(document, reference, path)
                return Unresolved(
                    document, reference, path, RENAMED, newest, now_at=moved,
                    rewrite=_rewritten(reference, base, path, moved), via=(Hop(newest, moved),),
                )  # fmt: skip
        return Unresolved(document, reference, path, FOLDER_REMOVED, newest, detail=path)

    def _base_of(self, document: str, reference: Reference, path: str) -> str:
        for base in self.bases(document, reference):
            if _join(base, reference.target) == path:
                return base
        return ""

    # -- scripts and recipes -----------------------------------------------------------

    def _command_target(self, document: str, reference: Reference) -> Unresolved | None:
        folder = posixpath.dirname(document)
        if reference.kind == PACKAGE_SCRIPT:
            if reference.filtered:
                scripts = self.tree.every_package_script
                if scripts and reference.target not in scripts:
                    return Unresolved(
                        document, reference, reference.target, NO_SCRIPT,
                        detail="any package.json of the repository",
                    )  # fmt: skip
                return None
            starts = (
                [_join(folder, reference.base), _join("", reference.base)]
                if reference.base
                else [folder]
            )
            for start in dict.fromkeys(starts):
                if _escapes(start) or self.tree.kind(start) != FOLDER:
                    continue  # a folder that is not there: where it runs is unknown
                for place in _ancestors(start):
                    found = self.tree.package_scripts(place)
                    if found is None:
                        continue
                    scripts = found
                    if reference.target in scripts or self._script_above(place, reference.target):
                        return None
                    where = f"{place}/package.json" if place else "package.json"
                    return Unresolved(
                        document, reference, reference.target, NO_SCRIPT, detail=where
                    )
            return None
        places = (
            [_join(folder, reference.base), _join("", reference.base)]
            if reference.base
            else [folder, ""]
        )
        for place in dict.fromkeys(places):
            if _escapes(place):
                continue
            recipes = self.tree.recipes(place, reference.tool)
            if recipes is None:
                continue
            file, targets = recipes
            if reference.target in targets:
                return None
            return Unresolved(document, reference, reference.target, NO_RECIPE, detail=file)
        return None

    def _script_above(self, place: str, name: str) -> bool:
        for above in _ancestors(place)[1:]:
            scripts = self.tree.package_scripts(above)
            if scripts and name in scripts:
                return True
        return False


def _rewritten(reference: Reference, base: str, old: str, new: str) -> str | None:
    """The text ``reference`` should hold once its target ``old`` is at ``new``, in the same
    style (relative to the same base, ``./`` and a trailing ``/`` kept); None when the
    written text is not the path itself (a fix would have to guess)."""
    written = reference.written
    if reference.kind == LINK and written != reference.target and "%" in written:
        return None  # percent-encoded: rewriting it exactly is not worth a guess
    if reference.base == ROOT_BASE:
        lead = "/" if written.startswith("/") else ""
        text = lead + new
    else:
        text = posixpath.relpath(new, base or ".") if base != new else "."
        if written.startswith("./") and not text.startswith("../"):
            text = "./" + text
    if written.endswith("/") and not text.endswith("/"):
        text += "/"
    if _join(base if reference.base != ROOT_BASE else "", written.lstrip("/")) != old:
        return None
    return text
