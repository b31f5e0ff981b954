"""Where check modules come from (context_doctor/config/plugins.py): the quick look at installed
distributions that decides whether ``importlib.metadata`` is asked at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from context_doctor.config import plugins


def _distribution(site: Path, name: str, entry_points: str | None) -> None:
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


def test_only_a_check_module_outside_the_doctor_counts() -> None:
    ours = b"[console_scripts]\ncontext-doctor = context_doctor.cli:main\n"
    builtin = b"[context_doctor.checks]\nstructure = context_doctor.checks.structure\n"
    other_group = b"[other.group]\nx = context_doctor_extra\n"
    theirs = b"[context_doctor.checks]\nextra = acme_checks.rules:register\n"
    assert not plugins._names_other_modules(ours)
    assert not plugins._names_other_modules(builtin)
    assert not plugins._names_other_modules(other_group)
    assert plugins._names_other_modules(theirs)


def test_a_plugin_installed_on_the_path_is_found_and_moves_what_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(plugins.PLUGINS_OFF, raising=False)
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    _distribution(tmp_path, "plain_library", "[console_scripts]\ntool = plain:main\n")
    _distribution(tmp_path, "no_entry_points", None)
    before = plugins.installed_metadata()
    assert len(before) == 2
    assert plugins.plugin_modules() == []  # importlib.metadata never asked
    _distribution(tmp_path, "acme_checks", "[context_doctor.checks]\nacme = acme_checks\n")
    assert plugins.installed_metadata() != before
    assert plugins.plugin_modules() == [("acme_checks", "acme")]
    monkeypatch.setenv(plugins.PLUGINS_OFF, "1")
    assert plugins.plugin_modules() == []


def test_a_zip_on_the_path_leaves_the_decision_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "bundle.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip archive
    monkeypatch.setattr("sys.path", [str(archive)])
    assert plugins.installed_metadata() == (f"{archive} (unlisted: NotADirectoryError)",)
    assert plugins._may_name_plugins()
