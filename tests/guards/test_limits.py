"""Every parse is bounded: alias bombs and oversized files.

Each attack runs the real command in a subprocess with a generous timeout: before
the bounds existed, the 578-byte bomb ran for minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support import MakeRepo

from context_doctor.git.run import git_environment
from context_doctor.guards.limits import (
    MAX_FILE_BYTES,
    MAX_YAML_FILE_BYTES,
    MIN_YAML_NODES,
    READ_CHUNK,
    TooLarge,
    read_limited,
    yaml_node_limit,
)
from context_doctor.guards.yamlio import YamlTooLarge, plain

TODAY = "2026-06-15"
CONTEXT = "# Alpha\n\n**Status:** active\n**Last session:** 2026-06-01\n"
INDEX = "projects:\n  - id: alpha\n    status: active\n    last_session: 2026-06-01\n"
GENEROUS_SECONDS = 60  # the unbounded parse took minutes; a bounded one takes a second or two


def alias_bomb(levels: int = 9, width: int = 10, key: str = "bomb") -> str:
    """``key:`` holding 10 aliases of 10 aliases of ... : 10**9 values from ~600 bytes."""
    lines = [f"{key}:", f"  - &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"  - &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def corpus(files: Mapping[str, str | Mapping[str, Any]]) -> dict[str, Any]:
    base: dict[str, Any] = {"projects/index.yaml": INDEX, "projects/alpha/CONTEXT.md": CONTEXT}
    base.update(files)
    return {"commits": [{"date": "2026-06-01T09:00:00+00:00", "files": base}]}


def check(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "context_doctor", "check", *args, "--today", TODAY],
        capture_output=True,
        text=True,
        env={**git_environment(), **(env or {})},
        timeout=GENEROUS_SECONDS,
        check=False,
    )


def test_the_bomb_is_small_and_refused_by_plain() -> None:
    from ruamel.yaml import YAML

    text = alias_bomb()
    assert len(text.encode()) < 700
    data = YAML(typ="rt").load(text)
    try:
        plain(data, limit=yaml_node_limit(text))
    except YamlTooLarge as error:
        assert f"{MIN_YAML_NODES:,}" in str(error)
    else:
        raise AssertionError("the bomb was expanded")


def test_index_alias_bomb_is_exit_2_naming_the_file(make_repo: MakeRepo) -> None:
    root = make_repo(corpus({"projects/index.yaml": INDEX + alias_bomb()}))
    done = check(str(root), "--json")
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)["error"]
    assert "index.yaml" in error and "alias" in error


def test_console_alias_bomb_is_exit_2_naming_the_file(make_repo: MakeRepo, tmp_path: Path) -> None:
    root = make_repo(corpus({}))
    home = tmp_path / "home"
    home.mkdir()
    (home / "console.yaml").write_text(
        f"sources:\n  - name: kb\n    root: {root}\n    projects_dir: projects\n" + alias_bomb(),
        encoding="utf-8",
    )
    done = check("--json", "--no-report-cache", env={"SYNTHESIS_HOME": str(home)})
    assert done.returncode == 2, done.stderr
    assert "console.yaml" in json.loads(done.stdout)["error"]


def test_frontmatter_alias_bomb_is_a_finding(make_repo: MakeRepo) -> None:
    graded = (
        "---\nconvention: pai-freshness-v1\nlast_updated: 2026-06-01\n"
        + alias_bomb(key="extra")
        + "---\n# Goals\n"
    )
    root = make_repo(corpus({"projects/alpha/GOALS.md": graded, "notes/deep/other.md": graded}))
    done = check(str(root), "--json")
    assert done.returncode == 1, done.stderr
    malformed = [
        f for f in json.loads(done.stdout)["findings"] if f["check"] == "freshness-malformed"
    ]
    assert sorted(f["path"] for f in malformed) == [
        "notes/deep/other.md",
        "projects/alpha/GOALS.md",
    ]
    assert all("alias" in f["message"] for f in malformed)


def test_oversized_tier_files_are_findings(make_repo: MakeRepo) -> None:
    line = "- a session entry line that is long enough to fill the file quickly\n"
    big = "## 2026-06-01 — work\n" + line * (MAX_FILE_BYTES // len(line) + 10)
    root = make_repo(
        corpus({"projects/alpha/sessions/2026-06.md": big, "projects/alpha/REFERENCE.md": big})
    )
    done = check(str(root), "--json")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)["findings"]
    unreadable = {f["path"]: f["message"] for f in findings if f["check"] == "record-unreadable"}
    assert set(unreadable) == {
        "projects/alpha/REFERENCE.md",
        "projects/alpha/sessions/2026-06.md",
    }
    assert all("over 4 MiB" in message for message in unreadable.values())


def test_oversized_index_is_exit_2(make_repo: MakeRepo) -> None:
    padding = "# " + "x" * 1000 + "\n"
    size = MAX_YAML_FILE_BYTES // len(padding) + 1
    root = make_repo(corpus({"projects/index.yaml": INDEX + padding * size}))
    done = check(str(root), "--json")
    assert done.returncode == 2
    assert "over 1 MiB" in json.loads(done.stdout)["error"]


def test_yaml_warnings_never_print_the_tree_raw(make_repo: MakeRepo) -> None:
    """ruamel warns about a reused anchor by printing the YAML itself on stderr."""
    index = INDEX + 'extra: &r "\\e[2J"\nmore: &r x\nagain: *r\n'
    root = make_repo(corpus({"projects/index.yaml": index}))
    done = check(str(root))
    assert done.returncode in (0, 1), done.stderr
    assert "Warning" not in done.stderr and "\x1b" not in done.stderr


def test_read_limited_reads_whole_files_up_to_the_limit_and_refuses_past_it(
    tmp_path: Path,
) -> None:
    sizes = (0, 1, READ_CHUNK - 1, READ_CHUNK, READ_CHUNK + 1, 3 * READ_CHUNK + 7)
    for size in sizes:
        path = tmp_path / f"f{size}"
        data = bytes(range(256)) * (size // 256) + bytes(size % 256)
        path.write_bytes(data)
        assert read_limited(path) == data
        assert read_limited(path, limit=size) == data
        if size:
            with pytest.raises(TooLarge):
                read_limited(path, limit=size - 1)
    with pytest.raises(OSError):
        read_limited(tmp_path)  # a directory
    with pytest.raises(OSError):
        read_limited(tmp_path / "missing")


# -- round three: every read is bounded, not only the audit's ----------------------------

PAST_THE_WRITE_BOUND = 65 * 1024 * 1024  # sparse: no disk, but a reader would load it all


def grown(path: Path, size: int = PAST_THE_WRITE_BOUND) -> None:
    """``path`` made ``size`` bytes long (a sparse tail of NULs after its text)."""
    with path.open("r+b") as handle:
        handle.truncate(size)


def test_the_one_reader_refuses_a_device_and_a_fifo(tmp_path: Path) -> None:
    link = tmp_path / "journal"
    link.symlink_to("/dev/zero")
    with pytest.raises(OSError, match="is a device, not a regular file"):
        read_limited(link)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="is a FIFO, not a regular file"):
        read_limited(fifo)


@pytest.mark.parametrize(
    "command",
    [
        [
            "edit",
            "set-field",
            "projects/alpha/CONTEXT.md",
            "--field",
            "Status",
            "--value",
            "Paused",
        ],
        [
            "edit",
            "replace",
            "projects/alpha/CONTEXT.md",
            "--anchor",
            "# Alpha",
            "--replacement",
            "# A",
        ],
        ["log", "add", "projects/alpha", "--date", "2026-06-10", "--title", "x", "--today", TODAY],
        ["freshness", "review", "projects/alpha/CONTEXT.md", "--by", "me"],
        ["freshness", "review-section", "projects/alpha/CONTEXT.md", "goals", "--by", "me"],
        ["freshness", "touch", "projects/alpha/CONTEXT.md", "--by", "me"],
    ],
)
def test_a_writer_refuses_a_target_past_the_bound_with_one_line(
    make_repo: MakeRepo, command: list[str]
) -> None:
    month = "# Session Archive — June 2026\n\n## 2026-06-01 — Started\n\nBegun.\n"
    root = make_repo(corpus({"projects/alpha/sessions/2026-06.md": month}))
    target = "sessions/2026-06.md" if command[0] == "log" else "CONTEXT.md"
    grown(root / "projects" / "alpha" / target)
    before = (root / "projects" / "alpha" / target).stat()
    done = subprocess.run(
        [sys.executable, "-m", "context_doctor", *command],
        cwd=root, capture_output=True, text=True, env=git_environment(),
        timeout=GENEROUS_SECONDS, check=False,
    )  # fmt: skip
    assert done.returncode in (1, 2), done.stderr
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr
    assert "over 64 MiB" in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    after = (root / "projects" / "alpha" / target).stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def test_a_journal_linked_to_dev_zero_is_refused_not_read(make_repo: MakeRepo) -> None:
    root = make_repo(corpus({}))
    project = root / "projects" / "alpha"
    (project / ".context-doctor-apply-0badc0de.journal").symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-m", "context_doctor", "edit", "recover", str(project)],
        capture_output=True, text=True, env=git_environment(),
        timeout=GENEROUS_SECONDS, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "is not a journal context-doctor wrote" in done.stderr
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr


def test_a_baseline_past_the_bound_is_exit_2_naming_it(make_repo: MakeRepo) -> None:
    root = make_repo(corpus({}))
    baseline = root / "baseline.json"
    baseline.write_text('{"context-doctor-baseline": 1, "findings": []}\n')
    grown(baseline)
    done = check("--source", str(root), "--baseline", str(baseline))
    assert done.returncode == 2, done.stderr
    assert "over 64 MiB" in done.stderr and str(baseline) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_fifo_where_the_report_cache_is_makes_status_say_so(tmp_path: Path) -> None:
    cache = tmp_path / "last-report.json"
    os.mkfifo(cache)
    done = subprocess.run(
        [sys.executable, "-m", "context_doctor", "status", "--cache", str(cache)],
        capture_output=True, text=True, env=git_environment(),
        timeout=GENEROUS_SECONDS, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert "not a regular file" in output, output
    assert "Traceback" not in output


def hostile_memory(entries: int = 40_000) -> bytes:
    """A vault memory whose frontmatter is ~1.6 MiB of YAML libyaml refuses: every entry an
    unclosed flow sequence, so the careful parser and the rescue would be handed all of it."""
    block = "".join(f"field_{n:05}: [never closed {n}, and more text\n" for n in range(entries))
    return f"---\ntype: fact\n{block}---\nThe body.\n".encode()


def counting_loader(handed: list[int]) -> Any:
    """A stand-in for ``lenient_loader`` that records the length of every text it is handed:
    the careful (pure-Python) parser is the slow one, so tests count its work, never time it."""
    from context_doctor.guards.yamlio import lenient_loader

    class Counting:
        def __init__(self) -> None:
            self.loader = lenient_loader()

        def load(self, text: str) -> Any:
            handed.append(len(text))
            return self.loader.load(text)

    return Counting


def test_the_yaml_work_on_a_hostile_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # The careful (pure-Python) parser is the slow one: count what it is handed, never time it.
    from context_doctor.freshness import frontmatter
    from context_doctor.guards.limits import MAX_FRONTMATTER_BYTES
    from context_doctor.vault import memory

    handed: list[int] = []
    Counting = counting_loader(handed)
    monkeypatch.setattr(memory, "lenient_loader", Counting)
    monkeypatch.setattr(frontmatter, "lenient_loader", Counting)
    raw = hostile_memory()
    assert len(raw) > 1_500_000
    facts = memory.memory_facts_of_bytes(raw, "hostile.md")
    assert facts is not None
    assert sum(handed) <= 2 * MAX_FRONTMATTER_BYTES, (len(handed), sum(handed))


# -- round three: hostile YAML under every parser the doctor feeds -----------------------


def broken_at_the_end(entries: int = 25_000) -> str:
    """~1.6 MiB of a well-formed index whose last line is broken: a parser must read it all."""
    lines = "".join(
        f"  - id: p{n:06}\n    status: active\n    last_session: 2026-06-01\n"
        for n in range(entries)
    )
    return f"projects:\n{lines}  - id: [never closed\n  odd: : :\n"


def test_a_large_broken_index_never_reaches_the_careful_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The careful (pure-Python) parser took over 30 s on this; count what it is handed.
    from context_doctor.errors import DoctorError
    from context_doctor.guards import yamlio
    from context_doctor.guards.limits import MAX_CAREFUL_YAML_BYTES, MAX_YAML_FILE_BYTES

    handed: list[int] = []
    monkeypatch.setattr(yamlio, "lenient_loader", counting_loader(handed))
    text = broken_at_the_end(15_000)
    assert MAX_CAREFUL_YAML_BYTES < len(text) <= MAX_YAML_FILE_BYTES
    with pytest.raises(DoctorError) as refused:
        yamlio.load_yaml_text(text, Path("projects/index.yaml"), "index file")
    assert "is not valid YAML at line 45003" in refused.value.problem
    assert handed == []
    # Past the file bound it is refused unparsed; a valid index is read by libyaml alone.
    with pytest.raises(DoctorError) as oversized:
        yamlio.load_yaml_text(broken_at_the_end(), Path("projects/index.yaml"), "index file")
    assert "is over 1 MiB" in oversized.value.problem
    valid = broken_at_the_end(15_000).rsplit("  - id: [", 1)[0]
    data = yamlio.load_yaml_text(valid, Path("projects/index.yaml"), "index file")
    assert len(data["projects"]) == 15_000
    assert handed == []


def test_an_old_index_that_would_recurse_gives_no_review_dates() -> None:
    # The index at a reviewed commit is parsed too: 10,000 nested `[` recursed past Python's
    # limit (a traceback) and a large broken one took half a minute.
    from context_doctor.model.review import _dates_by_id

    assert _dates_by_id(("x: " + "[" * 10_000 + "\n").encode()) is None
    assert _dates_by_id(broken_at_the_end().encode()) is None
    assert _dates_by_id(b"- id: alpha\n  last_session: 2026-06-01\n") == {
        "alpha": (None, "2026-06-01")
    }


HOSTILE_TEXT = {
    "alias bomb": INDEX + alias_bomb(),
    "1.6 MiB broken": broken_at_the_end(),
    "10,000 nested [": "x: " + "[" * 10_000 + "\n",
}
# Each file the doctor parses, and what it must give: exit 2 naming it (it defines the
# corpus), or a finding on it (a file of the corpus).
PARSED_FILES = {
    "projects/index.yaml": 2,
    "console.yaml": 2,
    "context-doctor.toml": 2,
    "projects/alpha/CURRENT_STATE.json": 1,
    "projects/alpha/GOALS.md": 1,
}


@pytest.mark.parametrize("plant", [*HOSTILE_TEXT, "link to /dev/zero"])
@pytest.mark.parametrize("name", sorted(PARSED_FILES))
def test_every_parsed_file_refuses_hostile_input_with_one_line(
    make_repo: MakeRepo, tmp_path: Path, name: str, plant: str
) -> None:
    root = make_repo(corpus({}))
    home = tmp_path / "synthesis"
    home.mkdir()
    target = home / name if name == "console.yaml" else root / name
    target.unlink(missing_ok=True)
    if plant == "link to /dev/zero":
        target.symlink_to("/dev/zero")
    elif name.endswith(".md"):
        # Frontmatter of a graded (pai-freshness-v1) file.
        target.write_text(
            f"---\nconvention: pai-freshness-v1\n{HOSTILE_TEXT[plant]}---\n# Goals\n",
            encoding="utf-8",
        )
    else:
        target.write_text(HOSTILE_TEXT[plant], encoding="utf-8")
    if name == "console.yaml":
        done = check("--json", "--no-report-cache", env={"SYNTHESIS_HOME": str(home)})
    else:
        done = check(str(root), "--json")
    assert "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    if plant == "link to /dev/zero" and name.endswith(".md"):
        # A Markdown file linked out of the tree is never opened by the freshness walk.
        assert done.returncode in (0, 1), done.stderr
        graded = [f for f in report["findings"] if f["check"].startswith("freshness-")]
        assert all(finding["path"] != name for finding in graded), graded
        return
    assert done.returncode == PARSED_FILES[name], (done.stdout[-2000:], done.stderr)
    if done.returncode == 2:
        assert Path(name).name in report["error"]
        assert "\n" not in report["error"]
    else:
        assert any(finding["path"] == name for finding in report["findings"]), report


def test_an_oversized_config_is_exit_2_unparsed(make_repo: MakeRepo) -> None:
    # tomllib is pure Python: a valid 2 MiB config took seconds to parse.
    from context_doctor.guards.limits import MAX_CONFIG_BYTES

    tables = "".join(f'[table_{n}]\nkey = "value {n}"\n' for n in range(MAX_CONFIG_BYTES // 30))
    root = make_repo(corpus({"context-doctor.toml": tables}))
    done = check(str(root), "--json")
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)["error"]
    assert "context-doctor.toml" in error and "over 256 KiB" in error


def test_state_hashes_never_read_a_huge_file_or_a_device(tmp_path: Path) -> None:
    # `state compile` hashed a 1 GiB file planted in a project in full.
    from context_doctor.model.state_file import content_hashes

    (tmp_path / "CONTEXT.md").write_text("# Alpha\n", encoding="utf-8")
    (tmp_path / "dump.md").write_text("# A pasted dump\n", encoding="utf-8")
    grown(tmp_path / "dump.md", 1 << 30)  # sparse: costs no disk
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    hashes = content_hashes(tmp_path, "zero.md")
    assert hashes["dump.md"] is None
    assert hashes["zero.md"] is None
    assert hashes["CONTEXT.md"] is not None
