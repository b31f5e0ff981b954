"""The doctor in process: :func:`diagnose`, what ``check --json`` prints, as a dict (docs/surfaces.md).

For notebooks, scripts and other tools that would otherwise run ``context-doctor check
SOURCE --json`` in a subprocess and parse its output. Imported only when
``context_doctor.diagnose`` is first used, so ``import context_doctor`` stays cheap.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from context_doctor.errors import DoctorError
from context_doctor.write.vocabulary import python_refusals

READINESS = ("local", "remote")


def diagnose(
    source: str | os.PathLike[str],
    *,
    today: date | str | None = None,
    readiness: str = "local",
    select: Iterable[str] | str | None = None,
    ignore: Iterable[str] | str | None = None,
    config: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Audit ``source`` and return the report ``context-doctor check SOURCE --json`` prints.

    ``source`` is anything ``check PATH`` takes: a knowledge base (a repository holding
    ``projects/``), a project, a file in one, or a memory vault. ``today`` is a ``date``
    or ``"YYYY-MM-DD"`` (default: today); ``select``/``ignore`` are check or group names
    (a list, or one comma-separated string); ``config`` a configuration file.

    Findings are the report's business, never an exception: the dict's ``exit`` is 0
    (healthy) or 1 (defects), as the CLI's. Where the CLI exits 2 (a missing path, no
    git repository, a bad name, nothing to audit) this raises
    :class:`context_doctor.DoctorError`, whose ``.problem`` and ``.remedy`` name the
    keyword to change (``select``), not a CLI flag. Like ``check PATH``, it writes no
    report cache; the parse cache under the repository's git directory is used as
    ``check`` uses it.
    """
    with python_refusals():
        day = _day(today)
        if readiness not in READINESS:
            raise DoctorError(
                f"readiness={readiness!r} is not one of {', '.join(map(repr, READINESS))}",
                "pass readiness='local' (this machine) or readiness='remote' (what a "
                "cross-machine handoff needs)",
            )
        return _audit(os.fspath(source), day, readiness, _names(select), _names(ignore), config)


def _audit(
    source: str,
    today: date,
    readiness: str,
    select: list[str],
    ignore: list[str],
    config: str | os.PathLike[str] | None,
) -> dict[str, Any]:
    # What `check SOURCE --json` runs, in the same order (commands/check.py).
    from context_doctor.commands.check import in_ci
    from context_doctor.pipeline.audit import audit, require_something
    from context_doctor.pipeline.discover import discover
    from context_doctor.render.jsonout import report_json

    corpus = discover((source,), ci=in_ci(), cache=True, audit=True)
    report, _settings, _checks = audit(
        corpus,
        today=today,
        readiness=readiness,
        select=select,
        ignore=ignore,
        config=Path(config) if config is not None else None,
        replayable=True,
    )
    require_something(corpus, report)
    report.exit = report.exit_code()
    unreachable = report.unreachable_error()
    if unreachable is not None:
        raise DoctorError(*unreachable)
    # Through the CLI's own renderer, so that the dict is its output, value for value.
    loaded: dict[str, Any] = json.loads(report_json(report))
    return loaded


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
