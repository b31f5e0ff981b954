"""Replaying a stored report (context_doctor/replay.py): only when nothing the audit reads moved.

Each test audits a real git repository (the demo scenario) with the cache, changes one
input, and requires the next cached run to equal a ``--no-cache`` run of the same tree,
and to have been audited afresh rather than replayed.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import Doctor, MakeRepo, read_cache, run_in_a_process, write_cache
from test_store import TODAY, a_context, cache_dir, git

from context_doctor.cache import keys, replay
from context_doctor.checks.registry import Context, load_checks
from context_doctor.config.settings import resolve_settings
from context_doctor.pipeline.audit import audit as run_audit
from context_doctor.pipeline.audit import run_inputs
from context_doctor.pipeline.discover import discover
from context_doctor.scenarios import load_scenario, scenario_path

REPLAYED = "its report is replayed"


@pytest.fixture(name="root")
def root_fixture(make_repo: MakeRepo) -> Path:
    return make_repo(load_scenario(scenario_path("demo")))


def audit(
    doctor: Doctor, root: Path, *extra: str, env: dict[str, str] | None = None
) -> tuple[dict[str, Any], bool]:
    """The JSON report (without ``generated_at``) and whether it was replayed."""
    run = doctor(
        "check", "--source", str(root), "--today", TODAY, "--json", "--debug", *extra, env=env
    )
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    data = run.json
    data.pop("generated_at")
    return data, REPLAYED in run.stderr


def fresh(doctor: Doctor, root: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    return audit(doctor, root, "--no-cache", *extra, env=env)[0]


def assert_audited_afresh(
    doctor: Doctor, root: Path, *extra: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """The next cached run is not a replay, agrees with --no-cache, and the one after replays."""
    expected = fresh(doctor, root, *extra, env=env)
    data, replayed = audit(doctor, root, *extra, env=env)
    assert not replayed
    assert data == expected
    again, replayed = audit(doctor, root, *extra, env=env)
    assert replayed
    assert again == expected
    return data


def test_an_unchanged_repository_is_replayed_with_the_same_report(
    doctor: Doctor, root: Path
) -> None:
    first, replayed = audit(doctor, root)
    assert not replayed
    second, replayed = audit(doctor, root)
    assert replayed
    assert second == first == fresh(doctor, root)
    assert (cache_dir(root) / replay.REPORTS_FILE).is_file()


def test_a_same_size_edit_with_its_mtime_restored_is_audited_afresh(
    doctor: Doctor, root: Path
) -> None:
    audit(doctor, root)
    path = a_context(root)
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("## ", "##\t", 1)  # a heading no longer: same size
    assert len(edited) == len(text) and edited != text
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert_audited_afresh(doctor, root)


def test_a_new_commit_an_amend_and_a_staged_change_are_each_audited_afresh(
    doctor: Doctor, root: Path
) -> None:
    audit(doctor, root)
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    assert_audited_afresh(doctor, root)  # uncommitted
    git(root, "add", "-A")
    assert_audited_afresh(doctor, root)  # staged only: the index moved
    git(root, "commit", "-q", "-m", "more")
    assert_audited_afresh(doctor, root)
    git(root, "commit", "-q", "--amend", "-m", "more, reworded")
    assert_audited_afresh(doctor, root)


def test_a_new_file_a_removed_file_and_a_retargeted_symlink_are_audited_afresh(
    doctor: Doctor, root: Path
) -> None:
    audit(doctor, root)
    project = a_context(root).parent
    (project / "sessions").mkdir(exist_ok=True)
    log = project / "sessions" / "2026-06.md"
    log.write_text("# June\n\n## 2026-06-14 — work\nDone.\n", encoding="utf-8")
    assert_audited_afresh(doctor, root)
    (project / "REFERENCE.md").unlink(missing_ok=True)
    assert_audited_afresh(doctor, root)
    link = project / "reference"
    link.symlink_to(root / "projects")
    assert_audited_afresh(doctor, root)
    link.unlink()
    link.symlink_to(project / "sessions")
    assert_audited_afresh(doctor, root)


def test_the_invocation_is_part_of_the_key(doctor: Doctor, root: Path, tmp_path: Path) -> None:
    audit(doctor, root)
    assert_audited_afresh(doctor, root, "--today", "2026-09-01")
    assert_audited_afresh(doctor, root, "--select", "structure")
    assert_audited_afresh(doctor, root, env={"CI": "true"})
    (root / "context-doctor.toml").write_text('ignore = ["body-currency"]\n', encoding="utf-8")
    ignoring = assert_audited_afresh(doctor, root)
    assert "body-currency" not in ignoring["coverage"]


def test_a_config_file_outside_the_repository_is_part_of_the_key(
    doctor: Doctor, root: Path, tmp_path: Path
) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text('ignore = ["body-currency"]\n', encoding="utf-8")
    first = assert_audited_afresh(doctor, root, "--config", str(config))
    config.write_text("ignore = []\n", encoding="utf-8")
    second = assert_audited_afresh(doctor, root, "--config", str(config))
    assert "body-currency" not in first["coverage"]
    assert "body-currency" in second["coverage"]


def test_a_forged_report_is_never_replayed(doctor: Doctor, root: Path) -> None:
    """A report planted in the repository's cache carries no valid tag: the tree is audited."""
    expected, _ = audit(doctor, root)
    path = cache_dir(root) / replay.REPORTS_FILE
    stored = read_cache(path)
    for entry in stored["data"].values():
        wire = msgspec.msgpack.decode(entry[1])
        wire[-1] = []  # "no findings"
        entry[1] = msgspec.msgpack.encode(wire)
    write_cache(path, stored)  # even under the user's own file tag, each report has its own
    data, replayed = audit(doctor, root)
    assert not replayed
    assert data == expected


def test_without_a_usable_secret_nothing_is_replayed_and_the_run_is_right(
    doctor: Doctor, root: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("", encoding="utf-8")
    env = {"XDG_CACHE_HOME": str(blocked)}
    expected = fresh(doctor, root, env=env)
    for _ in range(2):
        data, replayed = audit(doctor, root, env=env)
        assert not replayed
        assert data == expected


def test_a_file_written_during_the_audit_keeps_its_report_from_being_stored(
    root: Path,
) -> None:
    key = keys.RunKey(b"k" * 32, b"s" * 32, store=None, watched={})  # type: ignore[arg-type]
    path = a_context(root)
    key.watched[os.fsencode(path)] = keys.signature_of(path.stat())
    assert key.unchanged()
    path.write_text(path.read_text(encoding="utf-8") + "x", encoding="utf-8")
    assert not key.unchanged()


def test_a_run_soon_after_an_edit_and_one_later_share_the_key(
    doctor: Doctor, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Racy files are checked by their bytes too, but the key does not depend on raciness."""
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    expected, replayed = audit(doctor, root)  # the edited file is racy now
    assert not replayed
    monkeypatch.setattr(keys, "RACY_SECONDS", 0)  # "a minute later": nothing is racy
    data, replayed = audit(doctor, root)
    assert replayed
    assert data == expected


def test_a_racy_file_whose_bytes_moved_keeps_the_report_from_being_stored(root: Path) -> None:
    path = a_context(root).resolve()
    path.write_text(path.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    corpus = discover(sources=(str(root),), cache=True)
    settings = resolve_settings([source.root for source in corpus.sources], None, None, None)
    ctx = Context(today=date.fromisoformat(TODAY), readiness="local", settings=settings)
    checks = list(load_checks().values())
    key = keys.run_key(run_inputs(corpus), settings=settings, checks=checks, ctx=ctx, baseline=None)
    assert key is not None
    assert os.fsencode(path) in key.racy  # written a moment ago
    key.racy[os.fsencode(path)] = b"not the bytes it holds"  # as if rewritten within the tick
    report, _, _ = run_audit(
        corpus, today=ctx.today, readiness="local", select=[], ignore=[], config=None
    )
    replay.keep(key, report)
    assert not (cache_dir(root) / replay.REPORTS_FILE).exists()


def test_the_users_excludes_file_is_part_of_the_key(
    doctor: Doctor, root: Path, tmp_path: Path
) -> None:
    """git's global ignore file decides what `git status` calls untracked: its bytes count."""
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    project = a_context(root).parent
    (project / "sessions").mkdir(exist_ok=True)
    (project / "sessions" / "2026-06.md").write_text("# June\n", encoding="utf-8")
    assert_audited_afresh(doctor, root, env=env)
    (tmp_path / "config" / "git").mkdir(parents=True)
    (tmp_path / "config" / "git" / "ignore").write_text("2026-06.md\n", encoding="utf-8")
    assert_audited_afresh(doctor, root, env=env)


def test_a_deleted_working_directory_is_audited_not_an_internal_error(
    doctor: Doctor, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key names the working directory; one that no longer exists means no replay."""
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    data, replayed = audit(doctor, root)
    assert not replayed
    assert data == fresh(doctor, root)


def test_an_index_kept_outside_the_repository_is_part_of_the_key(
    doctor: Doctor, root: Path, tmp_path: Path
) -> None:
    """#23 item 6: index.yaml a symlink to a file elsewhere; editing that file moved no key."""
    index = root / "projects" / "index.yaml"
    outside = tmp_path / "elsewhere" / "index.yaml"
    outside.parent.mkdir()
    outside.write_bytes(index.read_bytes())
    index.unlink()
    index.symlink_to(outside)
    before = assert_audited_afresh(doctor, root)
    text = outside.read_text(encoding="utf-8")
    outside.write_text(text.replace("status: active", "status: paused", 1), encoding="utf-8")
    assert assert_audited_afresh(doctor, root) != before


def test_only_the_environment_the_audit_reads_is_keyed(doctor: Doctor, root: Path) -> None:
    """#32: a terminal's variable leaves the replay in place; one git reads does not."""
    audit(doctor, root)
    data, replayed = audit(doctor, root, env={"TERM_SESSION_ID": "w0t1p0:another-tab"})
    assert replayed
    assert data == fresh(doctor, root)
    assert_audited_afresh(doctor, root, env={"GIT_NOTES_REF": "refs/notes/review"})
    assert_audited_afresh(doctor, root, env={"TZ": "Pacific/Kiritimati"})


# Read only to render or write what the report already holds, never to build it.
_RENDERING_ONLY = {
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "GITHUB_STEP_SUMMARY",
    "USER",
    "APPDATA",
    "COLUMNS",
}


def test_every_variable_the_doctor_reads_is_keyed() -> None:
    """A variable read anywhere in the package is in the replay key (or only renders)."""
    import re

    from context_doctor.checks.registry import PLUGINS_OFF
    from context_doctor.git.run import TIMEOUT_VARIABLE
    from context_doctor.pipeline.discover import VAULT_ENV

    package = Path(replay.__file__).resolve().parent.parent
    read = {VAULT_ENV, TIMEOUT_VARIABLE, PLUGINS_OFF}
    for module in package.rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        read |= set(re.findall(r"(?:environ\.get|getenv)\(\s*\"([A-Za-z0-9_]+)\"", text))
    assert "SYNTHESIS_HOME" in read  # the pattern finds them
    unkeyed = {
        name
        for name in read - _RENDERING_ONLY
        if name not in keys.KEYED_VARIABLES and not name.startswith(keys.KEYED_PREFIXES)
    }
    assert unkeyed == set()


def test_files_not_directories_count_towards_the_cap(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#32: the cap is on files; a tree of many directories and few files is still keyed."""
    deep = root / "archive"
    for number in range(30):
        (deep / f"d{number}").mkdir(parents=True)
    material = keys.Material(b"s" * 32)
    walk = keys.TreeWalk(material, {})
    monkeypatch.setattr(keys, "MAX_ENTRIES", sum(1 for p in root.rglob("*") if p.is_file()))
    walk.walk(root)  # every file fits, the 30 directories do not count
    assert walk.directories >= 30
    monkeypatch.setattr(keys, "MAX_ENTRIES", walk.files - 1)
    with pytest.raises(keys.Unkeyable):
        keys.TreeWalk(material, {}).walk(root)


# -- the direct key: a run named by paths is keyed before its corpus is discovered -----


def _run_in_a_process(root: Path, *args: str) -> tuple[str, str, set[str]]:
    return run_in_a_process(root, "check", *args, "--today", TODAY, "--debug")


def test_a_run_named_by_paths_is_replayed_without_discovery_or_a_check_imported(
    root: Path,
) -> None:
    """#27/#32: the warm run of a path imports neither the model nor a check module."""
    _, stderr, imported = _run_in_a_process(root, str(root), "--quiet")
    assert REPLAYED not in stderr
    assert {"context_doctor.pipeline.discover", "context_doctor.checks.structure"} <= imported
    _, stderr, imported = _run_in_a_process(root, str(root), "--quiet")
    assert REPLAYED in stderr
    pipeline = {
        "pipeline.discover",
        "model.source",
        "model.project",
        "pipeline.engine",
        "pipeline.prepare",
        "pipeline.audit",
    }
    assert not {f"context_doctor.{name}" for name in pipeline} & imported
    assert not {name for name in imported if name.startswith("context_doctor.checks.")}


def test_a_run_from_the_current_directory_is_keyed_after_discovery(
    doctor: Doctor, root: Path
) -> None:
    """No path named: discovery reads console.yaml and what lies above, so the run is keyed
    by the corpus it found, and replays as before."""
    runs = [doctor("check", "--today", TODAY, "--json", "--debug", cwd=root) for _ in range(2)]
    assert [REPLAYED in run.stderr for run in runs] == [False, True]
    assert runs[0].json["findings"] == runs[1].json["findings"]


def test_a_repository_made_inside_the_named_path_is_audited_afresh(root: Path) -> None:
    """The repository a named path lies in is part of the direct key: a ``git init`` below
    the top moves it, and the run is discovered and audited again."""
    project = a_context(root).parent

    def run(*extra: str) -> tuple[str, bool]:
        stdout, stderr, _ = _run_in_a_process(root, str(project), "--json", *extra)
        data = msgspec.json.decode(stdout)
        data.pop("generated_at")
        return msgspec.json.encode(data).decode(), REPLAYED in stderr

    first, _ = run()
    assert run() == (first, True)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "its own repository now")
    again, replayed = run()
    assert not replayed
    assert again == run("--no-cache")[0] != first


def test_a_sarif_run_is_replayed_with_its_rules(doctor: Doctor, root: Path) -> None:
    """SARIF names the checks' rules: its run is keyed after discovery, and replays whole."""
    runs = [
        doctor("check", str(root), "--today", TODAY, "--output-format", "sarif", "--debug")
        for _ in range(2)
    ]
    assert [REPLAYED in run.stderr for run in runs] == [False, True]
    assert runs[0].stdout == runs[1].stdout
    assert msgspec.json.decode(runs[1].stdout)["runs"][0]["tool"]["driver"]["rules"]
