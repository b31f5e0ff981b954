"""Ids that hold across remotes (docs/layouts.md "Project ids"): what a baseline records of a
single project's id, and how a later run keeps reading it.

A single project's id follows ``[layout] name`` (``context-doctor init`` writes it, and
then nothing else moves it), else the ``origin`` remote's name, else the repository's
folder name. The last two change when a remote is added or renamed (``myproj`` becomes
``myproj-remote``), which would silently re-key ``[per-project-ignores]`` and every
baseline entry. So ``check --write-baseline`` records, for each single project whose id
came from one of those two, the id, where it came from and the repository's root commits
(what every clone shares, whatever its remotes are called); a run reading that baseline
gives the project of the same repository its recorded id back, and ``layout`` says so.

A baseline kept inside the repository of the run's one single project is recognised without
the root commits too (the pre-push hook's checkout may lack them; a baseline written before
ids were recorded has none), when it records, or its entries name, exactly one project.
Anything less certain keeps the derived id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from context_doctor.git.repository import root_commits
from context_doctor.guards.limits import MAX_WRITE_TARGET_BYTES, TooLarge, read_limited
from context_doctor.model.source import Corpus, Source
from context_doctor.pipeline.sources import DERIVED_IDS

IDS_KEY = "projects"
"""The baseline's list of recorded ids: ``{"id", "from", "roots"}`` per single project."""


@dataclass(frozen=True)
class RecordedId:
    project_id: str
    came_from: str
    roots: frozenset[str]


def recorded_ids(corpus: Corpus) -> list[dict[str, Any]]:
    """What ``--write-baseline`` records of the run's single projects whose ids a remote
    could move (sorted, so a rewrite diffs cleanly)."""
    found: list[dict[str, Any]] = []
    for source in corpus.sources:
        if not _derived(source):
            continue
        roots = root_commits(source.repository)
        if roots:
            project = source.projects[0]
            found.append({"id": project.id, "from": source.id_source, "roots": sorted(roots)})
    return sorted(found, key=lambda item: (item["id"], item["roots"]))


def _derived(source: Source) -> bool:
    return (
        source.is_single_project and len(source.projects) == 1 and (source.id_source in DERIVED_IDS)
    )


def _read(path: Path) -> tuple[list[RecordedId], set[str]] | None:
    """The ids a baseline recorded, and the project ids its entries name; None when it
    cannot be read (read_baseline then says why, exit 2)."""
    try:
        data = json.loads(read_limited(path, MAX_WRITE_TARGET_BYTES).decode("utf-8"))
    except (OSError, TooLarge, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    recorded: list[RecordedId] = []
    for item in data.get(IDS_KEY) or []:
        if not isinstance(item, dict):
            continue
        project_id, roots = item.get("id"), item.get("roots")
        if isinstance(project_id, str) and project_id and isinstance(roots, list):
            came_from = item.get("from")
            recorded.append(
                RecordedId(
                    project_id,
                    came_from if isinstance(came_from, str) else "",
                    frozenset(root for root in roots if isinstance(root, str)),
                )
            )
    entries = data.get("findings")
    named = {
        entry["project"]
        for entry in (entries if isinstance(entries, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("project"), str)
    }
    return recorded, named


def keep_recorded_ids(corpus: Corpus, baseline: Path | None) -> None:
    """Give each single project whose id a remote could move the id ``baseline`` recorded
    for its repository (docs/layouts.md "Project ids"); ``id_source`` then says so."""
    if baseline is None or not any(_derived(source) for source in corpus.sources):
        return
    read = _read(baseline)
    if read is None:
        return
    recorded, named = read
    derived = [source for source in corpus.sources if _derived(source)]
    for source in derived:
        project = source.projects[0]
        if project.id in named:
            continue  # the baseline already speaks of this id: nothing moved
        roots = root_commits(source.repository) if recorded else frozenset()
        matches = {item.project_id for item in recorded if item.roots & roots}
        if not matches and len(derived) == 1:
            # A baseline kept inside the repository is its own (the pre-push hook reads it
            # from the pushed tree, whose checkout may not hold the root commits).
            inside = baseline.resolve().is_relative_to(source.repository.toplevel.resolve())
            candidates = {item.project_id for item in recorded} if recorded else named
            matches = candidates if inside and len(candidates) == 1 else set()
        if len(matches) != 1:
            continue
        (kept,) = matches
        if kept == project.id:
            continue
        moved = f"{source.id_source} is now `{project.id}`"
        project.id = kept
        if source.named_by_project:
            source.name = kept
        source.id_source = f"recorded in the baseline {baseline.name} ({moved})"
