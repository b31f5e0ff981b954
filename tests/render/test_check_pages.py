"""Every registered check has its docs page (``docs/checks/<check>.md``), the SARIF ``helpUri``."""

from __future__ import annotations

from conftest import REPO_ROOT

from context_doctor.render.check_pages import built_in_checks, page_url, render_page

PAGES = REPO_ROOT / "docs" / "checks"
REGENERATE = "python -m context_doctor.render.check_pages docs/checks"


def test_every_check_has_a_page() -> None:
    missing = [name for name in built_in_checks() if not (PAGES / f"{name}.md").is_file()]
    assert missing == [], f"no docs page for {missing}: run `{REGENERATE}` and commit the pages"


def test_no_page_for_a_check_that_is_gone() -> None:
    names = set(built_in_checks())
    stray = sorted(page.stem for page in PAGES.glob("*.md") if page.stem not in names)
    assert stray == [], f"pages of checks the registry lacks: {stray}"


def test_a_page_says_what_explain_says() -> None:
    checks = built_in_checks()
    for name, spec in checks.items():
        text = (PAGES / f"{name}.md").read_text(encoding="utf-8")
        assert text.startswith(f"# {name}\n"), name
        assert f"**Severity:** {spec.severity.value}" in text, f"{name}: run `{REGENERATE}`"
    page = render_page(checks["secret-in-context"])
    assert "**Security**" in page
    assert "## How to fix" in page and checks["secret-in-context"].remedy in page
    assert page_url("context-budget").endswith("/docs/checks/context-budget.md")


def test_the_home_is_the_one_the_package_declares() -> None:
    import tomllib

    from context_doctor.render.check_pages import HOMEPAGE

    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["urls"]["Homepage"] == HOMEPAGE
