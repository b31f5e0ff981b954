"""The history pass: its reading of one commit (a bot's authorship, docs/layouts.md work), and
the whole-repository walk against git's own pathspec walk. Real repositories, made
with ``git fast-import``; git is never mocked."""

from __future__ import annotations

import random
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from context_doctor.git import history as history_module
from context_doctor.git.commits import History, ProjectCommit, Scope, is_bot
from context_doctor.git.history import read_history
from context_doctor.git.repository import Repository
from context_doctor.git.run import git_environment


@pytest.mark.parametrize(
    ("author", "bot"),
    [
        ("github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>", True),
        ("GitHub Action <action@github.com>", True),
        ("renovate[bot] <bot@renovateapp.com>", True),
        ("Ada Lovelace <ada@example.org>", False),
        ("botanist <b@example.org>", False),
    ],
)
def test_a_bots_authorship(author: str, bot: bool) -> None:
    assert is_bot(author) is bot


# -- the whole-repository pass against git's own pathspec pass -----------------
#
# The pass walks the whole repository and keeps the commits `git log --full-diff --
# <scopes>` would show, replaying git's history simplification at merges.  Each
# repository here is read both ways (the pathspec pass forced through
# `filtered_here`) and the two histories must agree in every fact and in order.


def _fast_import(root: Path, stream: str) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=git_environment())
    subprocess.run(
        ["git", "fast-import", "--quiet", "--date-format=raw"],
        cwd=root,
        input=stream.encode("utf-8"),
        check=True,
        env=git_environment(),
        capture_output=True,
    )
    subprocess.run(
        ["git", "symbolic-ref", "HEAD", "refs/heads/b0"],
        cwd=root,
        check=True,
        env=git_environment(),
    )


class _Stream:
    """A fast-import stream whose trees are tracked here, commit by commit."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.trees: dict[int, dict[str, str]] = {}

    def commit(
        self,
        branch: str,
        when: int,
        parents: list[int],
        tree: dict[str, str],
        message: str = "work",
        author: str = "Ada <ada@example.org>",
        author_zone: str = "+0200",
    ) -> int:
        mark = len(self.trees) + 1
        self.trees[mark] = dict(tree)
        data = message.encode("utf-8")
        self.lines += [
            f"commit refs/heads/{branch}",
            f"mark :{mark}",
            f"author {author} {when} {author_zone}",
            f"committer {author} {when} +0000",
            f"data {len(data)}",
            message,
        ]
        if parents:
            self.lines.append(f"from :{parents[0]}")
            self.lines += [f"merge :{parent}" for parent in parents[1:]]
        self.lines.append("deleteall")
        for path, text in sorted(tree.items()):
            body = text.encode("utf-8")
            self.lines += [f"M 100644 inline {path}", f"data {len(body)}", text]
        self.lines.append("")
        return mark

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _facts(history: History) -> tuple[int, dict[tuple[Scope, str], list[ProjectCommit]]]:
    return history.commits, {key: history.of(*key) for key in sorted(history.projects, key=str)}


def _both_ways(
    root: Path, monkeypatch: pytest.MonkeyPatch, *scopes: Scope, revisions: str = "HEAD"
) -> History:
    """The history read whole, after checking it against git's pathspec pass."""
    repository = Repository(root.resolve())
    scopes = scopes or (Scope("projects"),)
    assert history_module.filtered_here(scopes)
    whole = read_history(repository, scopes, revisions)
    with monkeypatch.context() as patched:
        patched.setattr(history_module, "filtered_here", lambda scopes: False)
        reference = read_history(repository, scopes, revisions)
    assert _facts(whole) == _facts(reference)
    return whole


T0 = 1_780_000_000


def test_merges_simplified_as_git_simplifies_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A side branch whose change was undone (the merge is TREESAME to main: git never
    walks it), a merge TREESAME to its second parent, an evil merge, an octopus."""
    stream = _Stream()
    base = {"projects/a/CONTEXT.md": "a\n", "docs/x.md": "x\n"}
    root_commit = stream.commit("b0", T0, [], base)
    side = stream.commit("b1", T0 + 10, [root_commit], {**base, "projects/a/CONTEXT.md": "a2\n"})
    undone = stream.commit("b1", T0 + 20, [side], base)
    main = stream.commit("b0", T0 + 15, [root_commit], {**base, "docs/x.md": "y\n"})
    merged = stream.commit("b0", T0 + 30, [main, undone], {**base, "docs/x.md": "y\n"})
    ahead = stream.commit("b2", T0 + 40, [merged], {**base, "projects/b/CONTEXT.md": "b\n"})
    second = stream.commit("b0", T0 + 50, [merged, ahead], stream.trees[ahead])
    evil = dict(stream.trees[second], **{"projects/c/CONTEXT.md": "evil\n"})
    left = stream.commit("b3", T0 + 60, [second], {**stream.trees[second], "projects/d/x.md": "d"})
    right = stream.commit("b0", T0 + 61, [second], {**stream.trees[second], "docs/z.md": "z"})
    evil_merge = stream.commit(
        "b0", T0 + 70, [right, left], {**evil, "docs/z.md": "z", "projects/d/x.md": "d"}
    )
    one = stream.commit(
        "b4", T0 + 80, [evil_merge], {**stream.trees[evil_merge], "projects/a/1.md": "1"}
    )
    two = stream.commit(
        "b5", T0 + 81, [evil_merge], {**stream.trees[evil_merge], "projects/b/2.md": "2"}
    )
    three = stream.commit(
        "b6", T0 + 82, [evil_merge], {**stream.trees[evil_merge], "docs/3.md": "3"}
    )
    octopus = {**stream.trees[one], "projects/b/2.md": "2", "docs/3.md": "3"}
    stream.commit("b0", T0 + 90, [evil_merge, one, two, three], octopus)
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch)
    shas = {entry.commit.sha for key in history.projects for entry in history.of(*key)}
    side_sha = subprocess.run(
        ["git", "rev-parse", "b1~1"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert side_sha not in shas  # the undone side branch: git's simplification hides it
    assert history.projects  # and the rest is there


def test_a_commit_touching_many_projects_and_a_sweep_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _Stream()
    tree = {f"projects/p{n}/CONTEXT.md": "1\n" for n in range(8)}
    first = stream.commit("b0", T0, [], tree)
    wide = stream.commit("b0", T0 + 1, [first], {path: "2\n" for path in tree})
    sweep = {**stream.trees[wide], **{f"scripts/s{n}.py": "" for n in range(12)}}
    sweep["projects/p0/CONTEXT.md"] = "3\n"
    stream.commit("b0", T0 + 2, [wide], sweep)
    outside_only = {**sweep, "README.md": "r\n"}
    stream.commit("b0", T0 + 3, [len(stream.trees)], outside_only)
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch)
    newest, middle, _oldest = (entry.commit for entry in history.of(Scope("projects"), "p0"))
    assert (newest.projects_touched, newest.outside_files, newest.is_bulk) == (1, 12, True)
    assert (middle.projects_touched, middle.is_bulk) == (8, True)
    assert history.commits == 3  # the commit touching only README.md is not the scopes'


def test_a_rename_is_a_delete_and_an_add(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _Stream()
    body = "a long enough body for git to call this a rename\n" * 5
    first = stream.commit("b0", T0, [], {"projects/old/CONTEXT.md": body})
    stream.commit("b0", T0 + 1, [first], {"projects/new/CONTEXT.md": body})
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch)
    assert [len(history.of(Scope("projects"), name)) for name in ("old", "new")] == [2, 1]


def test_a_file_named_as_the_scope_and_other_scopes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file `projects` (matched by the pathspec, no project's), a `projectsX` beside it
    (not matched), several scopes, and a single project at the top of the repository."""
    stream = _Stream()
    first = stream.commit("b0", T0, [], {"projects": "a file\n", "projectsX/a/CONTEXT.md": "x"})
    second = stream.commit(
        "b0", T0 + 1, [first], {"projects/a/CONTEXT.md": "a", "archive/z/CONTEXT.md": "z"}
    )
    stream.commit("b0", T0 + 2, [second], {**stream.trees[second], "projectsX/a/CONTEXT.md": "y"})
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch)
    assert history.commits == 2
    _both_ways(root, monkeypatch, Scope("projects"), Scope("archive"))
    single = _both_ways(root, monkeypatch, Scope("", single=True))
    assert single.commits == 3


def test_a_resumed_range_is_read_whole_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _Stream()
    first = stream.commit("b0", T0, [], {"projects/a/CONTEXT.md": "1"})
    second = stream.commit("b0", T0 + 1, [first], {"projects/a/CONTEXT.md": "2", "d.md": ""})
    stream.commit("b0", T0 + 2, [second], {"projects/a/CONTEXT.md": "2", "d.md": "x"})
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch, revisions="HEAD~2..HEAD")
    assert history.commits == 1


def test_a_glob_scope_keeps_the_pathspec_pass() -> None:
    assert not history_module.filtered_here((Scope("proj*"),))
    assert not history_module.filtered_here((Scope(":(icase)projects"),))
    assert history_module.filtered_here((Scope("projects"), Scope("")))


@pytest.mark.parametrize("seed", range(6))
def test_random_histories_agree_with_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Branches, merges taking either side or a mix, undone changes, and committer dates
    that go backwards: the whole pass shows what git's pathspec pass shows."""
    rng = random.Random(seed)
    stream = _Stream()
    paths = [
        *(f"projects/{name}/CONTEXT.md" for name in "abcd"),
        "projects/a/sessions/2026-06.md",
        "projects/index.yaml",
        *(f"docs/d{n}.md" for n in range(3)),
    ]
    heads = {"b0": stream.commit("b0", T0, [], {paths[0]: "0"})}
    when = T0
    for step in range(60):
        when += rng.choice([-7200, 5, 60, 600, 3600])
        branch = rng.choice(sorted(heads))
        tip = heads[branch]
        roll = rng.random()
        if roll < 0.15 and len(heads) < 5:
            heads[f"b{len(heads)}"] = tip  # a new branch from here
            continue
        if roll < 0.4 and len(heads) > 1:
            other = heads[rng.choice(sorted(name for name in heads if name != branch))]
            if other == tip:
                continue
            mine, theirs = stream.trees[tip], stream.trees[other]
            how = rng.choice(["ours", "theirs", "mix", "evil"])
            tree = {"ours": mine, "theirs": theirs}.get(how) or {
                path: (mine if rng.random() < 0.5 else theirs).get(path, mine.get(path, ""))
                for path in set(mine) | set(theirs)
            }
            if how == "evil":
                tree = {**tree, rng.choice(paths): f"evil {step}"}
            heads[branch] = stream.commit(branch, when, [tip, other], tree, "merge")
            continue
        tree = dict(stream.trees[tip])
        for path in rng.sample(paths, rng.randint(1, 3)):
            if rng.random() < 0.2:
                tree.pop(path, None)
            else:
                tree[path] = rng.choice(["1", "2", f"{step}"])  # sometimes undoing a change
        heads[branch] = stream.commit(branch, when, [tip], tree, f"step {step}")
    everything = [tip for tip in heads.values()]
    stream.commit(
        "b0",
        when + 1,
        [heads["b0"], *[t for t in everything if t != heads["b0"]][:2]],
        stream.trees[heads["b0"]],
        "final",
    )
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    _both_ways(root, monkeypatch)
    for branch in heads:
        _both_ways(root, monkeypatch, revisions=branch)


def test_times_share_their_offsets_and_an_equal_author_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each offset is held once, and a commit authored when committed holds one time for
    both (memory at 80,000 commits); the times are the ones git printed."""
    stream = _Stream()
    tree = {"projects/p0/CONTEXT.md": "1\n"}
    first = stream.commit("b0", T0, [], tree)
    second = stream.commit("b0", T0 + 60, [first], {"projects/p0/CONTEXT.md": "2\n"})
    stream.commit("b0", T0 + 120, [second], {"projects/p0/CONTEXT.md": "3\n"}, author_zone="+0000")
    root = tmp_path / "kb"
    _fast_import(root, stream.text())
    history = _both_ways(root, monkeypatch)
    same, *zoned = (entry.commit for entry in history.of(Scope("projects"), "p0"))
    assert same.authored is same.committed
    assert same.committed == datetime.fromtimestamp(T0 + 120, UTC)
    assert [commit.authored.utcoffset() for commit in zoned] == [timedelta(hours=2)] * 2
    assert zoned[0].authored.tzinfo is zoned[1].authored.tzinfo
    assert [c.authored.timestamp() for c in zoned] == [T0 + 60, T0]
