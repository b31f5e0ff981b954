"""Hostile corpora through the whole ``check`` command (issue 14): exit 0, 1 or 2, never worse.

Each example is a real git repository: files whose names use any bytes git
accepts (project directories included), YAML with anchors and aliases (in
``index.yaml`` and in Markdown frontmatter), and deeply nested Markdown.  For every
corpus ``check`` must exit 0, 1 or 2 without an internal error, print JSON that is
valid UTF-8 and parses, print human output with no raw control character, and
finish within a generous bound.

CI runs a fixed seed and a few examples per strategy (the ``ci`` profile in
``conftest.py``); a larger run by hand::

    HYPOTHESIS_PROFILE=large pytest tests/test_fuzz_check.py -q

whose figures are recorded in CHANGELOG.md.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from conftest import Run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import Doctor, run_git

TODAY = "2026-06-15"
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck))

_FORBIDDEN_COMPONENTS = {b"", b".", b".."}


def _acceptable(component: bytes) -> bool:
    """A path component git stores: no NUL or slash, not `.`/`..`, never a `.git` look-alike."""
    if component in _FORBIDDEN_COMPONENTS or b"\x00" in component or b"/" in component:
        return False
    folded = component.lower().rstrip(b". ")
    return not (folded == b".git" or folded.startswith(b"git~") or len(component) > 200)


NAME_BYTES = st.one_of(
    st.binary(min_size=1, max_size=12),
    st.sampled_from(
        [b"a\x1eb.md", b"new\nline.md", b"\x1b[2J.md", b"\xff\xfe.md", b"-rf", b":x,y%.md",
         b"2026-06.md", b"CONTEXT.md", b"\xe2\x80\xae.md", b" ", b"\r", b"\\", b"'\"`$(x)"]
    ),
)  # fmt: skip
COMPONENT = NAME_BYTES.filter(_acceptable)

CONTEXT = b"# P\n\n**Status:** active\n**Last session:** 2026-06-01\n"
LOG = b"# Log\n\n## 2026-06-01 \xe2\x80\x94 start\n"


@st.composite
def hostile_trees(draw: st.DrawFn) -> dict[bytes, bytes]:
    """Relative paths (bytes) to contents: projects, tier files and strays with hostile names."""
    files: dict[bytes, bytes] = {b"projects/index.yaml": b"projects: []\n"}
    for project in draw(st.lists(COMPONENT, min_size=1, max_size=3, unique=True)):
        base = b"projects/" + project
        files[base + b"/CONTEXT.md"] = draw(st.sampled_from([CONTEXT, b"", project + b"\n"]))
        for folder in draw(st.lists(st.sampled_from([b"sessions", b"reference", b""]), max_size=2)):
            name = draw(COMPONENT)
            files[b"/".join(part for part in (base, folder, name) if part)] = LOG
    for stray in draw(st.lists(COMPONENT, max_size=3)):
        files[stray + b".md"] = b"stray\n"
    return files


def _anchored_value(depth: int, width: int) -> str:
    lines = [f"  - &a0 [{', '.join(['x'] * width)}]"]
    for level in range(1, depth):
        lines.append(f"  - &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


YAML_PIECES = st.sampled_from(
    [
        "projects:\n",
        "  - id: alpha\n    status: active\n    last_session: 2026-06-01\n",
        "  - &e {id: beta, status: paused}\n",
        "  - *e\n",
        "  - <<: *e\n    id: gamma\n",
        "extra: &r [*r]\n",
        'note: "\\ud83d\\ude80 \\ud83d"\n',
        '  - id: "\\x1b[2J"\n    status: "\\u202eevil"\n',
        "<<<<<<< HEAD\n",
        "=======\n",
        ">>>>>>> side\n",
        "\t: [\n",
    ]
)


@st.composite
def aliased_yaml(draw: st.DrawFn) -> str:
    """An index.yaml of YAML pieces, sometimes carrying alias chains up to bomb size."""
    text = "".join(draw(st.lists(YAML_PIECES, max_size=8)))
    if draw(st.booleans()):
        depth = draw(st.integers(min_value=1, max_value=9))
        width = draw(st.integers(min_value=1, max_value=10))
        text += "bomb:\n" + _anchored_value(depth, width)
    return text


@st.composite
def nested_markdown(draw: st.DrawFn) -> str:
    """CONTEXT.md bodies nested far deeper than any person writes."""
    depth = draw(st.integers(min_value=1, max_value=3000))
    kind = draw(st.sampled_from(["> ", "- ", "1. ", "  - ", "[", "*", "<div>", "```\n"]))
    bomb = draw(st.booleans())
    front = "---\nconvention: pai-freshness-v1\nlast_reviewed: 2026-06-01\n"
    if bomb:
        front += "extra:\n" + _anchored_value(draw(st.integers(1, 9)), 10)
    return (
        front + "---\n# P\n\n**Status:** active\n**Last session:** 2026-06-01\n\n"
        + kind * depth + "deep\n"
        + draw(st.text(max_size=60))
    )  # fmt: skip


def _build(root: Path, files: dict[bytes, bytes]) -> bool:
    """Write and commit the tree; False when git refuses a name (not a name git accepts)."""
    root.mkdir(parents=True)
    base = os.fsencode(root)
    for relative, data in files.items():
        target = base + b"/" + relative
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.isdir(target):
            continue
        with open(target, "wb") as stream:
            stream.write(data)
    run_git(root, "init", "-q")
    if run_git(root, "add", "-A", check=False).returncode != 0:
        return False
    run_git(root, "commit", "-q", "-m", "fuzz", when="2026-06-01T09:00:00+00:00", identity=True)
    return True


def _assert_sane(doctor: Doctor, root: Path) -> None:
    run: Run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.exit_code in (0, 1, 2), run.stderr
    run.stdout.encode("utf-8")  # strict: no lone surrogate reaches the output
    report: dict[str, Any] = run.json
    if run.exit_code == 2:
        assert "internal error" not in report["error"], report
    else:
        assert "findings" in report
    human = doctor("check", "--source", str(root), "--today", TODAY)
    assert human.exit_code == run.exit_code
    assert "\x1b" not in human.stdout and "\x1b" not in human.stderr
    human.stdout.encode("utf-8")


_counter = iter(range(10**9))


def _audit_tree(tmp_path_factory: Any, doctor: Doctor, files: dict[bytes, bytes]) -> None:
    """Build ``files`` as a fresh repository and audit it (a name git refuses proves nothing)."""
    root: Path = tmp_path_factory.mktemp("fuzz") / f"kb{next(_counter)}"
    if _build(root, files):
        _assert_sane(doctor, root)


@FUZZ
@given(files=hostile_trees())
def test_any_file_names_git_accepts(tmp_path_factory: Any, doctor: Doctor, files: Any) -> None:
    _audit_tree(tmp_path_factory, doctor, files)


@FUZZ
@given(index=aliased_yaml())
def test_yaml_with_aliases(tmp_path_factory: Any, doctor: Doctor, index: str) -> None:
    front = "---\nconvention: pai-freshness-v1\n" + index + "---\n"
    _audit_tree(
        tmp_path_factory,
        doctor,
        {
            b"projects/index.yaml": index.encode("utf-8"),
            b"projects/alpha/CONTEXT.md": CONTEXT,
            b"notes.md": front.encode("utf-8"),
        },
    )


@FUZZ
@given(context=nested_markdown())
def test_deeply_nested_markdown(tmp_path_factory: Any, doctor: Doctor, context: str) -> None:
    body = context.encode("utf-8", "surrogatepass")
    _audit_tree(
        tmp_path_factory,
        doctor,
        {
            b"projects/index.yaml": b"projects:\n  - id: alpha\n    status: active\n",
            b"projects/alpha/CONTEXT.md": body,
            b"projects/alpha/sessions/2026-06.md": LOG + body,
        },
    )


def test_git_accepts_the_hostile_names_we_generate(tmp_path: Path) -> None:
    """The strategy's fixed names really reach git (else the fuzzing proves little)."""
    root = tmp_path / "kb"
    names = [b"a\x1eb.md", b"new\nline.md", b"\x1b[2J.md", b"\xff\xfe.md", b"\xe2\x80\xae.md"]
    assert _build(root, {b"projects/p/sessions/" + name: LOG for name in names})
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.split(b"\x00")
    assert {b"projects/p/sessions/" + name for name in names} <= set(listed)
