"""context_doctor.git on real repositories (docs/layouts.md "Git history").

Repositories are built with the scenario builder; merges and clones are made
with git itself. Nothing here mocks git.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import support
from support import MakeRepo, head

from context_doctor.errors import DoctorError
from context_doctor.git.commits import Commit, History, Scope
from context_doctor.git.facts import RepositoryFacts
from context_doctor.git.history import LOG_FIELDS, is_shallow, read_history
from context_doctor.git.repository import Repository, repository_for
from context_doctor.git.run import git_environment

PROJECTS = Scope("projects")


def git(root: Path, *args: str, when: str | None = None) -> str:
    """Every git command here names a committer: some commit outside the scenario builder."""
    return support.git(root, *args, when=when, identity=True)


def history_of(root: Path, *scopes: Scope) -> History:
    return read_history(Repository(root.resolve()), scopes or (PROJECTS,))


def commits_of(history: History, project: str, scope: Scope = PROJECTS) -> list[Commit]:
    return [entry.commit for entry in history.of(scope, project)]


def one_commit(files: Mapping[str, str], when: str = "2026-06-01T09:00:00+00:00") -> dict[str, Any]:
    return {"date": when, "files": dict(files)}


def touch(projects: range | list[str], outside: int = 0) -> dict[str, str]:
    files = {f"projects/{name}/CONTEXT.md": f"# {name}\n" for name in projects}
    files.update({f"docs/file{n}.md": f"{n}\n" for n in range(outside)})
    return files


# -- bulk sweeps ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("projects", "outside", "bulk"),
    [
        (["a"], 0, False),
        (["a", "b", "c"], 0, False),  # 3 projects: still a session
        (["a", "b", "c", "d"], 0, True),  # more than 3
        (["a"], 10, False),  # 10 files outside projects/: still a session
        (["a"], 11, True),  # more than 10
    ],
)
def test_bulk_sweep_thresholds(
    make_repo: MakeRepo, projects: list[str], outside: int, bulk: bool
) -> None:
    root = make_repo({"commits": [one_commit(touch(projects, outside))]})
    history = history_of(root)
    (commit,) = commits_of(history, "a")
    assert commit.projects_touched == len(projects)
    assert commit.outside_files == outside
    assert commit.is_bulk is bulk
    assert commit.is_session is not bulk
    assert commit.describe().startswith("bulk sweep" if bulk else "commit")


# -- maintenance commits ---------------------------------------------------


@pytest.mark.parametrize(
    ("message", "maintenance"),
    [
        ("fix six defects\n\nContext-Doctor: maintenance", True),
        ("fix\n\ncontext-doctor :   Maintenance  ", True),  # odd spacing and case
        ("fix\n\nCONTEXT-DOCTOR:MAINTENANCE\nSigned-off-by: A <a@example.invalid>", True),
        ("fix\n\nContext-Doctor: session\nContext-Doctor: maintenance", True),  # repeated key
        ("fix\n\nContext-Doctor: maintenance pass", False),  # another value
        ("fix\n\nContext-Doctor: maintenance\n\nmore prose after it", False),  # not a trailer
        ("Context-Doctor: maintenance", False),  # a subject line is never a trailer
        ("fix\n\nRefs: maintenance", False),
        ("ordinary session", False),
    ],
)
def test_maintenance_trailer_as_git_parses_it(
    make_repo: MakeRepo, message: str, maintenance: bool
) -> None:
    root = make_repo({"commits": [{**one_commit(touch(["a"])), "message": message}]})
    (commit,) = commits_of(history_of(root), "a")
    assert commit.maintenance is maintenance
    assert commit.is_session is not maintenance
    assert commit.is_bulk is False
    assert commit.describe().startswith("maintenance commit" if maintenance else "commit")


def test_trailers_are_read_in_the_one_history_pass(make_repo: MakeRepo) -> None:
    """The trailer is a field of the single `git log`: no second walk over the commits."""
    assert any(name == "trailers" for name, _ in LOG_FIELDS)
    root = make_repo(
        {
            "commits": [
                {**one_commit(touch(["a"]), "2026-06-01T09:00:00+00:00"), "message": "work"},
                {
                    **one_commit({"projects/a/CONTEXT.md": "# A2\n"}, "2026-06-02T09:00:00+00:00"),
                    "message": "trim\n\nContext-Doctor: maintenance",
                },
            ]
        }
    )
    assert [c.maintenance for c in commits_of(history_of(root), "a")] == [True, False]


def test_outside_files_are_counted_from_the_whole_commit(make_repo: MakeRepo) -> None:
    """--full-diff: files outside the pathspec still count toward a sweep."""
    root = make_repo(
        {"commits": [one_commit({**touch(["a"]), **{f"src/m{n}.py": "" for n in range(12)}})]}
    )
    (commit,) = commits_of(history_of(root), "a")
    assert commit.outside_files == 12
    assert commit.is_bulk


def test_index_and_hidden_directories_are_not_projects(make_repo: MakeRepo) -> None:
    """Files directly in projects/ and under `.x`/`_x` are inside the scope but no project."""
    root = make_repo(
        {
            "commits": [
                one_commit(
                    {
                        "projects/index.yaml": "projects: []\n",
                        "projects/_template/CONTEXT.md": "# T\n",
                        "projects/.cache/x.md": "x\n",
                        "projects/a/CONTEXT.md": "# A\n",
                    }
                )
            ]
        }
    )
    history = history_of(root)
    assert set(history.projects) == {(PROJECTS, "a")}
    (commit,) = commits_of(history, "a")
    assert (commit.projects_touched, commit.outside_files) == (1, 0)


def test_files_are_attributed_relative_to_the_project(make_repo: MakeRepo) -> None:
    root = make_repo(
        {
            "commits": [
                one_commit(
                    {
                        "projects/a/CONTEXT.md": "# A\n",
                        "projects/a/sessions/2026-06.md": "## 2026-06-01\n",
                    }
                )
            ]
        }
    )
    (entry,) = history_of(root).of(PROJECTS, "a")
    assert entry.files == {"CONTEXT.md", "sessions/2026-06.md"}
    assert entry.touched("CONTEXT.md")
    assert entry.touched_under("sessions")
    assert not entry.touched_under("reference")


def test_commits_are_newest_first_and_read_once(make_repo: MakeRepo) -> None:
    root = make_repo(
        {
            "commits": [
                one_commit(touch(["a"]), "2026-06-01T09:00:00+00:00"),
                one_commit({"projects/b/CONTEXT.md": "# B\n"}, "2026-06-02T09:00:00+00:00"),
                one_commit({"projects/a/CONTEXT.md": "# A2\n"}, "2026-06-03T09:00:00+00:00"),
                one_commit({"README.md": "not in scope\n"}, "2026-06-04T09:00:00+00:00"),
            ]
        }
    )
    history = history_of(root)
    assert history.commits == 3  # the README-only commit is outside the pathspec
    assert [c.work_date for c in commits_of(history, "a")] == [
        date(2026, 6, 3),
        date(2026, 6, 1),
    ]
    assert commits_of(history, "a")[0].sha == git(root, "rev-parse", "HEAD~1")


def test_a_pass_begun_at_discovery_reads_what_a_late_one_reads(make_repo: MakeRepo) -> None:
    """begin_history starts git at once (output to a file); history() parses it as it is written."""
    second = one_commit({"projects/a/CONTEXT.md": "# A, again\n"}, "2026-06-02T09:00:00+00:00")
    root = make_repo({"commits": [one_commit(touch(["a", "b"])), second]})
    facts = RepositoryFacts(Repository(root.resolve()))
    facts.add_scope(PROJECTS)
    facts.begin_history()
    early = facts.history()
    assert early is not None
    late = history_of(root)
    assert early.commits == late.commits == 2
    for project in ("a", "b"):
        assert commits_of(early, project) == commits_of(late, project)
    with pytest.raises(RuntimeError):  # the scopes were final once git started
        facts.add_scope(Scope("elsewhere"))


def test_a_pass_begun_but_never_read_is_stopped(make_repo: MakeRepo) -> None:
    root = make_repo({"commits": [one_commit(touch(["a"]))]})
    facts = RepositoryFacts(Repository(root.resolve()))
    facts.add_scope(PROJECTS)
    facts.begin_history()
    assert facts._early is not None
    started = facts._early[1]
    started.stop()  # what the exit handler does
    assert started.process.poll() is not None
    assert started.output.closed


def test_empty_repository_has_no_history(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    history = history_of(tmp_path)
    assert history.commits == 0
    assert history.projects == {}


def test_single_project_scope(make_repo: MakeRepo) -> None:
    """A single-project repository: every file belongs to the one project."""
    root = make_repo(
        {"commits": [one_commit({"CONTEXT.md": "# Solo\n", **{f"f{n}": "" for n in range(12)}})]}
    )
    scope = Scope("", single=True)
    history = history_of(root, scope)
    (entry,) = history.of(scope, "whatever-the-id")
    assert len(entry.files) == 13
    assert entry.commit.is_session


# -- dates ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("authored", "local", "utc"),
    [
        ("2026-06-12T00:30:00+14:00", date(2026, 6, 12), date(2026, 6, 11)),
        ("2026-06-11T23:30:00-12:00", date(2026, 6, 11), date(2026, 6, 12)),
    ],
)
def test_work_date_is_the_authors_local_date(
    make_repo: MakeRepo, authored: str, local: date, utc: date
) -> None:
    root = make_repo(
        {
            "commits": [
                {
                    "date": authored,
                    "committer_date": "2026-09-01T12:00:00+00:00",
                    "files": touch(["a"]),
                }
            ]
        }
    )
    (commit,) = commits_of(history_of(root), "a")
    assert commit.work_date == local
    assert commit.authored.astimezone(UTC).date() == utc
    offset = commit.authored.utcoffset()
    assert offset == (timedelta(hours=14) if authored.endswith("+14:00") else timedelta(hours=-12))
    assert commit.committed.date() == date(2026, 9, 1)
    assert commit.describe() == f"commit {commit.sha[:7]} of {local.isoformat()}"
    assert commit.short == commit.sha[:7]


# -- merges --------------------------------------------------------------------


def _merged(make_repo: MakeRepo) -> tuple[Path, str]:
    """main and side each change a different project; merged with --no-ff on 2026-06-20."""
    root = make_repo({"commits": [one_commit(touch(["alpha", "beta"]))]})
    git(root, "checkout", "-q", "-b", "side")
    (root / "projects/beta/CONTEXT.md").write_text("# Beta, side\n")
    git(root, "commit", "-qam", "side", when="2026-06-02T09:00:00+00:00")
    git(root, "checkout", "-q", "main")
    (root / "projects/alpha/CONTEXT.md").write_text("# Alpha, main\n")
    git(root, "commit", "-qam", "main", when="2026-06-03T09:00:00+00:00")
    git(
        root, "merge", "-q", "--no-ff", "-m", "merge side", "side", when="2026-06-20T09:00:00+00:00"
    )
    return root, head(root)


def test_merge_commit_is_never_a_session(make_repo: MakeRepo) -> None:
    root, merge = _merged(make_repo)
    history = history_of(root)
    assert history.commits == 4  # the merge is read ...
    for project in ("alpha", "beta"):
        commits = commits_of(history, project)
        assert merge not in {c.sha for c in commits}  # ... but is no project's session
        assert all(c.is_session for c in commits)
    assert commits_of(history, "alpha")[0].work_date == date(2026, 6, 3)
    assert commits_of(history, "beta")[0].work_date == date(2026, 6, 2)


def test_commit_with_two_parents_is_a_merge() -> None:
    stamp = Commit(
        sha="0" * 40,
        parents=2,
        authored=datetime(2026, 6, 1, tzinfo=UTC),
        committed=datetime(2026, 6, 1, tzinfo=UTC),
        projects_touched=1,
        outside_files=0,
    )
    assert stamp.is_merge
    assert not stamp.is_bulk
    assert not stamp.is_session
    assert stamp.describe().startswith("merge 0000000")


# -- shallow clones ------------------------------------------------------------


@pytest.fixture
def shallow(make_repo: MakeRepo, tmp_path: Path) -> Path:
    origin = make_repo(
        {
            "commits": [
                one_commit(touch(["a"]), "2026-06-01T09:00:00+00:00"),
                one_commit({"projects/a/CONTEXT.md": "# A2\n"}, "2026-06-02T09:00:00+00:00"),
            ]
        }
    )
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    return clone


def test_shallow_clone_refuses_history(shallow: Path) -> None:
    repository = repository_for(shallow)
    assert is_shallow(repository)
    facts = RepositoryFacts(repository)
    facts.add_scope(PROJECTS)
    with pytest.raises(DoctorError) as raised:
        facts.history()
    assert "shallow clone" in raised.value.problem
    assert "fetch-depth: 0" in raised.value.remedy


def test_allow_shallow_gives_no_history(shallow: Path) -> None:
    facts = RepositoryFacts(repository_for(shallow), allow_shallow=True)
    facts.add_scope(PROJECTS)
    assert facts.history() is None


def test_full_clone_is_not_shallow(make_repo: MakeRepo) -> None:
    root = make_repo({"commits": [one_commit(touch(["a"]))]})
    facts = RepositoryFacts(repository_for(root))
    facts.add_scope(PROJECTS)
    history = facts.history()
    assert history is not None
    assert facts.history() is history  # read once
    with pytest.raises(RuntimeError):
        facts.add_scope(Scope("other"))


# -- the environment a pre-push hook exports ------------------------------------


def test_hook_environment_is_ignored(make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    here = make_repo({"commits": [one_commit(touch(["a"]), "2026-06-01T09:00:00+00:00")]})
    elsewhere = make_repo(
        {
            "commits": [
                one_commit(touch(["a"]), "2025-01-01T09:00:00+00:00"),
                one_commit(touch(["b"]), "2025-01-02T09:00:00+00:00"),
            ]
        }
    )
    expected = head(here)
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(elsewhere))
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / ".git" / "index"))
    env = git_environment()
    assert not {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} & set(env)
    assert env["LC_ALL"] == "C"
    repository = repository_for(here / "projects")
    assert repository.toplevel == here.resolve()
    history = read_history(repository, (PROJECTS,))
    assert history.commits == 1
    assert [c.sha for c in commits_of(history, "a")] == [expected]
    assert (PROJECTS, "b") not in history.projects


def test_directory_outside_any_repository_is_a_doctor_error(tmp_path: Path) -> None:
    with pytest.raises(DoctorError) as raised:
        repository_for(tmp_path)
    assert "not inside a git repository" in raised.value.problem


def _relative_by_pathlib(top: Path, path: Path) -> str:
    """What ``Repository.relative`` answered before its string fast path."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(top).as_posix()
    except ValueError:
        try:
            relative = absolute.resolve().relative_to(top).as_posix()
        except (ValueError, OSError, RuntimeError):
            return path.as_posix()
    return "" if relative == "." else relative


@pytest.mark.parametrize("top", ["/", "/tmp", "/tmp/kb", "//tmp", "tmp", "kb"])
@pytest.mark.parametrize(
    "raw",
    [
        "/",
        "/tmp",
        "/tmp/kb/projects/p/CONTEXT.md",
        "/tmp/kbx",
        "//tmp/a",
        "///tmp/a",
        "/tmp/./kb/../kb/projects",
        "rel/a",
        "/tmp/kb/caf\udce9.md",
        "..",
        "/tmp/kb/projects/../..",
        "/tmp//kb//projects/",
        "/tmp/kb/..x/y",
        "kb/x",
    ],
)
def test_relative_paths_are_what_pathlib_gives(top: str, raw: str) -> None:
    repository = Repository(Path(top))
    path = Path(raw)
    expected = _relative_by_pathlib(Path(top), path)
    assert repository.relative(path) == expected
    lexical = repository.lexically_relative(str(path))
    if lexical is not None:
        assert lexical == expected
        assert repository.relative(path / "x.md") == "/".join(p for p in (lexical, "x.md") if p)


def test_no_symlink_below_top_agrees_with_realpath(tmp_path: Path) -> None:
    top = tmp_path / "kb"
    (top / "projects" / "plain").mkdir(parents=True)
    (top / "elsewhere" / "inner").mkdir(parents=True)
    (top / "projects" / "linked").symlink_to(top / "elsewhere")
    (top / "link-to-projects").symlink_to(top / "projects")
    (top / "projects" / "loop").symlink_to(top / "projects" / "loop")
    repository = Repository(top)
    for directory in (
        top,
        top / "projects",
        top / "projects" / "plain",
        top / "projects" / "linked",
        top / "projects" / "linked" / "inner",
        top / "link-to-projects" / "plain",
        top / "projects" / "loop",
        top / "projects" / "missing",
        top / "projects" / ".." / "elsewhere",
        tmp_path,
    ):
        text = str(directory)
        below = directory.relative_to(top).parts if directory.is_relative_to(top) else None
        linked = below is None or ".." in below
        for depth in range(1, len(below or ()) + 1):
            linked = linked or top.joinpath(*below[:depth]).is_symlink()  # type: ignore[index]
        assert repository.no_symlink_below_top(text) == (not linked), text


def test_a_blob_over_the_bound_is_never_read(make_repo: MakeRepo) -> None:
    """#30: a file at an old commit is read only when its size (asked first) fits the bound."""
    root = make_repo({"commits": [one_commit({"projects/index.yaml": "projects: []\n" * 50})]})
    facts = RepositoryFacts(Repository(root.resolve()))
    sha = git(root, "rev-parse", "HEAD")
    assert facts.file_at(sha, "projects/index.yaml") == b"projects: []\n" * 50
    small = RepositoryFacts(Repository(root.resolve()))
    assert small.file_at(sha, "projects/index.yaml", limit=100) is None
    assert small.file_at(sha, "projects/absent.yaml") is None
