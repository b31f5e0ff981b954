"""Every registered check has its docs page (``docs/checks/<check>.md``): what SARIF carries as
each rule's help, and its ``helpUri`` when ``[output] docs_url`` says where the pages are."""

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


# -- no borrowed home: the project's URLs are one setting, `[output] docs_url` -------

BORROWED = "synthesisengineering/context-doctor"


def test_the_package_names_no_home_it_does_not_have() -> None:
    """No repository of that name exists: the package must not claim it as its home."""
    text = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert BORROWED not in text
    for module in (REPO_ROOT / "context_doctor").rglob("*.py"):
        assert BORROWED not in module.read_text(encoding="utf-8"), module


def test_a_page_url_is_built_only_from_the_setting() -> None:
    assert page_url("context-budget", None) is None
    assert (
        page_url("context-budget", "https://docs.example.org/context-doctor/")
        == "https://docs.example.org/context-doctor/checks/context-budget.md"
    )
