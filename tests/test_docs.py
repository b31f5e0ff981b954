"""The project carries its own contract: the README and docs/ pages hold together.

Every relative link in the README and in ``docs/`` leads to a file that exists (and to a
heading that exists, when it names one); ``docs/checks.md`` lists every built-in check
with its severity; ``docs/configuration.md`` names every key the configuration schema
accepts. A page that drifts from the code fails here, not in front of a reader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from context_doctor.checks.registry import load_checks, severity_words

DOCS = REPO_ROOT / "docs"
PAGES = sorted([REPO_ROOT / "README.md", *DOCS.glob("*.md")])
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^(```|~~~)")


def _prose(text: str, *, spans: bool = False) -> str:
    """``text`` without its fenced code blocks (a link in an example is not a link), and
    without its code spans unless ``spans``."""
    kept, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line if spans else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def anchor_of(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found = set()
    for line in _prose(page.read_text(encoding="utf-8"), spans=True).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            found.add(anchor_of(heading.group(1)))
    return found


def links(page: Path) -> Iterator[str]:
    for target in _LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        if not re.match(r"[a-z]+:", target):  # https:, mailto: are not ours to check
            yield target


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target} (no such heading in {resolved.name})")
    assert broken == [], f"{page.relative_to(REPO_ROOT)}: {broken}"


def test_checks_page_lists_every_check_with_its_severity() -> None:
    rows = {}
    for line in (DOCS / "checks.md").read_text(encoding="utf-8").splitlines():
        cell = re.match(
            r"\| `([a-z0-9-]+)` \| (defect or warning|warning or defect|defect|warning) \|", line
        )
        if cell:
            rows[cell.group(1)] = cell.group(2).strip()
    checks = load_checks(plugins=False)
    missing = sorted(set(checks) - set(rows))
    assert missing == [], f"docs/checks.md has no row for {missing}"
    wrong = {
        name: (rows[name], severity_words(spec))
        for name, spec in checks.items()
        if rows[name] != severity_words(spec)
    }
    assert wrong == {}, f"docs/checks.md severity (page, registry): {wrong}"
    stray = sorted(set(rows) - set(checks))
    assert stray == [], f"docs/checks.md lists checks the registry lacks: {stray}"


def _schema_keys(node: dict[str, object], prefix: str = "") -> Iterator[str]:
    properties = node.get("properties")
    if isinstance(properties, dict):
        for key, child in properties.items():
            yield f"{prefix}{key}"
            if isinstance(child, dict):
                yield from _schema_keys(child, f"{prefix}{key}.")
                items = child.get("items")
                if isinstance(items, dict):
                    yield from _schema_keys(items, f"{prefix}{key}.")


def _named(key: str, page: str) -> bool:
    """``key`` (or a dotted tail of it, under its table's heading) is named on ``page``:
    as `` `key` ``, the start of a longer name (`` `key.x` ``) or a table (``[key]``)."""
    parts = key.split(".")
    tails = [".".join(parts[start:]) for start in range(len(parts))]
    return any(
        re.search(rf"`{re.escape(tail)}[`.]|\[{re.escape(tail)}[\].]", page) for tail in tails
    )


def test_configuration_page_names_every_key() -> None:
    schema = json.loads((REPO_ROOT / "schemas" / "config.schema.json").read_text("utf-8"))
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    unnamed = [key for key in _schema_keys(schema) if not _named(key, page)]
    assert unnamed == [], f"docs/configuration.md does not name {unnamed}"


# -- the package cites the project's pages, never a document it does not ship ---------------

PACKAGE = REPO_ROOT / "context_doctor"
SHIPPED_TEXT = [
    *sorted(PACKAGE.rglob("*.py")),
    *sorted((REPO_ROOT / "schemas").glob("*.json")),
]
_OUTSIDE = re.compile(r"SPEC ?(§|\\u00a7)|SPEC section|SPEC\.md|\bSPEC \d", re.IGNORECASE)
_ISSUE = re.compile(r"\(#\d+\b|, #\d+\)|#\d+ item \d|\bissues? #?\d+\b", re.IGNORECASE)
_CITED = re.compile(r"docs/[a-z][a-z0-9-]*(?:/[a-z0-9<>-]+)?\.md(?:#[a-z0-9-]+| \"[^\"]+\")?")
# Paths of a user's repository the code names as examples (a layout's files, a reference a
# record makes): not pages of this project.
EXAMPLE_PATHS = frozenset(
    {
        "docs/a.md",
        "docs/x.md",
        "docs/rules.md",
        "docs/adr/0004.md",
        "docs/session-handoff.md",
        "docs/handoff/state.md",
        "docs/handoff/sessions/log.md",
    }
)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    yield from enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)


def test_the_package_cites_no_document_it_does_not_ship() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
        for path in SHIPPED_TEXT
        for number, line in _lines(path)
        if _OUTSIDE.search(line)
    ]
    assert found == [], "cite the docs/ page that says it instead:\n" + "\n".join(found)


def test_the_package_names_no_issue_numbers() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}"
        for path in SHIPPED_TEXT
        for number, line in _lines(path)
        if _ISSUE.search(line)
    ]
    assert found == [], "say why, or cite a docs/ page, instead of an issue:\n" + "\n".join(found)


def test_every_page_the_package_cites_exists() -> None:
    """Every ``docs/….md`` the package cites is a page (``docs/checks/<check>.md`` stands for
    each check's page), and a heading it names (``docs/layouts.md "Near misses"``, or an
    ``#anchor``) is one of that page's headings."""
    missing = set()
    for path in SHIPPED_TEXT:
        for number, line in _lines(path):
            for cited in _CITED.findall(line):
                page = re.split(r'#| "', cited)[0]
                heading = cited[len(page) :].strip(' #"')
                if page in EXAMPLE_PATHS:
                    continue
                target = REPO_ROOT / page.replace("<check>", "context-budget")
                where = f"{path.relative_to(REPO_ROOT)}:{number}: {cited}"
                if not target.is_file():
                    missing.add(f"{where} (no such page)")
                elif heading and anchor_of(heading) not in anchors(target):
                    missing.add(f"{where} (no such heading)")
    assert sorted(missing) == []


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """The README's second set-up command is what CI runs (``.ci/run``), byte for byte."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"```sh\n(.*?)\n```", readme, flags=re.DOTALL)
    (test_command,) = [command for command in commands if "pytest" in command]
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci, f".ci/run does not run the README's `{test_command}`"
