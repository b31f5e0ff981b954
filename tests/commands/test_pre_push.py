"""The pre-push hook judges what the remote will hold (docs/surfaces.md).

Every case pushes with a real ``git push`` to a real bare remote, so git itself runs
the installed hook with its real input on stdin; the doctor audits the tree of the
pushed commits in a temporary checkout. Nothing here mocks git.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import Run
from support import Doctor, MakeRepo, commit_files, run_git, template_tail

from context_doctor.cli import cli
from context_doctor.scenarios import remote_path

WHEN = "2026-06-02T12:00:00+00:00"
INDEX = (
    "- id: alpha\n  status: active\n  last_session: 2026-06-01\n"
    "- id: beta\n  status: active\n  last_session: 2026-06-01\n"
)


def context(name: str, last: str = "2026-06-01", extra: str = "") -> str:
    return (
        f"# {name}\n\n**Status:** Active\n**Last session:** {last}\n\n"
        f"History: [sessions](sessions/), facts: [reference](REFERENCE.md)\n{extra}"
        + template_tail(last)
    )


def log(*days: str) -> str:
    return "# Sessions\n" + "".join(f"\n## {day}\nWorked.\n" for day in days)


def corpus(files: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Two healthy projects, pushed to a bare remote; ``files`` override or add."""
    base = {
        "projects/index.yaml": INDEX,
        "projects/alpha/CONTEXT.md": context("Alpha"),
        "projects/alpha/sessions/2026-06.md": log("2026-06-01"),
        "projects/beta/CONTEXT.md": context("Beta"),
        "projects/beta/sessions/2026-06.md": log("2026-06-01"),
        "projects/alpha/REFERENCE.md": "# Alpha reference\n\nStable facts.\n",
        "projects/beta/REFERENCE.md": "# Beta reference\n\nStable facts.\n",
    }
    base.update(files or {})
    return {
        "remote": True,
        "commits": [{"date": "2026-06-01T10:00:00+00:00", "files": base}],
    }


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_git(root, *args, when=WHEN, identity=True, check=check)


def commit(root: Path, files: Mapping[str, str], message: str) -> str:
    return commit_files(root, files, message, when=WHEN)


def remote_ref(root: Path, ref: str = "refs/heads/main") -> str:
    return git(
        remote_path(root), "rev-parse", "--verify", "--quiet", ref, check=False
    ).stdout.strip()


def push(root: Path, *args: str) -> tuple[int, list[str]]:
    """``git push origin ARGS``: its status and the lines the hook printed."""
    done = git(root, "push", "origin", *(args or ("main",)), check=False)
    lines = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip()
        and not line.startswith(("error:", "To ", " ! ", "hint:", " * ", "   ", " - "))
    ]
    return done.returncode, lines


def without_warnings(lines: list[str]) -> list[str]:
    """The hook's lines without a warning count: the hook audits on the real date, and a
    warning about time (active-project-idle) joins as the calendar passes the scenario's."""
    return [re.sub(r"( audited, 0 defects), \d+ warnings?", r"\1", line) for line in lines]


@pytest.fixture
def installed(make_repo: MakeRepo, doctor: Doctor) -> Any:
    def build(files: Mapping[str, str] | None = None) -> Path:
        root = make_repo(corpus(files))
        run = doctor("hook", "install", "--repo", str(root))
        assert run.exit_code == 0, run.stderr
        return root

    return build


def work_tree_state(root: Path) -> tuple[str, str, str]:
    return (
        git(root, "status", "--porcelain=v1", "--untracked-files=all").stdout,
        git(root, "stash", "list").stdout,
        git(root, "rev-parse", "HEAD").stdout,
    )


def test_a_header_committed_without_its_log_entry_is_refused(installed: Any) -> None:
    # The README's promise, tried as a new user would: the log entry is written but not
    # committed. The work tree is fine; what the push sends is not.
    root = installed()
    before = remote_ref(root)
    commit(
        root,
        {
            "projects/alpha/CONTEXT.md": context("Alpha", "2026-06-02"),
            "projects/index.yaml": INDEX.replace("2026-06-01", "2026-06-02", 1),
        },
        "alpha: session 2026-06-02",
    )
    entry = root / "projects/alpha/sessions/2026-06.md"
    entry.write_text(log("2026-06-01", "2026-06-02"))
    state = work_tree_state(root)
    code, lines = push(root)
    assert code != 0
    assert remote_ref(root) == before
    # One missing log entry, one defect: the header's finding names the index too.
    assert any("[context-header-freshness]" in line for line in lines), lines
    assert lines[-1] == (
        "push refused by context-doctor: 1 defect in alpha (context-doctor check projects/alpha)"
    )
    assert not any("no-verify" in line for line in lines)
    # The user's work tree, index, stash and refs are as they were.
    assert work_tree_state(root) == state
    assert entry.read_text() == log("2026-06-01", "2026-06-02")
    # Once the entry is committed, the same push goes through, quietly.
    head = commit(root, {}, "alpha: log the session")  # commits the entry
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == [
        "context-doctor: push ok: alpha, projects/index.yaml audited, 0 defects"
    ]
    assert remote_ref(root) == head


def test_an_uncommitted_defect_does_not_block_a_clean_push(installed: Any) -> None:
    root = installed()
    head = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "alpha: a note")
    # Over budget in the work tree only: the remote will never hold it.
    (root / "projects/alpha/CONTEXT.md").write_text(
        context("Alpha", extra="".join(f"Line {n}.\n" for n in range(160)))
    )
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == ["context-doctor: push ok: alpha audited, 0 defects"]
    assert remote_ref(root) == head


def over_budget(name: str) -> str:
    return context(name, extra="".join(f"Line {n}.\n" for n in range(160)))


def test_defects_in_projects_the_push_does_not_change_are_report_only(installed: Any) -> None:
    root = installed({"projects/beta/CONTEXT.md": over_budget("Beta")})  # already on the remote
    head = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "alpha: a note")
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == [
        "context-doctor: push ok: alpha audited, 0 defects; 1 defect in projects this push does not "
        "change (report-only: `context-doctor check`)"
    ]
    assert remote_ref(root) == head
    # A push that changes beta is judged on beta's defect.
    commit(root, {"projects/beta/notes.md": "A note.\n"}, "beta: a note")
    code, lines = push(root)
    assert code != 0
    assert any("[context-budget]" in line for line in lines), lines
    assert lines[-1] == (
        "push refused by context-doctor: 1 defect in beta (context-doctor check projects/beta)"
    )


def test_index_level_defects_block_only_when_the_push_changes_the_index(installed: Any) -> None:
    root = installed()
    broken = INDEX + "- status: active\n  last_session: 2026-06-01\n"  # an entry without an id
    commit(root, {"projects/index.yaml": broken}, "index: a half-written entry")
    code, lines = push(root)
    assert code != 0
    assert lines[-1].startswith("push refused by context-doctor: ")
    assert lines[-1].endswith(" in projects/index.yaml (context-doctor check .)"), lines


def test_a_projects_existing_defects_can_be_baselined(installed: Any, doctor: Doctor) -> None:
    root = installed()
    commit(root, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta over budget")
    baseline = doctor("check", "--source", str(root), "--write-baseline", "--today", "2026-06-02")
    assert baseline.exit_code == 0, baseline.stderr
    commit(
        root,
        {"context-doctor.toml": 'baseline = "context-doctor-baseline.json"\n'},
        "baseline beta's known defect",
    )
    head = commit(root, {"projects/beta/notes.md": "A note.\n"}, "beta: a note")
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == ["context-doctor: push ok: beta audited, 0 defects"]
    assert remote_ref(root) == head


def test_a_branch_deletion_is_not_audited(installed: Any) -> None:
    root = installed()
    code, lines = push(root, "main:topic")
    assert code == 0, lines
    assert lines == ["context-doctor: the push changes no project's context"]
    code, lines = push(root, "--delete", "topic")
    assert code == 0, lines
    assert lines == ["context-doctor: the push deletes refs only; nothing to audit"]
    assert remote_ref(root, "refs/heads/topic") == ""


def test_a_new_branch_is_judged_on_what_it_adds(installed: Any) -> None:
    root = installed()
    git(root, "checkout", "-q", "-b", "topic")
    head = commit(root, {"projects/beta/notes.md": "A note.\n"}, "beta: a note")
    code, lines = push(root, "topic")
    assert code == 0, lines
    assert without_warnings(lines) == ["context-doctor: push ok: beta audited, 0 defects"]
    assert remote_ref(root, "refs/heads/topic") == head


def fast_import(root: Path, count: int, last: Mapping[str, str]) -> str:
    """``count`` real commits on main in one fast-import stream; the last writes ``last``."""
    parent = git(root, "rev-parse", "HEAD").stdout.strip()
    chunks: list[bytes] = []
    for number in range(count):
        files = {"projects/alpha/notes.md": f"Note {number}.\n"}
        if number == count - 1:
            files.update(last)
        body = [
            "commit refs/heads/main",
            "committer Test <test@example.invalid> 1780401600 +0000",
            f"data {len(f'note {number}')}",
            f"note {number}",
        ]
        if number == 0:
            body.append(f"from {parent}")
        for path, text in files.items():
            data = text.encode()
            body += [f"M 100644 inline {path}", f"data {len(data)}"]
            chunks.append(("\n".join(body) + "\n").encode() + data + b"\n")
            body = []
        if body:
            chunks.append(("\n".join(body) + "\n").encode())
    stream = b"".join(chunks)
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=root, input=stream, check=True)
    git(root, "reset", "-q", "--hard", "main")
    return git(root, "rev-parse", "HEAD").stdout.strip()


def test_a_push_of_500_commits_is_judged_on_the_tree_it_leaves(installed: Any) -> None:
    root = installed()
    head = fast_import(root, 500, {})
    assert git(root, "rev-list", "--count", "origin/main..main").stdout.strip() == "500"
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == ["context-doctor: push ok: alpha audited, 0 defects"]
    assert remote_ref(root) == head
    fast_import(root, 500, {"projects/beta/CONTEXT.md": over_budget("Beta")})
    code, lines = push(root)
    assert code != 0
    assert lines[-1] == (
        "push refused by context-doctor: 1 defect in beta (context-doctor check projects/beta)"
    )


# -- --pre-push in-process: the hook input itself --------------------------------------


def pre_push(root: Path, stdin: str, env: Mapping[str, str] | None = None, *extra: str) -> Run:
    result = CliRunner().invoke(
        cli,
        ["check", "--source", str(root), "--today", "2026-06-02", "--pre-push", *extra],
        input=stdin,
        env=dict(env or {}),
        catch_exceptions=False,
    )
    return Run(result.exit_code, result.stdout, result.stderr)


def test_no_hook_input_judges_head_as_a_push_of_it(make_repo: MakeRepo) -> None:
    """pre-commit's `manual` stage (and `run --hook-stage pre-push` without refs) gives no
    refs: HEAD is judged as its push would be, never exit 2 for want of refs."""
    root = make_repo(corpus())  # HEAD is on the remote: the push would change nothing
    run = pre_push(root, "")
    assert run.exit_code == 0, run.stderr
    assert "judging what a push of HEAD" in run.stderr
    assert run.stdout == "context-doctor: the push changes no project's context\n"
    commit(root, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta: long")
    (root / "projects/alpha/CONTEXT.md").write_text(over_budget("Alpha"))  # not committed
    refused = pre_push(root, "")
    assert refused.exit_code == 1, refused.stderr
    assert refused.stdout.splitlines()[-1] == (
        "push refused by context-doctor: 1 defect in beta (context-doctor check projects/beta)"
    )
    # What a plain check of the changed project says of the committed tree, the same.
    git(root, "stash", "-q")
    plain = CliRunner().invoke(
        cli, ["check", "--project", str(root / "projects/beta"), "--today", "2026-06-02", "-q"]
    )
    assert plain.exit_code == 1 and "[context-budget]" in refused.stdout


def test_no_hook_input_without_an_upstream_judges_every_project_in_head(
    make_repo: MakeRepo,
) -> None:
    """A manual run of a HEAD with no upstream (a CI checkout's detached HEAD, a branch
    never pushed, an upstream not fetched here) judges every project in HEAD: its commits
    being on a remote-tracking ref is no reason to pass a defect (#42 item 9)."""
    root = make_repo(corpus({"projects/beta/CONTEXT.md": over_budget("Beta")}))  # on the remote
    refused = (
        "push refused by context-doctor: 1 defect in beta (context-doctor check projects/beta)"
    )
    on_branch = pre_push(root, "")  # main == origin/main: a push of it changes nothing
    assert on_branch.exit_code == 0, on_branch.stdout + on_branch.stderr
    assert "to its upstream origin/main" in on_branch.stderr
    assert on_branch.stdout == "context-doctor: the push changes no project's context\n"
    for setup in (
        ("checkout", "-q", "--detach"),  # what actions/checkout leaves
        ("switch", "-q", "-c", "topic"),  # a branch never pushed
    ):
        git(root, *setup)
        run = pre_push(root, "")
        assert run.exit_code == 1, (setup, run.stdout, run.stderr)
        assert "has no upstream: judging every project in HEAD" in run.stderr
        assert run.stdout.splitlines()[-1] == refused
        git(root, "checkout", "-q", "main")
    git(root, "update-ref", "-d", "refs/remotes/origin/main")  # configured, never fetched here
    unfetched = pre_push(root, "")
    assert unfetched.exit_code == 1, unfetched.stdout + unfetched.stderr
    assert unfetched.stdout.splitlines()[-1] == refused


def test_no_hook_input_judges_what_a_push_to_the_upstream_would_change(
    make_repo: MakeRepo,
) -> None:
    """With an upstream, the manual run is the push of HEAD to it: the refs git would give
    the hook, judged alike (beta's defect is on the remote already: report-only)."""
    root = make_repo(corpus({"projects/beta/CONTEXT.md": over_budget("Beta")}))
    upstream = git(root, "rev-parse", "origin/main").stdout.strip()
    head = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "alpha: a note")
    manual = pre_push(root, "")
    hook = pre_push(root, f"refs/heads/main {head} refs/heads/main {upstream}\n")
    assert manual.exit_code == hook.exit_code == 0, manual.stdout + manual.stderr
    assert manual.stdout == hook.stdout
    assert without_warnings(manual.stdout.splitlines()) == [
        "context-doctor: push ok: alpha audited, 0 defects; 1 defect in projects this push does not "
        "change (report-only: `context-doctor check`)"
    ]


def test_no_hook_input_without_a_remote_judges_every_project(make_repo: MakeRepo) -> None:
    built = corpus({"projects/alpha/CONTEXT.md": over_budget("Alpha")})
    built.pop("remote")
    root = make_repo(built)
    run = pre_push(root, "")
    assert run.exit_code == 1
    assert run.stdout.splitlines()[-1].endswith(
        "1 defect in alpha (context-doctor check projects/alpha)"
    )


def test_no_hook_input_before_the_first_commit_is_nothing_to_audit(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "CONTEXT.md").write_text(context("Fresh"))
    run = pre_push(root, "")
    assert (run.exit_code, run.stdout) == (
        0,
        "context-doctor: HEAD has no commit yet; nothing to audit\n",
    )


@pytest.mark.parametrize(
    "line",
    [
        "refs/heads/main\n",
        "refs/heads/main nothex refs/heads/main nothex\n",
        "a b c d e\n",
    ],
)
def test_malformed_hook_input_is_exit_2_with_one_line(make_repo: MakeRepo, line: str) -> None:
    run = pre_push(make_repo(corpus()), line)
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1
    assert "pre-push input line 1 is not" in run.stderr
    assert "Traceback" not in run.stderr


def test_pre_commit_refs_from_the_environment(make_repo: MakeRepo) -> None:
    root = make_repo(corpus())
    old = remote_ref(root)
    head = commit(root, {"projects/beta/CONTEXT.md": over_budget("Beta")}, "beta over budget")
    env = {"PRE_COMMIT_TO_REF": head, "PRE_COMMIT_FROM_REF": old}
    run = pre_push(root, "", env)
    assert run.exit_code == 1
    assert "1 defect in beta" in run.stdout


def test_only_the_pushed_commit_is_judged(make_repo: MakeRepo) -> None:
    root = make_repo(corpus())
    old = remote_ref(root)
    first = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "first")
    commit(root, {"projects/alpha/CONTEXT.md": over_budget("Alpha")}, "second, not pushed")
    run = pre_push(root, f"refs/heads/main {first} refs/heads/main {old}\n")
    assert run.exit_code == 0, run.stdout + run.stderr
    assert without_warnings(run.stdout.splitlines()) == [
        "context-doctor: push ok: alpha audited, 0 defects"
    ]


def test_pre_push_refuses_machine_formats(make_repo: MakeRepo) -> None:
    result = CliRunner().invoke(
        cli, ["check", "--source", str(make_repo(corpus())), "--pre-push", "--json"], input=""
    )
    assert result.exit_code == 2
    assert "--pre-push prints its own verdict" in result.output


def test_pre_push_reads_the_pushed_shas_from_git_hook_input(make_repo: MakeRepo) -> None:
    root = make_repo(corpus())
    old = remote_ref(root)
    head = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "add a note")
    run = pre_push(root, f"refs/heads/main {head} refs/heads/main {old}\n")
    assert run.exit_code == 0
    assert without_warnings(run.stdout.splitlines()) == [
        "context-doctor: push ok: alpha audited, 0 defects"
    ]
    # A deletion (all-zero local sha) sends nothing to audit.
    gone = pre_push(root, f"(delete) {'0' * 40} refs/heads/gone {old}\n")
    assert gone.exit_code == 0
    assert gone.stdout == "context-doctor: the push deletes refs only; nothing to audit\n"


def test_a_branch_without_a_knowledge_base_is_not_audited(installed: Any) -> None:
    # A site or docs branch of the knowledge repository: nothing there for the hook to judge.
    root = installed()
    git(root, "checkout", "-q", "--orphan", "site")
    git(root, "rm", "-rq", "--cached", ".")
    for path in sorted(root.joinpath("projects").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    root.joinpath("projects").rmdir()
    head = commit(root, {"index.html": "<h1>Site</h1>\n"}, "the site")
    code, lines = push(root, "site")
    assert code == 0, lines
    assert lines == [
        "context-doctor: refs/heads/site holds no knowledge base where the hook looks; "
        "nothing to audit"
    ]
    assert remote_ref(root, "refs/heads/site") == head


def test_a_working_directory_outside_any_repository_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = f"refs/heads/main {'1' * 40} refs/heads/main {'0' * 40}\n"
    result = CliRunner().invoke(cli, ["check", "--pre-push"], input=line)
    assert result.exit_code == 2
    assert "not inside a git repository" in result.stderr
    assert result.stderr.count("\n") == 1


def test_warnings_as_defects_and_exit_zero(make_repo: MakeRepo) -> None:
    root = make_repo(corpus())
    old = remote_ref(root)
    bare = "# Alpha\n\n**Status:** Active\n**Last session:** 2026-06-01\n"  # no template parts
    head = commit(root, {"projects/alpha/CONTEXT.md": bare}, "alpha: a bare context")
    line = f"refs/heads/main {head} refs/heads/main {old}\n"
    plain = pre_push(root, line)
    assert plain.exit_code == 0, plain.stdout
    assert plain.stdout.startswith("context-doctor: push ok: alpha audited, 0 defects, ")
    assert re.search(r" [1-9][0-9]* warnings?", plain.stdout), plain.stdout
    strict = pre_push(root, line, None, "--warnings-as-defects")
    assert strict.exit_code == 1
    assert "  warn  [context-template]" in strict.stdout
    assert strict.stdout.splitlines()[-1].startswith("push refused by context-doctor: ")
    report_only = pre_push(root, line, None, "--warnings-as-defects", "--exit-zero")
    assert report_only.exit_code == 0


# -- round three: plumbing runs no hook --------------------------------------------


def test_the_pushed_tree_checkout_runs_none_of_the_users_hooks(
    make_repo: MakeRepo, hermetic_session: Path, tmp_path: Path
) -> None:
    root = make_repo(corpus())
    old = remote_ref(root)
    head = commit(root, {"projects/alpha/notes.md": "A note.\n"}, "add a note")
    # The user's global hooks directory (and the repository's own) hold hooks that plumbing
    # would run: update-ref runs reference-transaction, read-tree -u post-index-change.
    ran = tmp_path / "hooks-ran"
    hooks = tmp_path / "global-hooks"
    for directory in (hooks, root / ".git" / "hooks"):
        directory.mkdir(exist_ok=True)
        for name in ("reference-transaction", "post-index-change", "post-checkout"):
            hook = directory / name
            hook.write_text(f'#!/bin/sh\necho "{name} $*" >> "{ran}"\n')
            hook.chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(f"{hermetic_session.read_text()}[core]\n\thooksPath = {hooks}\n")
    run = pre_push(
        root, f"refs/heads/main {head} refs/heads/main {old}\n", {"GIT_CONFIG_GLOBAL": str(config)}
    )
    assert run.exit_code == 0, run.stdout + run.stderr
    assert not ran.exists(), ran.read_text()


# -- a single-project layout: the project's id does not depend on the checkout (docs/layouts.md) --

BEHIND = (
    "# Comics — status\n\nLast updated: 2026-06-01\n\n## Session Log\n\n"
    "### 2026-06-10\nShipped the feed.\n\n### 2026-06-01\nStarted.\n"
)


def test_a_baseline_written_in_another_clone_holds_in_the_hook(
    make_repo: MakeRepo, doctor: Doctor, tmp_path: Path
) -> None:
    root = make_repo(
        {
            "remote": True,
            "commits": [
                {
                    "date": WHEN,
                    "message": "status",
                    "files": {"docs/STATUS.md": BEHIND, "a.py": "1\n"},
                }
            ],
        }
    )
    project = remote_path(root).name.removesuffix(".git")
    clone = tmp_path / "a-clone-named-otherwise"
    git(tmp_path, "clone", "-q", str(remote_path(root)), str(clone))
    written = doctor("check", str(clone), "--write-baseline", "--today", "2026-06-12")
    assert written.exit_code == 0, written.stderr
    commit(
        clone, {"context-doctor.toml": 'baseline = "context-doctor-baseline.json"\n'}, "baseline"
    )
    git(clone, "push", "-q", "origin", "main")
    git(root, "pull", "-q", "origin", "main")
    installed = doctor("hook", "install", "--repo", str(root))
    assert installed.exit_code == 0, installed.stderr
    head = commit(root, {"a.py": "2\n"}, "code")
    code, lines = push(root)
    assert code == 0, lines
    assert without_warnings(lines) == [f"context-doctor: push ok: {project} audited, 0 defects"]
    assert remote_ref(root) == head


def test_a_refused_push_wraps_its_findings_on_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As `check` does (#39): at the terminal's width, between words, never inside a span."""
    from context_doctor.commands.pre_push import _echo

    remedy = "    → Move the header, then run `context-doctor log add projects/alpha --set-header`."
    _echo(remedy, 50, "      ")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(line.startswith("      ") for line in lines[1:])
    assert " ".join(" ".join(lines).replace(" \\", " ").split()) == " ".join(remedy.split())
    _echo(remedy, None, "      ")
    assert capsys.readouterr().out == remedy + "\n"  # into a pipe: one line
