"""One table of output formats (render/formats.py): the CLI's choices, its help and exit 2 read it."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import click
import pytest
from support import Doctor

from context_doctor.commands.check import check_command
from context_doctor.commands.demo import demo_command
from context_doctor.render.formats import FORMATS


def _choices(command: click.Command) -> list[str]:
    [option] = [p for p in command.params if p.name == "output_format"]
    assert isinstance(option.type, click.Choice)
    return list(option.type.choices)


def test_the_commands_offer_exactly_the_table() -> None:
    assert _choices(check_command) == list(FORMATS)
    assert _choices(demo_command) == list(FORMATS)


def test_the_help_names_every_format_and_what_it_prints(doctor: Doctor) -> None:
    text = " ".join(doctor("check", "--help").stdout.split())
    for entry in FORMATS.values():
        assert f"{entry.name}: {entry.help}" in text


def test_every_renderer_has_the_one_signature() -> None:
    shapes = {tuple(inspect.signature(entry.render).parameters) for entry in FORMATS.values()}
    assert len(shapes) == 1 and len(next(iter(shapes))) == 3


@pytest.mark.parametrize("name", list(FORMATS))
def test_exit_2_speaks_the_format_that_has_an_error_renderer(
    name: str, doctor: Doctor, tmp_path: Path
) -> None:
    run = doctor("check", str(tmp_path / "missing"), "--output-format", name)
    assert run.exit_code == 2 and run.stderr.count("\n") == 1
    entry = FORMATS[name]
    if entry.render_error is None:
        assert run.stdout == ""
    else:
        assert run.stdout == entry.render_error(*_problem_and_remedy(run.stderr))


def _problem_and_remedy(stderr: str) -> tuple[str, str]:
    line = stderr.strip().removeprefix("context-doctor: error: ")
    problem, _, remedy = line.partition(" (remedy: ")
    return problem, remedy.removesuffix(")")


@pytest.mark.parametrize("name", [n for n, e in FORMATS.items() if e.machine])
def test_every_machine_format_renders_the_demo_as_a_document(
    name: str, doctor: Doctor, tmp_path: Path
) -> None:
    run = doctor("demo", "--output-format", name, cwd=tmp_path)  # builds ./context-doctor-demo
    assert run.exit_code == 1
    if name in ("json", "sarif", "gitlab"):
        json.loads(run.stdout)
    else:
        assert run.stdout.startswith("::")
