"""Durability and readiness (docs/checks.md "Durability and readiness") on real repositories.

Every case is a real git repository built by the scenario builder; the ones
that need a remote get a real bare repository beside them (``remote: true``),
with ``unpushed_commits`` holding the newest commits back. Detached heads are
made with git itself. Nothing here mocks git.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import INDEX, Doctor, MakeRepo, git, is_whole_source, template_tail

from context_doctor.scenarios import remote_path

TODAY = "2026-06-02"
DURABILITY = "untracked-context,uncommitted-context,unpushed-context"
CONTEXT = "# {name}\n\n**Status:** Active\n**Last session:** 2026-06-01\n" + template_tail()


def project_files(*names: str, prefix: str = "projects") -> dict[str, str]:
    """A healthy registered project per name (index entry plus CONTEXT.md)."""
    files = {
        f"{prefix}/index.yaml": "".join(
            f"- id: {name}\n  status: active\n  last_session: 2026-06-01\n" for name in names
        )
    }
    files.update({f"{prefix}/{name}/CONTEXT.md": CONTEXT.format(name=name) for name in names})
    return files


def scenario(
    files: Mapping[str, str] | None = None,
    *,
    remote: bool = True,
    extra_commits: int = 0,
    unpushed: int = 0,
    uncommitted: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One healthy commit, then ``extra_commits`` more that each touch the projects directory."""
    commits: list[dict[str, Any]] = [
        {"date": "2026-06-01T10:00:00+00:00", "files": dict(files or project_files("fine"))}
    ]
    for number in range(1, extra_commits + 1):
        commits.append(
            {
                "date": f"2026-06-01T{10 + number}:00:00+00:00",
                "message": f"notes {number}",
                "files": {f"projects/fine/notes-{number}.md": f"note {number}\n"},
            }
        )
    built: dict[str, Any] = {"commits": commits, "remote": remote, "unpushed_commits": unpushed}
    if uncommitted:
        built["uncommitted"] = dict(uncommitted)
    return built


def audit(doctor: Doctor, *roots: Path, readiness: str = "local", select: str = "") -> Run:
    args = ["check"]
    for root in roots:
        args += ["--source", str(root)]
    args += ["--today", TODAY, "--readiness", readiness, "--json"]
    if select:
        args += ["--select", select]
    return doctor(*args)


# -- the healthy baseline ----------------------------------------------------


def test_fully_pushed_committed_corpus_is_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario())
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 0, run.stdout
    assert run.findings() == []
    coverage = run.json["coverage"]
    assert coverage["unpushed-context"] == {"examined": 1, "skipped": 0, "reasons": {}}
    assert coverage["uncommitted-context"]["examined"] == 1
    assert coverage["untracked-context"]["examined"] == 1


def test_json_report_states_its_readiness_mode(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario())
    assert audit(doctor, root, readiness="remote").json["readiness"] == "remote"
    assert audit(doctor, root, readiness="local").json["readiness"] == "local"
    default = doctor("check", "--source", str(root), "--today", TODAY, "--json")
    assert default.json["readiness"] == "local"


# -- uncommitted-context -----------------------------------------------------

EDITED = {"files": {"projects/fine/CONTEXT.md": CONTEXT.format(name="fine") + "\nEdited.\n"}}


def test_edited_context_is_a_defect_under_remote_readiness(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(scenario(uncommitted=EDITED))
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "uncommitted-context"
    assert finding["severity"] == "defect"
    assert finding["project"] == "fine"
    assert finding["path"] == "projects/fine/CONTEXT.md"
    assert finding["message"] == "1 file is uncommitted under projects/fine/ (CONTEXT.md)"


def test_edited_context_is_a_warning_under_local_readiness(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(scenario(uncommitted=EDITED))
    run = audit(doctor, root, readiness="local")
    assert run.exit_code == 0
    [finding] = run.findings()
    assert finding["check"] == "uncommitted-context"
    assert finding["severity"] == "warning"
    assert run.json["ok"] is True


def test_never_added_and_deleted_files_count_as_uncommitted(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    files = {**project_files("fine"), "projects/fine/REFERENCE.md": "# Reference\n"}
    root = make_repo(
        scenario(
            files,
            uncommitted={
                "files": {"projects/fine/sessions/2026-06.md": "## 2026-06-01 — work\n"},
                "delete": ["projects/fine/REFERENCE.md"],
            },
        )
    )
    [finding] = audit(doctor, root, readiness="remote", select=DURABILITY).findings()
    assert finding["check"] == "uncommitted-context"
    assert finding["message"].startswith("2 files are uncommitted under projects/fine/")
    assert "REFERENCE.md" in finding["message"]
    assert "2026-06.md" in finding["message"]


def test_uncommitted_index_is_reported_once_per_source(make_repo: MakeRepo, doctor: Doctor) -> None:
    files = project_files("alpha", "beta")
    edited = files[INDEX] + "# edited, not committed\n"
    root = make_repo(scenario(files, uncommitted={"files": {INDEX: edited}}))
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "uncommitted-context"
    assert finding["severity"] == "defect"
    assert is_whole_source(finding)
    assert finding["path"] == INDEX
    assert "index.yaml has uncommitted changes" in finding["message"]


def test_uncommitted_indexes_of_two_sources_in_one_repository(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    files = {**project_files("fine"), **project_files("other", prefix="work/projects")}
    root = make_repo(
        scenario(
            files,
            uncommitted={
                "files": {
                    INDEX: files[INDEX] + "# edited\n",
                    "work/projects/index.yaml": files["work/projects/index.yaml"] + "# edited\n",
                }
            },
        )
    )
    findings = audit(doctor, root, root / "work", readiness="remote").findings(
        "uncommitted-context"
    )
    assert sorted((f["source"], f["path"]) for f in findings) == [
        ("kb0", INDEX),
        ("work", "work/projects/index.yaml"),
    ]


# -- unpushed-context --------------------------------------------------------


def test_committed_but_never_pushed_fires(make_repo: MakeRepo, doctor: Doctor) -> None:
    # A remote exists but nothing was ever pushed to it: the branch has no upstream.
    root = make_repo(scenario(unpushed=1))
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert finding["severity"] == "defect"
    assert is_whole_source(finding)
    assert finding["path"] == INDEX
    assert "branch `main` has no upstream" in finding["message"]


def test_no_remote_at_all_fires(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario(remote=False))
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert "has no remote" in finding["message"]


@pytest.mark.parametrize(
    ("held_back", "wording"),
    [
        (1, "1 commit touches the projects directory but is not on `origin/main`"),
        (2, "2 commits touch the projects directory but are not on `origin/main`"),
    ],
)
def test_commits_after_the_last_push_are_counted(
    make_repo: MakeRepo, doctor: Doctor, held_back: int, wording: str
) -> None:
    root = make_repo(scenario(extra_commits=2, unpushed=held_back))
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert finding["message"] == wording


def test_unpushed_commits_outside_the_projects_directory_are_not_counted(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    built = scenario(unpushed=1)
    built["commits"].append(
        {"date": "2026-06-01T12:00:00+00:00", "files": {"tools/build.sh": "echo\n"}}
    )
    root = make_repo(built)
    # The held-back commit is the one outside projects/: nothing of the context layer waits,
    # but the branch is not upstream-current, which remote readiness requires.
    remote = audit(doctor, root, readiness="remote")
    assert [f["check"] for f in remote.findings()] == ["branch-not-ready"]
    assert audit(doctor, root, readiness="local").findings() == []


def test_detached_head_fires(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario())
    git(root, "checkout", "-q", "--detach", "HEAD")
    run = audit(doctor, root, readiness="remote")
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert "HEAD is detached" in finding["message"]


def test_unpushed_is_a_warning_under_local_readiness(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario(remote=False))
    run = audit(doctor, root, readiness="local")
    assert run.exit_code == 0
    [finding] = run.findings()
    assert (finding["check"], finding["severity"]) == ("unpushed-context", "warning")


def test_unpushed_is_reported_once_per_repository(make_repo: MakeRepo, doctor: Doctor) -> None:
    files = {**project_files("fine"), **project_files("other", prefix="work/projects")}
    root = make_repo(scenario(files, remote=False))
    run = audit(doctor, root, root / "work", readiness="remote")
    assert [source["name"] for source in run.json["source_details"]] == ["kb0", "work"]
    assert len(run.findings("unpushed-context")) == 1
    assert run.json["coverage"]["unpushed-context"]["examined"] == 1


def test_unpushed_coverage_counts_repositories(make_repo: MakeRepo, doctor: Doctor) -> None:
    first = make_repo(scenario(remote=False))
    second = make_repo(scenario(remote=False))
    run = audit(doctor, first, second, readiness="remote")
    assert sorted(f["source"] for f in run.findings("unpushed-context")) == ["kb0", "kb1"]
    assert run.json["coverage"]["unpushed-context"]["examined"] == 2


# -- untracked-context -------------------------------------------------------


@pytest.mark.parametrize("readiness", ["local", "remote"])
def test_gitignored_context_is_a_defect_in_both_modes(
    make_repo: MakeRepo, doctor: Doctor, readiness: str
) -> None:
    # The builder commits with `git add -A`, so the ignored CONTEXT.md never enters git.
    root = make_repo(scenario({**project_files("fine"), ".gitignore": "CONTEXT.md\n"}))
    assert git(root, "ls-files", "projects/fine") == ""
    run = audit(doctor, root, readiness=readiness, select=DURABILITY)
    assert run.exit_code == 1
    [finding] = run.findings()
    assert finding["check"] == "untracked-context"
    assert finding["severity"] == "defect"
    assert finding["path"] == "projects/fine/CONTEXT.md"
    assert "ignored by git" in finding["message"]


def test_excluded_reference_is_untracked(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario())
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("REFERENCE.md\n")
    (root / "projects" / "fine" / "REFERENCE.md").write_text("# Reference\n")
    run = audit(doctor, root, readiness="local", select=DURABILITY)
    assert run.exit_code == 1
    [finding] = run.findings()
    assert (finding["check"], finding["path"]) == (
        "untracked-context",
        "projects/fine/REFERENCE.md",
    )


def test_merely_unadded_context_is_uncommitted_not_untracked(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        scenario(uncommitted={"files": {"projects/fine/REFERENCE.md": "# Reference\n"}})
    )
    checks = {
        f["check"] for f in audit(doctor, root, readiness="remote", select=DURABILITY).findings()
    }
    assert checks == {"uncommitted-context"}


# -- upstream-current: behind, diverged, vanished ----------------------------------


def _advance_remote(root: Path, tmp_path: Path, *, fetch: bool = True) -> None:
    """Another machine pushes one commit to the bare remote; ``fetch`` brings it here."""
    other = tmp_path / "other-machine"
    git(root.parent, "clone", "-q", str(remote_path(root)), str(other))
    (other / "projects" / "fine" / "REFERENCE.md").write_text("# Written elsewhere\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "elsewhere", when="2026-06-01T18:00:00+00:00", identity=True)
    git(other, "push", "-q", "origin", "HEAD:main")
    if fetch:
        git(root, "fetch", "-q", "origin")


@pytest.mark.parametrize(("readiness", "severity"), [("remote", "defect"), ("local", "warning")])
def test_branch_behind_its_fetched_upstream_fires(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, readiness: str, severity: str
) -> None:
    root = make_repo(scenario())
    _advance_remote(root, tmp_path)
    run = audit(doctor, root, readiness=readiness)
    [finding] = run.findings()
    assert (finding["check"], finding["severity"]) == ("unpushed-context", severity)
    assert finding["message"] == (
        "branch `main` is 1 commit behind `origin/main` as of the last fetch: "
        "it is not upstream-current"
    )
    assert "git pull --ff-only" in finding["remedy"]


def test_behind_is_judged_from_the_last_fetch_only(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    """No network call: a remote that moved since the last fetch is not seen."""
    root = make_repo(scenario())
    _advance_remote(root, tmp_path, fetch=False)
    assert audit(doctor, root, readiness="remote").findings() == []


def test_diverged_branch_fires(make_repo: MakeRepo, doctor: Doctor, tmp_path: Path) -> None:
    root = make_repo(scenario(extra_commits=1, unpushed=1))
    _advance_remote(root, tmp_path)
    run = audit(doctor, root, readiness="remote")
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert finding["message"] == (
        "branch `main` has diverged from `origin/main` as of the last fetch: 1 commit here "
        "not there (1 touching the projects directory), 1 commit there not here"
    )
    assert "git pull --rebase" in finding["remedy"]


def test_vanished_upstream_ref_is_reported_not_a_crash(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario())
    git(root, "update-ref", "-d", "refs/remotes/origin/main")
    run = audit(doctor, root, readiness="remote")
    [finding] = run.findings()
    assert finding["check"] == "unpushed-context"
    assert (
        "`origin/main` of branch `main` no longer exists as of the last fetch"
        in (finding["message"])
    )


# -- untracked-context covers every tier file ------------------------------------


@pytest.mark.parametrize(
    ("ignore", "files", "flagged"),
    [
        (
            "sessions/\n",
            {"projects/fine/sessions/2026-06.md": "# June\n\n## 2026-06-01 — work\n"},
            ["projects/fine/sessions/2026-06.md"],
        ),
        (
            "reference/\n",
            {
                "projects/fine/REFERENCE.md": "# Ref\n\n- [Tools](reference/tools.md)\n",
                "projects/fine/reference/tools.md": "# Tools\n",
            },
            ["projects/fine/reference/tools.md"],
        ),
        (
            "CURRENT_STATE.json\n",
            {"projects/fine/CURRENT_STATE.json": "{}\n"},
            ["projects/fine/CURRENT_STATE.json"],
        ),
    ],
)
def test_every_ignored_tier_file_is_untracked(
    make_repo: MakeRepo, doctor: Doctor, ignore: str, files: dict[str, str], flagged: list[str]
) -> None:
    root = make_repo(scenario({**project_files("fine"), **files, ".gitignore": ignore}))
    run = audit(doctor, root, readiness="local", select="untracked-context")
    assert [f["path"] for f in run.findings("untracked-context")] == flagged
    assert "ignored by git" in run.findings("untracked-context")[0]["message"]


def test_tracked_sessions_and_topics_are_quiet(make_repo: MakeRepo, doctor: Doctor) -> None:
    files = {
        **project_files("fine"),
        "projects/fine/sessions/2026-06.md": "# June\n\n## 2026-06-01 — work\n",
        "projects/fine/reference/tools.md": "# Tools\n",
        "projects/fine/REFERENCE.md": "# Ref\n\n- [Tools](reference/tools.md)\n",
    }
    run = audit(doctor, make_repo(scenario(files)), readiness="remote", select="untracked-context")
    assert run.findings() == []
    assert run.json["coverage"]["untracked-context"]["examined"] == 1


# -- CI checkouts ----------------------------------------------------------------


def test_ci_detached_checkout_skips_the_durability_checks(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        scenario(
            {**project_files("fine"), ".gitignore": "CONTEXT.md\n"},
            uncommitted={"files": {"projects/fine/notes.md": "draft\n"}},
        )
    )
    git(root, "checkout", "-q", "--detach", "HEAD")
    args = ["check", "--source", str(root), "--today", TODAY, "--readiness", "remote", "--json"]
    run = doctor(*args, "--select", DURABILITY, env={"CI": "true"})
    assert run.exit_code == 0, run.stdout
    assert run.findings() == []
    for check in DURABILITY.split(","):
        assert run.json["coverage"][check] == {
            "examined": 0,
            "skipped": 1,
            "reasons": {"ci checkout": 1},
        }, check
    # Outside CI the same detached checkout is reported.
    outside = doctor(*args, "--select", DURABILITY, env={"CI": ""})
    assert {f["check"] for f in outside.findings()} == set(DURABILITY.split(","))


def test_ci_on_a_branch_still_checks(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = make_repo(scenario(remote=False))
    run = doctor("check", "--source", str(root), "--today", TODAY, "--json", env={"CI": "TRUE"})
    assert [f["check"] for f in run.findings()] == ["unpushed-context"]
    assert run.json["coverage"]["unpushed-context"]["skipped"] == 0


# -- an index that lives elsewhere ---------------------------------


def index_kept_outside(make_repo: MakeRepo, tmp_path: Path) -> tuple[Path, Path]:
    """A pushed repository whose committed index.yaml is a symlink to a file outside it."""
    root = make_repo(scenario())
    index = root / "projects" / "index.yaml"
    outside = tmp_path / "elsewhere" / "index.yaml"
    outside.parent.mkdir()
    outside.write_bytes(index.read_bytes())
    index.unlink()
    index.symlink_to(outside)
    git(root, "add", "-A")
    git(
        root,
        "commit",
        "-qm",
        "keep the index elsewhere",
        when="2026-06-01T12:00:00+00:00",
        identity=True,
    )
    git(root, "push", "-q")
    return root, outside


@pytest.mark.parametrize("readiness", ["local", "remote"])
def test_an_index_symlinked_outside_the_repository_is_not_ready(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path, readiness: str
) -> None:
    root, outside = index_kept_outside(make_repo, tmp_path)
    run = audit(doctor, root, readiness=readiness)
    assert run.exit_code == 1, run.stdout + run.stderr
    found = run.findings("untracked-context")
    assert [(f["path"], f["severity"]) for f in found] == [("projects/index.yaml", "defect")]
    assert str(outside) in found[0]["message"] and "dangles" in found[0]["message"]


# -- branch-not-ready: remote readiness is the whole branch ---------------------

BRANCH_FILES = {
    "projects/index.yaml": "- id: alpha\n  status: active\n  last_session: 2026-06-01\n",
    "projects/alpha/CONTEXT.md": "# Alpha\n\n**Status:** Active\n**Last session:** 2026-06-01\n",
    "README.md": "# Knowledge base\n",
}


def _branch_repo(make_repo: MakeRepo, **rest: Any) -> Path:
    commits = [{"date": "2026-06-01T10:00:00+00:00", "files": dict(BRANCH_FILES)}]
    return make_repo({"remote": True, "commits": commits, **rest})


def _readiness(doctor: Doctor, root: Path, mode: str) -> Run:
    return doctor(
        "check", "--source", str(root), "--today", "2026-06-02", "--readiness", mode, "--json"
    )


def test_a_dirty_readme_beside_projects_is_not_remote_ready(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = _branch_repo(make_repo, uncommitted={"files": {"README.md": "# Edited\n"}})
    remote = _readiness(doctor, root, "remote")
    finding = remote.findings("branch-not-ready")
    assert len(finding) == 1, finding
    assert finding[0]["severity"] == "defect"
    assert finding[0]["path"] == "README.md"
    assert "uncommitted outside the projects directory (README.md)" in finding[0]["message"]
    assert not _readiness(doctor, root, "local").findings("branch-not-ready")


def test_an_unpushed_commit_outside_projects_is_not_remote_ready(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    commits = [
        {"date": "2026-06-01T10:00:00+00:00", "files": dict(BRANCH_FILES)},
        {"date": "2026-06-01T11:00:00+00:00", "files": {"README.md": "# Kb, edited\n"}},
    ]
    root = make_repo({"remote": True, "unpushed_commits": 1, "commits": commits})
    remote = _readiness(doctor, root, "remote")
    found = remote.findings("branch-not-ready")
    assert len(found) == 1, found
    assert "1 commit on branch `main` is not on `origin/main`" in found[0]["message"]
    assert not remote.findings("unpushed-context")  # the projects directory itself is published


def test_a_clean_pushed_branch_is_remote_ready(make_repo: MakeRepo, doctor: Doctor) -> None:
    remote = _readiness(doctor, _branch_repo(make_repo), "remote")
    assert remote.findings("branch-not-ready") == []
    assert remote.json["coverage"]["branch-not-ready"]["examined"] == 1


def test_a_ci_checkout_skips_branch_readiness(make_repo: MakeRepo, doctor: Doctor) -> None:
    root = _branch_repo(make_repo, uncommitted={"files": {"README.md": "# Edited\n"}})
    git(root, "checkout", "-q", "--detach")
    run = doctor(
        "check", "--source", str(root), "--today", "2026-06-02", "--readiness", "remote",
        "--json", env={"CI": "true"},
    )  # fmt: skip
    assert run.json["coverage"]["branch-not-ready"]["reasons"] == {"ci checkout": 1}


def test_local_readiness_is_a_counted_skip_of_branch_readiness(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    """docs/output.md: every skip is accounted for; local readiness never asks about the branch."""
    root = _branch_repo(make_repo, uncommitted={"files": {"README.md": "# Edited\n"}})
    local = _readiness(doctor, root, "local")
    assert local.findings("branch-not-ready") == []
    coverage = local.json["coverage"]["branch-not-ready"]
    assert (coverage["examined"], coverage["skipped"]) == (0, 1)
    assert coverage["reasons"] == {"readiness local": 1}
    human = doctor(
        "check", "--source", str(root), "--today", "2026-06-02", "--color", "never"
    )  # the default readiness is local
    assert "coverage branch-not-ready: examined 0, skipped 1 (1 readiness local)" in human.stdout
