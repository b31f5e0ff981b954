"""Printing a report and writing the files a run is asked for: the report in its format, the
job summary, ``-o``, the error document of an exit-2 run.

Apart from the pipeline (:mod:`context_doctor.pipeline.audit`), so that a replayed run prints its
report without importing the model.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

import click

from context_doctor.errors import DoctorError
from context_doctor.guards.escape import InertStream, escape_text, inert_text, write_command
from context_doctor.render.formats import FORMATS, RenderOptions
from context_doctor.report.report import Report
from context_doctor.write import USER_NAMED, WriteRefused, append_file, write_file

if TYPE_CHECKING:
    from context_doctor.checks.registry import CheckSpec


def write_step_summary(report: Report) -> None:
    """Append the job summary to ``$GITHUB_STEP_SUMMARY``, when GitHub names one."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        # GitHub reads the file after the step; other steps append to it too.
        try:
            from context_doctor.render.github import step_summary

            append_file(Path(summary), step_summary(report).encode("utf-8"), within=USER_NAMED)
        except (DoctorError, WriteRefused) as error:
            problem = error.message if isinstance(error, WriteRefused) else error.problem
            raise DoctorError(
                f"cannot append the job summary to $GITHUB_STEP_SUMMARY ({summary}): {problem}",
                "point GITHUB_STEP_SUMMARY at a writable file, or unset it",
            ) from error


def render_report(
    report: Report,
    output_format: str,
    checks: Sequence[CheckSpec],
    stream: IO[str],
    *,
    quiet: bool = False,
    statistics: bool = False,
    show_coverage: bool = False,
    docs_url: str | None = None,
    importance: bool = False,
) -> None:
    """Print ``report`` in ``output_format`` (a key of :data:`FORMATS`) on ``stream``."""
    options = RenderOptions(checks, quiet, statistics, show_coverage, docs_url, importance)
    FORMATS[output_format].render(report, options, stream)


def emit(
    report: Report,
    output_format: str,
    quiet: bool,
    statistics: bool,
    checks: Sequence[CheckSpec],
    *,
    summary_written: bool = False,
    show_coverage: bool = False,
    output_file: Path | None = None,
    rendered: bytes | bytearray | None = None,
    docs_url: str | None = None,
    importance: bool = False,
) -> None:
    """Print the report, or with ``output_file`` write it there (atomically, via write.py).

    ``rendered``: the report already rendered in ``output_format``, in UTF-8 (the JSON the
    caches took), written as it is rather than rendered again.
    """
    if output_format == "github" and not summary_written:
        write_step_summary(report)
    if rendered is not None:
        if output_file is not None:
            write_output(output_file, inert_bytes(rendered))
            return
        # Through the inert stream of the moment, when there is one (its buffer filters too).
        stdout = getattr(sys.stdout, "buffer", None)
        if stdout is None:  # a text-only stream stands in for stdout
            sys.stdout.write(rendered.decode("utf-8"))
            return
        sys.stdout.flush()
        stdout.write(rendered)
        stdout.flush()
        return
    if output_file is None:
        render_report(
            report, output_format, checks, sys.stdout, quiet=quiet, statistics=statistics,
            show_coverage=show_coverage, docs_url=docs_url, importance=importance,
        )  # fmt: skip
        return
    # -o holds what stdout would: its lines as inert as the printed ones (guards/escape.py).
    buffer = io.StringIO()
    inert = InertStream(buffer)
    render_report(
        report, output_format, checks, cast("IO[str]", inert), quiet=quiet,
        statistics=statistics, show_coverage=show_coverage, docs_url=docs_url,
        importance=importance,
    )  # fmt: skip
    inert.release()
    write_output(output_file, buffer.getvalue())


def inert_bytes(rendered: bytes | bytearray) -> bytes | bytearray:
    """A rendered UTF-8 document (JSON) with its lines inert, unchanged when it needs nothing."""
    text = rendered.decode("utf-8")
    inert = inert_text(text)
    return rendered if inert == text else inert.encode("utf-8")


def write_output(path: Path, text: str | bytes | bytearray) -> None:
    """``-o FILE``: the whole output or nothing (exit 2 naming why), never a half-written file."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise DoctorError(f"--output-file {path} is a directory", "name a file to write")
    if not parent.is_dir():
        raise DoctorError(
            f"--output-file {path}: directory {parent} does not exist",
            "create the directory first, or name a file in an existing one",
        )
    data = text.encode("utf-8") if isinstance(text, str) else text
    write_whole(path, data, "--output-file", within=USER_NAMED)


def write_whole(path: Path, data: bytes | bytearray, what: str, *, within: Path | None) -> None:
    """The whole file or nothing, through write.py; exit 2 naming why not.

    A refusal (a symlinked target) is exit 2 here, not 1: the output the run
    was asked for does not exist, so the run cannot be judged by it.
    """
    try:
        write_file(path, data, within=within)
    except WriteRefused as refused:
        raise DoctorError(
            f"{what} {path} was not written: {refused.message}",
            "name a regular file that is not a symlink",
        ) from refused


def emit_error(error: DoctorError, output_format: str, output_file: Path | None) -> None:
    """On exit 2, the machine formats still say what happened (docs/output.md).

    SARIF is a valid log with ``executionSuccessful: false``; ``github`` is one
    ``::error::``; JSON is the error object. Human formats leave it to stderr.
    """
    renderer = FORMATS[output_format].render_error if output_format in FORMATS else None
    if renderer is None:
        return
    text = renderer(error.problem, error.remedy)
    if FORMATS[output_format].error_is_command:  # the doctor's own ::error:: stays one
        if output_file is None:
            write_command(sys.stdout, text)
            sys.stdout.flush()
            return
    else:
        text = inert_text(text)
    if output_file is None:
        click.echo(text, nl=False)
        return
    try:
        write_output(output_file, text)
    except DoctorError as unwritable:
        # The caller prints ``error`` itself: a second line only when it says something else
        # (the run failed for another reason and -o cannot take the error document either).
        if unwritable.one_line() != error.one_line():
            click.echo(f"context-doctor: error: {escape_text(unwritable.one_line())}", err=True)
