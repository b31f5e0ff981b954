"""Text options that arrive byte for byte: ``--NAME TEXT``, ``--NAME -`` (stdin), ``--NAME-file F``.

A shell mangles what scripts pass on a command line (trailing spaces, tabs, a
CRLF, a final newline); the file twin and stdin carry the exact bytes. The bytes
must be UTF-8 (else exit 2, one line); a leading byte-order mark is dropped (it
belongs to the file, not to the text). Only one option of a command can read
stdin.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from context_doctor.errors import DoctorError
from context_doctor.guards.limits import TooLarge, read_limited
from context_doctor.guards.text import BOM

MAX_TEXT_BYTES = 16 << 20


@dataclass(frozen=True)
class TextSource:
    """Where one text option's value comes from: given inline (``-``: stdin) or a file."""

    option: str
    value: str | None
    file: Path | None


def text_option(
    name: str, metavar: str, help_text: str, *, required: bool = True
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--NAME`` and ``--NAME-file``, handed to the command as one :class:`TextSource`."""
    key = name.replace("-", "_")

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            source = TextSource(f"--{name}", kwargs.pop(key), kwargs.pop(f"{key}_file"))
            if required and source.value is None and source.file is None:
                raise click.UsageError(f"Missing option '--{name}' (or '--{name}-file').")
            kwargs[key] = source
            return function(*args, **kwargs)

        wrapper = click.option(
            f"--{name}-file",
            f"{key}_file",
            type=click.Path(path_type=Path, dir_okay=False),
            metavar="FILE",
            help=f"Read --{name} from FILE, byte for byte.",
        )(wrapper)
        return click.option(
            f"--{name}", key, metavar=metavar, help=f"{help_text} `-` reads it from stdin."
        )(wrapper)

    return decorate


def read_input(source: TextSource, *, one_line: bool = False) -> str:
    """The option's text; ``one_line``: one final line break (from a file or stdin) dropped."""
    if source.value is not None and source.file is not None:
        raise click.UsageError(f"{source.option} and {source.option}-file cannot both be given.")
    if source.value is None and source.file is None:
        return ""
    if source.file is None and source.value != "-":
        assert source.value is not None
        return source.value
    raw = read_stdin(source.option) if source.file is None else read_file(source.file)
    where = "stdin" if source.file is None else str(source.file)
    text = decode_input(raw, f"{source.option} ({where})")
    if one_line:
        text = text.removesuffix("\n").removesuffix("\r")
    return text


def decode_input(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"{what} is not UTF-8 text (byte {error.start})", "give the text as UTF-8"
        ) from None


def read_stdin(option: str) -> bytes:
    """All of stdin, once per command (a second option asking for it is a usage error)."""
    context = click.get_current_context(silent=True)
    meta = context.find_root().meta if context is not None else {}
    if meta.get("context_doctor.stdin_read"):
        raise click.UsageError(f"{option} -: stdin was already read by another option.")
    meta["context_doctor.stdin_read"] = True
    data = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        raise DoctorError(f"stdin holds more than {MAX_TEXT_BYTES >> 20} MiB", "give less text")
    return data


def read_file(path: Path) -> bytes:
    try:
        return read_limited(path, MAX_TEXT_BYTES)
    except TooLarge:
        raise DoctorError(f"{path} is over {MAX_TEXT_BYTES >> 20} MiB", "give less text") from None
    except FileNotFoundError:
        raise DoctorError(f"{path} does not exist", "check the path") from None
    except OSError as error:
        raise DoctorError(f"cannot read {path}: {error.strerror or error}", "check it") from None
