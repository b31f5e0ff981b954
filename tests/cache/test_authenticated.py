"""Every cache entry is authenticated with the user's secret (docs/caches.md).

The attacks: a repository handed over with a prepared ``.git`` (a tarball, a shared
folder) whose cache holds well-typed but false facts; a secret file someone else can
read, replace or point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from support import Doctor, MakeRepo, forge_cache, read_cache

from context_doctor.cache import replay, store
from context_doctor.cache.secret import SECRET_BYTES, secret_path
from context_doctor.model.document_facts import facts_of_bytes

TODAY = "2026-06-02"
HEADER = "# Alpha\n\n**Status:** Active\n**Last session:** 2026-06-01\n\n## Current State\n"


def over_budget(make_repo: MakeRepo) -> Path:
    """A live project whose CONTEXT.md is over its 150-line budget: a real defect."""
    filler = "".join(f"- note {number}\n" for number in range(200))
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-06-01T10:00:00+00:00",
                    "message": "start alpha",
                    "files": {
                        "projects/index.yaml": "projects:\n  - id: alpha\n    status: active\n"
                        "    last_session: 2026-06-01\n",
                        "projects/alpha/CONTEXT.md": HEADER + filler,
                        "projects/alpha/sessions/2026-06.md": "# June\n\n## 2026-06-01\nStarted.\n",
                    },
                }
            ]
        }
    )


def cache_dir(root: Path) -> Path:
    return root / ".git" / "context-doctor" / "cache"


def budget_defects(doctor: Doctor, root: Path, *extra: str) -> list[dict[str, Any]]:
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", *extra)
    assert run.exit_code in (0, 1), run.stdout + run.stderr
    return run.findings("context-budget")


@pytest.mark.parametrize("planted_as", ["plain", "old tag"])
def test_a_prepared_git_directory_cannot_hide_a_defect(
    doctor: Doctor, make_repo: MakeRepo, planted_as: str
) -> None:
    root = over_budget(make_repo)
    truth = budget_defects(doctor, root, "--no-cache")
    assert truth, "the planted fault must fire"
    assert budget_defects(doctor, root) == truth  # the cache is written
    documents = cache_dir(root) / store.DOCUMENTS_FILE
    stored = read_cache(documents)
    short = facts_of_bytes(HEADER.encode("utf-8"))
    stored["data"] = dict.fromkeys(stored["data"], short)  # "CONTEXT.md is 6 lines long"
    if planted_as == "plain":  # what a forger who knows the cache's layout writes
        documents.write_bytes(msgspec.msgpack.encode(stored))
    else:  # a real file's header and tag kept, the body replaced
        forge_cache(documents, stored)
    (cache_dir(root) / replay.REPORTS_FILE).unlink()  # a fresh clone has no stored report
    assert budget_defects(doctor, root) == truth
    assert budget_defects(doctor, root) == truth  # and the rebuilt cache serves


@pytest.mark.parametrize(
    "name", [store.DOCUMENTS_FILE, store.HISTORY_FILE, store.MEMO_FILE, replay.REPORTS_FILE]
)
def test_a_cache_file_whose_body_changed_is_not_believed(tmp_path: Path, name: str) -> None:
    kept = store.Store(tmp_path)
    kept.write(name, "key", {"facts": [1, 2, 3]})
    assert kept.read(name, "key", dict[str, list[int]]) == {"facts": [1, 2, 3]}
    path = tmp_path / name
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    assert kept.read(name, "key", dict[str, list[int]]) is None
    # Nor is one file's body believed under another's name.
    kept.write(name, "key", {"facts": [1, 2, 3]})
    (tmp_path / "other.msgpack").write_bytes(path.read_bytes())
    assert kept.read("other.msgpack", "key", dict[str, list[int]]) is None


def usable_secret() -> Path:
    path = secret_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(name="own_cache_home")
def own_cache_home_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def refused(doctor: Doctor, root: Path, why: str) -> None:
    """The run is right, nothing is cached, the user is told once, the secret is left alone."""
    secret = secret_path()
    before = os.lstat(secret)
    content = secret.read_bytes()
    truth = budget_defects(doctor, root, "--no-cache")
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert run.findings("context-budget") == truth
    assert why in run.stderr
    assert run.stderr.count("caching is off") == 1
    assert not (cache_dir(root) / store.DOCUMENTS_FILE).exists()
    assert os.lstat(secret).st_ino == before.st_ino
    assert secret.read_bytes() == content


def test_a_secret_readable_by_others_is_refused(
    doctor: Doctor, make_repo: MakeRepo, own_cache_home: Path
) -> None:
    root = over_budget(make_repo)
    path = usable_secret()
    path.write_bytes(os.urandom(SECRET_BYTES))
    path.chmod(0o644)
    path.parent.chmod(0o777)
    refused(doctor, root, "mode 0644")


def test_a_symlinked_secret_is_refused(
    doctor: Doctor, make_repo: MakeRepo, own_cache_home: Path, tmp_path: Path
) -> None:
    root = over_budget(make_repo)
    elsewhere = tmp_path / "someone-elses-secret"
    elsewhere.write_bytes(os.urandom(SECRET_BYTES))
    elsewhere.chmod(0o600)
    usable_secret().symlink_to(elsewhere)
    refused(doctor, root, "is a symlink")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_secret_owned_by_someone_else_is_refused(
    doctor: Doctor, make_repo: MakeRepo, own_cache_home: Path
) -> None:
    root = over_budget(make_repo)
    path = usable_secret()
    path.write_bytes(os.urandom(SECRET_BYTES))
    path.chmod(0o600)
    os.chown(path, 4242, 4242)
    refused(doctor, root, "owned by user id 4242")


def test_a_good_secret_is_made_private_and_used(
    doctor: Doctor, make_repo: MakeRepo, own_cache_home: Path
) -> None:
    root = over_budget(make_repo)
    truth = budget_defects(doctor, root, "--no-cache")
    assert budget_defects(doctor, root) == truth
    assert (os.lstat(secret_path()).st_mode & 0o777) == 0o600
    assert (cache_dir(root) / store.DOCUMENTS_FILE).is_file()
