"""The launcher the Synthesis Console runs as its context doctor (docs/surfaces.md ``console install``).

The console looks for ``scripts/context_doctor.py`` under
``$SYNTHESIS_CONTEXT_LIFECYCLE_DIR`` (then its skills directory and plugin
caches) and runs it with a bare ``python3`` (or ``$SYNTHESIS_PYTHON_BIN``) in
isolated mode, with no virtualenv active: ``--root R --json`` once per source
for its integrity page, ``--quiet`` alone for "Audit now" (the doctor writes the
report cache itself).  That interpreter cannot import the doctor, so the
launcher is a few lines of standard library that re-execute the interpreter the
doctor is installed in, isolated (``python -I``, or ``-E -P`` for a doctor in
the user's site-packages: :mod:`context_doctor.guards.interpreter`; no ``PYTHONPATH`` and
no working directory on the import path, so a ``context_doctor/`` package in the
folder the console starts it from never shadows it) and turn the upstream
doctor's flags into ``check`` options.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from context_doctor.errors import DoctorError
from context_doctor.guards.interpreter import isolation_flags
from context_doctor.version import __version__
from context_doctor.write import WriteRefused, ensure_directory, write_file

SCRIPT = Path("scripts") / "context_doctor.py"
MARK = "# context-doctor console launcher"
"""The first comment line of every launcher: how ``install`` knows a file is its own."""

_INTERPRETER = "@INTERPRETER@"
_FLAGS = "@FLAGS@"
_VERSION = "@VERSION@"

# Kept to what any python3 runs (no f-strings, no walrus): the console's interpreter may
# be older than the doctor's. Placeholders are replaced with repr() of their values.
_TEMPLATE = '''#!/usr/bin/env python3
# context-doctor console launcher (context-doctor @VERSION@)
# Written by `context-doctor console install`; run that command again to update it.
"""Run context-doctor where the Synthesis Console runs its context doctor.

The console starts this file with a bare python3; it re-executes the Python that
context-doctor is installed in, as `context-doctor check`, with the upstream doctor's
flags: --quiet, --json, --root R (the knowledge root holding projects/), --source PATH,
--project PATH, --readiness local|remote (default remote, as upstream), --no-report-cache,
--warnings-as-defects. Exit 0 healthy, 1 defects, 2 the doctor could not tell.
"""
import json
import os
import sys

INTERPRETER = @INTERPRETER@
FLAGS = @FLAGS@
BOOT = (
    "import sys\\n"
    "try:\\n"
    "    from context_doctor.cli import main\\n"
    "except Exception as error:\\n"
    "    problem = 'context-doctor cannot be imported by %s (%s: %s)' % (\\n"
    "        sys.executable, type(error).__name__, error)\\n"
    "    remedy = 'reinstall context-doctor, then run `context-doctor console install` again'\\n"
    "    if '--json' in sys.argv:\\n"
    "        import json\\n"
    "        print(json.dumps({'ok': False, 'exit': 2, 'error': problem, 'remedy': remedy}))\\n"
    "    sys.stderr.write('context-doctor: error: %s (remedy: %s)\\\\n' % (problem, remedy))\\n"
    "    sys.exit(2)\\n"
    "main(sys.argv[1:])\\n"
)
VALUED = ("--source", "--project", "--readiness")


def fail(problem, remedy, as_json):
    if as_json:
        payload = {"ok": False, "exit": 2, "error": problem, "remedy": remedy}
        sys.stdout.write(json.dumps(payload, indent=2) + "\\n")
    sys.stderr.write("context-doctor: error: %s (remedy: %s)\\n" % (problem, remedy))
    sys.exit(2)


def translate(args):
    out = ["check"]
    readiness = False
    value = False
    for arg in args:
        if value:
            out.append(arg)
            value = False
        elif arg == "--root":
            out.append("--source")
            value = True
        elif arg.startswith("--root="):
            out.append("--source=" + arg[len("--root="):])
        else:
            if arg in VALUED:
                value = True
            if arg == "--readiness" or arg.startswith("--readiness="):
                readiness = True
            out.append(arg)
    if not readiness:
        out.extend(["--readiness", "remote"])
    return out


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    remedy = "reinstall context-doctor, then run `context-doctor console install` again"
    if not os.access(INTERPRETER, os.X_OK):
        fail("the Python context-doctor was installed in (%s) is gone" % INTERPRETER, remedy, as_json)
    try:
        os.execv(INTERPRETER, [INTERPRETER] + FLAGS + ["-c", BOOT] + translate(args))
    except OSError as error:
        fail("cannot start %s: %s" % (INTERPRETER, error), remedy, as_json)


if __name__ == "__main__":
    main()
'''


def interpreter() -> str:
    """The Python this doctor runs in: a virtualenv's own ``python``, never resolved further
    (resolving a venv's link would lose its site-packages)."""
    if not sys.executable:
        raise DoctorError(
            "this Python does not know its own executable (sys.executable is empty)",
            "run `context-doctor console install` from a regular Python installation",
        )
    return os.path.abspath(sys.executable)


def launcher_text(python: str, flags: tuple[str, ...] | None = None) -> str:
    """The launcher for ``python``, started with ``flags`` (default: :func:`isolation_flags`)."""
    chosen = list(isolation_flags() if flags is None else flags)
    return (
        _TEMPLATE.replace(_INTERPRETER, repr(python))
        .replace(_FLAGS, repr(chosen))
        .replace(_VERSION, __version__)
    )


def is_launcher(path: Path) -> bool:
    """Whether ``path`` is a regular file whose second line is the launcher's mark."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(512).decode("utf-8", "replace").splitlines()
    except OSError:
        return False
    return len(head) > 1 and head[1].startswith(MARK)


def _refuse_foreign(directory: Path) -> None:
    """Refuse a skill directory someone else installed: only an empty one, or one holding
    nothing but this launcher, is ours to write into."""
    if directory.is_symlink():
        raise WriteRefused(
            "symlink", f"{directory} is a symlink; the doctor never writes through links"
        )
    if not directory.exists():
        return
    if not directory.is_dir():
        raise DoctorError(f"{directory} exists and is not a directory", "choose another --dir")
    foreign = []
    for entry in sorted(directory.iterdir()):
        if entry.name != SCRIPT.parts[0] or entry.is_symlink() or not entry.is_dir():
            foreign.append(entry)
            continue
        foreign += [
            inner
            for inner in sorted(entry.iterdir())
            if inner.name != SCRIPT.name or not is_launcher(inner)
        ]
    if foreign:
        raise WriteRefused(
            "foreign-skill",
            f"{directory} holds {foreign[0]}, which `context-doctor console install` did not "
            "write: it is someone else's skill directory, and nothing was written; choose "
            "another --dir (the default is $SYNTHESIS_HOME/context-doctor/skill)",
        )


def install_launcher(directory: Path) -> tuple[Path, bool]:
    """Write ``DIR/scripts/context_doctor.py`` through the write path; (path, changed).

    Idempotent: an up-to-date launcher is left alone (``changed`` False).
    """
    _refuse_foreign(directory)
    script = directory / SCRIPT
    data = launcher_text(interpreter()).encode("utf-8")
    if is_launcher(script) and script.read_bytes() == data:
        return script, False
    ensure_directory(script.parent, within=directory)
    write_file(script, data, mode=0o755, within=directory)
    return script, True
