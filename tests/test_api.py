"""``context_doctor.api``: the plugin surface, and the documented plugin run as documented.

``docs/plugins.md`` holds a plugin and its test; both are taken from the page as they
are, the plugin installed as a real distribution (metadata with its entry point, on
``sys.path`` and ``PYTHONPATH``), and the page's test run against it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT

import context_doctor.api as api
from context_doctor.checks import registry
from context_doctor.checks.registry import PLUGINS_OFF, load_checks

PAGE = REPO_ROOT / "docs" / "plugins.md"


def test_the_surface_names_what_a_plugin_needs_and_each_name_exists() -> None:
    wanted = {"check", "Issue", "Fix", "Severity", "Context", "Project", "Document"}
    wanted |= {"SkipRule", "DORMANT", "Unverifiable", "SetEntryField", "AppendLine"}
    wanted |= {"Vault", "Note", "VaultSkipRule", "Unverified"}  # scope="vault" checks
    assert wanted <= set(api.__all__)
    for name in api.__all__:
        assert getattr(api, name) is not None, name


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_documented_plugin_is_about_twenty_lines() -> None:
    plugin = _blocks("python")[0]
    assert len(plugin.strip().splitlines()) <= 30


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The page's plugin as pip would leave it, plugins on, in a copy of the registry."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "todo_checks.py").write_text(_blocks("python")[0], encoding="utf-8")
    info = site / "todo_checks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: todo-checks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[context_doctor.checks]\ntodo_checks = todo_checks\n", encoding="utf-8"
    )
    load_checks()
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", {})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.delenv(PLUGINS_OFF)
    yield site
    sys.modules.pop("todo_checks", None)


def test_the_documented_plugin_registers_through_its_entry_point(installed_plugin: Path) -> None:
    spec = load_checks()["todo-in-context"]
    assert (spec.group, spec.scope, spec.module) == ("plugin", "project", "todo_checks")
    assert [rule.reason for rule in spec.own_skips] == ["dormant"]


def test_the_documented_test_passes_against_the_documented_plugin(
    installed_plugin: Path, tmp_path: Path
) -> None:
    namespace: dict[str, Any] = {"__name__": "documented_test"}
    exec(compile(_blocks("python")[1], str(PAGE), "exec"), namespace)
    namespace["test_todo_in_context"](tmp_path / "documented")
