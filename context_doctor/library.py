"""The doctor in process: :func:`diagnose`, what ``check --json`` prints, as a dict (docs/surfaces.md).

For notebooks, scripts and other tools that would otherwise run ``context-doctor check
SOURCE --json`` in a subprocess and parse its output. Imported only when
``context_doctor.diagnose`` is first used, so ``import context_doctor`` stays cheap.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.editor.vocabulary import python_refusals
from context_doctor.errors import DoctorError

READINESS = ("local", "remote")

PathArgument = str | os.PathLike[str]


def diagnose(
    source: PathArgument | Iterable[PathArgument] | None = None,
    *,
    sources: Iterable[PathArgument] = (),
    projects: Iterable[PathArgument] = (),
    vaults: Iterable[PathArgument] = (),
    floors: PathArgument | None = None,
    today: date | str | None = None,
    readiness: str = "local",
    select: Iterable[str] | str | None = None,
    ignore: Iterable[str] | str | None = None,
    config: PathArgument | None = None,
    baseline: PathArgument | bool | None = None,
    allow_shallow: bool = False,
    cache: bool = True,
    jobs: int | None = None,
    warnings_as_defects: bool = False,
    exit_zero: bool = False,
) -> dict[str, Any]:
    """Audit ``source`` and return the report ``context-doctor check SOURCE --json`` prints.

    Every option of ``check`` that has a meaning in process is a keyword, honoured as
    ``check`` honours its flag: ``source`` is what ``check PATH...`` takes (a knowledge
    base, a project, a file in one, a memory vault; one path or a list; None with no other
    source audits what ``check`` alone does); ``sources``, ``projects``, ``vaults`` and
    ``floors`` are ``--source``, ``--project``, ``--vault`` and ``--floors``; ``today`` a
    ``date`` or ``"YYYY-MM-DD"`` (default: today); ``readiness`` ``--readiness``;
    ``select``/``ignore`` check or group names (a list, or one comma-separated string);
    ``config`` a configuration file, its ``[layout]`` included (``--config``); ``baseline``
    ``--baseline`` (True: the default file at the source root, or a path);
    ``allow_shallow``, ``jobs``, ``warnings_as_defects`` and ``exit_zero`` their flags;
    ``cache=False`` is ``--no-cache``.

    Decision: there is no ``layout=`` keyword, as ``check`` has no layout flag: a layout
    is declared in a configuration file's ``[layout]`` table, which ``config=`` carries
    exactly as ``check --config`` does. The output options (format, ``-o``, ``--quiet``),
    ``--fix``/``--diff``, the baseline writer and ``--pre-push`` are not the report's
    business and have none.

    Findings are the report's business, never an exception: the dict's ``exit`` is 0
    (healthy) or 1 (defects), as the CLI's. Where the CLI exits 2 (a missing path, a path
    too long for the system, no git repository, a bad name or configuration, nothing to
    audit) this raises :class:`context_doctor.DoctorError`, whose ``.problem`` and
    ``.remedy`` name the keyword to change (``select``), not a CLI flag. Like ``check
    PATH``, it writes no report cache; the parse cache under the repository's git
    directory is used as ``check`` uses it.
    """
    with python_refusals(), _bad_paths_refused():
        day = _day(today)
        if readiness not in READINESS:
            raise DoctorError(
                f"readiness={readiness!r} is not one of {', '.join(map(repr, READINESS))}",
                "pass readiness='local' (this machine) or readiness='remote' (what a "
                "cross-machine handoff needs)",
            )
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
            raise DoctorError(f"jobs={jobs!r} is not a whole number ≥ 1", "pass e.g. jobs=2")
        for name, value in (
            ("allow_shallow", allow_shallow),
            ("cache", cache),
            ("warnings_as_defects", warnings_as_defects),
            ("exit_zero", exit_zero),
        ):
            if not isinstance(value, bool):
                raise DoctorError(f"{name}={value!r} is not True or False", f"pass {name}=True")
        run = _Run(
            paths=_paths(source, "source"),
            sources=_paths(sources, "sources"),
            projects=_paths(projects, "projects"),
            vaults=_paths(vaults, "vaults"),
            floors=_path(floors, "floors"),
            today=day,
            readiness=readiness,
            select=_names(select),
            ignore=_names(ignore),
            config=_path(config, "config"),
            baseline=_baseline(baseline),
            allow_shallow=allow_shallow,
            cache=cache,
            jobs=jobs,
            warnings_as_defects=warnings_as_defects,
            exit_zero=exit_zero,
        )
        return _audit(run)


@dataclass(frozen=True)
class _Run:
    """One ``diagnose`` call's inputs, checked, in ``check``'s terms."""

    paths: tuple[str, ...]
    sources: tuple[str, ...]
    projects: tuple[str, ...]
    vaults: tuple[str, ...]
    floors: Path | None
    today: date
    readiness: str
    select: list[str]
    ignore: list[str]
    config: Path | None
    baseline: str | None  # check's --baseline value: "" for the default file
    allow_shallow: bool
    cache: bool
    jobs: int | None
    warnings_as_defects: bool
    exit_zero: bool


def _audit(run: _Run) -> dict[str, Any]:
    # What `check ... --json` runs, in the same order (commands/check.py).
    from context_doctor.commands.check import baseline_path, in_ci
    from context_doctor.pipeline.audit import audit, require_something
    from context_doctor.pipeline.discover import discover
    from context_doctor.render.jsonout import report_json

    floor_files = None
    if run.floors is not None:
        from context_doctor.vault.floors import floors_beside

        floor_files = floors_beside(run.floors)
    corpus = discover(
        run.paths,
        run.sources,
        run.projects,
        allow_shallow=run.allow_shallow,
        ci=in_ci(),
        cache=run.cache,
        audit=True,
        vaults=run.vaults,
        floors=floor_files,
        config=run.config,
    )
    report, _settings, _checks = audit(
        corpus,
        today=run.today,
        readiness=run.readiness,
        select=run.select,
        ignore=run.ignore,
        config=run.config,
        baseline=baseline_path(run.baseline, corpus),
        jobs=run.jobs,
        replayable=True,
    )
    require_something(corpus, report)
    report.exit = report.exit_code(
        warnings_as_defects=run.warnings_as_defects, exit_zero=run.exit_zero
    )
    unreachable = report.unreachable_error()
    if unreachable is not None:
        raise DoctorError(*unreachable)
    # Through the CLI's own renderer, so that the dict is its output, value for value.
    loaded: dict[str, Any] = json.loads(report_json(report))
    return loaded


@contextmanager
def _bad_paths_refused() -> Iterator[None]:
    """A path the system refuses (too long, a loop, unreadable) is a DoctorError, as the
    CLI's exit 2 is, never an ``OSError`` from deep in discovery."""
    try:
        yield
    except OSError as error:
        from context_doctor.commands.common import too_long

        if error.errno == errno.ENAMETOOLONG:
            raise too_long(error) from None
        where = os.fsdecode(error.filename) if isinstance(error.filename, str | bytes) else ""
        shown = where if len(where) <= 80 else f"{where[:60]}…({len(where)} characters)"
        raise DoctorError(
            f"cannot use {shown or 'a path'}: {error.strerror or error}",
            "check the path and its permissions",
        ) from None


def _path(value: PathArgument | None, keyword: str) -> Path | None:
    if value is None:
        return None
    try:
        return Path(os.fspath(value))
    except TypeError:
        raise DoctorError(
            f"{keyword}={value!r} is not a path", f"pass {keyword} as a str or Path"
        ) from None


def _paths(value: PathArgument | Iterable[PathArgument] | None, keyword: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str | os.PathLike):
        value = (value,)
    try:
        return tuple(os.fspath(item) for item in value)
    except TypeError:
        raise DoctorError(
            f"{keyword}={value!r} is not a path or a list of paths",
            f"pass {keyword} as a str, a Path or a list of them",
        ) from None


def _baseline(value: PathArgument | bool | None) -> str | None:
    """``baseline`` as ``check --baseline`` takes it: None absent, "" the default file."""
    if value is None or value is False:
        return None
    if value is True:
        return ""
    path = _path(value, "baseline")
    assert path is not None
    return str(path)


def _day(today: date | str | None) -> date:
    if today is None:
        return date.today()
    if isinstance(today, date):
        return today
    if isinstance(today, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", today):
        try:
            return date.fromisoformat(today)
        except ValueError:
            pass
    raise DoctorError(
        f"today={today!r} is not a date", "pass a datetime.date or a 'YYYY-MM-DD' string"
    )


def _names(names: Iterable[str] | str | None) -> list[str]:
    """Check names as ``--select`` splits them: a comma-separated string or a list of them."""
    from context_doctor.commands.common import split_names

    if names is None:
        return []
    values = (names,) if isinstance(names, str) else tuple(names)
    if not all(isinstance(value, str) for value in values):
        raise DoctorError(
            f"{values!r} is not a list of check names", "pass e.g. select=['context-budget']"
        )
    return split_names(values)
