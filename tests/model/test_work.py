"""Work in a layout other than the seed's (docs/layouts.md): records, work_ignore and bots apart."""

from __future__ import annotations

from context_doctor.layouts import IN_CONTEXT, SINGLE_FILE, Layout
from context_doctor.model.work import WorkFilter, bots_own_job, ignore_globs

LAYOUT = Layout(
    kind=SINGLE_FILE,
    context="docs/STATUS.md",
    sessions="docs/sessions",
    reference="docs/REFERENCE.md",
    work_ignore=("public/feeds/**", "data/*.csv"),
)


def test_records_are_not_work() -> None:
    work = WorkFilter(LAYOUT, "docs/sessions")
    assert not work.is_work(["docs/STATUS.md", "docs/sessions/2026-07.md", "docs/REFERENCE.md"])
    assert work.is_work(["docs/STATUS.md", "src/app.py"])


def test_work_ignore_sets_generated_data_aside() -> None:
    work = WorkFilter(LAYOUT, "docs/sessions")
    assert not work.is_work(["public/feeds/2026/07/x.json", "data/prices.csv"])
    assert work.set_aside(["public/feeds/x.json"])
    assert work.is_work(["data/raw/prices.csv"])  # `*` stays within one folder
    assert not work.set_aside(["docs/STATUS.md"])  # a record-only commit is no work at all


def test_a_bots_data_is_never_work_but_a_bots_code_is() -> None:
    work = WorkFilter(Layout(kind=SINGLE_FILE, context="STATUS.md", sessions=IN_CONTEXT), None)
    assert not work.is_work(["public/feed.json", "data/prices.csv"], bot=True)
    assert work.set_aside(["public/feed.json"], bot=True)
    assert work.is_work(["src/app.py"], bot=True)  # an AI agent's pull request is work
    assert not work.set_aside(["src/app.py", "public/feed.json"], bot=True)
    assert work.is_work(["public/feed.json"])  # a person's commit of the same file is work


def test_a_dependency_bump_or_a_rendered_page_is_a_bots_own_job() -> None:
    """The one rule for bots (docs/layouts.md), both sides: what dependabot, renovate and a
    scheduled job write is set aside; code is work, whoever wrote it."""
    for bump in (
        [".github/workflows/ci.yml"],
        ["uv.lock", "pyproject.toml"],
        ["package.json", "package-lock.json"],
        ["go.mod", "go.sum"],
        ["Cargo.toml", "Cargo.lock"],
        ["Dockerfile"],
        ["constraints/linux.txt"],
        ["docs/grader/index.html", "docs/grader/history.json"],
        ["CHANGELOG.md"],
    ):
        assert bots_own_job(bump), bump
    for change in (["src/app.py"], ["Sources/Chart.swift"], ["web/app.ts", "package.json"]):
        assert not bots_own_job(change), change


def test_ignore_globs() -> None:
    globs = ignore_globs(("public/", "**/generated.md", "a?c"))
    assert globs is not None
    assert globs.matches("public/x/y.json")
    assert globs.matches("generated.md") and globs.matches("x/y/generated.md")
    assert globs.matches("abc") and not globs.matches("a/c")
    assert ignore_globs(()) is None
