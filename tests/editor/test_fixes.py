"""``check --fix`` / ``--unsafe-fixes`` / ``--diff`` and the edits of context_doctor.fixes.

The done-when of issue 9 runs on a real demo repository built by the scenario
builder: ``--fix`` fixes what docs/editor.md calls safe and nothing else, a second
``--fix`` finds nothing, and ``--diff`` on the fixed corpus exits 0.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import SCENARIOS
from support import Doctor

from context_doctor.editor import fixes
from context_doctor.git.run import git_environment
from context_doctor.model.document_facts import links_of_text
from context_doctor.report.findings import AppendLine, RemoveFrontmatterKey, SetEntryField
from context_doctor.scenarios import build_scenario

TODAY = "2026-06-20"
SAFE = {"status-vocabulary", "last-session-freshness", "freshness-derived-reviewed"}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A private copy of the demo repository: these tests write to it."""
    return build_scenario(SCENARIOS / "demo.yaml", tmp_path / "demo-kb")


def tracked_bytes(root: Path) -> dict[str, bytes]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, env=git_environment(), capture_output=True, check=True
    ).stdout.split(b"\0")
    return {name.decode(): (root / name.decode()).read_bytes() for name in listed if name}


def check(doctor: Doctor, root: Path, *args: str):  # type: ignore[no-untyped-def]
    return doctor("check", "--source", str(root), "--today", TODAY, *args)


def test_fix_on_the_demo_fixes_exactly_the_safe_findings(doctor: Doctor, demo: Path) -> None:
    before = check(doctor, demo, "--json").json["findings"]
    fixable = [f for f in before if f["fix"] and f["fix"]["applicability"] == "safe"]
    assert {f["check"] for f in fixable} == SAFE
    files_before = tracked_bytes(demo)

    run = check(doctor, demo, "--fix", "--output-format", "concise")
    assert run.exit_code == 1  # defects remain: fixing is not healing
    assert run.stdout.startswith(f"Fixed {len(fixable)} findings (")

    changed = {name for name, data in tracked_bytes(demo).items() if data != files_before[name]}
    assert changed == {"projects/index.yaml", "context/MISSION_CARD.md"}
    index = (demo / "projects/index.yaml").read_text()
    assert "status: completed\n    completed_date: 2026-05-30" in index
    assert "last_session: 2026-06-19" in index
    card = (demo / "context/MISSION_CARD.md").read_text()
    assert "last_reviewed:" not in card and "last_reviewed_by: principal" in card

    after = check(doctor, demo, "--json").json["findings"]
    assert not [f for f in after if f["fix"] and f["fix"]["applicability"] == "safe"]
    # The fixes touched nothing a person must claim: the header, markers, completed_date.
    for kept in ("context-header-freshness", "body-currency", "completed-date"):
        assert [f for f in after if f["check"] == kept] == [f for f in before if f["check"] == kept]

    again = check(doctor, demo, "--fix", "--output-format", "concise")
    assert again.stdout.startswith("Fixed 0 findings (")
    diff = check(doctor, demo, "--diff")
    assert (diff.exit_code, diff.stdout) == (0, "")


def test_diff_prints_the_fixes_and_writes_nothing(doctor: Doctor, demo: Path) -> None:
    files_before = tracked_bytes(demo)
    run = check(doctor, demo, "--diff")
    assert run.exit_code == 1
    assert "--- a/projects/index.yaml\n+++ b/projects/index.yaml\n" in run.stdout
    assert "-    status: complete\n+    status: completed\n" in run.stdout
    assert "-    last_session: 2026-06-16\n+    last_session: 2026-06-19\n" in run.stdout
    assert "-last_reviewed: 2026-06-19T21:30:00+02:00\n" in run.stdout
    assert "REFERENCE.md" not in run.stdout  # the orphan link is unsafe
    assert tracked_bytes(demo) == files_before

    unsafe = check(doctor, demo, "--diff", "--unsafe-fixes")
    assert "+- [vendors](reference/vendors.md)\n" in unsafe.stdout
    assert tracked_bytes(demo) == files_before


def test_unsafe_fixes_add_the_orphan_link(doctor: Doctor, demo: Path) -> None:
    run = check(doctor, demo, "--fix", "--unsafe-fixes", "--json")
    assert run.stderr.startswith("Fixed 4 findings (")
    assert not [f for f in run.json["findings"] if f["check"] == "reference-index-orphan"]
    assert (
        (demo / "projects/harbor/REFERENCE.md")
        .read_text()
        .endswith("(mentioned, not linked).\n\n- [vendors](reference/vendors.md)\n")
    )


def test_fixable_findings_are_marked_and_counted(doctor: Doctor, demo: Path) -> None:
    concise = check(doctor, demo, "--output-format", "concise").stdout
    marked = [line for line in concise.splitlines() if "[*]" in line]
    assert len(marked) == 4  # three findings and the verdict line
    assert "status-vocabulary [*] status `complete`" in concise
    verdict = concise.splitlines()[-1]
    assert "; [*] 3 fixable with --fix (1 more with --unsafe-fixes)" in verdict
    human = check(doctor, demo).stdout
    assert "[last-session-freshness] [*] " in human
    assert "[reference-index-orphan] [*]" not in human


# -- the edits themselves ------------------------------------------------------------

INDEX = """# the registry
projects:
  - id: alpha   # first
    status: 'complete'
    last_session: "2026-06-01"
  - id: beta
    status: ongoing  # keeps going
"""


def test_an_entry_value_is_spliced_keeping_comments_quotes_and_order() -> None:
    edited = fixes.set_entry_field(INDEX, SetEntryField(1, "alpha", "status", "completed"))
    edited = fixes.set_entry_field(edited, SetEntryField(1, "alpha", "last_session", "2026-06-09"))
    assert edited == INDEX.replace("'complete'", "'completed'").replace(
        '"2026-06-01"', '"2026-06-09"'
    )


def test_a_missing_key_is_added_under_the_entry_and_crlf_is_kept() -> None:
    crlf = INDEX.replace("\n", "\r\n")
    edited = fixes.set_entry_field(crlf, SetEntryField(2, "beta", "status", "active"))
    edited = fixes.set_entry_field(edited, SetEntryField(2, "beta", "bounded", False))
    assert edited == crlf.replace(
        "status: ongoing  # keeps going\r\n",
        "status: active  # keeps going\r\n    bounded: false\r\n",
    )


@pytest.mark.parametrize(
    ("text", "edit", "why"),
    [
        (INDEX, SetEntryField(2, "alpha", "status", "active"), "no longer `alpha`"),
        (INDEX, SetEntryField(9, "alpha", "status", "active"), "no longer in the index"),
        ("- {id: a, status: new}\n", SetEntryField(1, "a", "status", "active"), "flow style"),
        (
            "- id: a\n  status: &s new\n",
            SetEntryField(1, "a", "status", "active"),
            "does not rewrite",
        ),
        ("- id: a\n  status: new\n", SetEntryField(1, "a", "status", "a: b"), "not a value"),
    ],
    ids=["moved", "gone", "flow", "anchor", "unsafe-value"],
)
def test_an_entry_edit_that_cannot_be_exact_is_not_applied(
    text: str, edit: SetEntryField, why: str
) -> None:
    with pytest.raises(fixes.NotApplicable, match=why):
        fixes.set_entry_field(text, edit)


def test_a_frontmatter_key_is_removed_and_nothing_else() -> None:
    text = "---\nderived_from: a.md\nlast_reviewed: 2026-06-01\nowner: me\n---\n# Body\nlast_reviewed: 2026-06-01\n"
    edited = fixes.remove_frontmatter_key(text, "last_reviewed")
    assert edited == "---\nderived_from: a.md\nowner: me\n---\n# Body\nlast_reviewed: 2026-06-01\n"
    with pytest.raises(fixes.NotApplicable):
        fixes.remove_frontmatter_key(edited, "last_reviewed")  # only the body has one now
    folded = "---\nlast_reviewed:\n  2026-06-01\n---\n"
    with pytest.raises(fixes.NotApplicable, match="one-line"):
        fixes.remove_frontmatter_key(folded, "last_reviewed")


def test_an_appended_line_ends_with_the_files_line_break() -> None:
    assert fixes.append_line("- [a](reference/a.md)\r\n", AppendLine("- [b](reference/b.md)")) == (
        "- [a](reference/a.md)\r\n- [b](reference/b.md)\r\n"
    )
    assert fixes.append_line("# Index", AppendLine("- [b](b.md)")) == "# Index\n\n- [b](b.md)\n"
    with pytest.raises(fixes.NotApplicable, match="already"):
        fixes.append_line("- [b](b.md)\n", AppendLine("- [b](b.md)"))


def test_apply_edit_dispatches_every_kind() -> None:
    text = "---\nlast_reviewed: 2026-06-01\nx: 1\n---\n"
    assert fixes.apply_edit(text, RemoveFrontmatterKey("last_reviewed")) == "---\nx: 1\n---\n"


def test_an_appended_link_escapes_the_topic_name(doctor: Doctor, demo: Path) -> None:
    """#23 item 6: a topic named to close the link text and open a link of its own."""
    hostile = "x](javascript:alert(1)) [y"
    (demo / "projects/harbor/reference" / f"{hostile}.md").write_text("# Odd\n", encoding="utf-8")
    run = check(doctor, demo, "--fix", "--unsafe-fixes", "--json")
    assert run.exit_code in (0, 1), run.stderr
    text = (demo / "projects/harbor/REFERENCE.md").read_text(encoding="utf-8")
    target = "reference/x%5D%28javascript%3Aalert%281%29%29%20%5By.md"
    assert [link.href for link in links_of_text(text)][-2:] == ["reference/vendors.md", target]
    assert not [link for link in links_of_text(text) if "javascript" in link.href[:20]]
    assert text.endswith(f"- [x\\](javascript:alert(1)) \\[y]({target})\n")


def test_diff_never_prints_a_detected_secret(doctor: Doctor, demo: Path) -> None:
    """The diff's context lines quote the file: a secret in them is redacted (SECURITY.md)."""
    token = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"
    reference = demo / "projects/harbor/REFERENCE.md"
    text = reference.read_text().replace(
        "The vendor notes", f"Vendor portal token: {token}\n\nThe vendor notes"
    )
    reference.write_text(text)
    audited = check(doctor, demo, "--json").json["findings"]
    assert any(f["check"] == "secret-in-context" and "ghp_…" in f["message"] for f in audited)

    run = check(doctor, demo, "--diff", "--unsafe-fixes")
    assert run.exit_code == 1
    assert "+- [vendors](reference/vendors.md)\n" in run.stdout  # the fix still shows
    assert " Vendor portal token: ghp_…\n" in run.stdout  # its context line, redacted
    assert token not in run.stdout + run.stderr and token[4:20] not in run.stdout
    assert reference.read_text() == text  # --diff writes nothing

    fixed = check(doctor, demo, "--fix", "--unsafe-fixes", "--json")
    assert token not in fixed.stdout + fixed.stderr
    # The file itself is the user's: the fix adds its line and leaves the secret to them.
    assert reference.read_text() == text + "\n- [vendors](reference/vendors.md)\n"


def test_a_path_is_rewritten_where_it_was_and_nowhere_else() -> None:
    from context_doctor.report.findings import RewritePath

    body = "# Notes\r\nSee `scripts/deploy.sh` and `scripts/deploy.sh.bak`.\r\n"
    edit = RewritePath(2, 5, "scripts/deploy.sh", "scripts/release.sh")
    assert fixes.apply_edit(body, edit) == (
        "# Notes\r\nSee `scripts/release.sh` and `scripts/deploy.sh.bak`.\r\n"
    )
    # Moved along its line by an earlier rewrite: found again when it is there once.
    shifted = RewritePath(2, 9, "docs/a.md", "docs/b.md")
    assert fixes.apply_edit("x\nSee `docs/a.md`.\n", shifted) == "x\nSee `docs/b.md`.\n"
    for refused in (
        RewritePath(3, 0, "docs/a.md", "docs/b.md"),  # no such line
        RewritePath(1, 0, "docs/a.md", "docs/b.md"),  # the line no longer holds it
        RewritePath(2, 5, "docs/a.md", "docs/b c.md"),  # not a path the fixer writes
    ):
        with pytest.raises(fixes.NotApplicable):
            fixes.apply_edit("x\nSee `docs/a.md`.\n", refused)
