"""The persistent cache (docs/caches.md): findings with and without it are identical, whatever happened.

Every test audits a real git repository built from the demo scenario three ways: with
``--no-cache``, then twice with the cache (the first run writes it, the second reads it),
after some change to the repository or to the cache itself.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import IDENTITY, Doctor, MakeRepo, read_cache, write_cache

from context_doctor.cache import codec, history_wire, replay, store
from context_doctor.git import history as git_history
from context_doctor.git.commits import Scope
from context_doctor.git.repository import Repository
from context_doctor.git.run import git_environment
from context_doctor.pipeline import prepare
from context_doctor.scenarios import load_scenario, scenario_path

TODAY = "2026-06-15"


@pytest.fixture(name="root")
def root_fixture(make_repo: MakeRepo) -> Path:
    return make_repo(load_scenario(scenario_path("demo")))


def cache_dir(root: Path) -> Path:
    return root / ".git" / "context-doctor" / "cache"


def report(doctor: Doctor, root: Path, *extra: str) -> tuple[dict[str, Any], str]:
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", *extra)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    data = run.json
    data.pop("generated_at")
    return data, run.stderr


def assert_cache_agrees(doctor: Doctor, root: Path) -> dict[str, Any]:
    """Without the cache, writing it, reading it: the same report each time, and quiet."""
    fresh, _ = report(doctor, root, "--no-cache")
    written, written_err = report(doctor, root)
    read, read_err = report(doctor, root)
    assert written == fresh
    assert read == fresh
    assert written_err == read_err == ""
    return fresh


def git(root: Path, *args: str, date: str = "2026-06-14T10:00:00+00:00") -> str:
    env = {**git_environment(), "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(
        ["git", *IDENTITY, *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def a_context(root: Path) -> Path:
    return sorted((root / "projects").glob("*/CONTEXT.md"))[0]


def stored_head(root: Path) -> str | None:
    repository = Repository(root.resolve())
    loaded = store.Store.for_repository(repository).load_history((Scope("projects"),))
    return None if loaded is None else loaded[0]


def test_the_cache_is_written_and_serves_an_unchanged_repository(
    doctor: Doctor, root: Path
) -> None:
    assert_cache_agrees(doctor, root)
    assert (cache_dir(root) / store.DOCUMENTS_FILE).is_file()
    assert stored_head(root) == git(root, "rev-parse", "HEAD")


def test_a_new_commit_resumes_the_history(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a session")
    fresh = assert_cache_agrees(doctor, root)
    assert stored_head(root) == git(root, "rev-parse", "HEAD")
    assert fresh["projects_audited"] > 0


def test_an_uncommitted_edit_of_the_same_size_with_its_mtime_restored(
    doctor: Doctor, root: Path
) -> None:
    path = a_context(root)
    before = report(doctor, root)[0]
    status = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("## ", "#X ", 1)  # same size: a section heading is no longer one
    assert edited != text and len(edited) == len(text)
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    after = assert_cache_agrees(doctor, root)
    assert after != before


def test_an_amended_commit_is_read_afresh(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nAmended.\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "-m", "amended", date="2026-06-14T12:00:00+00:00")
    assert_cache_agrees(doctor, root)


def test_a_rebased_history_is_read_afresh(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    git(root, "reset", "-q", "--hard", "HEAD~2")
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nRewritten.\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "rewritten")
    assert_cache_agrees(doctor, root)


def test_a_new_merge_is_read_afresh(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    git(root, "checkout", "-q", "-b", "side", "HEAD~1")
    path = a_context(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nSide.\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "side work", date="2026-06-01T10:00:00+00:00")
    git(root, "checkout", "-q", "-")
    git(root, "merge", "-q", "--no-edit", "side")
    assert_cache_agrees(doctor, root)


def test_a_deleted_cache_is_rebuilt(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    for child in cache_dir(root).iterdir():
        child.unlink()
    cache_dir(root).rmdir()
    assert_cache_agrees(doctor, root)
    assert (cache_dir(root) / store.HISTORY_FILE).is_file()


@pytest.mark.parametrize(
    "damage",
    [b"", b"\xc1\xc1garbage", b"\x92\x01", b"\x81\xa3key\xa3old"],
    ids=["empty", "garbage", "wrong-shape", "no-data"],
)
def test_a_corrupt_cache_is_ignored_and_rewritten(
    doctor: Doctor, root: Path, damage: bytes
) -> None:
    assert_cache_agrees(doctor, root)
    # The stored reports too: with them intact the unchanged repository is replayed
    # (context_doctor/replay.py) and the other two files are neither read nor rewritten.
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE, replay.REPORTS_FILE):
        (cache_dir(root) / name).write_bytes(damage)
    assert_cache_agrees(doctor, root)
    debug = doctor("check", "--source", str(root), "--today", TODAY, "--debug", "--no-cache")
    assert "cache" not in debug.stderr
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE):
        assert read_cache(cache_dir(root) / name)


def test_a_truncated_cache_is_ignored_with_at_most_a_debug_line(doctor: Doctor, root: Path) -> None:
    fresh = assert_cache_agrees(doctor, root)
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE):
        path = cache_dir(root) / name
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", "--debug")
    data = run.json
    data.pop("generated_at")
    assert data == fresh
    assert "context-doctor: cache:" in run.stderr


def test_entries_of_the_wrong_types_are_ignored(doctor: Doctor, root: Path) -> None:
    """A cache someone prepared with well-formed MessagePack but facts of the wrong types."""
    fresh = assert_cache_agrees(doctor, root)
    path = cache_dir(root) / store.DOCUMENTS_FILE
    stored = read_cache(path)
    for key in stored["data"]:
        stored["data"][key] = [None, "many", True, [[2, 3, "x"]], [], [], [], [], None, []]
    write_cache(path, stored)
    history = cache_dir(root) / store.HISTORY_FILE
    stored = read_cache(history)
    stored["data"][2] = [["x"] * 3 for _ in stored["data"][2]]  # the commit rows
    write_cache(history, stored)
    assert report(doctor, root)[0] == fresh


@pytest.mark.parametrize("version", ["0.0.1", "99.0.0"])
def test_a_cache_of_another_version_is_ignored(
    doctor: Doctor, root: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    fresh = assert_cache_agrees(doctor, root)
    monkeypatch.setattr(store, "__version__", version)
    # Facts that would change every finding, stored by "another version" of the doctor.
    write_cache(cache_dir(root) / store.HISTORY_FILE, {"key": store.cache_key("x"), "data": {}})
    assert report(doctor, root)[0] == fresh
    monkeypatch.undo()
    assert report(doctor, root)[0] == fresh


def test_a_cache_format_from_the_future_is_ignored(
    doctor: Doctor, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = assert_cache_agrees(doctor, root)
    monkeypatch.setattr(store, "CACHE_FORMAT", store.CACHE_FORMAT + 1)
    assert report(doctor, root) == (fresh, "")
    monkeypatch.undo()
    assert report(doctor, root) == (fresh, "")


def test_an_unwritable_cache_directory_is_quiet(doctor: Doctor, root: Path) -> None:
    (root / ".git" / "context-doctor").write_text("in the way\n", encoding="utf-8")
    fresh, _ = report(doctor, root, "--no-cache", "--no-report-cache")
    for _attempt in range(2):  # parsed with no cache to write, then to read: quiet
        assert report(doctor, root, "--no-report-cache") == (fresh, "")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", "--debug")
    assert run.exit_code in (0, 1)
    assert "not cached" in run.stderr
    # The repository's report cache is a product, not a speed-up: its refusal is said.
    assert "repository report cache not written" in run.stderr


def test_a_symlinked_cache_file_is_neither_read_nor_written_through(
    doctor: Doctor, root: Path, tmp_path: Path
) -> None:
    fresh = assert_cache_agrees(doctor, root)
    outside = tmp_path / "outside.msgpack"
    for name in (store.DOCUMENTS_FILE, store.HISTORY_FILE):
        path = cache_dir(root) / name
        outside.write_bytes(path.read_bytes())
        path.unlink()
        path.symlink_to(outside)
    # The target holds a valid cache: following the link would still give the same report,
    # so the proof that it is not followed is that it is never rewritten.
    before = outside.stat().st_mtime_ns, outside.read_bytes()
    assert report(doctor, root) == (fresh, "")
    assert (outside.stat().st_mtime_ns, outside.read_bytes()) == before
    assert (cache_dir(root) / store.HISTORY_FILE).is_symlink()


def test_the_worker_pool_gives_the_same_facts(
    doctor: Doctor, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = report(doctor, root, "--no-cache", "--jobs", "1")
    monkeypatch.setattr(prepare, "POOL_MIN_FILES", 0)
    monkeypatch.setattr(prepare, "POOL_MIN_BYTES", 0)
    assert report(doctor, root, "--no-cache", "--jobs", "2") == serial
    assert report(doctor, root, "--jobs", "2") == serial


def test_no_cache_writes_nothing(doctor: Doctor, root: Path) -> None:
    report(doctor, root, "--no-cache")
    assert not cache_dir(root).exists()


def history_from_data(data: Any, scopes: tuple[Scope, ...]) -> Any:
    """The history plain data (a history file's data, perhaps changed) decodes to."""
    return history_wire.history_from_wire(
        codec.decode(codec.encode(data), history_wire.HistoryWire), scopes
    )


def test_the_history_cache_round_trips(doctor: Doctor, root: Path) -> None:
    assert_cache_agrees(doctor, root)
    data = read_cache(cache_dir(root) / store.HISTORY_FILE)["data"]
    head, history = history_from_data(data, (Scope("projects"),))
    again = history_wire.history_to_wire(head, history, (Scope("projects"),))
    assert json.dumps(msgspec.msgpack.decode(codec.encode(again))) == json.dumps(data)


def test_an_edited_index_is_parsed_again(doctor: Doctor, root: Path) -> None:
    before = assert_cache_agrees(doctor, root)
    index = root / "projects" / "index.yaml"
    text = index.read_text(encoding="utf-8")
    index.write_text(text.replace("status: active", "status: paused", 1), encoding="utf-8")
    after = assert_cache_agrees(doctor, root)
    assert after != before
    assert (cache_dir(root) / store.MEMO_FILE).is_file()


def test_a_memo_of_the_wrong_types_is_ignored(doctor: Doctor, root: Path) -> None:
    fresh = assert_cache_agrees(doctor, root)
    path = cache_dir(root) / store.MEMO_FILE
    stored = read_cache(path)
    for forged in ({"position": "one"}, msgspec.msgpack.Ext(5, b"\x90"), [None] * 5):
        for entries in stored["data"].values():
            for key in entries:
                entries[key] = forged
        write_cache(path, stored)
        assert report(doctor, root) == (fresh, "")


def test_forged_history_rows_are_refused_cell_by_cell(doctor: Doctor, root: Path) -> None:
    """Each cell's exact type is checked: a bool is no int, a list no file name."""
    assert_cache_agrees(doctor, root)
    path = cache_dir(root) / store.HISTORY_FILE
    scopes = (Scope("projects"),)
    good = read_cache(path)["data"]
    history_from_data(good, scopes)  # the real thing reads

    def forged(change: Any) -> Any:
        data = read_cache(path)["data"]
        change(data)
        return data

    def commit_cell(position: int, value: Any) -> Any:
        return forged(lambda data: data[2][0].__setitem__(position, value))

    def files(value: Any) -> Any:
        return forged(lambda data: data[3].__setitem__(0, value))

    def project(position: int, value: Any) -> Any:
        return forged(lambda data: data[4][0].__setitem__(position, value))

    for data in (
        commit_cell(1, True),  # parents: an int, not a bool
        commit_cell(2, "not a time"),  # authored
        commit_cell(6, 1),  # maintenance: a bool
        forged(lambda data: data[2][0].append(None)),
        files(["CONTEXT.md", 3]),
        files("CONTEXT.md"),
        files([["CONTEXT.md"]]),
        project(2, [-1]),  # a commit position below 0
        project(2, [1 << 32]),  # ... or past what a position holds
        project(0, 5),  # a scope that is not there
        project(2, [10**6]),  # a commit that is not there
        project(3, [10**6]),  # a file set that is not there
        project(3, []),  # positions that do not pair
        project(2, [True]),
    ):
        with pytest.raises((ValueError, IndexError)):
            history_from_data(data, scopes)
    stored = read_cache(path)
    stored["data"] = files([["CONTEXT.md"]])
    write_cache(path, stored)
    assert stored_head(root) is None


def test_a_history_of_the_shape_before_32_is_a_miss(doctor: Doctor, root: Path) -> None:
    """Before #32 the stored history held each project's file names per commit: such a
    file, even under today's key, does not decode: it is read afresh, never an error."""
    fresh = assert_cache_agrees(doctor, root)
    path = cache_dir(root) / store.HISTORY_FILE
    stored = read_cache(path)
    head, count, commits, _sets, projects, *_removals = stored["data"]
    stored["data"] = [
        head,
        count,
        commits,
        [[row[0], row[1], [[at, ["CONTEXT.md"]] for at in row[2]]] for row in projects],
    ]
    write_cache(path, stored)
    assert stored_head(root) is None
    (cache_dir(root) / replay.REPORTS_FILE).unlink()  # no replay: the audit runs
    assert report(doctor, root) == (fresh, "")
    assert len(read_cache(path)["data"]) == 8  # written again in today's shape
    assert stored_head(root) == head


def test_recalled_values_are_decoded_once_per_run(tmp_path: Path) -> None:
    memo = store.Store(tmp_path / "cache")
    memo.keep("kind", b"content", {"a": (1, 2)})
    memo.save_memos()
    again = store.Store(tmp_path / "cache")
    kind = dict[str, tuple[int, ...]]
    first = again.recall("kind", kind, b"content")
    assert first == {"a": (1, 2)}
    assert again.recall("kind", kind, b"content") is first
    again.keep("kind", b"content", {"a": (3,)})  # a new value replaces what was recalled
    assert again.recall("kind", kind, b"content") == {"a": (3,)}
    assert store.Store(tmp_path / "cache").recall("kind", dict[str, str], b"content") is None


def _history_as_data(history: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {
        f"{scope.path}:{project_id}": [
            (entry.commit, tuple(sorted(entry.files))) for entry in history.of(scope, project_id)
        ]
        for scope, project_id in sorted(history.projects, key=lambda key: (str(key[0]), key[1]))
    }


@pytest.mark.parametrize("amend", [False, True], ids=["resumed", "amended"])
def test_a_saved_history_is_the_one_git_gives(
    doctor: Doctor, root: Path, amend: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resumed pass is stored by adding the new commits to the stored rows; whatever
    way it was written, the stored history is the one a fresh ``git log`` reads."""
    assert_cache_agrees(doctor, root)
    if not amend:  # resumed: only the new commits are encoded, never the whole history
        convert = history_wire.history_to_wire

        def whole(*args: Any, **rows: Any) -> Any:
            if len(args) < 4 and rows.get("commits") is None:  # no rows carried over
                raise TypeError("the whole history was encoded again")
            return convert(*args, **rows)

        monkeypatch.setattr(history_wire, "history_to_wire", whole)
    existing = a_context(root)
    existing.write_text(existing.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    created = root / "projects" / "zz-new" / "CONTEXT.md"
    created.parent.mkdir()
    created.write_text("# New\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", *(["--amend"] if amend else []), "-m", "two projects")
    git(root, "commit", "-q", "--allow-empty", "-m", "nothing under projects")
    assert_cache_agrees(doctor, root)
    scopes = (Scope("projects"),)
    repository = Repository(root.resolve())
    loaded = store.Store.for_repository(repository).load_history(scopes)
    assert loaded is not None
    head, stored = loaded
    assert head == git(root, "rev-parse", "HEAD")
    fresh = git_history.read_history(repository, scopes)
    assert stored.commits == fresh.commits
    assert _history_as_data(stored) == _history_as_data(fresh)


@pytest.mark.parametrize("data", [[], {"entries": [b"x" * 300_000, "é", 7]}])
def test_a_body_sealed_in_place_is_the_sealed_encoding(data: Any) -> None:
    """The cache's body is encoded behind room for its header, not copied there:
    the same bytes :func:`store.seal` makes of it, which :func:`store.unseal` opens."""
    secret = bytes(range(32))
    value = {"key": "k", "data": data}
    sealed = store.seal_in_place(secret, "documents.msgpack", value)
    assert bytes(sealed) == store.seal(secret, "documents.msgpack", codec.encode(value))
    body = store.unseal(secret, "documents.msgpack", bytes(sealed))
    assert body is not None and codec.decode(body, dict[str, Any]) == value


# -- the code digest, remembered beside the secret -------------------------------------


@pytest.fixture
def code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Three source files standing in for the package, a day old (settled)."""
    files = []
    for name in ("a.py", "b.py", "schema.json"):
        path = tmp_path / "code" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# {name}\n", encoding="utf-8")
        os.utime(path, (path.stat().st_mtime - 86400,) * 2)
        files.append(path)
    monkeypatch.setattr(store, "_code_files", lambda: list(files))
    monkeypatch.setattr(store, "RACY_SECONDS", -(10**6))  # a ctime is always now: not racy here
    store._code_digest.cache_clear()
    yield files
    store._code_digest.cache_clear()


def _memo() -> Path:
    return store.secret_directory() / store.CODE_MEMO_NAME


def test_the_remembered_code_digest_is_the_digest_of_the_bytes(
    code: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = store._code_digest()
    assert store._code_digest(remembered=True) == plain
    assert _memo().is_file()
    store._code_digest.cache_clear()
    with monkeypatch.context() as unread:

        def no_reading(_sources: list[Path]) -> str:
            raise AssertionError("the sources were read again")

        unread.setattr(store, "_content_digest", no_reading)
        assert store._code_digest(remembered=True) == plain  # read back from the memo
    store._code_digest.cache_clear()
    os.remove(code[0])
    code[0].write_text("# a.py\n", encoding="utf-8")
    assert store._code_digest(remembered=True) == plain  # same bytes, a new stat: taken again


def test_a_changed_source_changes_the_remembered_digest(code: list[Path]) -> None:
    before = store._code_digest(remembered=True)
    store._code_digest.cache_clear()
    code[1].write_text("# b.py, changed\n", encoding="utf-8")
    after = store._code_digest(remembered=True)
    assert after != before
    store._code_digest.cache_clear()
    assert store._code_digest() == after


def test_a_forged_code_memo_is_not_believed(code: list[Path]) -> None:
    honest = store._code_digest(remembered=True)
    store._code_digest.cache_clear()
    raw = _memo().read_bytes()
    forged = raw[: store.TAG_BYTES + 16] + b"0" * 24
    _memo().write_bytes(forged)
    assert store._code_digest(remembered=True) == honest
    assert _memo().read_bytes() == raw  # taken again, and remembered again
