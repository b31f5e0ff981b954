"""The ``freshness`` summary: grading the files under paths, and the 4 KiB statusline cache."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from context_doctor.config.settings import (
    FreshnessConfig,
    RegistryEntry,
    config_tree,
    find_config,
    read_freshness,
    validate_config,
)
from context_doctor.errors import DoctorError
from context_doctor.freshness.frontmatter import slug_of
from context_doctor.freshness.grades import GradedFile, grade_files, summarize
from context_doctor.guards.escape import clean_json, escape_undecodable
from context_doctor.write import ensure_directory, repository_root, write_file

CACHE_LIMIT = 4096
DEFECT_CHECKS = frozenset({"freshness-malformed"})


def freshness_config(directories: list[Path], explicit: Path | None) -> FreshnessConfig:
    """The ``[freshness]`` table of the config found for ``directories`` (or ``--config``)."""
    found = find_config(directories, explicit)
    if found is None:
        return FreshnessConfig()
    path, data = found
    validate_config(data, str(path))
    return read_freshness(path, data, within=config_tree(path, explicit))


def grade_paths(paths: list[Path], today: date, config: Path | None) -> list[GradedFile]:
    """Grade the files under each directory (and each file given by name)."""
    missing = [path for path in paths if not path.exists()]
    if missing:
        raise DoctorError(f"{missing[0]} does not exist", "check the path")
    directories = [path.resolve() for path in paths if path.is_dir()]
    freshness = freshness_config(directories, config)
    registry, thresholds = freshness.registry, freshness.thresholds
    graded: list[GradedFile] = []
    for path in paths:
        resolved = path.resolve()
        if resolved.is_dir():
            mine = [entry for entry in registry if Path(entry.path).is_relative_to(resolved)]
            graded += grade_files(resolved, mine, today, thresholds=thresholds)
        else:
            entry = RegistryEntry(slug=slug_of(resolved.name), path=str(resolved))
            graded += grade_files(
                resolved.parent, [entry], today, discover=False, thresholds=thresholds
            )
    if not graded:
        where = ", ".join(str(path) for path in paths)
        raise DoctorError(
            f"nothing to grade: no file in {where} declares `convention: pai-freshness-v1` and "
            "none is registered",
            "add freshness frontmatter (`context-doctor freshness migrate` on each file) or a "
            "[freshness] registry to context-doctor.toml",
        )
    return graded


def statusline_cache(summary: dict[str, Any], files: list[GradedFile], generated_at: str) -> bytes:
    """The summary plus ``generated_at``, kept under 4 KiB by dropping the freshest files."""
    payload = clean_json({**summary, "generated_at": generated_at})
    encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(encoded) < CACHE_LIMIT:
        return encoded
    ranked = [escape_undecodable(item.rel_path) for item in sorted(files, key=GradedFile.staleness)]
    for keep in range(len(ranked) - 1, -1, -1):
        kept = set(ranked[:keep])
        payload["files"] = [
            entry for entry in clean_json(summary["files"]) if entry["path"] in kept
        ]
        payload["files_omitted"] = len(summary["files"]) - len(payload["files"])
        encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(encoded) < CACHE_LIMIT:
            return encoded
    raise DoctorError(
        "the freshness summary does not fit the 4 KiB statusline cache even without files",
        "shorten the registry's slugs and paths",
    )


def write_statusline(
    target: Path,
    summary: dict[str, Any],
    files: list[GradedFile],
    generated_at: str,
    *,
    within: Path | None,
) -> None:
    """Write the statusline cache of ``summary`` to ``target``, staying inside ``within``."""
    ensure_directory(target.parent, within=within)
    write_file(target, statusline_cache(summary, files, generated_at), within=within)


@dataclass(frozen=True)
class StatuslineCache:
    """The statusline cache a writer refreshes: where, within what, and which tree it grades."""

    target: Path
    within: Path | None  # None: named by a config the user passed
    tree: Path


def configured_statusline(file: Path, explicit: Path | None = None) -> StatuslineCache | None:
    """The statusline cache configured for ``file`` (docs/editor.md), or None.

    The config is ``explicit``, else the nearest ``context-doctor.toml`` (or
    ``[tool.context-doctor]`` in ``pyproject.toml``) from the file's directory up
    to its repository's root (only the file's own directory outside a
    repository). The cache is the summary of the graded files of the config's
    directory (with ``explicit``: of the file's repository, else of its
    directory), as ``freshness DIR --write-cache PATH`` writes it.

    Asked before the writer touches ``file``: a repository's config naming a cache
    outside the repository is exit 2 with nothing written (docs/caches.md "Containment").
    """
    directory = Path(os.path.abspath(file)).parent
    root = repository_root(file)
    candidates = [directory]
    if root is not None:
        candidates += [parent for parent in directory.parents if parent.is_relative_to(root)]
    found = find_config(candidates, explicit)
    if found is None:
        return None
    path, data = found
    validate_config(data, str(path))
    freshness = read_freshness(path, data, within=config_tree(path, explicit))
    if freshness.cache is None:
        return None
    tree = path.parent if explicit is None else root or directory
    return StatuslineCache(freshness.cache, freshness.within, tree)


def refresh_statusline(cache: StatuslineCache, now: datetime, explicit: Path | None) -> Path:
    """Rewrite ``cache`` after a writer changed a file; returns the path written."""
    files = grade_paths([cache.tree], now.date(), explicit)
    write_statusline(
        cache.target,
        summarize(files),
        files,
        now.isoformat(timespec="seconds"),
        within=cache.within,
    )
    return cache.target
