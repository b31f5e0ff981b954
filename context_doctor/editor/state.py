"""``state init`` and ``state compile``: what they write, computed before anything is written.

``plan_init`` and ``plan_compile`` read the project (through the model) and
return the exact bytes to write, or raise :class:`StateRefused` naming the
rule; the command writes those bytes through ``context_doctor.write`` only.

Decisions where docs/editor.md is silent:
- ``phase`` falls back to ``"none recorded"`` when the header has no
  ``**Phase:**`` (as ``accepted_baseline`` does); a missing ``**Status:**`` or
  a project with neither a ``Last session`` date nor a dated log entry is
  refused, because those are claims the doctor cannot make.
- ``--plan`` and ``--baseline`` win over the header fields; ``--plan`` is a
  project-relative path.
- ``next_actions`` are the open items (unchecked boxes and plain bullets) of
  the first ``## What's Next …`` section, box and trailing ``(as of …)`` stamp
  removed.
- ``session_id`` is ``null`` (no coordination session is known to the doctor),
  ``repository`` the repository's top-level directory name, ``source_heads``
  ``{source name: HEAD}``.
- ``compile`` removes CONTEXT.md's ``*State as of: …*`` markers (outside code
  and history sections): the block and hashes replace them, and a marker left
  behind is current-looking prose ``semantic-current-state`` reports. Other
  current-looking prose is the author's to reword; compile never touches it.
- ``compile`` refuses (besides an invalid state file) a state whose
  ``project_id`` is not the directory or whose plan does not resolve, and a
  header line that mixes the five block fields with other fields (removing
  it would lose them). Run on an up-to-date project it writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from context_doctor.errors import DoctorError
from context_doctor.guards.text import BOM, newline_of
from context_doctor.model.currency import WHATS_NEXT_TITLE, as_of_markers, without_stamp
from context_doctor.model.document_claims import is_history
from context_doctor.model.documents import Document
from context_doctor.model.project import Project
from context_doctor.model.state_file import (
    FIELD_ORDER,
    STATE_FILE,
    content_hashes,
    find_block,
    read_state,
    render_block,
    resolve_plan,
    schema_problems,
    without_block,
)
from context_doctor.write import WriteRefused
from context_doctor.write.readable import control_message, first_control

BLOCK_FIELDS = ("phase", "status", "last session", "accepted baseline", "controlling plan")
NONE_RECORDED = "none recorded"
_BOX = re.compile(r"^\[[ ]\]\s*")
_FIELD_NAMES = re.compile(r"\*\*([A-Z][^*\n]*?):\*\*")


class StateRefused(WriteRefused):
    """Nothing was written; ``rule`` names why (the command exits 1)."""


@dataclass(frozen=True)
class PlannedWrite:
    path: Path
    data: bytes
    original: bytes | None  # the bytes the plan was computed from (None: a new file)


def serialise(state: dict[str, Any]) -> bytes:
    """The state as written: known fields in schema order, fields it does not know kept last."""
    known = {key: state[key] for key in FIELD_ORDER if key in state}
    ordered = {**known, **{key: value for key, value in state.items() if key not in known}}
    return (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _first(project: Project, name: str) -> str | None:
    fields = project.header(name)
    return fields[0].value.strip() if fields and fields[0].value.strip() else None


def _plan_from_header(project: Project) -> str | None:
    fields = project.header("Controlling plan")
    if not fields:
        return None
    field = fields[0]
    links = [link.href for link in project.context.links if link.line == field.line]
    if links:
        return unquote(links[0])
    return field.value.strip().strip("`") or None


def next_actions(context: Document) -> list[str]:
    headings = context.headings
    section = next(
        (h for h in headings if h.level == 2 and WHATS_NEXT_TITLE.match(h.text)),
        None,
    )
    if section is None:
        return []
    end = next((h.line for h in headings if h.line > section.line and h.level <= 2), None)
    actions: list[str] = []
    for item in context.list_items:
        if item.line <= section.line or (end is not None and item.line >= end):
            continue
        if item.checked:
            continue
        text = _BOX.sub("", without_stamp(item)).strip()
        if text:
            actions.append(text)
    return actions


def _git_head(project: Project) -> str | None:
    return project.source.repository_facts().resolve_commit("HEAD")


def _project_tree(project: Project, head: str | None) -> str | None:
    """The project folder's tree at ``head``, as the upstream compiler records it."""
    if head is None:
        return None
    return project.source.repository_facts().tree_at(head, project.rel_dir or ".")


def _checked(state: dict[str, Any]) -> None:
    problems = schema_problems(state, {})
    if problems:
        raise StateRefused(
            "invalid-state",
            "the state would be invalid: " + "; ".join(p.message for p in problems[:3]),
        )


def plan_init(
    project: Project, *, plan: str | None, baseline: str | None, now: datetime
) -> PlannedWrite:
    path = project.directory / STATE_FILE
    if path.exists() or path.is_symlink():
        raise StateRefused(
            "state-exists",
            f"{project.relative(path)} already exists; edit it and run `context-doctor state "
            "compile` instead",
        )
    project.context.text  # noqa: B018 - an unreadable CONTEXT.md raises Unreadable here
    status = _first(project, "Status")
    if status is None:
        raise StateRefused("no-status", "CONTEXT.md has no `**Status:**` header to take from")
    dates = []
    if project.header_last_session is not None and project.header_last_session[1] is not None:
        dates.append(project.header_last_session[1])
    newest = project.newest_session
    if newest is not None and newest.date is not None:
        dates.append(newest.date)
    if not dates:
        raise StateRefused(
            "no-last-session",
            "neither a `**Last session:**` date nor a dated session entry gives last_session",
        )
    raw_plan = plan if plan is not None else _plan_from_header(project)
    if raw_plan is None:
        raise StateRefused(
            "plan",
            "no controlling plan: add a `**Controlling plan:** [PATH](PATH)` header field or "
            "pass --plan PATH (project-relative)",
        )
    resolved = resolve_plan(project.directory, raw_plan)
    if resolved.normal is None:
        raise StateRefused("plan", f"the controlling plan `{raw_plan}` {resolved.problem}")
    head = _git_head(project)
    state: dict[str, Any] = {
        "schema_version": 1,
        "project_id": project.id,
        "phase": _first(project, "Phase") or NONE_RECORDED,
        "status": status,
        "controlling_plan": resolved.normal,
        "accepted_baseline": baseline
        if baseline is not None
        else (_first(project, "Accepted baseline") or NONE_RECORDED),
        "next_actions": next_actions(project.context),
        "last_session": max(dates).isoformat(),
        "session_id": None,
        "content_hashes": content_hashes(project.directory, resolved.normal),
        "repository": project.source.repository.toplevel.name,
        "project_path": project.rel_dir or ".",
        "git_head": head,
        "project_tree": _project_tree(project, head),
        "source_heads": {project.source.name: head} if head else {},
        "updated_at": now.isoformat(timespec="seconds"),
    }
    state = {key: state[key] for key in FIELD_ORDER}
    _checked(state)
    return PlannedWrite(path, serialise(state), None)


def _line_ending(text: str) -> str:
    return newline_of(text)  # the one CRLF rule (guards/text.py)


def decode_context(raw: bytes, project: Project) -> tuple[Document, bool]:
    """CONTEXT.md parsed from the bytes the writer snapshotted, and whether it had a BOM."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise StateRefused(
            "unreadable", f"{project.context.rel_path} is not valid UTF-8 (byte {error.start})"
        ) from None
    bom = text.startswith(BOM)
    document = Document.from_text(
        text.removeprefix(BOM), project.context.path, project.context.rel_path
    )
    return document, bom


def without_as_of_markers(context: Document) -> tuple[Document, int]:
    """CONTEXT.md without its as-of markers (outside code and history sections), and how many.

    The block and the content hashes replace the body-marker convention (seed:
    "structured state ... replace[s] the older body-marker currency convention"),
    and a marker left behind would be a second current-state authority. A blank
    line that only separated the marker from the text above goes with it.
    """
    markers = [m.line for m in as_of_markers(context) if not is_history(context, m.line)]
    if not markers:
        return context, 0
    lines = context.lines
    drop = set(markers)
    for line in markers:
        after_blank = line == len(lines) or not lines[line].strip()
        if line > 1 and not lines[line - 2].strip() and after_blank:
            drop.add(line - 1)
    text = context.text
    newline = _line_ending(text)
    kept = [line for number, line in enumerate(lines, start=1) if number not in drop]
    rebuilt = newline.join(kept) + (newline if text.endswith(("\n", "\r")) else "")
    return Document.from_text(rebuilt, context.path, context.rel_path), len(markers)


def compiled_context(context: Document, state: dict[str, Any], *, bom: bool = False) -> str:
    """CONTEXT.md's new text with the block rendered from ``state`` in its place."""
    text = context.text
    newline = _line_ending(text)
    lines = context.lines
    block = render_block(state)
    found = find_block(lines)
    if found is not None:
        if found.start == 0 or found.end is None or found.extra_starts:
            raise StateRefused(
                "broken-block",
                "CONTEXT.md's generated block markers are unbalanced or repeated; fix the markers "
                "by hand first",
            )
        new_lines = lines[: found.start - 1] + block + lines[found.end :]
    else:
        header_lines: list[int] = []
        seen_lines = sorted({field.line for field in context.header_fields})
        for number in seen_lines:
            names = [name.strip().casefold() for name in _FIELD_NAMES.findall(lines[number - 1])]
            ours = [name for name in names if name in BLOCK_FIELDS]
            if not ours:
                continue
            if len(ours) != len(names):
                raise StateRefused(
                    "mixed-header-line",
                    f"CONTEXT.md line {number} mixes block fields with other fields; put each "
                    "on its own line first",
                )
            header_lines.append(number)
        if header_lines:
            first = header_lines[0]
            kept = [line for n, line in enumerate(lines, start=1) if n not in header_lines]
            at = first - 1  # header lines before `first` are all kept
            new_lines = kept[:at] + block + kept[at:]
        else:
            title = next((h.line for h in context.headings if h.level == 1), 0)
            after = lines[title:]
            spacer = [""] if title else []
            tail = after if not after or after[0].strip() == "" else ["", *after]
            new_lines = lines[:title] + spacer + block + tail
    ends_with_newline = text.endswith(("\n", "\r"))
    joined = newline.join(new_lines)
    return (BOM if bom else "") + joined + (newline if ends_with_newline or not text else "")


@dataclass(frozen=True)
class CompilePlan:
    writes: list[PlannedWrite]  # CONTEXT.md first, then the state; empty when all is current
    markers_removed: int


def _valid_state(project: Project) -> tuple[dict[str, Any], bytes | None]:
    """The state file's data (valid, this project's) and its bytes; else the refusal."""
    path = project.directory / STATE_FILE
    reading = read_state(path)
    rel = project.relative(path)
    if not reading.present:
        raise StateRefused("no-state", f"{rel} does not exist; run `context-doctor state init`")
    if reading.unreadable is not None:
        raise StateRefused("invalid-state", f"{rel} {reading.unreadable}")
    if reading.data is None:
        detail = "; ".join(problem.message for problem in reading.problems[:3])
        raise StateRefused("invalid-state", f"{rel} is invalid: {detail}")
    state = dict(reading.data)
    if state["project_id"] != project.id:
        raise StateRefused(
            "invalid-state",
            f"{rel}: project_id `{state['project_id']}` is not the directory name `{project.id}`",
        )
    return state, reading.raw


# The fields ``state set`` changes: the claims a person or agent makes. The rest
# (hashes, heads, ids, timestamps) are derived by ``compile``.
SETTABLE = (
    "phase",
    "status",
    "accepted_baseline",
    "controlling_plan",
    "last_session",
    "next_actions",
)
_ITEM = re.compile(r"^\s*(?:[-*+]\s+)?(?:\[[ xX]\]\s+)?")


def set_value(state: dict[str, Any], field: str, value: str) -> dict[str, Any]:
    """``state`` with ``field`` set from ``value`` (next_actions: one action per line)."""
    key = field.strip().casefold().replace("-", "_").replace(" ", "_")
    if key not in SETTABLE:
        raise DoctorError(
            f"--field {field!r} is not a field `state set` changes",
            f"use one of {', '.join(SETTABLE)} (compile derives the others)",
        )
    control = first_control(value)
    if control is not None:  # before the schema, in the write path's words (write/readable.py)
        raise StateRefused("control-character", control_message(control, "the state block"))
    parsed: str | list[str]
    if key == "next_actions":
        parsed = [_ITEM.sub("", line).strip() for line in value.splitlines()]
        parsed = [line for line in parsed if line]
    else:
        parsed = value.strip()
        if "\n" in parsed or "\r" in parsed:
            raise DoctorError(f"--value for {key} holds a line break", "give one line")
    if state.get(key) == parsed:
        raise StateRefused("no-change", f"{key} already says that; nothing to write")
    changed = dict(state, **{key: parsed})
    _checked(changed)
    return changed


def plan_compile(
    project: Project,
    context_raw: bytes,
    *,
    now: datetime,
    change: tuple[str, str] | None = None,
) -> CompilePlan:
    """What ``state compile`` writes (with ``change``: ``state set FIELD VALUE``), or the refusal."""
    path = project.directory / STATE_FILE
    original, raw = _valid_state(project)
    state = set_value(original, *change) if change is not None else original
    resolved = resolve_plan(project.directory, state["controlling_plan"])
    if resolved.normal is None:
        raise StateRefused(
            "plan", f"the controlling plan `{state['controlling_plan']}` {resolved.problem}"
        )
    context, bom = decode_context(context_raw, project)
    context, markers_removed = without_as_of_markers(context)
    new_context = compiled_context(context, state, bom=bom).encode("utf-8")
    hashes = content_hashes(project.directory, resolved.normal)
    hashes["CONTEXT.md"] = hashlib.sha256(without_block(new_context)).hexdigest()
    head = _git_head(project)
    refreshed = dict(
        state, content_hashes=hashes, git_head=head, project_tree=_project_tree(project, head)
    )
    writes: list[PlannedWrite] = []
    if new_context != context_raw:
        writes.append(PlannedWrite(context.path, new_context, context_raw))
    if refreshed != original:
        writes.append(
            PlannedWrite(
                path,
                serialise(dict(refreshed, updated_at=now.isoformat(timespec="seconds"))),
                raw,
            )
        )
    return CompilePlan(writes, markers_removed)
