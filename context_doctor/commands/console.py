"""``context-doctor console install|status``: the Synthesis Console's way to run this doctor (docs/surfaces.md).

Console 1.x and 2.x look for their context doctor in different places
(:mod:`context_doctor.commands.console_eras`); ``install`` writes the launcher where the
console this machine is set up for looks, and ``status`` says what each era would run.
"""

from __future__ import annotations

import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from context_doctor.commands.common import guarded
from context_doctor.commands.console_eras import (
    ERA_1,
    ERA_2,
    SKILL,
    NoPlace,
    Place,
    era_1_candidates,
    era_2_candidates,
    era_2_searched,
    findings,
    install_place,
    judge,
)
from context_doctor.commands.console_launcher import (
    SCRIPT,
    install_launcher,
    interpreter,
    is_launcher,
    launcher_text,
)
from context_doctor.commands.help_format import DoctorGroup
from context_doctor.config.synthesis import console_home
from context_doctor.errors import DoctorError
from context_doctor.guards.escape import escape_text
from context_doctor.write import WriteRefused, ensure_directory, write_file


@click.group("console", cls=DoctorGroup)
def console_group() -> None:
    """Connect the doctor to the Synthesis Console (1.x and 2.x)."""


@console_group.command("install")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Write scripts/context_doctor.py here, for console 1.x and its export line "
    "(default: where this machine's console looks).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace the scripts/context_doctor.py of an upstream skill installed there "
    "(the original is kept as a backup).",
)
def console_install_command(directory: Path | None, force: bool) -> None:
    """Write the launcher the Synthesis Console runs as its context doctor.

    Where this machine's console looks: the synthesis v5 runtime
    (V5/current/skills/synthesis-context-lifecycle, only when V5/current/synthesis/hook.py
    exists; console 2.x), else the newest v5 plugin in a harness plugin cache (console
    2.x and 1.x), else, with no synthesis v5 here, $SYNTHESIS_HOME/context-doctor/skill
    and the `export SYNTHESIS_CONTEXT_LIFECYCLE_DIR=…` line console 1.x needs. The
    launcher re-executes the Python this doctor is installed in and takes the upstream
    doctor's flags. Then it says which console versions will run it. Exit 0 written (or
    already up to date); 1 refused (an upstream skill is there: --force replaces its
    script, keeping a backup); 2 no place where a console would look (it says what is
    missing).
    """
    with guarded(False, False):
        if directory is not None:
            place = Place(directory.expanduser().absolute(), "--dir", True)
        else:
            try:
                place = install_place()
            except NoPlace as missing:
                raise DoctorError(
                    f"{missing.problem}; `console install` serves console 1.x and 2.x",
                    "install the synthesis v5 release or the synthesis-skills plugin in your "
                    "harness, then run `context-doctor console install` again; for console "
                    "1.x alone, `context-doctor console install --dir DIR` with the export "
                    "line it prints",
                ) from None
        script, changed, backup = _install(place, force)
        state = "wrote" if changed else "up to date:"
        click.echo(escape_text(f"{state} {script} ({place.why})"))
        if backup is not None:
            click.echo(escape_text(f"the upstream script it replaced is kept as {backup}"))
        override = str(place.directory) if place.needs_export else None
        for finding in _served(override):
            click.echo(escape_text(finding))
        if place.needs_export:
            click.echo(
                "Add this line where the Synthesis Console's environment is set (e.g. ~/.profile):"
            )
            click.echo(
                escape_text(
                    f"export SYNTHESIS_CONTEXT_LIFECYCLE_DIR={shlex.quote(str(place.directory))}"
                )
            )


def _served(override: str | None) -> list[str]:
    """Each era's verdict after the install; ``override`` as if the export line were set."""
    era_1 = era_1_candidates(override=override)
    searched = "looked in " + ", ".join(str(c.directory) for c in era_1)
    return [
        judge(ERA_2, era_2_candidates(), era_2_searched()).line,
        judge(ERA_1, era_1, searched).line + (" once the export line is set" if override else ""),
    ]


def _install(place: Place, force: bool) -> tuple[Path, bool, Path | None]:
    """Write the launcher in ``place``; (script, changed, backup of a replaced script)."""
    try:
        script, changed = install_launcher(place.directory)
        return script, changed, None
    except WriteRefused as refused:
        if refused.rule != "foreign-skill":
            raise
        if not (force or is_launcher(place.directory / SCRIPT)):  # forced once: ours now
            raise WriteRefused(
                "foreign-skill",
                f"{place.directory} holds a {SKILL} skill `context-doctor console install` did "
                "not write, and nothing was written; `context-doctor console install --force` "
                f"replaces its {SCRIPT} (the rest of the skill stays; the script is kept as a "
                "backup)" + ("" if place.why != "--dir" else ", or choose another --dir"),
            ) from None
    return _replace_upstream_script(place.directory)


def _replace_upstream_script(directory: Path) -> tuple[Path, bool, Path | None]:
    """--force: keep the skill's own script as a backup, then write the launcher over it."""
    if directory.is_symlink() or (directory / SCRIPT.parent).is_symlink():
        raise WriteRefused("symlink", f"{directory} leads through a symlink; nothing was written")
    script = directory / SCRIPT
    backup = None
    if script.is_symlink():
        raise WriteRefused(
            "symlink", f"{script} is a symlink; the doctor never writes through links"
        )
    if script.exists() and not is_launcher(script):
        backups = console_home() / "context-doctor" / "backups"
        ensure_directory(backups, within=backups)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        backup = backups / f"{SKILL}.{SCRIPT.name}.{stamp}.bak"
        write_file(backup, script.read_bytes(), mode=0o644, exclusive=True, within=backups)
    data = launcher_text(interpreter()).encode("utf-8")
    if backup is None and is_launcher(script) and script.read_bytes() == data:
        return script, False, None
    ensure_directory(script.parent, within=directory)
    write_file(script, data, mode=0o755, within=directory)
    return script, True, backup


@console_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print each era's verdict as JSON.")
def console_status_command(as_json: bool) -> None:
    """Which Synthesis Console eras would run this doctor, and why.

    Console 2.x: the synthesis v5 runtime, then v5 plugins in the harness plugin caches.
    Console 1.x: $SYNTHESIS_CONTEXT_LIFECYCLE_DIR (as set in this shell), its
    $SYNTHESIS_HOME/skills, the plugin caches, ~/.claude/skills and ~/.agents/skills.
    Exit 0 when at least one era runs this doctor, 1 when none does.
    """
    with guarded(as_json, False):
        verdicts = findings()
        if as_json:
            payload = [
                {
                    "era": finding.era,
                    "runs_this_doctor": finding.ours,
                    "script": str(finding.script) if finding.script else None,
                    "line": finding.line,
                }
                for finding in verdicts
            ]
            click.echo(json.dumps(payload, indent=2))
        else:
            for finding in verdicts:
                click.echo(escape_text(finding.line))
            if not any(finding.ours for finding in verdicts):
                click.echo(escape_text(_remedy()))
    sys.exit(0 if any(finding.ours for finding in verdicts) else 1)


def _remedy() -> str:
    """What would make a console run this doctor, naming only a command that runs here."""
    try:
        place = install_place()
    except NoPlace as missing:
        return f"no console would: {missing.problem}"
    return f"`context-doctor console install` writes it into {place.directory} ({place.why})"
