"""The paths the history pass saw leave the tree (git/removals.py): deletions and exact
renames, newest first, from the one pass; kept across a resumed pass and the cache."""

from __future__ import annotations

from pathlib import Path

from support import MakeRepo, short_sha_of

from context_doctor.cache.history_wire import history_from_wire, history_to_wire
from context_doctor.git.commits import Scope
from context_doctor.git.history import read_history
from context_doctor.git.removals import Removals
from context_doctor.git.repository import repository_for

SCOPES = (Scope("", single=True),)


def story(make_repo: MakeRepo) -> Path:
    return make_repo(
        {
            "commits": [
                {
                    "date": "2026-05-01T10:00:00+02:00",
                    "message": "start",
                    "files": {
                        "scripts/deploy.sh": "echo deploy\n",
                        "docs/adr/0001.md": "# One\n",
                        "docs/adr/0002.md": "# Two\n",
                        "notes.md": "# Notes\n",
                    },
                },
                {
                    "date": "2026-05-02T10:00:00+02:00",
                    "message": "rename deploy",
                    "files": {"scripts/release.sh": "echo deploy\n"},
                    "delete": ["scripts/deploy.sh"],
                },
                {
                    "date": "2026-05-03T10:00:00+02:00",
                    "message": "drop an adr",
                    "files": {},
                    "delete": ["docs/adr/0001.md"],
                },
                {
                    "date": "2026-05-04T10:00:00+02:00",
                    "message": "rename again",
                    "files": {"bin/release.sh": "echo deploy\n"},
                    "delete": ["scripts/release.sh"],
                },
            ]
        }
    )


def test_the_pass_keeps_each_deletion_and_exact_rename(make_repo: MakeRepo) -> None:
    root = story(make_repo)
    history = read_history(repository_for(root), SCOPES)
    removals = history.removals
    assert removals.complete
    renamed = removals.get("scripts/deploy.sh")
    assert renamed is not None and renamed.renamed_to == "scripts/release.sh"
    assert renamed.short == short_sha_of(root, "rename deploy")
    assert renamed.when() == f"{renamed.short} on 2026-05-02"
    again = removals.get("scripts/release.sh")
    assert again is not None and again.renamed_to == "bin/release.sh"
    deleted = removals.get("docs/adr/0001.md")
    assert deleted is not None and deleted.renamed_to is None
    assert [r.path for r in removals.under("docs/adr")] == ["docs/adr/0001.md"]
    assert [r.path for r in removals.named("0001.md")] == ["docs/adr/0001.md"]
    assert removals.get("notes.md") is None and len(removals) == 3


def test_removals_survive_a_resumed_pass_and_the_cache(make_repo: MakeRepo) -> None:
    root = story(make_repo)
    repository = repository_for(root)
    whole = read_history(repository, SCOPES)
    older = read_history(repository, SCOPES, "HEAD~2")
    newer = read_history(repository, SCOPES, "HEAD~2..HEAD")
    resumed = newer.followed_by(older)
    assert resumed.removals.paths.keys() == whole.removals.paths.keys()
    for path in whole.removals.paths:
        assert resumed.removals.get(path) == whole.removals.get(path)
    head, decoded = history_from_wire(history_to_wire("a" * 40, whole, SCOPES), SCOPES)
    assert head == "a" * 40
    for path in whole.removals.paths:
        assert decoded.removals.get(path) == whole.removals.get(path)
    assert decoded.removals.complete


def test_the_newest_removal_of_a_path_wins() -> None:
    removals = Removals()
    removals.record("b" * 40, "2026-05-09T10:00:00+00:00", "a.md")
    removals.record("a" * 40, "2026-05-01T10:00:00+00:00", "a.md", "b.md")
    found = removals.get("a.md")
    assert found is not None and found.sha == "b" * 40 and found.renamed_to is None
