"""``context-doctor freshness``: the grades summary, its statusline cache, and the writers."""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click

from context_doctor.cache import write_atomically
from context_doctor.config import find_config, validate_config
from context_doctor.errors import DoctorError
from context_doctor.freshness import GradedFile, RegistryEntry, grade_files, slug_of, summarize

CACHE_LIMIT = 4096
DEFECT_CHECKS = frozenset({"freshness-malformed", "freshness-source-missing"})


class FreshnessGroup(click.Group):
    """``freshness [PATH ...]`` runs the summary; ``freshness review FILE`` and friends write."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("-h", "--help")):
            args = ["summary", *args]
        return super().parse_args(ctx, args)


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
    payload = {**summary, "generated_at": generated_at}
    encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(encoded) < CACHE_LIMIT:
        return encoded
    ranked = [item.rel_path for item in sorted(files, key=GradedFile.staleness)]
    for keep in range(len(ranked) - 1, -1, -1):
        kept = set(ranked[:keep])
        payload["files"] = [entry for entry in summary["files"] if entry["path"] in kept]
        payload["files_omitted"] = len(summary["files"]) - len(payload["files"])
        encoded = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(encoded) < CACHE_LIMIT:
            return encoded
    raise DoctorError(
        "the freshness summary does not fit the 4 KiB statusline cache even without files",
        "shorten the registry's slugs and paths",
    )


def _human(summary: dict[str, Any], files: list[GradedFile]) -> None:
    click.echo(f"{'grade':<6}{'reviewed':>10}{'threshold':>11}  {'why':<16}file")
    for item in sorted(files, key=GradedFile.staleness):
        reviewed = "never" if item.reviewed_age_days is None else f"{item.reviewed_age_days} d"
        click.echo(
            f"{item.grade:<6}{reviewed:>10}{item.threshold_days:>9} d  {item.why or '-':<16}{item.rel_path}"
        )
    most = summary["most_stale"]
    click.echo(
        f"overall {summary['overall_grade']} ({summary['overall_pct']}%): {summary['fresh_count']} fresh, "
        f"{summary['stale_count']} stale of {summary['total']}"
        + (f"; most stale: {most['path']}" if most else "")
    )


def run_summary(
    paths: tuple[str, ...],
    as_json: bool,
    write_cache: Path | None,
    today: date,
    config: Path | None,
    now: datetime,
) -> int:
    files = grade_paths([Path(p) for p in paths or (".",)], today, config)
    summary = summarize(files)
    if write_cache is not None:
        try:
            write_atomically(
                write_cache, statusline_cache(summary, files, now.isoformat(timespec="seconds"))
            )
        except OSError as error:
            raise DoctorError(
                f"cannot write {write_cache}: {error.strerror or error}", "check the path"
            ) from error
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        _human(summary, files)
        for item in files:
            for problem in item.problems:
                where = f"{item.rel_path}:{problem.line}" if problem.line else item.rel_path
                click.echo(f"{where}: [{problem.check}] {problem.message}", err=True)
    defects = any(problem.check in DEFECT_CHECKS for item in files for problem in item.problems)
    return 1 if defects else 0


def now_or(text: str | None) -> datetime:
    return datetime.fromisoformat(text) if text else datetime.now(UTC)


def exit_with(code: int) -> None:
    sys.exit(code)
