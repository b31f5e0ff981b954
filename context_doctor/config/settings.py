"""Configuration: defaults, then one config file, then the command line.

The file is ``--config FILE`` (then it applies to every source, as in ruff);
else, per source, the nearest directory at or above the source root, up to its
repository's root, holding ``context-doctor.toml`` or a ``[tool.context-doctor]``
table in ``pyproject.toml`` (``audit.config_groups`` audits each group of sources
under its own file; ``--show-settings`` names each source's file).

On the command line ``--select`` replaces the file's ``select`` and
``--ignore`` adds to the file's ``ignore`` (ruff's rule-selection order).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_doctor.config.instruction_options import InstructionOptions
from context_doctor.errors import DoctorError
from context_doctor.guards.contain import USER_NAMED, contained, repository_root
from context_doctor.guards.limits import MAX_CONFIG_BYTES
from context_doctor.guards.yamlio import read_text, validator
from context_doctor.report.findings import Severity

if TYPE_CHECKING:
    from jsonschema import ValidationError

DEFAULT_BUDGETS: dict[str, int] = {
    "context_lines": 150,
    "completed_context_lines": 80,
    "sessions_after_lines": 80,
    "reference_lines": 300,
    "reference_index_lines": 150,
    "reference_topic_lines": 300,
    "stale_session_days": 7,
    "item_review_days": 14,
}

# `[checks.<name>]` options and their defaults (schemas/config.schema.json lists the keys).
DEFAULT_CHECK_OPTIONS: dict[str, dict[str, int]] = {
    "active-project-idle": {"idle_days": 60},
}


@dataclass(frozen=True)
class RegistryEntry:
    """One ``[[freshness.registry]]`` entry: a file graded by its slug's threshold (or its own)."""

    slug: str
    path: str  # relative to the source root
    threshold: int | None = None
    derived_from: str | None = None


def _default_check_options() -> dict[str, dict[str, int]]:
    return {name: dict(options) for name, options in DEFAULT_CHECK_OPTIONS.items()}


@dataclass(frozen=True)
class Settings:
    """Everything a run's configuration decides, resolved once before the audit (one
    configuration file, then the command line); the audit and the run key read it."""

    select: list[str] | None = None  # None: every registered check
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    budgets: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_BUDGETS))
    config_file: Path | None = None
    origins: dict[str, str] = field(default_factory=dict)
    freshness_registry: list[RegistryEntry] = field(default_factory=list)
    per_project_ignores: dict[str, list[str]] = field(default_factory=dict)
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    baseline: Path | None = None  # `baseline = "FILE"`, resolved against the config's directory
    freshness_thresholds: dict[str, int] = field(default_factory=dict)  # slug -> days
    freshness_cache: Path | None = None  # the statusline cache the writers refresh
    check_options: dict[str, dict[str, int]] = field(default_factory=_default_check_options)
    # `[output] docs_url`: where the doctor's docs/ pages are published, for SARIF's links
    # (docs/configuration.md). None: the project publishes none, so no output links any.
    docs_url: str | None = None
    instructions: InstructionOptions = field(default_factory=InstructionOptions)

    def budget(self, name: str) -> int:
        return self.budgets[name]

    def option(self, check: str, name: str) -> int:
        """A `[checks.<check>]` option: the config's value, else its default."""
        return self.check_options[check][name]

    def origin(self, key: str) -> str:
        return self.origins.get(key, "default")


def _error_key(error: ValidationError) -> tuple[str, Any]:
    parts = [str(part) for part in error.absolute_path]
    value: Any = error.instance
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        allowed = set(schema.get("properties", {}))
        unexpected = sorted(key for key in error.instance if key not in allowed)
        if unexpected:
            parts.append(unexpected[0])
            value = error.instance[unexpected[0]]
    return ".".join(parts) or "(top level)", value


def validate_config(data: dict[str, Any], origin: str) -> None:
    errors = sorted(validator("config.schema.json").iter_errors(data), key=lambda e: list(e.path))
    if errors:
        key, value = _error_key(errors[0])
        unknown = errors[0].validator == "additionalProperties"
        what = "unknown key" if unknown else errors[0].message
        raise DoctorError(
            f"config {origin}: key `{key}` = {value!r}: {what}",
            "fix or remove that key (see `context-doctor check --show-settings`)",
        )


# No setting nests deeper than a few levels; a deeper config is refused before the schema
# validator and the settings walk recurse into it.
MAX_CONFIG_DEPTH = 32


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # only when there is a config file to read (a cold start)

    try:
        loaded = tomllib.loads(read_text(path, "config file", MAX_CONFIG_BYTES))
    except tomllib.TOMLDecodeError as error:
        raise DoctorError(
            f"config {path} is not valid TOML: {error}", "fix the TOML syntax"
        ) from error
    except RecursionError as error:  # tomllib recurses once per level of nesting
        raise DoctorError(
            f"config {path} nests arrays or tables too deeply to read",
            f"no setting nests deeper than {MAX_CONFIG_DEPTH} levels; fix the file",
        ) from error
    if _depth(loaded) > MAX_CONFIG_DEPTH:
        raise DoctorError(
            f"config {path} nests arrays or tables more than {MAX_CONFIG_DEPTH} levels deep",
            "no setting nests that deeply; fix the file",
        )
    return loaded


def _depth(value: Any) -> int:
    """How deeply lists and tables nest in ``value`` (iteratively: no recursion to exhaust)."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_CONFIG_DEPTH:
            break
        pending.extend((child, depth + 1) for child in children)
    return deepest


def config_reader() -> Callable[[Path], dict[str, Any]]:
    """A reader of configuration files that reads and parses each one once (for one run)."""
    return cache(_read_toml)


def find_config(
    roots: list[Path],
    explicit: Path | None,
    read: Callable[[Path], dict[str, Any]] = _read_toml,
) -> tuple[Path, dict[str, Any]] | None:
    """The configuration ``explicit`` names, else the nearest of ``roots`` holds
    (``context-doctor.toml``, else a ``pyproject.toml`` with a ``[tool.context-doctor]``
    table); ``read`` reads one (:func:`config_reader`: each once per run)."""
    if explicit is not None:
        if not explicit.is_file() and not _special(explicit):
            what = "is a directory" if explicit.is_dir() else "does not exist"
            raise DoctorError(f"config file {explicit} {what}", "check the --config path")
        data = read(explicit)
        if explicit.name == "pyproject.toml":
            data = data.get("tool", {}).get("context-doctor", {})
        return explicit, data
    for root in roots:
        dedicated = root / "context-doctor.toml"
        if dedicated.is_file() or _special(dedicated):
            return dedicated, read(dedicated)  # a FIFO: exit 2 naming it, not skipped
        pyproject = root / "pyproject.toml"
        if pyproject.is_file() or _special(pyproject):
            table = read(pyproject).get("tool", {}).get("context-doctor")
            if table is not None:
                return pyproject, table
    return None


def _special(path: Path) -> bool:
    """Something other than a file or directory is there (a FIFO, a socket, a device)."""
    return path.exists() and not path.is_file() and not path.is_dir()


def config_tree(path: Path, explicit: Path | None) -> Path | None:
    """The tree the paths a config names must stay in (docs/caches.md "Containment").

    A file the user named (``--config``) is theirs: its paths may lead anywhere
    (:data:`USER_NAMED`). A file found in the audited tree is the repository's: its
    paths must lie inside its git work tree (outside git: inside its own directory).
    """
    if explicit is not None:
        return USER_NAMED
    return repository_root(path) or Path(os.path.abspath(path)).parent


def _place(path: Path, raw: str, key: str, within: Path | None) -> Path:
    """A path named by the config at ``path``, relative to its directory, contained."""
    if within is None:
        return Path(os.path.normpath(Path(os.path.abspath(path.parent)) / raw))
    return contained(raw, base=path.parent, root=within, what=f"config {path}: `{key}`")


@dataclass(frozen=True)
class FreshnessConfig:
    """The ``[freshness]`` table: registry, slug-threshold overrides, statusline cache."""

    registry: list[RegistryEntry] = field(default_factory=list)
    thresholds: dict[str, int] = field(default_factory=dict)
    cache: Path | None = None
    within: Path | None = None  # where the cache must stay (None: a config the user named)


def read_freshness(path: Path, data: dict[str, Any], *, within: Path | None) -> FreshnessConfig:
    """The validated config's ``[freshness]`` table; paths are relative to the config file.

    ``within``: the tree its paths must stay in (:func:`config_tree`); a path leading
    out of it is exit 2 naming the key, before anything is read or written.
    """
    table = data.get("freshness", {})
    registry = []
    for item in table.get("registry", []):
        place = _place(path, item["path"], "freshness.registry.path", within)
        registry.append(
            RegistryEntry(
                slug=item["slug"],
                path=str(place.resolve()),
                threshold=item.get("threshold"),
                derived_from=item.get("derived_from"),
            )
        )
    return FreshnessConfig(
        registry=registry,
        thresholds={str(slug): int(days) for slug, days in table.get("thresholds", {}).items()},
        cache=_place(path, table["cache"], "freshness.cache", within) if "cache" in table else None,
        within=within,
    )


def read_instructions(table: dict[str, Any]) -> InstructionOptions:
    """The validated config's ``[instructions]`` table (docs/references.md)."""
    default = InstructionOptions()
    budgets = tuple(
        (str(glob), limits.get("lines"), limits.get("bytes"))
        for glob, limits in sorted(table.get("budgets", {}).items())
    )
    return InstructionOptions(
        fallback_names=tuple(str(name) for name in table.get("fallback_names", ())),
        codex_max_bytes=int(table.get("codex_max_bytes", default.codex_max_bytes)),
        budgets=budgets,
    )


def resolve_settings(
    roots: list[Path],
    explicit: Path | None,
    cli_select: list[str] | None,
    cli_ignore: list[str] | None,
) -> Settings:
    """The settings of the configuration ``roots`` find (or ``explicit``), then the command line."""
    return settings_of(find_config(roots, explicit), explicit, cli_select, cli_ignore)


def settings_of(
    found: tuple[Path, dict[str, Any]] | None,
    explicit: Path | None,
    cli_select: list[str] | None,
    cli_ignore: list[str] | None,
) -> Settings:
    """One configuration file's settings (``found``, as :func:`find_config` read it; None:
    the defaults), then the command line's: validated once, built once, never changed."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    severity: dict[str, Severity] = {}
    budgets = dict(DEFAULT_BUDGETS)
    per_project_ignores: dict[str, list[str]] = {}
    per_path_ignores: dict[str, list[str]] = {}
    check_options = _default_check_options()
    select: list[str] | None = None
    ignore: list[str] = []
    if found is not None:
        path, data = found
        validate_config(data, str(path))
        within = config_tree(path, explicit)
        values["config_file"] = path
        origin = str(path)
        if "select" in data:
            select = list(data["select"])
            origins["select"] = origin
        if "ignore" in data:
            ignore = list(data["ignore"])
            origins["ignore"] = origin
        for name, level in data.get("severity", {}).items():
            severity[name] = Severity(level)
            origins[f"severity.{name}"] = origin
        for name, number in data.get("budgets", {}).items():
            budgets[name] = int(number)
            origins[f"budgets.{name}"] = origin
        for key, table in (
            ("per-project-ignores", per_project_ignores),
            ("per-path-ignores", per_path_ignores),
        ):
            for name, checks in data.get(key, {}).items():
                table[name] = list(checks)
                origins[f"{key}.{name}"] = origin
        for check_name, options in data.get("checks", {}).items():
            for name, number in options.items():
                check_options.setdefault(check_name, {})[name] = int(number)
                origins[f"checks.{check_name}.{name}"] = origin
        if "baseline" in data:
            values["baseline"] = _place(path, data["baseline"], "baseline", within)
            origins["baseline"] = origin
        if "docs_url" in data.get("output", {}):
            values["docs_url"] = str(data["output"]["docs_url"])
            origins["output.docs_url"] = origin
        if "instructions" in data:
            values["instructions"] = read_instructions(data["instructions"])
            for key in data["instructions"]:
                origins[f"instructions.{key}"] = origin
        freshness = read_freshness(path, data, within=within)
        values["freshness_registry"] = freshness.registry
        values["freshness_thresholds"] = freshness.thresholds
        values["freshness_cache"] = freshness.cache
        for key in ("registry", "thresholds", "cache"):
            if key in data.get("freshness", {}):
                origins[f"freshness.{key}"] = origin
    if cli_select:
        select = cli_select
        origins["select"] = "--select"
    if cli_ignore:
        ignore = [*ignore, *cli_ignore]
        origins["ignore"] = (
            "--ignore" if "ignore" not in origins else f"{origins['ignore']} + --ignore"
        )
    return Settings(
        select=select,
        ignore=ignore,
        severity=severity,
        budgets=budgets,
        origins=origins,
        per_project_ignores=per_project_ignores,
        per_path_ignores=per_path_ignores,
        check_options=check_options,
        **values,
    )
