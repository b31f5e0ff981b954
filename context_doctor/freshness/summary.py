"""The ``freshness`` summary: grading the files under paths, and the 4 KiB statusline cache."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.config import find_config, validate_config
from context_doctor.errors import DoctorError
from context_doctor.freshness.frontmatter import slug_of
from context_doctor.freshness.grades import GradedFile, RegistryEntry, grade_files
from context_doctor.render.escape import clean_json, escape_undecodable
from context_doctor.write import ensure_directory, write_file

CACHE_LIMIT = 4096
DEFECT_CHECKS = frozenset({"freshness-malformed", "freshness-source-missing"})


def _registry_for(directories: list[Path], explicit: Path | None) -> list[RegistryEntry]:
    found = find_config(directories, explicit)
    if found is None:
        return []
    path, data = found
    validate_config(data, str(path))
    return [
        RegistryEntry(
            slug=item["slug"],
            path=str((path.parent / item["path"]).resolve()),
            threshold=item.get("threshold"),
            derived_from=item.get("derived_from"),
        )
        for item in data.get("freshness", {}).get("registry", [])
    ]


def grade_paths(paths: list[Path], today: date, config: Path | None) -> list[GradedFile]:
    """Grade the files under each directory (and each file given by name)."""
    missing = [path for path in paths if not path.exists()]
    if missing:
        raise DoctorError(f"{missing[0]} does not exist", "check the path")
    directories = [path.resolve() for path in paths if path.is_dir()]
    registry = _registry_for(directories, config)
    graded: list[GradedFile] = []
    for path in paths:
        resolved = path.resolve()
        if resolved.is_dir():
            mine = [entry for entry in registry if Path(entry.path).is_relative_to(resolved)]
            graded += grade_files(resolved, mine, today)
        else:
            entry = RegistryEntry(slug=slug_of(resolved.name), path=str(resolved))
            graded += grade_files(resolved.parent, [entry], today, discover=False)
    if not graded:
        where = ", ".join(str(path) for path in paths)
        raise DoctorError(
            f"nothing to grade: no file in {where} declares `convention: pai-freshness-v1` and "
            "none is registered",
            "add freshness frontmatter (`context-doctor freshness migrate FILE`) or a "
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
    target: Path, summary: dict[str, Any], files: list[GradedFile], generated_at: str
) -> None:
    """Write the statusline cache of ``summary`` to ``target``."""
    ensure_directory(target.parent)
    write_file(target, statusline_cache(summary, files, generated_at))
