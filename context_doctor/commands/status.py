"""``context-doctor status``: one line from the report cache, for a session-start hook (SPEC §7).

``context: 2 defects, 5 warnings in 14 projects, 3 h ago``. No audit and no
git: it reads ``$SYNTHESIS_HOME/context-doctor/last-report.json`` (what
``sweep`` and a console.yaml ``check`` write) and nothing else. It imports only
what that needs, so a hook that runs it at every session start stays cheap;
the report's schema validation (``report`` does it) is left out on purpose,
and the few fields the line needs are checked one by one instead. A plain
``status [--json] [--strict] [--cache FILE]`` does not even import click
(:func:`run_plain`, called by the console script); its click command is built
on first use, for ``--help``, ``--now`` and a mistyped option.

Exit 0 whatever the cache says, so a session never fails to start because of
it; ``--strict`` exits 1 when the cached report has defects and 2 when there is
no usable report (missing, unreadable, malformed, dated in the future).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_doctor.escape import escape_text
from context_doctor.limits import NotRegularFile, TooLarge, read_limited

if TYPE_CHECKING:
    import click

CACHE_NAME = "last-report.json"
MAX_BYTES = 256 * 1024 * 1024  # a report of tens of thousands of findings is far below this
REFRESH = "run `context-doctor sweep` to refresh it"


def default_cache() -> Path:
    # discover.synthesis_home's rule, restated: importing discovery would load the audit.
    configured = os.environ.get("SYNTHESIS_HOME")
    home = Path(configured).expanduser() if configured else Path.home() / ".synthesis"
    return home / "context-doctor" / CACHE_NAME


@dataclass(frozen=True)
class Status:
    cache: Path
    problem: str | None = None  # None: the counts below are the cached report's
    defects: int = 0
    warnings: int = 0
    projects: int = 0
    generated_at: str | None = None
    age_hours: float | None = None

    @property
    def usable(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        if self.problem is not None:
            return f"context: {self.problem}"
        return (
            f"context: {_plural(self.defects, 'defect')}, {_plural(self.warnings, 'warning')} "
            f"in {_plural(self.projects, 'project')}, {_age(self.age_hours or 0.0)}"
        )

    def exit_code(self, strict: bool) -> int:
        if not strict:
            return 0
        if self.problem is not None:
            return 2
        return 1 if self.defects else 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"line": self.line(), "cache": str(self.cache)}
        if self.problem is not None:
            return {"available": False, "error": self.problem, **data}
        return {
            "available": True,
            "ok": self.defects == 0,
            "defects": self.defects,
            "warnings": self.warnings,
            "projects_audited": self.projects,
            "generated_at": self.generated_at,
            "age_hours": round(self.age_hours or 0.0, 2),
            **data,
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _age(hours: float) -> str:
    minutes = int(hours * 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    if hours < 48:
        return f"{int(hours)} h ago"
    return f"{int(hours // 24)} d ago"


def _count(report: dict[str, Any], key: str) -> int | None:
    value = report.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def read_status(cache: Path | None = None, now: datetime | None = None) -> Status:
    """The cached report's counts and age, or why there are none."""
    path = cache or default_cache()
    now = now or datetime.now(UTC)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return Status(path, f"report cache {path} is over {MAX_BYTES} bytes; {REFRESH}")
        # Bounded, and never blocked on a FIFO planted where the cache should be.
        report = json.loads(read_limited(path, MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return Status(path, "no report yet; run `context-doctor sweep` to write one")
    except NotRegularFile as error:
        return Status(path, f"report cache {path} {error.strerror}; {REFRESH}")
    except TooLarge:
        return Status(path, f"report cache {path} is over {MAX_BYTES} bytes; {REFRESH}")
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        return Status(
            path, f"report cache {path} unreadable ({error.__class__.__name__}); {REFRESH}"
        )
    if not isinstance(report, dict):
        return Status(path, f"report cache {path} is not a report; {REFRESH}")
    defects, warnings, projects = (
        _count(report, key) for key in ("defects", "warnings", "projects_audited")
    )
    if defects is None or warnings is None or projects is None:
        return Status(path, f"report cache {path} lacks its counts; {REFRESH}")
    stamp = report.get("generated_at")
    try:
        generated = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        generated = None
    if generated is None:
        return Status(path, f"report cache {path} has no valid generated_at; {REFRESH}")
    if generated.tzinfo is None:
        generated = generated.replace(tzinfo=UTC)
    age = (now - generated).total_seconds() / 3600
    if age < -0.05:  # three minutes of clock skew are not "the future"
        return Status(
            path,
            f"report cache {path} is dated in the future ({stamp}); check the clock, {REFRESH}",
        )
    return Status(path, None, defects, warnings, projects, stamp, max(age, 0.0))


def output_line(found: Status, as_json: bool) -> str:
    # ASCII escapes: a path's undecodable bytes stay printable JSON.
    return json.dumps(found.to_json()) if as_json else escape_text(found.line())


def run_plain(args: list[str]) -> int | None:
    """``status`` without click: the exit status, or None when ``args`` need click.

    Reads only ``--json``, ``--strict`` and ``--cache FILE``/``--cache=FILE`` (each as
    click reads it: a flag given twice is given, the last ``--cache`` wins); anything else
    (``--help``, ``--now``, a typo, a value click might read otherwise) is left to click.
    """
    as_json = strict = False
    cache_path: Path | None = None
    position = 0
    while position < len(args):
        arg = args[position]
        value: str | None = None
        if arg == "--json":
            as_json = True
        elif arg == "--strict":
            strict = True
        elif arg == "--cache" and position + 1 < len(args):
            position += 1
            value = args[position]
        elif arg.startswith("--cache="):
            value = arg.removeprefix("--cache=")
        else:
            return None
        if value is not None:
            if not value or value.startswith("-"):
                return None
            cache_path = Path(value)
        position += 1
    found = read_status(cache_path)
    sys.stdout.write(output_line(found, as_json) + "\n")
    sys.stdout.flush()
    return found.exit_code(strict)


def __getattr__(name: str) -> click.Command:
    # ``status_command`` (cli.COMMANDS): built, and click imported, on first use.
    if name == "status_command":
        return _status_command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _status_command() -> click.Command:
    import click

    @click.command("status")
    @click.option("--json", "as_json", is_flag=True, help="Print the status as one JSON object.")
    @click.option(
        "--strict",
        is_flag=True,
        help="Exit 1 when the cached report has defects, 2 when there is no usable report "
        "(default: always exit 0).",
    )
    @click.option(
        "--cache",
        type=click.Path(path_type=Path),
        help=f"Read this report instead of $SYNTHESIS_HOME/context-doctor/{CACHE_NAME}.",
    )
    @click.option(
        "--now", "now_text", metavar="ISO-8601", hidden=True, help="The current time (tests)."
    )
    def status_command(
        as_json: bool, strict: bool, cache: Path | None, now_text: str | None
    ) -> None:
        """One line from the cached corpus report, for a session-start hook or a status line.

        No audit and no git. Exit 0 unless --strict.
        """
        now = None
        if now_text:
            try:
                now = datetime.fromisoformat(now_text)
            except ValueError:
                raise click.BadParameter(
                    f"{now_text!r} is not an ISO-8601 time", param_hint="--now"
                ) from None
            if now.tzinfo is None:
                now = now.replace(tzinfo=UTC)
        found = read_status(cache, now)
        click.echo(output_line(found, as_json))
        sys.exit(found.exit_code(strict))

    return status_command
