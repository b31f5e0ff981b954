"""What `pip install .` ships: every subpackage of the code, so the README's first command works.

An editable install (the test suite's) finds any package on disk, so a subpackage missing
from pyproject's list passes every other test and fails only on a user's fresh machine.
"""

from __future__ import annotations

import tomllib

from conftest import REPO_ROOT


def test_every_subpackage_is_listed_for_a_regular_install() -> None:
    listed = set(
        tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
            "setuptools"
        ]["packages"]
    )
    package = REPO_ROOT / "context_doctor"
    on_disk = {
        ".".join(init.parent.relative_to(REPO_ROOT).parts)
        for init in package.rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
