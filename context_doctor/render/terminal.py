"""The terminal as a surface: colour, a closed pipe, and the progress line.

* Colour: ``--color auto|always|never`` (default ``auto``: a terminal gets colour, a
  file or pipe none). ``NO_COLOR`` (set and not empty) turns every escape off under
  ``auto``, bold and dim included, not only colour; an explicit ``--color always``
  wins over it, as a command-line flag wins over the environment.
* A closed pipe (``… | head -1``) is raised as :class:`BrokenPipeError`, which the
  console script turns into a quiet exit (``cli._closed_pipe``); rich's own handling
  would exit 1, the status that means "defects".
* Width: text the doctor wraps itself (``explain``, ``--help``) wraps to the terminal's
  width: ``COLUMNS`` when set (as ``shutil`` reads it), else the width of the terminal
  stdout is, else the caller's default (a pipe or a file keeps the output it always had).
  A report (findings, remedies, coverage, the verdict) wraps only on a terminal
  (:func:`stream_width`): into a pipe each of its lines stays whole. A line breaks only between words: never inside
  one, never at the hyphen of a command or check name (``context-doctor``,
  ``--set-header``); a word longer than the line stands alone on its line.
* Progress: a transient line on stderr, shown only when the audit has run for two
  seconds, only when both stdout and stderr are terminals and the output is for a
  person (never in a machine format or a pipe), and only while escapes are allowed:
  a line cannot be transient without cursor escapes, so ``NO_COLOR`` and
  ``--color never`` (no escape at all) show none.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

COLOR_MODES = ("auto", "always", "never")
PROGRESS_AFTER_SECONDS = 2.0


class _Preference:
    """The process's ``--color`` choice (one command per process)."""

    color = "auto"


def set_color(mode: str) -> None:
    if mode not in COLOR_MODES:
        raise ValueError(f"unknown colour mode {mode!r}")
    _Preference.color = mode


MIN_WIDTH = 40  # below this a wrapped paragraph is harder to read than one long line


def terminal_width(default: int) -> int:
    """The width to wrap to: ``COLUMNS``, else the terminal stdout is, else ``default``."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    try:
        if sys.stdout.isatty():
            return max(os.get_terminal_size(sys.stdout.fileno()).columns, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        pass
    return default


def stream_width(stream: IO[str]) -> int | None:
    """The width a report on ``stream`` wraps to: a terminal's (``COLUMNS`` when set, else
    its size), None for a pipe or a file, where each line of a report stays whole."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    try:
        return max(os.get_terminal_size(stream.fileno()).columns, MIN_WIDTH)
    except (AttributeError, ValueError, OSError):
        return None


def wrap(text: str, width: int, *, indent: str = "", subsequent: str | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken only between words."""
    import textwrap  # only for text output (a cold start)

    return textwrap.wrap(
        text,
        width=width,
        initial_indent=indent,
        subsequent_indent=indent if subsequent is None else subsequent,
        break_on_hyphens=False,
        break_long_words=False,
    ) or [indent.rstrip()]


def keep_words_whole_in_help() -> None:
    """Make click's help wrapping break only between words, never at a hyphen.

    click wraps ``--help`` with a ``textwrap`` wrapper that splits ``context-doctor``
    and ``--set-header`` at their hyphens; its wrapper class is looked up on each call,
    so a subclass that keeps hyphenated words whole takes its place (once per process).
    """
    try:
        from click import _textwrap
    except ImportError:  # a click without the module wraps as it does
        return
    base = _textwrap.TextWrapper
    if getattr(base, "keeps_words_whole", False):
        return

    class WholeWords(base):  # type: ignore[misc, valid-type]
        keeps_words_whole = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("break_on_hyphens", False)
            kwargs.setdefault("break_long_words", False)
            super().__init__(*args, **kwargs)

    _textwrap.TextWrapper = WholeWords  # type: ignore[misc]


def console_options() -> dict[str, Any]:
    """The rich ``Console`` keywords for the current colour choice and environment."""
    mode = _Preference.color
    if mode == "never" or (mode == "auto" and os.environ.get("NO_COLOR", "") != ""):
        return {"color_system": None}  # no escape at all: bold and dim are escapes too
    if mode == "always":
        return {"force_terminal": True, "no_color": False}
    return {}


def is_plain(stream: IO[str]) -> bool:
    """Whether rich would write ``stream`` no escape at all (by rich's own rules: no
    ``--color always``, ``TTY_COMPATIBLE``, then ``FORCE_COLOR``, then the stream's
    ``isatty``), so that one plain line needs no console: rich's import is a third of a
    replayed ``--quiet`` run. A case it cannot tell says False (rich decides)."""
    if _Preference.color == "always":
        return False
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "0"
    forced = os.environ.get("FORCE_COLOR")
    if forced is not None:
        return forced == ""
    isatty = getattr(stream, "isatty", None)
    try:
        return isatty is not None and not isatty()
    except ValueError:
        return True  # a closed stream, as rich decides


def console_for(stream: IO[str]) -> Console:
    from rich.console import Console  # a third-party import deferred for start-up time

    class PipeAwareConsole(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError  # the console script ends quietly (cli._closed_pipe)

    return PipeAwareConsole(
        file=stream, highlight=False, soft_wrap=True, emoji=False, **console_options()
    )


def wants_progress(output_format: str, quiet: bool) -> bool:
    """Only for a person watching: human or concise output, stdout and stderr terminals."""
    if quiet or output_format not in ("human", "concise"):
        return False
    if console_options().get("color_system", "auto") is None:
        return False  # escapes off: the spinner's cursor control would be escapes too
    try:
        return sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def progress(
    message: str,
    *,
    enabled: bool,
    after: float = PROGRESS_AFTER_SECONDS,
    stream: IO[str] | None = None,
) -> Iterator[threading.Event]:
    """Show ``message`` as a transient status line on ``stream`` (stderr) once ``after``
    seconds have passed, until the block ends. Yields an event set when it was shown."""
    shown = threading.Event()
    if not enabled:
        yield shown
        return
    from rich.console import Console

    console = Console(file=stream or sys.stderr, **console_options())
    status = console.status(message)
    lock = threading.Lock()
    finished = False

    def begin() -> None:
        with lock:  # never start after the block has ended
            if not finished:
                status.start()
                shown.set()

    timer = threading.Timer(after, begin)
    timer.daemon = True
    timer.start()
    try:
        yield shown
    finally:
        timer.cancel()
        with lock:
            finished = True
            status.stop()
