"""The import rules of docs/architecture.md ("What each room may import"), enforced.

The numbered list there is the layer order, lowest first: a module of one room imports
only rooms of lower layers (or its own room, or a room of its own layer). Every
``import`` and ``from ... import`` of the package counts, at module level and inside a
function alike: an import deferred for start-up time still ties the two rooms (and
hides a cycle, which ``layout-check.py`` counts the same way). Only imports under a
module-level ``if TYPE_CHECKING:`` are left out: they never run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "context_doctor"


def layers() -> dict[str, int]:
    """Room -> its layer, from the numbered list of the architecture page."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## What each room may import", 1)[1].split("\n## ", 1)[0]
    found: dict[str, int] = {}
    for line in section.splitlines():
        numbered = re.match(r"^(\d+)\. (.*)$", line.strip())
        if numbered is not None:
            for room in re.findall(r"`([^`]+)`", numbered.group(2)):
                found[room.removesuffix("/").removesuffix(".py")] = int(numbered.group(1))
    return found


def room_of(module: str) -> str:
    """``context_doctor.model.project`` -> ``model``; ``context_doctor.cli`` -> ``cli``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every package import that runs, TYPE_CHECKING blocks left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for statement in tree.body:
        if isinstance(statement, ast.If) and "TYPE_CHECKING" in ast.unparse(statement.test):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "context_doctor":
                    found += [(node.lineno, f"context_doctor.{a.name}") for a in node.names]
                else:
                    found.append((node.lineno, node.module))
            elif isinstance(node, ast.Import):
                found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "context_doctor"]


def test_every_room_is_in_the_order() -> None:
    order = layers()
    rooms = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").is_file())
    }
    assert rooms - set(order) == set(), "name the room in docs/architecture.md"
    # schemas/ is installed inside the package (pyproject.toml), beside it in a checkout.
    assert set(order) - rooms - {"schemas"} == set(), (
        "docs/architecture.md names a room that is gone"
    )


def test_no_room_imports_a_room_above_it() -> None:
    order = layers()
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = room_of(module_name(path))
        for line, name in imported(path):
            there = room_of(name)
            if name != "context_doctor" and order[there] > order[here]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {here} imports {name}")
    assert wrong == [], "\n".join(wrong)


def test_the_rules_see_deferred_imports(tmp_path: Path) -> None:
    """Planted fault: an import inside a function counts; one under TYPE_CHECKING does not."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from context_doctor.cli import main\n"
        "def later():\n"
        "    from context_doctor.commands import check\n",
        encoding="utf-8",
    )
    assert imported(planted) == [(5, "context_doctor.commands")]
