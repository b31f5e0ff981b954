"""Memory vaults in git (docs/vaults.md): audit-log-rewritten and unaudited-change, from one history pass."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import Doctor, MakeRepo, commit_files, git, run_git
from test_memory_vault import vault_audit
from vault_support import LOG, clean_vault_files, entry, log, memory, vault_scenario

from context_doctor.vault import model

CLEAN = clean_vault_files()
ROLLBACK = "memories/all-projects/deployment-rollback-window.md"


def base(make_repo: MakeRepo) -> Path:
    return make_repo(vault_scenario(CLEAN))


def test_an_append_only_history_is_quiet(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = base(make_repo)
    edited = CLEAN[ROLLBACK].replace("Agree on the rollback window", "Agree on the window")
    commit_files(
        root,
        {
            ROLLBACK: edited,
            LOG: CLEAN[LOG] + log(entry("deployment-rollback-window", "update", number=7)),
        },
        "bastra: edit the rollback lesson",
    )
    run = vault_audit(doctor, root)
    assert run.findings("audit-log-rewritten") == []
    assert run.findings("unaudited-change") == []
    assert run.json["coverage"]["audit-log-rewritten"]["examined"] == 2
    assert run.json["coverage"]["unaudited-change"]["examined"] >= 5


def test_a_commit_that_edits_a_logged_line_is_a_rewrite(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = base(make_repo)
    tidied = CLEAN[LOG].replace('"reason": "the user asked to keep this"', '"reason": "tidied"', 1)
    sha = commit_files(root, {LOG: tidied + log(entry("x", "create", number=8))}, "tidy the log")
    run = vault_audit(doctor, root)
    (found,) = run.findings("audit-log-rewritten")
    assert found["path"] == LOG and found["severity"] == "defect"
    assert found["message"].startswith(f'commit {sha[:10]} (2026-06-01, "tidy the log") changed')


def test_deleting_or_shortening_the_log_is_a_rewrite(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = base(make_repo)
    commit_files(root, {LOG: "".join(CLEAN[LOG].splitlines(keepends=True)[:2])}, "shorten")
    (root / LOG).unlink()
    run_git(root, "commit", "-qam", "drop the log", identity=True)
    run = vault_audit(doctor, root)
    problems = sorted(f["message"].split(") ", 1)[1] for f in run.findings("audit-log-rewritten"))
    assert problems[0].startswith("deleted the audit log; it removed or changed the entries")
    assert problems[1].startswith("shortened the audit log")


def test_a_rewrite_names_the_memories_whose_entries_it_lost(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    """One finding per rewriting commit, naming the memories whose entries it removed or
    changed: a history that now starts with a `delete` is named (#42 item 10)."""
    root = base(make_repo)
    lines = CLEAN[LOG].splitlines(keepends=True)  # 1-4 create four memories, 5-6 old-staging
    steps = [
        ("drop a create", [*lines[:4], lines[5]], "memory `old-staging-host`"),
        ("reorder", [lines[1], lines[0], *lines[2:4], lines[5]], "every entry is still there"),
        ("tidy a reason", [lines[1].replace("keep this", "tidy"), lines[0], *lines[2:4],
                           lines[5]], "memory `back-up-before-migration`"),
    ]  # fmt: skip
    shas = [commit_files(root, {LOG: "".join(text)}, subject) for subject, text, _ in steps]
    many = "".join(log(*(entry(f"memory-{n}", "create", number=10 + n) for n in range(8))))
    shas.append(commit_files(root, {LOG: many}, "append eight"))
    shas.append(commit_files(root, {LOG: "".join(many.splitlines(keepends=True)[:1])}, "cut"))
    run = vault_audit(doctor, root)
    found = {f["message"][len("commit ") : len("commit ") + 10]: f["message"] for f in
             run.findings("audit-log-rewritten")}  # fmt: skip
    assert len(found) == len(run.findings("audit-log-rewritten"))  # one finding per rewrite
    for sha, (_subject, _text, named) in zip(shas, steps, strict=False):
        assert named in found[sha[:10]], found[sha[:10]]
    replaced = found[shas[3][:10]]  # the eight appended in place of the five: all five lost
    assert "memories `back-up-before-migration`, `deployment-rollback-window`" in replaced
    assert replaced.endswith("`answer-tersely`, `old-staging-host`")
    cut = found[shas[4][:10]]
    assert cut.startswith(f'commit {shas[4][:10]} (2026-06-01, "cut") shortened the audit log')
    assert cut.endswith(
        "memories `memory-1`, `memory-2`, `memory-3`, `memory-4`, `memory-5` and 2 more"
    )


def test_a_merge_may_take_the_union_of_its_parents_lines(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = base(make_repo)
    main = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    git(root, "checkout", "-q", "-b", "laptop")
    laptop = entry("times-in-utc", "update", number=40, timestamp="2026-03-01T09:00:00.000Z")
    commit_files(root, {LOG: CLEAN[LOG] + log(laptop)}, "laptop appends")
    git(root, "checkout", "-q", main)
    desktop = entry("answer-tersely", "update", number=41, timestamp="2026-03-01T10:00:00.000Z")
    commit_files(root, {LOG: CLEAN[LOG] + log(desktop)}, "desktop appends")
    merged = run_git(root, "merge", "-q", "laptop", "-m", "merge", identity=True, check=False)
    assert merged.returncode != 0  # both appended at the end: a conflict, resolved by union
    (root / LOG).write_text(CLEAN[LOG] + log(desktop, laptop), encoding="utf-8")
    run_git(root, "commit", "-qam", "merge laptop: both lines kept", identity=True)
    run = vault_audit(doctor, root)
    assert run.findings("audit-log-rewritten") == []
    # The same merge keeping only its own side loses the laptop's line: a rewrite.
    git(root, "reset", "-q", "--hard", "HEAD^")
    run_git(root, "merge", "-q", "laptop", "-m", "merge", identity=True, check=False)
    (root / LOG).write_text(CLEAN[LOG] + log(desktop), encoding="utf-8")
    run_git(root, "commit", "-qam", "merge laptop: ours", identity=True)
    run = vault_audit(doctor, root, "--no-cache")
    (found,) = run.findings("audit-log-rewritten")
    assert '"merge laptop: ours"' in found["message"]
    assert found["message"].endswith("it removed or changed the entry of memory `times-in-utc`")


def test_a_memory_changed_without_an_audit_line(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = base(make_repo)
    by_hand = CLEAN[ROLLBACK].replace("before the rollout starts", "before any rollout starts")
    sha = commit_files(root, {ROLLBACK: by_hand}, "fix wording by hand")
    added = commit_files(
        root, {"memories/new-lesson.md": memory("new-lesson")}, "a lesson written in Obsidian"
    )
    run = vault_audit(doctor, root)
    found = {f["project"]: f for f in run.findings("unaudited-change")}
    assert set(found) == {"deployment-rollback-window", "new-lesson"}
    assert found["deployment-rollback-window"]["message"] == (
        f'commit {sha[:10]} (2026-06-01, "fix wording by hand") changed memory '
        "`deployment-rollback-window` with no audit-log line for it"
    )
    assert found["new-lesson"]["path"] == "memories/new-lesson.md"
    assert added[:10] in found["new-lesson"]["message"]


def test_fields_the_daemon_writes_itself_need_no_audit_line(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = base(make_repo)
    daemon = (
        CLEAN[ROLLBACK].replace(
            "related_via: []",
            'related_via:\n  - id: times-in-utc\n    reason: "cosine 0.81"\n    score: 0.81\n'
            "recall_when_expanded:\n  - when we ship\nstale_status: aging",
        )
        + "\n## Auto-Related <!-- bastra:auto-related:start -->\n\n- [[times-in-utc]]\n\n"
        + ("<!-- bastra:auto-related:end -->\n")
    )
    commit_files(root, {ROLLBACK: daemon}, "bastra daemon: related memories")
    run = vault_audit(doctor, root)
    assert run.findings("unaudited-change") == []


def test_history_checks_skip_without_git_or_without_a_committed_log(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    outside = tmp_path / "plain-vault"
    shutil.copytree(base(make_repo), outside, ignore=shutil.ignore_patterns(".git"))
    run = vault_audit(doctor, outside)
    # No git, or no committed log, is the vault's shape, not a gate (docs/checks.md): counted as
    # not applicable, never a coverage line of "examined 0, skipped 1".
    for check in ("audit-log-rewritten", "unaudited-change"):
        assert check not in run.json["coverage"]
        assert run.json["not_applicable"][check] == {"count": 1, "reason": "no git"}
    files = dict(CLEAN)
    files[".gitignore"] = ".bastra/\n"
    ignored = make_repo(vault_scenario(files))
    run = vault_audit(doctor, ignored)
    for check in ("audit-log-rewritten", "unaudited-change"):
        assert check not in run.json["coverage"]
        assert run.json["not_applicable"][check] == {"count": 1, "reason": "log not in git"}


def test_a_vault_in_a_subdirectory_beside_projects(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = {f"vault/{path}": text for path, text in CLEAN.items()}
    files["projects/index.yaml"] = "projects:\n  - id: alpha\n    status: active\n"
    files["projects/alpha/CONTEXT.md"] = "# Alpha\n\n**Status:** active\n"
    root = make_repo(vault_scenario(files))
    by_hand = files[f"vault/{ROLLBACK}"].replace("before the rollout", "before any rollout")
    commit_files(root, {f"vault/{ROLLBACK}": by_hand}, "edit by hand")
    run = doctor("check", "--source", str(root), "--vault", str(root / "vault"),
                 "--today", "2026-06-15", "--json")  # fmt: skip
    assert run.exit_code in (0, 1), run.stderr
    (found,) = run.findings("unaudited-change")
    assert found["path"] == f"vault/{ROLLBACK}"
    assert run.findings("audit-log-rewritten") == []
    assert run.json["coverage"]["audit-log-rewritten"]["examined"] == 1


def test_the_trail_read_at_a_head_is_kept_until_head_moves(
    doctor: Doctor, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = base(make_repo)
    tidied = CLEAN[LOG].replace('"reason": "the user asked to keep this"', '"reason": "tidied"', 1)
    commit_files(root, {LOG: tidied}, "tidy the log")
    cold = vault_audit(doctor, root)
    assert cold.findings("audit-log-rewritten")

    def unread(*args: object) -> None:
        raise AssertionError("the trail was read again at the same HEAD")

    with monkeypatch.context() as patched:
        patched.setattr(model, "read_vault_history", unread)
        warm = vault_audit(doctor, root)
    assert warm.json["findings"] == cold.json["findings"]
    assert warm.json["coverage"] == cold.json["coverage"]
    commit_files(root, {LOG: tidied + log(entry("x", "create", number=8))}, "append")
    moved = vault_audit(doctor, root)
    assert moved.json["coverage"]["audit-log-rewritten"]["examined"] == 3


def test_a_shallow_clone_is_a_gate_shown_in_coverage(
    doctor: Doctor, make_repo: MakeRepo, tmp_path: Path
) -> None:
    """A shallow clone holds the trail and hides it: a gate (docs/checks.md), listed in coverage
    with its reason, unlike no git or an uncommitted log (shapes)."""
    origin = base(make_repo)
    commit_files(origin, {LOG: CLEAN[LOG] + log(entry("x", "create", number=8))}, "append")
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    run = vault_audit(doctor, clone, "--allow-shallow")
    for check in ("audit-log-rewritten", "unaudited-change"):
        assert run.json["coverage"][check]["reasons"] == {"shallow clone": 1}
        assert check not in run.json["not_applicable"]
