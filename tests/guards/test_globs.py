"""The one glob engine (context_doctor/guards/globs.py): linear in every glob a tree supplies.

A committed `work_ignore = ["**a**a**a…**b"]` and one committed file with a long name kept
`check` busy past a minute: each `**` was translated to `.*` and Python's backtracking
matcher tried every way to split the name. The engine's cost is counted in steps (integer
operations on its position sets), never timed: per character a bounded number of rounds,
per distinct character one pass over the automaton.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from support import MakeRepo

from context_doctor.guards.globs import PATH, SHELL, Globs
from context_doctor.model.work import ignore_globs
from context_doctor.pipeline.suppress import path_glob

ROUNDS = 6
"""A character's closure takes at most this many rounds: merged runs leave no chain of
optional positions longer than `*`, `**/` and the `below` tail (three skips, a fourth round
to see nothing new, and two to spare)."""


def bound(globs: Globs, name: str) -> int:
    """The most steps one match of ``name`` may take on a freshly compiled ``globs``."""
    return ROUNDS * (len(name) + 1) + globs.size * (len(set(name)) + 1)


# -- the regular expressions the engine replaced: oracles, on inputs too small to hang ------


def old_work_ignore(globs: list[str]) -> re.Pattern[str]:
    parts = []
    for glob in globs:
        text, pattern, position = glob.strip().lstrip("/"), "", 0
        while position < len(text):
            if text.startswith("**/", position):
                pattern, position = pattern + "(?:.*/)?", position + 3
            elif text.startswith("**", position):
                pattern, position = pattern + ".*", position + 2
            elif text[position] == "*":
                pattern, position = pattern + "[^/]*", position + 1
            elif text[position] == "?":
                pattern, position = pattern + "[^/]", position + 1
            else:
                pattern, position = pattern + re.escape(text[position]), position + 1
        parts.append(pattern.rstrip("/") + "(?:/.*)?")
    return re.compile("|".join(f"(?:{part})" for part in parts))


def old_per_path(glob: str) -> re.Pattern[str]:
    if glob.endswith("/"):
        glob += "**"
    parts, position = [], 0
    while position < len(glob):
        if glob.startswith("**/", position):
            parts.append("(?:.*/)?")
            position += 3
        elif glob.startswith("**", position):
            parts.append(".*")
            position += 2
        elif glob[position] in "*?":
            parts.append("[^/]*" if glob[position] == "*" else "[^/]")
            position += 1
        else:
            parts.append(re.escape(glob[position]))
            position += 1
    return re.compile("".join(parts) + r"\Z")


SMALL_GLOB = st.text(alphabet="ab/*?. ", max_size=8)
SMALL_NAME = st.text(alphabet="ab/.", max_size=9)  # no newline: the old `.*` stopped at one


@settings(max_examples=400, deadline=None)
@given(globs=st.lists(SMALL_GLOB, min_size=1, max_size=3), names=st.lists(SMALL_NAME, max_size=8))
def test_the_engine_agrees_with_the_regular_expressions_it_replaced(
    globs: list[str], names: list[str]
) -> None:
    ignored = ignore_globs(tuple(globs))
    assert ignored is not None
    oracle = old_work_ignore(globs)
    per_path, per_path_oracle = path_glob(globs[0]), old_per_path(globs[0])
    for name in names:
        assert ignored.matches(name) == bool(oracle.fullmatch(name)), (globs, name)
        assert per_path.matches(name) == bool(per_path_oracle.match(name)), (globs[0], name)


@settings(max_examples=400, deadline=None)
@given(
    glob=st.text(alphabet="ab/*?[]!-", max_size=9), names=st.lists(st.text("ab/-!]"), max_size=8)
)
def test_the_shell_dialect_agrees_with_fnmatch(glob: str, names: list[str]) -> None:
    """``[instructions] budgets`` keep fnmatch's meaning: ``*`` crosses ``/``, sets, ranges."""
    globs = Globs([glob], dialect=SHELL)
    for name in names:
        assert globs.matches(name) == fnmatchcase(name, glob), (glob, name)


def test_the_documented_globs_mean_what_they_say() -> None:
    work = ignore_globs(("public/feeds/**", "data/*.csv", "/build/"))
    assert work is not None
    assert work.matches("public/feeds/2026/07/x.json") and work.matches("data/prices.csv")
    assert not work.matches("data/raw/prices.csv") and work.matches("build/out/app.js")
    legacy = path_glob("projects/*/reference/legacy.md")
    assert legacy.matches("projects/alpha/reference/legacy.md")
    assert not legacy.matches("projects/a/b/reference/legacy.md")
    archive = path_glob("projects/archive/")
    assert archive.matches("projects/archive/CONTEXT.md") and not archive.matches("projects/a")
    assert Globs([".claude/rules/*.md"], dialect=SHELL).matches(".claude/rules/deep/x.md")
    assert Globs(["**/x"]).matches("x") and Globs(["**/x"]).matches("a/b/x")
    assert not Globs(["**/x"]).matches("ax") and Globs(["**x"]).matches("a/bx")
    assert not Globs([]).matches("")


ADVERSARIAL_PIECES = st.sampled_from(["**", "*", "?", "**/", "a", "b", "/", "[ab]", "[!a]"])


@settings(max_examples=60, deadline=None)
@given(
    pieces=st.lists(ADVERSARIAL_PIECES, min_size=1, max_size=80),
    name=st.text(alphabet="ab/", max_size=300),
    dialect=st.sampled_from([PATH, SHELL]),
    below=st.booleans(),
)
def test_a_match_costs_steps_linear_in_the_name_whatever_the_glob(
    pieces: list[str], name: str, dialect: str, below: bool
) -> None:
    """Globs built to make a backtracking matcher explode (runs of `**` and `*` between the
    name's own characters), against names of the characters they name: every match stays
    within a fixed number of rounds per character."""
    globs = Globs(["".join(pieces)], dialect=dialect, below=below)
    before = globs.steps
    globs.matches(name)
    assert globs.steps - before <= bound(globs, name)


def test_the_attack_of_the_report_costs_a_few_steps_per_character() -> None:
    glob = "**a" * 40 + "**b"
    name = "a" * 4000
    for globs in (ignore_globs((glob,)), path_glob(glob), Globs([glob], dialect=SHELL)):
        assert globs is not None
        globs = Globs(globs.globs, dialect=globs.dialect, below=globs.below)  # fresh counts
        before = globs.steps
        assert not globs.matches(name)
        assert globs.steps - before <= bound(globs, name)
        assert globs.matches(name + "b")


def test_many_globs_share_one_pass() -> None:
    globs = Globs([f"dir{index}/**" for index in range(500)] + ["**.csv"])
    before = globs.steps
    assert globs.matches("dir499/x/y") and globs.matches("a/b.csv")
    assert not globs.matches("dir5")  # the folder itself is not `dir5/**`
    assert globs.steps - before <= 3 * bound(globs, "dir499/x/y")


# -- the attack, planted as a repository ---------------------------------------------------

ATTACK = "**a" * 16 + "**b"
LONG_NAME = "a" * 240


def test_a_committed_backtracking_glob_does_not_hang_check(make_repo: MakeRepo) -> None:
    """The planted repository: `work_ignore` and a `[per-path-ignores]` key of `**a…**b`, and a
    committed file whose name is 240 `a`s (work) and one that ends in `b` (ignored). Before the engine, `check` did not end (the
    backtracking took longer than the age of the universe); now it reports. The process is
    bounded only so that a regression fails here instead of hanging the suite."""
    toml = (
        f'[layout]\ncontext = "STATUS.md"\nsessions = "context"\nwork_ignore = ["{ATTACK}"]\n'
        f'[per-path-ignores]\n"{ATTACK}" = ["structure"]\n'
    )
    status = "# Status\n\nLast updated: 2026-06-01\n\n## Log\n\n### 2026-06-01\n- began\n"
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "message": "begin",
                    "files": {"STATUS.md": status, "context-doctor.toml": toml},
                },
                {
                    "date": "2026-06-10T10:00:00+00:00",
                    "message": "generated data, ignored",
                    "files": {f"d/{LONG_NAME}b": "x\n"},
                },
                {
                    "date": "2026-06-20T10:00:00+00:00",
                    "message": "work",
                    "files": {f"d/{LONG_NAME}": "y\n"},
                },
            ],
        }
    )
    command = [sys.executable, "-m", "context_doctor", "check", str(root), "--json"]
    done = subprocess.run(
        [*command, "--today", "2026-06-30", "--no-cache"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(root),
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["projects_audited"] == 1
    (unlogged,) = [f for f in report["findings"] if f["check"] == "unlogged-session"]
    assert "of 2026-06-20" in unlogged["message"]  # the long name is work; `…ab` set aside
