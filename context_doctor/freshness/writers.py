"""Writers for the pai-freshness-v1 markers: they change markers, never content.

Four writers, one discipline:

* :func:`review_file` sets ``last_reviewed``/``last_reviewed_by``, the only
  write that resets a grade (refused on a derived file: review its source);
* :func:`touch_file` sets ``last_updated``/``last_updated_by`` only;
* :func:`review_section` updates one ``##`` section's
  ``<!-- updated: YYYY-MM-DD by:NAME -->`` marker and the file's ``last_updated``;
* :func:`migrate_file` adds the frontmatter block (never ``last_reviewed``),
  injecting into an existing block rather than stacking a second one, with a
  backup first (under the repository's git directory, see :func:`backup_directory`).

Frontmatter edits are surgical: ruamel composes the block to locate each
value's exact span, the span alone is replaced (keeping its quoting style) or a
new ``key: value`` line is added, and every other byte of the block - key
order, comments, quoting, indentation - stays as the user wrote it.  (A full
ruamel dump would also re-indent sequences and re-wrap long lines.)

Every write is checked twice: the would-be text is re-parsed before anything
touches the disk (frontmatter holds exactly the intended values, every other
key unchanged, and the text outside the block byte-identical by sha256, or for
a section only the marker line differs), then the file is written atomically
and the same checks run again on what was read back.  A file's BOM and line
ends (CRLF included) are preserved.  ``now`` is always passed in: nothing here
reads the clock.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml.nodes import Node, ScalarNode

from context_doctor.errors import DoctorError
from context_doctor.freshness.block_edit import block_pairs, edit_block, node_shape, yaml_scalar
from context_doctor.freshness.frontmatter import (
    CONVENTION,
    SECTION_MARKER,
    read_frontmatter,
    section_slug,
    split_frontmatter,
)
from context_doctor.git.repository import doctor_directory
from context_doctor.guards.text import (
    BOM,
    decode_utf8,
    lines_with_ends,
    newline_of,
)
from context_doctor.write import (
    WriteRefused,
    ensure_directory,
    inside,
    read_snapshot,
    repository_root,
    update_file,
    write_file,
)

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

BACKUP_DIRECTORY = "Backups"
MIGRATION_AUTHOR = "migration"
_MARKER_WINDOW = 3  # a marker belongs to a heading within the three lines under it

MIGRATED = "migrated"
ALREADY_MIGRATED = "already migrated"
WOULD_MIGRATE = "would migrate"


@dataclass(frozen=True)
class MigrateResult:
    """What :func:`migrate_file` did, or under ``dry_run`` would do."""

    path: Path
    action: str  # MIGRATED, ALREADY_MIGRATED or WOULD_MIGRATE
    backup: Path | None  # the backup written (None when nothing was written)
    keys: tuple[str, ...]  # the frontmatter keys set (empty when already migrated)
    injected: bool  # into an existing block (False: a new block at the top)

    @property
    def changed(self) -> bool:
        return self.action == MIGRATED


def timestamp_text(now: datetime) -> str:
    """ISO-8601 with the offset, to the second: ``2026-05-04T03:00:00-07:00``."""
    _require_aware(now)
    return now.isoformat(timespec="seconds")


def marker_text(day: str, by: str) -> str:
    return f"<!-- updated: {day} by:{by} -->"


# -- the writers --------------------------------------------------------------


def review_file(path: Path, by: str, now: datetime) -> bool:
    """Set ``last_reviewed``/``last_reviewed_by``; False when they already hold these values."""
    _check_name(by, path)
    return _rewrite(path, lambda current: _review(current, path, by, now))


def _review(current: _File, path: Path, by: str, now: datetime) -> str | None:
    _require_convention(current)
    derived = current.data.get("derived_from")
    if derived:
        source = _find_source(current.path, str(derived))
        where = f" ({source})" if source is not None else " (not a file in its repository)"
        remedy = (
            f"review the source instead: `context-doctor freshness review {shlex.quote(str(source))}`"
            if source is not None
            else f"fix derived_from in {path}, then review the source"
        )
        raise DoctorError(
            f"{path} is derived from {derived}{where}; a regenerated file is not a reviewed file",
            remedy,
        )
    return _set_fields(current, {"last_reviewed": timestamp_text(now), "last_reviewed_by": by})


def touch_file(path: Path, by: str, now: datetime) -> bool:
    """Set ``last_updated``/``last_updated_by`` only (generators, migrations); never the grade."""
    _check_name(by, path)
    updates = {"last_updated": timestamp_text(now), "last_updated_by": by}

    def touch(current: _File) -> str | None:
        _require_convention(current)
        return _set_fields(current, updates)

    return _rewrite(path, touch)


def review_section(path: Path, slug: str, by: str, now: datetime) -> bool:
    """Update one ``##`` section's marker (inserting it under the heading if absent)
    and the file's ``last_updated``/``last_updated_by``; False when both already hold these values.
    """
    _check_name(by, path, in_marker=True)
    _require_aware(now)
    return _rewrite(path, lambda current: _review_section(current, path, slug, by, now))


def _review_section(current: _File, path: Path, slug: str, by: str, now: datetime) -> str | None:
    _require_convention(current)
    assert current.block is not None and current.head is not None
    wanted = section_slug(slug)
    sections = _sections(current.body)
    matching = [section for section in sections if section.slug == wanted]
    if not matching:
        known = ", ".join(dict.fromkeys(section.slug for section in sections)) or "none"
        raise DoctorError(
            f"{path} has no `##` section with slug {wanted!r} (known slugs: {known})",
            "pass one of the known slugs, or add the `##` heading first",
        )
    if len(matching) > 1:
        where = ", ".join(str(current.body_line(section.first)) for section in matching)
        raise DoctorError(
            f"{path} has {len(matching)} `##` sections with slug {wanted!r} (lines {where})",
            "rename the headings so each section's slug is unique",
        )
    section = matching[0]
    _require_aware(now)
    day = now.date().isoformat()
    new_marker = marker_text(day, by)
    lines = _split_lines(current.body)
    if section.marker_line is not None:
        old_line = lines[section.marker_line]
        found = SECTION_MARKER.search(old_line)
        assert found is not None
        marker_unchanged = found.group(1) == day and found.group(2) == by
        lines[section.marker_line] = (
            old_line[: found.start()] + new_marker + old_line[found.end() :]
        )
        marker_index = section.marker_line
    else:
        marker_unchanged = False
        marker_index = section.last + 1
        heading_line = lines[section.last]
        if heading_line.endswith(("\n", "\r")):
            lines.insert(marker_index, new_marker + current.newline)
        else:  # the heading ends the file without a line break
            lines[section.last] = heading_line + current.newline
            lines.insert(marker_index, new_marker)
    updates = {"last_updated": timestamp_text(now), "last_updated_by": by}
    if marker_unchanged and _holds(current, updates):
        return None
    new_block = _block_edited(current, updates)
    new_body = "".join(lines)
    new_text = _assemble(current.bom, _new_head(current, new_block), new_body)

    def verify(text: str) -> None:
        after = _parse(current.path, text, "the rewritten file")
        _check_block(current, after, updates)
        _check_only_marker_changed(current, after, wanted, marker_index, new_marker)

    return _verified(new_text, verify)


def migrate_file(path: Path, by: str, now: datetime, dry_run: bool = False) -> MigrateResult:
    """Add pai-freshness-v1 frontmatter (``last_updated``, ``last_updated_by``, ``convention``).

    Injects into an existing leading block, else puts a new block at the very
    top (above a leading HTML comment); never writes ``last_reviewed``.  A file
    that already declares the convention and carries ``last_updated`` is left
    alone, so a second run changes nothing.
    """
    _check_name(by, path)
    if dry_run:
        planned = _plan_migration(_read(path), now, by)
        if planned is None:
            return MigrateResult(path, ALREADY_MIGRATED, None, (), True)
        return MigrateResult(path, WOULD_MIGRATE, None, planned.keys, planned.injected)
    done: list[tuple[_Migration, Path]] = []

    def migrate(current: _File) -> str | None:
        planned = _plan_migration(current, now, by)
        if planned is None:
            return None
        # The backup holds exactly the bytes about to be replaced (re-made if a retry reads anew).
        done[:] = [(planned, _backup(current, now))]
        return planned.text

    if not _rewrite(path, migrate):
        return MigrateResult(path, ALREADY_MIGRATED, None, (), True)
    planned, backup = done[0]
    return MigrateResult(path, MIGRATED, backup, planned.keys, planned.injected)


@dataclass(frozen=True)
class _Migration:
    text: str
    keys: tuple[str, ...]
    injected: bool


def _plan_migration(current: _File, now: datetime, by: str) -> _Migration | None:
    """The migrated text, verified (None when the file is already migrated)."""
    path = current.shown
    convention = current.data.get("convention")
    if convention is not None and convention != CONVENTION:
        raise DoctorError(
            f"{path} declares convention {convention!r}, not {CONVENTION}",
            f"convert it to {CONVENTION} by hand; migrate only writes {CONVENTION}",
        )
    if (
        current.head is not None
        and convention == CONVENTION
        and _present(current.data, "last_updated")
    ):
        return None
    updates = {"last_updated": timestamp_text(now), "last_updated_by": by}
    if convention is None:
        updates["convention"] = CONVENTION
    if current.head is not None:
        new_text = _assemble(
            current.bom, _new_head(current, _block_edited(current, updates)), current.body
        )
        injected = True
    else:
        _refuse_buried_block(current)
        nl = current.newline
        block = "".join(
            f"{key}: {yaml_scalar(key, value, None)}{nl}" for key, value in updates.items()
        )
        new_text = _assemble(current.bom, f"---{nl}{block}---{nl}", current.body)
        injected = False

    def verify(text: str) -> None:
        after = _parse(current.path, text, "the migrated file")
        _check_block(current, after, updates)
        _check_body(current, after)

    # Verified before any backup is made: a refused migration leaves no trace.
    return _Migration(_verified(new_text, verify), tuple(updates), injected)


# -- reading ------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    path: Path  # absolute, symlinks not resolved (the write path refuses them)
    shown: Path  # as the user named it, for messages
    raw: bytes
    bom: str
    head: str | None  # opening fence + block + closing fence
    block: str | None
    body: str  # everything after the head (the whole text, BOM aside, without one)
    data: dict[str, Any]
    newline: str

    def body_line(self, index: int) -> int:
        """1-based file line of the body's 0-based line ``index``."""
        head_lines = len(_split_lines(self.head)) if self.head else 0
        return head_lines + index + 1


def _read(path: Path) -> _File:
    """Read the file once through the write path (a symlink is refused, never followed)."""
    return _decode(path, read_snapshot(path, within=repository_root(path)).data)


def _decode(path: Path, raw: bytes) -> _File:
    text, problem = decode_utf8(raw)
    if text is None:
        raise DoctorError(f"{path} {problem}", "re-save the file as UTF-8")
    return _parse(Path(os.path.abspath(path)), text, str(path), raw=raw, shown=path)


def _rewrite(path: Path, plan: Callable[[_File], str | None]) -> bool:
    """Apply ``plan`` to the file's current bytes and write its text through :mod:`write`.

    ``plan`` returns the new text, already verified, or None when the file holds
    it already. Under the write lock, it is run again on fresh bytes when the
    file changed meanwhile, so a concurrent review and touch both land.
    """

    def transform(raw: bytes) -> bytes:
        new_text = plan(_decode(path, raw))
        return raw if new_text is None else new_text.encode("utf-8")

    return update_file(path, transform, within=repository_root(path))


def _parse(
    path: Path, text: str, what: str, *, raw: bytes | None = None, shown: Path | None = None
) -> _File:
    bom = BOM if text.startswith(BOM) else ""
    try:
        parts = split_frontmatter(text)
    except ValueError as error:
        raise DoctorError(
            f"{what}: {error}", "close the block with a `---` line, or remove the stray `---`"
        ) from error
    front, problem = read_frontmatter(text)
    if problem is not None:
        raise DoctorError(f"{what}: {problem}", "fix the frontmatter by hand, then rerun")
    newline = newline_of(text)
    if parts is None:
        head, block, body = None, None, text.removeprefix(BOM)
    else:
        head, block, body = parts
    return _File(
        path=path,
        shown=shown if shown is not None else path,
        raw=raw if raw is not None else text.encode("utf-8"),
        bom=bom,
        head=head,
        block=block,
        body=body,
        data=front.data if front is not None else {},
        newline=newline,
    )


def _require_convention(current: _File) -> None:
    path = current.shown
    if current.head is None:
        raise DoctorError(
            f"{path} has no freshness frontmatter",
            f"run `context-doctor freshness migrate {shlex.quote(str(path))}` first",
        )
    convention = current.data.get("convention")
    if convention is None:
        raise DoctorError(
            f"{path}'s frontmatter does not declare convention: {CONVENTION}",
            f"run `context-doctor freshness migrate {shlex.quote(str(path))}` first",
        )
    if convention != CONVENTION:
        raise DoctorError(
            f"{path} declares convention {convention!r}, not {CONVENTION}",
            f"convert it to {CONVENTION} by hand; these writers only speak {CONVENTION}",
        )


def _find_source(path: Path, derived: str) -> Path | None:
    """``derived_from`` is relative to the tree's root: try each directory upward.

    Only inside the file's repository (outside git: its directory): a path that leads
    out of it is not looked at, so the refusal cannot tell whether it exists (docs/caches.md).
    """
    tree = repository_root(path) or path.parent
    for base in path.parents:
        candidate = Path(os.path.normpath(base / derived))
        if inside(candidate, tree) and candidate.is_file():
            return candidate
        if base == tree:
            break
    return None


def _refuse_buried_block(current: _File) -> None:
    first = next((line for line in _split_lines(current.body) if line.strip()), "")
    if first.strip() == "---":
        raise DoctorError(
            f"{current.shown} has blank lines above a `---` block, so that block is not frontmatter",
            "remove the blank lines so the block opens the file (migrate then injects into it)",
        )


def _check_name(by: str, path: Path, in_marker: bool = False) -> None:
    if not by.strip() or any(ord(char) < 32 or ord(char) == 127 for char in by):
        raise DoctorError(
            f"cannot record {by!r} as the author for {path}: empty or holds control characters",
            "pass --by NAME",
        )
    if in_marker and (any(char.isspace() for char in by) or "--" in by):
        raise DoctorError(
            f"cannot put {by!r} in a section marker of {path}: names there are one word without `--`",
            "pass --by NAME without spaces",
        )


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("`now` must be timezone-aware")


def _present(data: dict[str, Any], key: str) -> bool:
    return data.get(key) not in (None, "")


# -- frontmatter edits (freshness/block_edit.py) -----------------------------


def _block_edited(current: _File, updates: dict[str, str]) -> str:
    assert current.block is not None
    return edit_block(current.block, updates, shown=current.shown, newline=current.newline)


def _holds(current: _File, updates: dict[str, str]) -> bool:
    """Do the frontmatter's values already read exactly as ``updates``?"""
    assert current.block is not None
    values = dict(block_pairs(current.block))
    return all(
        isinstance(values.get(key), ScalarNode) and values[key].value == value
        for key, value in updates.items()
    )


def _set_fields(current: _File, updates: dict[str, str]) -> str | None:
    if _holds(current, updates):
        return None
    new_text = _assemble(
        current.bom, _new_head(current, _block_edited(current, updates)), current.body
    )

    def verify(text: str) -> None:
        after = _parse(current.path, text, "the rewritten file")
        _check_block(current, after, updates)
        _check_body(current, after)

    return _verified(new_text, verify)


def _new_head(current: _File, new_block: str) -> str:
    assert current.head is not None and current.block is not None
    opening = _split_lines(current.head)[0]
    closing = current.head[len(opening) + len(current.block) :]
    return opening + new_block + closing


# -- sections -----------------------------------------------------------------


@dataclass(frozen=True)
class _Section:
    slug: str
    first: int  # 0-based body line of the heading
    last: int  # its last line (a setext heading's underline)
    marker_line: int | None  # 0-based body line of its marker


def _split_lines(text: str) -> list[str]:
    return lines_with_ends(text)


@cache
def _heading_parser() -> MarkdownIt:
    """Block rules only; built on first use, so a run that writes nothing never imports it."""
    from markdown_it import MarkdownIt  # a third-party import deferred for start-up time

    return MarkdownIt("commonmark", {"html": True}).disable("inline")


def _sections(body: str) -> list[_Section]:
    """``##`` sections of the body (headings inside code never count) and their markers."""
    lines = _split_lines(body)
    tokens = _heading_parser().parse(body)
    headings: list[tuple[int, int, int, str]] = []  # level, first, last, text
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            text = tokens[index + 1].content.strip()
            headings.append((int(token.tag[1:]), token.map[0], token.map[1] - 1, text))
    sections: list[_Section] = []
    for position, (level, first, last, text) in enumerate(headings):
        if level != 2:
            continue
        following = headings[position + 1][1] if position + 1 < len(headings) else len(lines)
        window = range(first + 1, min(first + 1 + _MARKER_WINDOW, following, len(lines)))
        marker = next((number for number in window if SECTION_MARKER.search(lines[number])), None)
        sections.append(_Section(section_slug(text), first, last, marker))
    return sections


def _check_only_marker_changed(
    before: _File, after: _File, slug: str, index: int, marker: str
) -> None:
    old, new = _split_lines(before.body), _split_lines(after.body)
    found = [section for section in _sections(after.body) if section.slug == slug]
    problems: list[str] = []
    if len(found) != 1 or found[0].marker_line != index:
        problems.append("the section's marker is not where it was written")
    elif marker not in new[index]:
        problems.append("the marker line does not hold the new marker")
    rest = "".join(new[:index] + new[index + 1 :])
    if len(new) == len(old):  # a marker replaced in place
        unchanged_around = SECTION_MARKER.sub("", new[index]) == SECTION_MARKER.sub("", old[index])
        if new[:index] + new[index + 1 :] != old[:index] + old[index + 1 :] or not unchanged_around:
            problems.append("lines other than the marker differ")
    elif len(new) == len(old) + 1:  # a marker inserted under its heading
        ends_open = not before.body.endswith(("\n", "\r"))
        if not (rest == before.body or (ends_open and rest == before.body + before.newline)):
            problems.append("lines other than the marker differ")
    else:
        problems.append("the body gained or lost lines")
    if before.bom != after.bom:
        problems.append("the byte-order mark changed")
    if problems:
        raise DoctorError(
            f"refusing to write {before.shown}: {'; '.join(problems)}",
            "nothing was written; report this with the file",
        )


# -- checks and writing -------------------------------------------------------


def _assemble(bom: str, head: str, body: str) -> str:
    """The file's new text: BOM, frontmatter block, then the body as it was."""
    return bom + head + body


def _outside_digest(current: _File) -> str:
    """sha256 of everything outside the frontmatter block (the BOM included)."""
    return hashlib.sha256((current.bom + current.body).encode("utf-8")).hexdigest()


def _check_body(before: _File, after: _File) -> None:
    if _outside_digest(before) != _outside_digest(after):
        raise DoctorError(
            f"refusing to write {before.shown}: the text outside the frontmatter block would change "
            f"(sha256 {_outside_digest(before)[:12]} -> {_outside_digest(after)[:12]})",
            "nothing was written; report this with the file",
        )


def _check_block(before: _File, after: _File, updates: dict[str, str]) -> None:
    """The new block holds ``updates`` and every other key exactly as before, in order."""
    problems: list[str] = []
    if after.block is None:
        problems.append("there is no frontmatter block")
        old_pairs: list[tuple[str, Node]] = []
        new_pairs: list[tuple[str, Node]] = []
    else:
        old_pairs = block_pairs(before.block) if before.block is not None else []
        new_pairs = block_pairs(after.block)
    old = {key: node_shape(node) for key, node in old_pairs}
    new = dict(new_pairs)
    if after.block is not None and after.data.get("convention") != CONVENTION:
        problems.append(f"convention is not {CONVENTION}")
    if [key for key, _ in new_pairs if key in old] != [key for key, _ in old_pairs]:
        problems.append("the keys' order changed")
    if set(new) != set(old) | set(updates):
        problems.append("keys were added or lost")
    for key, value in updates.items():
        node = new.get(key)
        if not isinstance(node, ScalarNode) or node.value != value:
            problems.append(f"`{key}` does not read {value!r}")
    for key, shape in old.items():
        if key not in updates and key in new and node_shape(new[key]) != shape:
            problems.append(f"`{key}` changed")
    if problems:
        raise DoctorError(
            f"refusing to write {before.shown}: the frontmatter would not be as intended "
            f"({'; '.join(problems)})",
            "nothing was written; report this with the file's frontmatter",
        )


def _verified(new_text: str, verify: Callable[[str], None]) -> str:
    """The would-be text, once ``verify`` accepts it (write.py then confirms the bytes on disk)."""
    verify(new_text)
    return new_text


def backup_directory(path: Path) -> Path:
    """Where ``migrate`` keeps the original of ``path`` (docs/editor.md).

    In a git repository: ``<git-common-dir>/context-doctor/backups/<dir of the
    file>/``, outside the work tree, so `git add -A` never commits a backup.
    Outside one: ``Backups/`` beside the file.
    """
    return _backup_place(path)[0]


def _backup_place(path: Path) -> tuple[Path, Path]:
    """The backup directory of ``path`` and the directory its writes must stay within."""
    parent = Path(os.path.abspath(path)).parent
    root = repository_root(path)
    if root is None:
        return parent / BACKUP_DIRECTORY, parent
    home = doctor_directory(root)  # refuses a symlinked .git/context-doctor
    return home / "backups" / parent.relative_to(root), home


def _backup(current: _File, now: datetime) -> Path:
    """Copy the original bytes to ``<name>.<timestamp>[.N].bak`` under :func:`backup_directory`.

    Each name is claimed exclusively, so two migrations in the same second never
    overwrite each other's backup.
    """
    directory, within = _backup_place(current.shown)
    stamp = now.strftime("%Y%m%dT%H%M%S%z")
    try:
        mode = stat.S_IMODE(os.stat(current.path, follow_symlinks=False).st_mode) & 0o777
    except OSError:
        mode = 0o600
    ensure_directory(directory, within=within)
    for number in count():
        suffix = f".{number}" if number else ""
        candidate = directory / f"{current.path.name}.{stamp}{suffix}.bak"
        try:
            write_file(candidate, current.raw, mode=mode, exclusive=True, within=within)
        except WriteRefused as refusal:
            if refusal.rule == "exists":
                continue
            raise
        return candidate
    raise AssertionError("unreachable")
