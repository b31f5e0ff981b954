"""Making user text safe to print: the one helper every output format uses.

Messages quote the audited tree (header values, directory and file names), and
that text is hostile until shown otherwise: an ESC sequence can clear a
terminal and print a fake verdict, a newline in a directory name can start a
line that GitHub Actions executes as a workflow command (``::error ...``), a
bidi override can make a line read differently than it is, and a name that
is not UTF-8 arrives as lone surrogates that no encoder accepts.

- :func:`escape_text` is for text formats (human, concise, GitHub, Markdown):
  every control character (C0, DEL, C1), the Unicode line and paragraph
  separators, bidi controls and lone surrogates become visible escapes, so a
  piece of user text is always one inert line.
- :func:`escape_undecodable` is for JSON formats, which escape control
  characters themselves: it only replaces lone surrogates, so the output is
  valid UTF-8.  :func:`clean_json` applies it to a whole JSON value.
- :class:`InertStream` is where output is written: every line the doctor prints, in
  every format and on stderr too, passes through it once, so no line starts a CI
  workflow command, wherever the text on it came from (a piece of user text can land
  at the start of a line by being printed first, or by a wrap). GitHub's runner reads
  a line whose first non-blank characters are ``::`` as a command (``::notice``,
  ``::add-mask::``, ``::stop-commands::``), and, as Azure Pipelines does, ``##[`` and
  ``##vso[`` anywhere in a line: the first colon of such a line start is shown as
  ``\\x3a`` and such a bracket as ``\\u005b`` (valid inside a JSON string, where it
  reads back as ``[``; outside strings JSON holds no ``#``). Only the doctor's own
  annotations (the GitHub format) are written past it, by :func:`write_command`.

Visible forms: ``\\n``, ``\\r``, ``\\t``, ``\\x1b`` (other controls as ``\\xNN``),
``\\u202e`` (format characters), and an undecodable byte kept by
``surrogateescape`` as ``\\xff`` (its original byte).  A backslash already in
the text is left alone: the escapes are for safety and legibility, not a
reversible encoding.
"""

from __future__ import annotations

import _thread
import codecs
import re
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (status imports this)
if TYPE_CHECKING:
    from typing import IO, Any

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one: an undecodable byte
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """``text`` as one inert line: no control, separator or bidi character, valid UTF-8."""
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text


def escape_undecodable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes) shown as escapes: valid UTF-8."""
    return SURROGATE.sub(_visible, text) if SURROGATE.search(text) else text


def clean_json(value: Any) -> Any:
    """A JSON value (dicts, lists, strings...) whose every string is valid UTF-8."""
    if isinstance(value, str):
        return escape_undecodable(value)
    if isinstance(value, dict):
        return {clean_json(key): clean_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(item) for item in value]
    return value


# -- the line starts of everything printed ---------------------------------------------

# A runner splits lines at CR as well as LF, and trims every kind of blank before `::`.
_COMMAND_AT_START = re.compile(r"((?:^|[\r\n])[^\S\r\n]*):(?=:)")
_COMMAND_AFTER_BREAK = re.compile(r"([\r\n][^\S\r\n]*):(?=:)")
_BRACKET_COMMAND = re.compile(r"(##(?:vso)?)\[", re.IGNORECASE)
_NEEDS_LOOK = re.compile(r"::|##")
# What the next write could still turn into a command: a line begun with blanks and at
# most one colon, or the first characters of `##vso[` at the end of the text.
_UNDECIDED_HEAD = re.compile(r"[^\S\r\n]*:?")
_PARTIAL_BRACKET = re.compile(r"#(?:#(?:v(?:s(?:o)?)?)?)?\Z", re.IGNORECASE)


def _inert(text: str, at_line_start: bool) -> str:
    if not _NEEDS_LOOK.search(text):
        return text
    text = _BRACKET_COMMAND.sub(r"\1\\u005b", text)
    pattern = _COMMAND_AT_START if at_line_start else _COMMAND_AFTER_BREAK
    return pattern.sub(r"\1\\x3a", text)


def inert_text(text: str) -> str:
    """A whole document (from its first line) as :class:`InertStream` prints it."""
    return _inert(text, True)


class InertStream:
    """A text stream that writes every line to ``target`` unable to start a workflow command.

    Writes are filtered as one text, whatever pieces they come in: the few characters
    the next write could still make a command of (a line's leading blanks and first
    colon, a trailing ``##``) are held back until it comes, or until :meth:`release`.
    Everything else (``isatty``, ``fileno``, ``encoding``...) is the target's, but its
    ``buffer`` is the stream's own: bytes go through the filter too.
    """

    def __init__(self, target: IO[str]) -> None:
        self.target = target
        self._held = ""
        self._at_line_start = True  # whether the held text (or the next write) starts a line
        self._lock = _thread.allocate_lock()  # a progress line is written from a thread
        self._buffer: _InertBuffer | None = None

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            self._write(text)
        return len(text)

    def _write(self, text: str) -> None:
        data = self._held + text
        if not data:
            return
        start = self._at_line_start
        last_break = max(data.rfind("\n"), data.rfind("\r"))
        segment = last_break + 1
        segment_at_start = last_break >= 0 or start
        if segment_at_start and _UNDECIDED_HEAD.fullmatch(data, segment):
            hold = segment
        else:
            partial = _PARTIAL_BRACKET.search(data, segment)
            hold = partial.start() if partial else len(data)
        self.target.write(_inert(data[:hold], start))
        self._held = data[hold:]
        if self._held:
            self._at_line_start = hold == segment and segment_at_start
        else:
            self._at_line_start = data[-1] in "\r\n"

    def write_command(self, line: str) -> None:
        """One of the doctor's own workflow commands, written as it is (at a line start)."""
        with self._lock:
            self._release()
            self.target.write(line)
            self._at_line_start = line[-1:] in ("\n", "\r") or (not line and self._at_line_start)

    def _release(self) -> None:
        if self._held:
            self.target.write(_inert(self._held, self._at_line_start))
            self._at_line_start = self._held[-1] in "\r\n"
            self._held = ""

    def release(self) -> None:
        """Write what was held back: the output ends here."""
        with self._lock:
            self._release()

    def flush(self) -> None:
        self.target.flush()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self) -> _InertBuffer:
        """Bytes written here are decoded (UTF-8) and written through the same filter."""
        if self._buffer is None:
            self._buffer = _InertBuffer(self)
        return self._buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


class _InertBuffer:
    """An :class:`InertStream` 's ``buffer``: UTF-8 bytes, decoded as they come."""

    def __init__(self, stream: InertStream) -> None:
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def write(self, data: bytes | bytearray) -> int:
        self._stream.write(self._decoder.decode(bytes(data)))
        return len(data)

    def flush(self) -> None:
        self._stream.flush()

    def writable(self) -> bool:
        return True


def write_command(stream: IO[str], line: str) -> None:
    """Write one of the doctor's own workflow commands on ``stream``, past its filter."""
    if isinstance(stream, InertStream):
        stream.write_command(line)
    else:
        stream.write(line)


class inert_streams:  # a context manager, named like contextlib's
    """While in effect, ``sys.stdout`` and ``sys.stderr`` are :class:`InertStream` s.

    Entered by the console script and by every command (``cli.py``); entering again
    inside changes nothing. On leaving, what was held back is written and the streams
    are put back.
    """

    def __enter__(self) -> None:
        self._installed: list[tuple[str, InertStream]] = []
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if stream is not None and not isinstance(stream, InertStream):
                wrapped = InertStream(stream)
                setattr(sys, name, wrapped)
                self._installed.append((name, wrapped))

    def __exit__(self, *exc_info: object) -> None:
        for name, wrapped in reversed(self._installed):
            try:
                wrapped.release()
            except (OSError, ValueError):  # a closed pipe: nothing more can be written
                pass
            finally:
                if getattr(sys, name) is wrapped:
                    setattr(sys, name, wrapped.target)


class plain_streams:
    """The streams under :class:`inert_streams`, for a protocol that owns stdout (MCP)."""

    def __enter__(self) -> None:
        self._swapped: list[tuple[str, InertStream]] = []
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if isinstance(stream, InertStream):
                stream.release()
                setattr(sys, name, stream.target)
                self._swapped.append((name, stream))

    def __exit__(self, *exc_info: object) -> None:
        for name, stream in self._swapped:
            setattr(sys, name, stream)
