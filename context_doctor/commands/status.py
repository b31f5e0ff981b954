"""``context-doctor status``: one line from a report cache, for a session-start hook (docs/surfaces.md).

``context: 14 projects audited, 2 defects, 5 warnings; 3 h ago (repository report)``. No
audit and no git. It reads, in order, ``--report-cache FILE`` (``--cache``, its old name,
still works); else the current
repository's cache, ``<git-common-dir>/context-doctor/last-report.json`` (what a
whole-repository ``check`` writes; the git directory is found by reading ``.git``,
not by running git); else the console's, ``$SYNTHESIS_HOME/context-doctor/last-report.json``
(v5-aware, :mod:`context_doctor.config.synthesis`; what ``sweep`` and a console.yaml
``check`` write). The line names the one it read. It imports only what that needs, so
a hook that runs it at every session start stays cheap; the report's schema
validation (``report`` does it) is left out on purpose, and the few fields the line
needs are checked one by one instead. A cache that is a symlink (in the git
directory), a FIFO or anything but a regular file is refused unread. A plain
``status [--json] [--strict] [--report-cache FILE]`` does not even import click
(:func:`run_plain`, called by the console script); its click command is built
on first use, for ``--help``, ``--now`` and a mistyped option.

A hint names a command only where it can run: ``sweep`` when there is a console.yaml
(or a knowledge base the console detects), ``check ROOT`` when the current directory
lies in a repository whose knowledge base discovery would find; otherwise it says what
is missing.

Exit 0 whatever the cache says, so a session never fails to start because of
it; ``--strict`` exits 1 when the cached report has defects and 2 when there is
no usable report (missing, unreadable, malformed, dated in the future).
"""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
from datetime import UTC, datetime

from context_doctor.config.synthesis import console_home_text, path_text
from context_doctor.guards.escape import escape_text
from context_doctor.guards.limits import NotRegularFile, TooLarge, read_limited

# Nothing here imports typing, pathlib or dataclasses (together more than the rest of a
# plain `status`): paths are text spelled as pathlib spells them (synthesis.path_text).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    import click

CACHE_NAME = "last-report.json"
MAX_BYTES = 256 * 1024 * 1024  # a report of tens of thousands of findings is far below this
GIVEN, REPOSITORY, CONSOLE = "given", "repository", "console"
"""Where a report was read: ``--report-cache FILE``, the current repository's, the console's."""


def _join(*parts: str) -> str:
    return path_text(os.path.join(*parts))


def default_cache() -> str:
    """The console's report cache (``discover.synthesis_home``'s rule, without discovery)."""
    return _join(console_home_text(), "context-doctor", CACHE_NAME)


def _read_head(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as text:
        return text.read(4096)


def _git_common_dir(top: str) -> str | None:
    """The common git directory of the work tree at ``top``, read from ``.git`` as git
    reads it (a directory, or a ``gitdir:`` file; a linked worktree's ``commondir``)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        git_dir = dot_git
    else:
        try:
            text = _read_head(dot_git)
        except (OSError, ValueError):
            return None
        if not text.startswith("gitdir:"):
            return None
        git_dir = os.path.join(top, text.removeprefix("gitdir:").strip())
    try:
        common = _read_head(os.path.join(git_dir, "commondir")).strip()
    except (OSError, ValueError):
        return git_dir
    return os.path.join(git_dir, common) if common else git_dir


def _lineage(start: str) -> list[str]:
    """``start`` and each folder above it, up to the root (``Path.parents``, as text)."""
    folders = [start]
    while (parent := os.path.dirname(folders[-1])) != folders[-1]:
        folders.append(parent)
    return folders


def _has_knowledge_base(workspaces: str) -> bool:
    """Whether ``workspaces/*/ai-knowledge-*/projects/index.yaml`` exists (``Path.glob``'s
    answer: any entry name, hidden ones too; unreadable folders are passed over)."""
    try:
        with os.scandir(workspaces) as found:
            spaces = [entry.path for entry in found if entry.is_dir()]
    except OSError:
        return False
    for space in spaces:
        try:
            with os.scandir(space) as found:
                kinds = [e.path for e in found if e.name.startswith("ai-knowledge-") and e.is_dir()]
        except OSError:
            continue
        if any(os.path.exists(os.path.join(kind, "projects", "index.yaml")) for kind in kinds):
            return True
    return False


class Place:
    """Where ``status`` stands: its repository, and what there could write a report.

    ``top`` is the work tree holding the current directory; ``auditable`` the root a
    whole-repository ``check`` of it would take, and ``sweepable`` whether a console.yaml
    (or a knowledge base the console detects) is there: both looked for only when a line
    needs them (a usable report needs neither).
    """

    __slots__ = ("_auditable", "_sweepable", "start", "top")

    def __init__(self, start: str, top: str | None) -> None:
        self.start = start
        self.top = top
        self._auditable: tuple[str | None] | None = None
        self._sweepable: bool | None = None

    @classmethod
    def here(cls, cwd: str | PathLike[str] | None = None) -> Place:
        start = path_text(os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd()))
        top = next((d for d in _lineage(start) if os.path.lexists(os.path.join(d, ".git"))), None)
        return cls(start, top)

    @property
    def auditable(self) -> str | None:
        if self._auditable is None:
            found = None
            if self.top is not None:
                lineage = _lineage(self.start)
                inside = lineage[: lineage.index(self.top) + 1]
                found = next(
                    (
                        d
                        for d in inside
                        if os.path.isfile(os.path.join(d, "projects", "index.yaml"))
                    ),
                    self.top if os.path.isfile(os.path.join(self.top, "CONTEXT.md")) else None,
                )
            self._auditable = (found,)
        return self._auditable[0]

    @property
    def sweepable(self) -> bool:
        if self._sweepable is None:
            self._sweepable = os.path.isfile(
                os.path.join(console_home_text(), "console.yaml")
            ) or _has_knowledge_base(os.path.join(os.path.expanduser("~"), "workspaces"))
        return self._sweepable

    def repository_cache(self) -> str | None:
        common = _git_common_dir(self.top) if self.top is not None else None
        return _join(common, "context-doctor", CACHE_NAME) if common is not None else None

    def check_command(self) -> str | None:
        if self.auditable is None:
            return None
        import shlex

        return f"`context-doctor check {shlex.quote(self.auditable)}`"

    def to_write(self) -> str:
        """How to get a first report from here, or what is missing for one."""
        if self.auditable is not None:
            return f"run {self.check_command()} to write this repository's"
        if self.sweepable:
            return "run `context-doctor sweep` to write one"
        return (
            f"nothing here writes one: no {_join(console_home_text(), 'console.yaml')}, and no "
            "knowledge base in a git repository here"
        )

    def to_refresh(self, kind: str) -> str:
        """How to refresh the report of ``kind`` from here, naming only what can run."""
        if kind == REPOSITORY and self.auditable is not None:
            return f"run {self.check_command()} to refresh it"
        if kind == CONSOLE and self.sweepable:
            return "run `context-doctor sweep` to refresh it"
        if kind == GIVEN:
            return "rewrite it, or name another report with --report-cache"
        return "rerun the audit that wrote it"


class Status:
    """The line's facts: the report read (``cache``, None when there was none anywhere it
    looked) and its ``kind`` (GIVEN, REPOSITORY or CONSOLE); ``problem`` None when the
    counts are the cached report's."""

    __slots__ = (
        "age_hours",
        "cache",
        "defects",
        "generated_at",
        "kind",
        "problem",
        "projects",
        "warnings",
    )

    def __init__(
        self,
        cache: str | None,
        kind: str,
        problem: str | None = None,
        defects: int = 0,
        warnings: int = 0,
        projects: int = 0,
        generated_at: str | None = None,
        age_hours: float | None = None,
    ) -> None:
        self.cache = cache
        self.kind = kind
        self.problem = problem
        self.defects = defects
        self.warnings = warnings
        self.projects = projects
        self.generated_at = generated_at
        self.age_hours = age_hours

    @property
    def usable(self) -> bool:
        return self.problem is None

    @property
    def origin(self) -> str:
        """The report read, in a word or two (the line's last words)."""
        if self.kind == GIVEN:
            return f"report {self.cache}"
        return f"{self.kind} report"

    def line(self) -> str:
        if self.problem is not None:
            return f"context: {self.problem}"
        # The verdict's own format (what was audited, then the counts), as `check` words it.
        return (
            f"context: {_plural(self.projects, 'project')} audited, "
            f"{_plural(self.defects, 'defect')}, {_plural(self.warnings, 'warning')}; "
            f"{_age(self.age_hours or 0.0)} ({self.origin})"
        )

    def exit_code(self, strict: bool) -> int:
        if not strict:
            return 0
        if self.problem is not None:
            return 2
        return 1 if self.defects else 0

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "line": self.line(),
            "cache": self.cache,
            "read": self.kind if self.cache is not None else None,
        }
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


def choose_cache(given: str | None, place: Place) -> tuple[str | None, str]:
    """The report to read and its kind: ``--report-cache``, else the repository's when it has
    one (any entry there, even one that will be refused), else the console's when it
    exists; (None, CONSOLE) when there is none."""
    if given is not None:
        return given, GIVEN
    repository = place.repository_cache()
    if repository is not None and os.path.lexists(repository):
        return repository, REPOSITORY
    console = default_cache()
    if os.path.lexists(console):
        return console, CONSOLE
    return None, CONSOLE


def read_status(
    cache: str | PathLike[str] | None = None,
    now: datetime | None = None,
    place: Place | None = None,
) -> Status:
    """The chosen report's counts and age, or why there are none."""
    place = place or Place.here()
    given = path_text(os.fspath(cache)) if cache is not None else None
    path, kind = choose_cache(given, place)
    now = now or datetime.now(UTC)
    if path is None:
        return Status(None, kind, f"no report yet; {place.to_write()}")
    try:
        # Bounded, and never blocked on a FIFO planted where the cache should be; a link
        # is followed only where the user named the file.
        report = json.loads(read_limited(path, MAX_BYTES, follow=kind == GIVEN).decode("utf-8"))
    except FileNotFoundError:
        return Status(path, kind, f"no report yet at {path}; {place.to_write()}")
    except NotRegularFile as error:
        return Status(
            path, kind, f"report cache {path} refused ({error.strerror}); {place.to_refresh(kind)}"
        )
    except TooLarge:
        return Status(
            path,
            kind,
            f"report cache {path} refused (over {MAX_BYTES} bytes); {place.to_refresh(kind)}",
        )
    except OSError as error:
        why = "a symlink" if error.errno == errno.ELOOP else error.strerror or str(error)
        return Status(path, kind, f"report cache {path} refused ({why}); {place.to_refresh(kind)}")
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        return Status(
            path,
            kind,
            f"report cache {path} unreadable ({error.__class__.__name__}); {place.to_refresh(kind)}",
        )
    if not isinstance(report, dict):
        return Status(path, kind, f"report cache {path} is not a report; {place.to_refresh(kind)}")
    defects, warnings, projects = (
        _count(report, key) for key in ("defects", "warnings", "projects_audited")
    )
    if defects is None or warnings is None or projects is None:
        return Status(path, kind, f"report cache {path} lacks its counts; {place.to_refresh(kind)}")
    stamp = report.get("generated_at")
    try:
        generated = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        generated = None
    if generated is None:
        return Status(
            path, kind, f"report cache {path} has no valid generated_at; {place.to_refresh(kind)}"
        )
    if generated.tzinfo is None:
        generated = generated.replace(tzinfo=UTC)
    age = (now - generated).total_seconds() / 3600
    if age < -0.05:  # three minutes of clock skew are not "the future"
        return Status(
            path,
            kind,
            f"report cache {path} is dated in the future ({stamp}); check the clock, {place.to_refresh(kind)}",
        )
    return Status(path, kind, None, defects, warnings, projects, stamp, max(age, 0.0))


def output_line(found: Status, as_json: bool) -> str:
    # ASCII escapes: a path's undecodable bytes stay printable JSON.
    return json.dumps(found.to_json()) if as_json else escape_text(found.line())


def run_plain(args: list[str]) -> int | None:
    """``status`` without click: the exit status, or None when ``args`` need click.

    Reads only ``--json``, ``--strict`` and ``--report-cache FILE`` (or ``=FILE``, or its old
    name ``--cache``; each as click reads it: a flag given twice is given, the last file
    named wins); anything else
    (``--help``, ``--now``, a typo, a value click might read otherwise) is left to click.
    """
    as_json = strict = False
    cache_path: str | None = None
    position = 0
    while position < len(args):
        arg = args[position]
        value: str | None = None
        if arg == "--json":
            as_json = True
        elif arg == "--strict":
            strict = True
        elif arg in ("--report-cache", "--cache") and position + 1 < len(args):
            position += 1
            value = args[position]
        elif arg.startswith(("--report-cache=", "--cache=")):
            value = arg.partition("=")[2]
        else:
            return None
        if value is not None:
            if not value or value.startswith("-"):
                return None
            cache_path = value
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
    from pathlib import Path

    import click

    from context_doctor.commands.help_format import AliasedOption

    @click.command("status")
    @click.option("--json", "as_json", is_flag=True, help="Print the status as one JSON object.")
    @click.option(
        "--strict",
        is_flag=True,
        help="Exit 1 when the cached report has defects, 2 when there is no usable report "
        "(default: always exit 0).",
    )
    @click.option(
        "--report-cache",
        "--cache",
        "cache",
        cls=AliasedOption,
        hidden_aliases=("--cache",),  # its name before the report cache had one word
        type=click.Path(path_type=Path),
        metavar="FILE",
        help="Read this report cache (default: the current repository's "
        f"<git-common-dir>/context-doctor/{CACHE_NAME}, else $SYNTHESIS_HOME/context-doctor/"
        f"{CACHE_NAME}).",
    )
    @click.option(
        "--now", "now_text", metavar="ISO-8601", hidden=True, help="The current time (tests)."
    )
    def status_command(
        as_json: bool, strict: bool, cache: Path | None, now_text: str | None
    ) -> None:
        """One line from the cached last report, for hooks.

        For a session-start hook or a status line.

        Reads --report-cache FILE, else the current repository's report (a whole-repository
        `check` writes it), else the console's ($SYNTHESIS_HOME; `sweep` writes it), and
        names the one it read. No audit and no git. Exit 0 unless --strict.
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
