"""reference-missing on real repositories: the shapes people write, the history behind each
finding, the exact fix of a rename, and every rule that keeps a non-reference quiet."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, audit, line_of, short_sha_of

TODAY = "2026-06-20"
CHECK = "reference-missing"

HANDOFF = """\
# Hand-off

**Status:** active
**Last updated:** 2026-06-12

## Where things stand

Releases go out with `scripts/deploy.sh` (see [the runbook](docs/runbook.md)).
Run it as `bash scripts/deploy.sh --prod`.

## Session log

### 2026-06-01
- wrote `scripts/old-notes.py` (since removed)
"""


def commit(
    date: str, message: str, files: dict[str, Any], delete: list[str] = ()
) -> dict[str, Any]:  # type: ignore[assignment]
    return {"date": date, "message": message, "files": files, "delete": list(delete)}


@pytest.fixture
def handoff(make_repo: MakeRepo) -> Path:
    """A hand-off note citing a script a later commit renamed (an exact rename)."""
    script = "#!/bin/sh\necho deploy\n"
    return make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        "HANDOFF.md": HANDOFF,
                        "scripts/deploy.sh": script,
                        "scripts/old-notes.py": "pass\n",
                        "docs/runbook.md": "# Runbook\n",
                    },
                ),
                commit(
                    "2026-06-10T10:00:00+00:00",
                    "rename the deploy script",
                    {"scripts/release.sh": script},
                    ["scripts/deploy.sh", "scripts/old-notes.py"],
                ),
            ]
        }
    )


def check(doctor: Doctor, root: Path, *args: str) -> Run:
    return audit(doctor, str(root), "--select", CHECK, *args, today=TODAY)


def test_a_renamed_script_in_a_hand_off_note_names_its_commit(
    doctor: Doctor, handoff: Path
) -> None:
    run = check(doctor, handoff)
    sha = short_sha_of(handoff, "rename the deploy script")
    (finding,) = run.findings(CHECK)
    assert finding["path"] == "HANDOFF.md"
    assert finding["line"] == line_of(handoff, "HANDOFF.md", "Releases go out")
    assert finding["severity"] == "warning"
    assert finding["message"] == (
        f"`scripts/deploy.sh` was renamed to scripts/release.sh in {sha} on 2026-06-10 "
        f"(also on line {line_of(handoff, 'HANDOFF.md', 'bash scripts/deploy.sh')})"
    )
    assert "check --fix" in finding["remedy"]
    assert finding["fix"]["applicability"] == "safe"
    # The log entry dated before the record's own date is history: never judged.
    assert not any("old-notes" in f["message"] for f in run.findings())


def test_the_rename_is_shown_by_diff_and_written_by_fix(doctor: Doctor, handoff: Path) -> None:
    before = (handoff / "HANDOFF.md").read_bytes()
    shown = doctor("check", str(handoff), "--select", CHECK, "--today", TODAY, "--diff")
    assert shown.exit_code == 1, shown.stdout + shown.stderr
    assert "-Releases go out with `scripts/deploy.sh`" in shown.stdout
    assert "+Releases go out with `scripts/release.sh`" in shown.stdout
    assert "+Run it as `bash scripts/release.sh --prod`." in shown.stdout
    assert (handoff / "HANDOFF.md").read_bytes() == before  # --diff writes nothing
    fixed = doctor("check", str(handoff), "--select", CHECK, "--today", TODAY, "--fix")
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    after = (handoff / "HANDOFF.md").read_text(encoding="utf-8")
    assert after == before.decode().replace("scripts/deploy.sh", "scripts/release.sh")
    assert check(doctor, handoff).findings(CHECK) == []


@pytest.fixture
def seed(make_repo: MakeRepo) -> Path:
    """A seed project whose REFERENCE.md links an ADR a later commit deleted, and a folder
    moved whole; a terminal project citing the same deleted file."""
    index = (
        "projects:\n  - id: atlas\n    status: active\n    last_session: 2026-06-18\n"
        "  - id: done\n    status: completed\n    completed_date: 2026-06-18\n"
        "    last_session: 2026-06-18\n"
    )
    context = (
        "# {name}\n\n**Status:** {status}\n**Last session:** 2026-06-18\n\n"
        "## Current State\n\nSee [the reference](REFERENCE.md) and `notes/plan.md`.\n"
    )
    reference = (
        "# Reference\n\n- [Storage decision](docs/adr/0004-storage.md)\n- Tools live in `tools/`\n"
    )
    return make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        "projects/index.yaml": index,
                        "projects/atlas/CONTEXT.md": context.format(name="Atlas", status="active"),
                        "projects/atlas/REFERENCE.md": reference,
                        "projects/atlas/docs/adr/0004-storage.md": "# ADR 4\n",
                        "projects/atlas/tools/a.py": "a = 1\n",
                        "projects/atlas/tools/b.py": "b = 1\n",
                        "projects/atlas/notes/plan.md": "# Plan\n",
                        "projects/done/CONTEXT.md": context.format(name="Done", status="completed"),
                        "projects/done/REFERENCE.md": reference,
                    },
                ),
                commit(
                    "2026-06-10T10:00:00+00:00",
                    "drop the storage decision, move the tools",
                    {
                        "projects/atlas/bin/a.py": "a = 1\n",
                        "projects/atlas/bin/b.py": "b = 1\n",
                    },
                    [
                        "projects/atlas/docs/adr/0004-storage.md",
                        "projects/atlas/tools/a.py",
                        "projects/atlas/tools/b.py",
                    ],
                ),
            ]
        }
    )


def test_a_deleted_adr_linked_from_reference_md_is_a_defect(doctor: Doctor, seed: Path) -> None:
    run = check(doctor, seed)
    sha = short_sha_of(seed, "drop the storage decision, move the tools")
    found = {f["message"]: f for f in run.findings(CHECK, "atlas")}
    deleted = found[
        f"`docs/adr/0004-storage.md` (projects/atlas/docs/adr/0004-storage.md) was deleted in "
        f"{sha} on 2026-06-10 (no file of that commit took its contents)"
    ]
    assert deleted["severity"] == "defect" and deleted["fix"] is None
    assert f"git show {sha}^:projects/atlas/docs/adr/0004-storage.md" in deleted["remedy"]
    moved = found[
        f"`tools/` (projects/atlas/tools) was renamed to projects/atlas/bin in {sha} on 2026-06-10"
    ]
    assert moved["fix"]["edits"][0]["new"] == "bin/"
    assert len(found) == 2
    # The completed project's records are history: skipped, and said so in coverage.
    assert run.findings(CHECK, "done") == []
    assert run.json["coverage"][CHECK]["reasons"] == {"terminal": 1}


@pytest.fixture
def monorepo(make_repo: MakeRepo) -> Path:
    """Instruction files alone, in the shapes the precision rules keep quiet."""
    agents = """\
# Agents

- Build with `pnpm --filter web run lint` and `npm run build`.
- Client code is in `client/x.py`; shared helpers in `src/tools/`.
- Never commit `notes/` or `docs/BACKLOG.md`; `.env` holds the keys.
- Examples: `src/<name>.ts`, `docs/{provider}.md`, `sessions/YYYY-MM.md`, `packages/*`.
- Not files: `@scope/pkg`, `application/json`, `origin/main`, `/api/users`, `Next.js`.
- Skills: `.claude/skills/review/SKILL.md`.
- Home: `~/.tool/settings.json`, `.tool/settings.json` (project).

```bash
cd pkg/infra
just build-x
uv run pytest tests/
```

```python
from .helpers import thing  # relative to an imagined file
```

Make sure the tests pass before you push.
"""
    return make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        "AGENTS.md": agents,
                        "package.json": '{"scripts": {"build": "tsc"}}\n',
                        "web/package.json": '{"scripts": {"lint": "eslint ."}}\n',
                        "pkg/src/client/x.py": "x = 1\n",
                        "pkg/src/mod/AGENTS.md": "# Mod\n\nUse `client/x.py`.\n",
                        "src/pkg/tools/t.py": "t = 1\n",
                        "pkg/infra/justfile": "build-x:\n    echo build\n",
                        ".gitignore": "notes/\ndocs/BACKLOG.md\n.env\n",
                        ".agents/skills/review/SKILL.md": "# Review\n",
                        "client/x.py": "x = 1\n",
                    },
                )
            ]
        }
    )


def test_the_shapes_that_are_not_references_stay_quiet(doctor: Doctor, monorepo: Path) -> None:
    (monorepo / ".claude").mkdir()
    os.symlink("../.agents/skills", monorepo / ".claude" / "skills")
    run = check(doctor, monorepo)
    assert run.findings(CHECK) == []
    assert run.json["coverage"][CHECK]["examined"] == 2  # the two AGENTS.md


def test_a_recipe_a_justfile_lost_and_a_script_no_package_json_has(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        "AGENTS.md": "# A\n\nRun `just docs`, `npm run e2e`, `make lint`.\n",
                        "justfile": "build:\n    echo b\n",
                        "Makefile": "lint:\n\techo l\n",
                        "package.json": '{"scripts": {"test": "vitest"}}\n',
                    },
                )
            ]
        }
    )
    run = check(doctor, root)
    assert sorted(f["message"] for f in run.findings(CHECK)) == [
        "`just docs` names no target of justfile",
        "`npm run e2e` names no script of package.json",
    ]


def test_a_link_that_never_existed_says_so(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        ".cursor/rules/tests.mdc": "---\nalwaysApply: true\n---\n"
                        "See [unit tests](mdc:.cursor/rules/unit-test.mdc) and [x](../../docs/x.md).\n",
                        ".cursor/rules/unit-test-best-practices.mdc": "# Unit tests\n",
                        "docs/x.md": "# X\n",
                    },
                )
            ]
        }
    )
    run = check(doctor, root)
    (finding,) = run.findings(CHECK)
    assert finding["path"] == ".cursor/rules/tests.mdc" and finding["line"] == 4
    assert finding["message"] == (
        "`.cursor/rules/unit-test.mdc` does not exist, and no commit of this history ever held it"
    )
    assert finding["severity"] == "warning"


def test_a_bare_file_name_whose_file_was_deleted(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {
                        "CLAUDE.md": "# C\n\nAuth is checked in `ensureAuth.ts`; see `util.ts`.\n",
                        "src/auth/ensureAuth.ts": "export {}\n",
                        "src/util.ts": "export {}\n",
                    },
                ),
                commit(
                    "2026-06-05T10:00:00+00:00",
                    "drop the auth check",
                    {},
                    ["src/auth/ensureAuth.ts"],
                ),
            ]
        }
    )
    (finding,) = check(doctor, root).findings(CHECK)
    sha = short_sha_of(root, "drop the auth check")
    assert finding["message"] == (
        f"`ensureAuth.ts` names no file of the tree any more: src/auth/ensureAuth.ts was "
        f"deleted in {sha} on 2026-06-05"
    )


def test_what_a_record_says_was_done_is_history(doctor: Doctor, make_repo: MakeRepo) -> None:
    status = (
        "# Status\n\n**Last updated:** 2026-06-12\n\n## Current state\n\n"
        "- [x] Tagged runs in `scripts/train_old.py`\n"
        "- [ ] Port `scripts/train_old.py` to the new harness\n\n"
        "## Files touched this session\n\n- `scripts/train_old.py`\n"
    )
    root = make_repo(
        {
            "commits": [
                commit(
                    "2026-06-01T10:00:00+00:00",
                    "start",
                    {"STATUS.md": status, "scripts/train_old.py": "pass\n"},
                ),
                commit(
                    "2026-06-10T10:00:00+00:00",
                    "drop the old trainer",
                    {},
                    ["scripts/train_old.py"],
                ),
            ]
        }
    )
    (finding,) = check(doctor, root).findings(CHECK)
    assert finding["line"] == line_of(root, "STATUS.md", "- [ ] Port")


def test_an_instruction_file_no_agent_can_read_says_so(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = make_repo(
        {"commits": [commit("2026-06-01T10:00:00+00:00", "start", {"AGENTS.md": "# A\n"})]}
    )
    (root / "pkg").mkdir()
    os.mkfifo(root / "pkg" / "AGENTS.md")
    os.symlink("missing.md", root / "CLAUDE.md")
    (root / "big").mkdir()
    (root / "big" / "GEMINI.md").write_bytes(b"\x00binary")
    messages = sorted(f["message"] for f in check(doctor, root).findings(CHECK))
    assert messages == [
        "CLAUDE.md is a broken or looping symlink: no agent reads it, and its references "
        "cannot be verified",
        "big/GEMINI.md is binary (contains NUL bytes), not UTF-8 text: no agent reads it, and "
        "its references cannot be verified",
        "pkg/AGENTS.md cannot be read (is a FIFO, not a regular file): no agent reads it, and its "
        "references cannot be verified",
    ]
