"""The vault model (docs/vaults.md): Bastra's walk over the notes."""

from __future__ import annotations

from pathlib import Path

from support import Doctor
from vault_support import TODAY, memory


def test_a_directory_1000_levels_deep_is_walked_never_a_recursion_error(
    doctor: Doctor, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    (root / ".bastra").mkdir(parents=True)
    levels = [root]
    for _ in range(1000):  # os.makedirs and shutil.rmtree recurse: built and removed by hand
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    bottom = levels[-1] / "at-the-bottom.md"
    try:
        bottom.write_text(memory("at-the-bottom"), encoding="utf-8")
        (root / "at-the-top.md").write_text(memory("at-the-top"), encoding="utf-8")
        run = doctor("check", "--vault", str(root), "--today", TODAY, "--json")
        assert run.exit_code in (0, 1), run.stderr
        assert "RecursionError" not in run.stderr
        source = next(s for s in run.json["source_details"] if s.get("vault"))
        assert source["memories"] == 2
    finally:  # leave nothing pytest's own cleanup would recurse into
        bottom.unlink(missing_ok=True)
        for level in reversed(levels[1:]):
            level.rmdir()
