"""A declared layout names what is there (docs/layouts.md): a scan of nothing is never clean.

`context = "docs/STATUS.md"` where only `docs/STATUS.MD` exists audited one project with no
record and said HEALTHY; `context = "*/STATUS.md"` took the `*` at the top for a single
project and audited one empty one, while `svc/*/STATUS.md` over the same records found two
stale ones. Each is a real repository, built as its owner would commit it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import Doctor, MakeRepo, git

TODAY = "2026-06-30"
STALE = "# Status\n\nLast updated: 2026-03-02\nStatus: active\n\n## Next\n\n- ship it\n"


def toml(context: str) -> str:
    return f'[layout]\ncontext = "{context}"\n'


def commit(day: str, message: str, files: dict[str, str]) -> dict[str, Any]:
    return {"date": f"{day}T10:00:00+00:00", "message": message, "files": files}


def two_services(folder: str, context: str) -> dict[str, Any]:
    """Two services under ``folder`` (``""``: the top), each with a record last updated in
    March and code committed in June: two stale records."""
    prefix = f"{folder}/" if folder else ""
    return {
        "remote": True,
        "commits": [
            commit(
                "2026-03-02",
                "records",
                {
                    "context-doctor.toml": toml(context),
                    f"{prefix}api/STATUS.md": STALE,
                    f"{prefix}web/STATUS.md": STALE,
                },
            ),
            commit(
                "2026-06-20",
                "work",
                {f"{prefix}api/main.py": "print(1)\n", f"{prefix}web/app.ts": "x()\n"},
            ),
        ],
    }


def run(doctor: Doctor, root: Path, *args: str) -> Any:
    return doctor("check", str(root), "--today", TODAY, "--no-cache", *args)


def test_a_declared_record_in_another_case_is_exit_2_naming_it(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    root = make_repo(
        {
            "remote": True,
            "commits": [
                commit(
                    "2026-06-01",
                    "status",
                    {"context-doctor.toml": toml("docs/STATUS.md"), "docs/STATUS.MD": STALE},
                )
            ],
        }
    )
    checked = run(doctor, root)
    assert checked.exit_code == 2, checked.stdout
    said = checked.stderr
    assert "`layout.context` = 'docs/STATUS.md' matches nothing" in said
    assert "docs/STATUS.MD is there (in another case" in said
    assert 'context = "docs/STATUS.MD"' in said  # the remedy declares what is there
    assert "HEALTHY" not in checked.stdout
    # Every reader of the layout refuses alike: `log add` writes no log beside a record
    # that is not there, and `layout` says what `check` says.
    logged = doctor("log", "add", str(root), "--date", "2026-06-02", "--title", "work")
    assert logged.exit_code == 2 and "docs/STATUS.MD is there" in logged.stderr
    assert git(root, "status", "--porcelain") == ""
    shown = doctor("layout", str(root))
    assert shown.exit_code == 2 and "docs/STATUS.MD is there" in shown.stderr


def test_a_glob_at_the_top_is_one_project_per_folder(make_repo: MakeRepo, doctor: Doctor) -> None:
    top = run(doctor, make_repo(two_services("", "*/STATUS.md")), "--json")
    nested = run(doctor, make_repo(two_services("svc", "svc/*/STATUS.md")), "--json")
    assert top.exit_code == nested.exit_code == 1, top.stdout + top.stderr
    assert top.json["projects_audited"] == nested.json["projects_audited"] == 2

    def stale(report: Any) -> list[tuple[str, str]]:
        return sorted(
            (finding["project"], finding["check"])
            for finding in report.json["findings"]
            if finding["check"] != "unpushed-context"
        )

    assert stale(top) == stale(nested)
    assert {project for project, _ in stale(top)} == {"api", "web"}


@pytest.mark.parametrize(
    ("context", "near"),
    [("svc/*/status.md", 'context = "svc/*/STATUS.md"'), ("svc/*/NOTES.md", None)],
)
def test_a_glob_that_matches_no_folder_is_exit_2(
    make_repo: MakeRepo, doctor: Doctor, context: str, near: str | None
) -> None:
    checked = run(doctor, make_repo(two_services("svc", context)))
    assert checked.exit_code == 2, checked.stdout
    assert f"`layout.context` = '{context}' matches nothing" in checked.stderr
    assert "no folder holds it" in checked.stderr
    if near is not None:
        assert near in checked.stderr
    else:
        assert "NOTES.md in a folder of svc/" in checked.stderr


def test_a_folder_without_the_record_is_never_audited_healthy(
    make_repo: MakeRepo, doctor: Doctor
) -> None:
    scenario = two_services("", "*/STATUS.md")
    scenario["commits"].append(commit("2026-06-21", "notes", {"docs/notes.md": "notes\n"}))
    root = make_repo(scenario)
    for named in (("--project", str(root / "docs")), (str(root / "docs" / "notes.md"),)):
        checked = doctor("check", *named, "--today", TODAY, "--no-cache")
        assert checked.exit_code == 2, checked.stdout
        assert "HEALTHY" not in checked.stdout
