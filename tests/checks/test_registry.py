"""The registry: built-in checks found by walking ``context_doctor/checks/``, plugins by entry points.

A third-party plugin here is real: a distribution's metadata (``*.dist-info`` with an
``entry_points.txt``) and its module in a directory put on ``sys.path``, found by
``importlib.metadata`` exactly as an installed package would be.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import context_doctor.checks
from context_doctor.checks import registry
from context_doctor.checks.registry import (
    BUILTIN_PACKAGE,
    GROUP_ALIASES,
    GROUPS,
    PLUGINS_OFF,
    builtin_modules,
    load_checks,
    resolve_names,
)
from context_doctor.errors import DoctorError

CHECKS_DIRECTORY = Path(context_doctor.checks.__file__).parent
PLANTED_MODULES = (
    f"{BUILTIN_PACKAGE}.planted",
    f"{BUILTIN_PACKAGE}.groupless",
    "cd_planted_plugin",
    "cd_broken_plugin",
)

PLANTED_CHECK = """
from context_doctor.report.findings import Severity
from context_doctor.checks.registry import check

GROUP = "hygiene"


@check(
    "planted-check",
    severity=Severity.WARNING,
    summary="a check in a module nobody listed",
    remedy="none",
    explanation="Registered by a module dropped into the checks package.",
)
def planted(project, ctx):
    return ()
"""


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Checks registered by a test go into a copy of the registry, dropped afterwards."""
    load_checks()  # the built-ins are imported before the copy is taken
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    monkeypatch.setattr(registry, "_REGISTERED_BY", {})
    yield
    for name in PLANTED_MODULES:
        sys.modules.pop(name, None)


def test_every_module_of_the_checks_package_is_a_builtin_with_a_known_group() -> None:
    files = sorted(
        path.stem
        for path in CHECKS_DIRECTORY.glob("*.py")
        if not path.stem.startswith("_") and path.stem != "registry"  # the registry itself
    )
    assert builtin_modules() == [f"{BUILTIN_PACKAGE}.{name}" for name in files]
    load_checks()
    for module in builtin_modules():
        assert sys.modules[module].GROUP in GROUPS, module
    for spec in load_checks().values():
        assert spec.group in GROUPS, (spec.name, spec.group)


def test_a_new_file_in_the_checks_package_is_a_new_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scratch_registry: None
) -> None:
    (tmp_path / "planted.py").write_text(PLANTED_CHECK, encoding="utf-8")
    monkeypatch.setattr(
        context_doctor.checks, "__path__", [*context_doctor.checks.__path__, str(tmp_path)]
    )
    found = load_checks()
    assert found["planted-check"].group == "hygiene"
    assert found["planted-check"].module == f"{BUILTIN_PACKAGE}.planted"


def test_a_builtin_module_without_a_group_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scratch_registry: None
) -> None:
    (tmp_path / "groupless.py").write_text(
        PLANTED_CHECK.replace('GROUP = "hygiene"', ""), encoding="utf-8"
    )
    monkeypatch.setattr(
        context_doctor.checks, "__path__", [*context_doctor.checks.__path__, str(tmp_path)]
    )
    with pytest.raises(DoctorError, match=f"{BUILTIN_PACKAGE}.groupless declares no GROUP"):
        load_checks()


def _install_plugin(site: Path, module: str, source: str) -> None:
    """A distribution as pip would leave it: the module, and metadata naming its entry point."""
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{module.replace('_', '-')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[context_doctor.checks]\n{module} = {module}\n")


def test_a_plugin_is_loaded_through_its_entry_point_only_when_plugins_are_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scratch_registry: None
) -> None:
    _install_plugin(tmp_path, "cd_planted_plugin", PLANTED_CHECK.replace('GROUP = "hygiene"', ""))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "planted-check" not in load_checks()  # the suite runs with PLUGINS_OFF set
    monkeypatch.delenv(PLUGINS_OFF)
    loaded = load_checks()
    assert loaded["planted-check"].group == "plugin"
    assert loaded["planted-check"].module == "cd_planted_plugin"
    # Turned off again, an already imported plugin does not linger in what is loaded.
    assert "planted-check" not in load_checks(plugins=False)


def test_a_plugin_that_fails_to_import_is_exit_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scratch_registry: None
) -> None:
    _install_plugin(tmp_path, "cd_broken_plugin", "raise RuntimeError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(PLUGINS_OFF)
    with pytest.raises(DoctorError, match=r"cd_broken_plugin.*broken on purpose"):
        load_checks()


@pytest.mark.parametrize(("old", "new"), sorted(GROUP_ALIASES.items()))
def test_old_group_names_select_what_the_new_names_select(old: str, new: str) -> None:
    known = load_checks()
    chosen = resolve_names([new], known, "--select")
    assert chosen and resolve_names([old], known, "--select") == chosen
    assert {known[name].group for name in chosen} == {new}


# docs/checks.md for memory vaults: which whole-vault skip is a gate (shown in coverage) and which
# a shape (counted in not_applicable). A floors file or log that cannot be read, a shallow
# clone, and trash with no log to account for it hold a check back from something it would
# judge; no floors on this machine, no git, no committed log and no log to read at all mean
# the vault has nothing the check is about.
VAULT_SKIPS = {
    ("audit-log-line", "no log"): "shape",
    ("audit-log-rewritten", "log not in git"): "shape",
    ("audit-log-rewritten", "no git"): "shape",
    ("audit-log-rewritten", "shallow clone"): "gate",
    ("audit-without-trash", "log unreadable"): "gate",
    ("audit-without-trash", "no log"): "gate",
    ("floor-cap", "floors unreadable"): "gate",
    ("floor-cap", "no floors"): "shape",
    ("floor-stale", "no floors"): "shape",
    ("floor-target", "floors unreadable"): "gate",
    ("floor-target", "no floors"): "shape",
    ("floor-without-why", "floors unreadable"): "gate",
    ("floor-without-why", "no floors"): "shape",
    ("trash-without-audit", "log unreadable"): "gate",
    ("trash-without-audit", "no log"): "gate",
    ("unaudited-change", "log not in git"): "shape",
    ("unaudited-change", "no git"): "shape",
    ("unaudited-change", "no log"): "shape",
    ("unaudited-change", "shallow clone"): "gate",
}


def test_every_vault_skip_rule_is_a_gate_or_a_shape_as_decided() -> None:
    declared = {
        (name, rule.reason): "shape" if rule.shape else "gate"
        for name, spec in load_checks(plugins=False).items()
        if spec.scope == "vault"
        for rule in spec.vault_skips
    }
    assert declared == VAULT_SKIPS
