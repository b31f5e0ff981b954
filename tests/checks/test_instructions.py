"""instructions-load-budget, instructions-import and instructions-budget on real repositories:
what Codex and Claude Code actually load (docs/references.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Run
from support import Doctor, MakeRepo, audit, short_sha_of

TODAY = "2026-06-20"
BUDGET = "instructions-load-budget"
IMPORT = "instructions-import"


def sized(name: str, size: int, unit: str = "x") -> str:
    """An instruction file of exactly ``size`` bytes (``unit`` may be multi-byte)."""
    head = f"# {name}\n"
    body_bytes = size - len(head.encode()) - 1
    width = len(unit.encode())
    text = head + unit * (body_bytes // width)
    text += "y" * (body_bytes - len((unit * (body_bytes // width)).encode()))
    return text + "\n"


def one_commit(files: dict[str, Any], date: str = "2026-06-01T10:00:00+00:00") -> dict[str, Any]:
    return {"commits": [{"date": date, "message": "start", "files": files}]}


def run(doctor: Doctor, root: Path, *checks: str) -> Run:
    return audit(doctor, str(root), "--select", ",".join(checks), today=TODAY)


@pytest.fixture
def monorepo(make_repo: MakeRepo) -> Path:
    """Nested AGENTS.md chains: billing over the budget, ledger 122 bytes under it, an
    override beside an AGENTS.md, a whitespace-only file, multi-byte text."""
    root = make_repo(
        one_commit(
            {
                "AGENTS.md": sized("top", 8_000),
                "services/AGENTS.md": sized("services", 11_000),
                "services/billing/AGENTS.md": sized("billing", 14_000),
                "services/billing/api/AGENTS.md": sized("api", 500),
                "services/ledger/AGENTS.md": sized("ledger", 13_646),
                "services/ledger/AGENTS.override.md": sized("ledger override", 13_646, "é"),
                "services/ledger/big/AGENTS.md": " \n\t\n",
                "tools/AGENTS.md": sized("tools", 1_000),
            }
        )
    )
    return root


def test_a_nested_chain_over_32_kib_names_the_folder_total_and_cut(
    doctor: Doctor, monorepo: Path
) -> None:
    found = run(doctor, monorepo, BUDGET)
    (finding,) = found.findings(BUDGET)
    assert finding["path"] == "services/billing/AGENTS.md"
    assert finding["message"] == (
        "Codex loads 33,000 bytes of instructions in services/billing (AGENTS.md 8,000 + "
        "services/AGENTS.md 11,000 + services/billing/AGENTS.md 14,000), over its 32,768: "
        "services/billing/AGENTS.md is cut after 13,768 of its 14,000 bytes; the chains of 1 "
        "folder below (services/billing/api) lose their own files with it"
    )
    assert finding["line"] == 2  # the file's one long line holds the cut
    # ledger: the override counts, not AGENTS.md; multi-byte text costs its bytes; the
    # whitespace-only file below costs nothing: 8,000 + 11,000 + 13,646 = 32,646, under.
    assert found.json["coverage"][BUDGET]["examined"] == 7


def test_a_single_root_file_over_the_budget_is_one_finding(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = make_repo(
        one_commit({"AGENTS.md": sized("top", 34_566), "pkg/AGENTS.md": sized("pkg", 200)})
    )
    (finding,) = run(doctor, root, BUDGET).findings(BUDGET)
    assert finding["path"] == "AGENTS.md"
    assert "in the repository's top (AGENTS.md 34,566)" in finding["message"]
    assert "AGENTS.md is cut after 32,768 of its 34,566 bytes" in finding["message"]
    assert "(pkg)" in finding["message"]


def test_a_symlinked_root_file_costs_its_targets_bytes(doctor: Doctor, make_repo: MakeRepo) -> None:
    root = make_repo(
        one_commit(
            {".agents/AGENTS.md": sized("shared", 20_000), "web/AGENTS.md": sized("web", 13_000)}
        )
    )
    os.symlink(".agents/AGENTS.md", root / "AGENTS.md")
    (finding,) = run(doctor, root, BUDGET).findings(BUDGET)
    assert finding["path"] == "web/AGENTS.md"
    assert "AGENTS.md 20,000 + web/AGENTS.md 13,000" in finding["message"]


def test_the_budget_is_a_setting(doctor: Doctor, make_repo: MakeRepo) -> None:
    files = {"AGENTS.md": sized("top", 5_000), "context-doctor.toml": ""}
    off = make_repo(
        one_commit({**files, "context-doctor.toml": "[instructions]\ncodex_max_bytes = 0\n"})
    )
    assert run(doctor, off, BUDGET).json["coverage"][BUDGET]["reasons"] == {"no budget": 1}
    low = make_repo(
        one_commit(
            {
                **files,
                "context-doctor.toml": '[instructions]\ncodex_max_bytes = 4096\nfallback_names = ["TEAM.md"]\n',
                "pkg/TEAM.md": sized("team", 100),
            }
        )
    )
    (finding,) = run(doctor, low, BUDGET).findings(BUDGET)
    assert "over its 4,096: AGENTS.md is cut after 4,096 of its 5,000 bytes" in finding["message"]
    assert "(pkg)" in finding["message"]  # the fallback name is part of pkg's chain


@pytest.fixture
def imports(make_repo: MakeRepo) -> Path:
    """CLAUDE.md's imports: a cycle, a chain six hops deep (five load), a missing file, one
    renamed since, the home directory, and imports in code (inert)."""
    files = {
        "CLAUDE.md": (
            "# Claude\n\n@AGENTS.md\n@docs/h1.md\n@docs/missing.md\n@docs/old-name.md\n"
            "@~/.claude/personal.md\n\nNot imports: `@docs/span.md`, @scope/pkg, @someone.\n"
            "```markdown\n@docs/fenced.md\n```\n"
        ),
        "AGENTS.md": "# Agents\n\n@CLAUDE.md\n",
        "docs/h1.md": "@h2.md\n",
        "docs/h2.md": "@h3.md\n",
        "docs/h3.md": "@h4.md\n",
        "docs/h4.md": "@h5.md\n",
        "docs/h5.md": "@h6.md\n",
        "docs/h6.md": "# deepest\n",
        "docs/old-name.md": "# Rules\n",
    }
    root = make_repo(
        {
            "commits": [
                {"date": "2026-06-01T10:00:00+00:00", "message": "start", "files": files},
                {
                    "date": "2026-06-05T10:00:00+00:00",
                    "message": "rename the rules",
                    "files": {"docs/rules.md": "# Rules\n"},
                    "delete": ["docs/old-name.md"],
                },
            ]
        }
    )
    return root


def test_cycles_sixth_hops_and_missing_imports_each_name_their_chain(
    doctor: Doctor, imports: Path
) -> None:
    found = run(doctor, imports, IMPORT, "reference-missing")
    sha = short_sha_of(imports, "rename the rules")
    messages = {(f["path"], f["line"]): f["message"] for f in found.findings(IMPORT)}
    assert messages == {
        ("AGENTS.md", 3): "`@CLAUDE.md` leads back into its own chain (CLAUDE.md → AGENTS.md → "
        "CLAUDE.md): Claude Code does not load it again",
        ("CLAUDE.md", 5): "`@docs/missing.md` does not exist, and no commit of this history ever "
        "held it: Claude Code loads nothing for it (CLAUDE.md → docs/missing.md)",
        ("CLAUDE.md", 6): f"`@docs/old-name.md` was renamed to docs/rules.md in {sha} on "
        "2026-06-05: Claude Code loads nothing for it (CLAUDE.md → docs/old-name.md)",
        ("docs/h5.md", 1): "`@h6.md` is hop 6 (CLAUDE.md → docs/h1.md → docs/h2.md → docs/h3.md → "
        "docs/h4.md → docs/h5.md → docs/h6.md): Claude Code follows 5, so docs/h6.md is never "
        "loaded this way",
    }
    # Said once: the imports are instructions-import's, never reference-missing's too.
    assert found.findings("reference-missing") == []


def test_a_renamed_import_is_fixed(doctor: Doctor, imports: Path) -> None:
    fixed = doctor("check", str(imports), "--select", IMPORT, "--today", TODAY, "--fix")
    assert fixed.exit_code == 0, fixed.stdout
    assert "@docs/rules.md\n" in (imports / "CLAUDE.md").read_text(encoding="utf-8")


def test_declared_budgets_and_none_by_default(doctor: Doctor, make_repo: MakeRepo) -> None:
    check = "instructions-budget"
    plain = make_repo(one_commit({"CLAUDE.md": "# C\n" * 50}))
    assert run(doctor, plain, check).json["not_applicable"][check]["reason"] == (
        "no budgets declared"
    )
    declared = make_repo(
        one_commit(
            {
                "CLAUDE.md": "# C\n" * 50,
                ".claude/rules/style.md": "x" * 5000 + "\n",
                "context-doctor.toml": '[instructions]\nbudgets = { "CLAUDE.md" = { lines = 40 }, '
                '".claude/rules/*.md" = { bytes = 4096 } }\n',
            }
        )
    )
    messages = sorted(f["message"] for f in run(doctor, declared, check).findings(check))
    assert messages == [
        ".claude/rules/style.md holds 5,001 bytes (budget 4,096), set by `.claude/rules/*.md` in "
        "[instructions] budgets",
        "CLAUDE.md holds 50 lines (budget 40), set by `CLAUDE.md` in [instructions] budgets",
    ]


def test_archived_copies_of_instructions_are_not_instruction_files(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = make_repo(
        one_commit(
            {
                "CLAUDE.md": "# C\n",
                "context/archive/v1/CLAUDE.md": "# Old\n\nSee [plan](../../PLAN.md).\n",
                "context.backup.20251014/CLAUDE.md": "# Older\n\nSee [plan](PLAN.md).\n",
            }
        )
    )
    found = run(doctor, root, "reference-missing")
    assert found.findings("reference-missing") == []
    assert found.json["coverage"]["reference-missing"]["examined"] == 1


def test_layout_lists_the_instruction_files(doctor: Doctor, monorepo: Path) -> None:
    shown = doctor("layout", str(monorepo))
    assert shown.exit_code == 0, shown.stdout + shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "# no working memory here: only the instruction files are audited"
    assert lines[1] == "# instruction files (8, docs/references.md): path, agent"
    assert "#   services/ledger/AGENTS.override.md  codex" in lines


def test_layout_counts_the_references_that_leave_the_repository(
    doctor: Doctor, make_repo: MakeRepo
) -> None:
    root = make_repo(
        one_commit({"CLAUDE.md": "# C\n\n@~/.claude/mine.md\nLogs go to `/var/log/app.log`.\n"})
    )
    shown = doctor("layout", str(root))
    assert shown.stdout.splitlines()[-1] == (
        "# 2 references to files outside the repository (`~/`, absolute paths): counted, not judged"
    )
