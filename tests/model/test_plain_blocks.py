"""The line scan for plain Markdown against markdown-it: the same blocks, or no answer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_doctor.model import document_facts
from context_doctor.model.plain_blocks import plain_blocks

# Lines the scan reads, lines it must refuse, and the neighbours that change how a line is
# read (underlines, lazy continuations, tables, fences, comments).
LINES = [
    "",
    "   ",
    "# Title",
    "## 2026-06-01 — work",
    "#",
    "#   ",
    "###### six",
    "####### seven",
    "#tag",
    "## closed ##",
    "# ends with #",
    "**Status:** Active",
    "**Last session:** 2026-04-18",
    "*State as of: 2026-08-24 (round 13)*",
    "__init__ is a module",
    "_x_",
    "Plain prose, with a comma.",
    "Zuletzt aktualisiert: heute",
    "2026-07-29 did the thing",
    "1234567890. not a list",
    "(a note)",
    "`code` at the start",
    "- item",
    "- [ ] todo",
    "- [x] done",
    "- [X]",
    "- [x]: /url",
    "- [link](a.md)",
    "* star item",
    "+ plus item",
    "- **Bold:** value",
    "- `code`",
    "- - nested",
    "- # heading in item",
    "- > quote",
    "- 1. nested ordered",
    "- <!-- c -->",
    "-  two spaces",
    "-",
    "- ",
    "-item",
    "1. first",
    "2. second",
    "01. zero-one",
    "3) paren",
    "1.",
    "---",
    "***",
    "___",
    "- - -",
    "* * *",
    "--",
    "----   ",
    "===",
    "=",
    "== x",
    "```",
    "```py",
    "``` a`b",
    "````",
    "~~~",
    "~~~ info `x`",
    "  ```",
    "    code",
    "  - nested",
    "   continued",
    "> quote",
    "| a | b |",
    "|---|---|",
    "a | b",
    "x |",
    "--- | ---",
    ":--|--:",
    "[ref]: /url",
    "[x] y",
    "<!-- a comment -->",
    "<!--",
    "-->",
    "<!-- context-doctor: disable",
    "<div>",
    "<http://example.com>",
    "\t- tab",
    "\u00a0x",
    "- \u00a0",
    "٣. arabic digit",
    "![image](i.png)",
    "\\# escaped",
]

line = st.one_of(st.sampled_from(LINES), st.text(alphabet="ab-*#=`~|<>:[] 1.\n", max_size=12))
document = st.tuples(st.lists(line, max_size=14), st.booleans()).map(
    lambda parts: "\n".join(parts[0]) + ("\n" if parts[1] else "")
)


def _markdown_it(text: str) -> tuple[object, object, object, object]:
    tokens = document_facts.block_parser().parse(text, {})
    return document_facts._walk_blocks(tokens)


def _scanned(text: str) -> tuple[object, object, object, object] | None:
    plain = plain_blocks(text)
    if plain is None:
        return None
    headings, items, code = plain
    return (
        tuple(document_facts.Heading(level, content, line) for level, line, content in headings),
        document_facts._list_items(items),
        code,
        (),
    )


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document)
def test_the_scan_agrees_with_markdown_it_or_does_not_answer(text: str) -> None:
    scanned = _scanned(text)
    if scanned is not None:
        assert scanned == _markdown_it(text)


@pytest.mark.parametrize(
    "text",
    [
        "# Title\n\n**Status:** active\n\n## Next\n\n- [ ] one\n- [x] two\n",
        "---\ntitle: x\ndate: y\n---\n\n# Body\n",
        "a \nb\n---\n",
        "para\n===\n",
        "===\n---\n",
        "- a\n---\n",
        "a\n2. b\n1. c\n",
        "- a\n2. b\n",
        "a\n01. b\n",
        "- a\nlazy\n- b\n",
        "a\n```\nb\n```\nc\n",
        "```py\n- x\n# y\n",
        "~~~\n```\n~~~~\n",
        "<!-- header format v47 -->\n# x\n",
        "<!--\n# not a heading\n-->\n- item\n",
        "text\n<!-- x -->\n---\n",
        "# heading\n---\n",
    ],
)
def test_plain_shapes_are_scanned_as_markdown_it_reads_them(text: str) -> None:
    assert _scanned(text) == _markdown_it(text)


@pytest.mark.parametrize(
    "text",
    [
        "x |\n---\n",  # a one-column table
        "# a |\n---\n",
        "<!-- a |\n|---|\n-->\n",
        "- a\n===\n",  # lazy text in the item, not an underline
        "- a\n  - nested\n",
        "| a |\n|---|\n| 2026-01-01 | x |\n",
        "> quote\n",
        "## closed ##\n",
        "line\r\nbreaks\r\n",
        "\tindented by a tab\n",
    ],
)
def test_anything_outside_the_subset_goes_to_markdown_it(text: str) -> None:
    assert plain_blocks(text) is None


def test_a_plain_file_and_markdown_it_give_the_same_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "# P\n\n**Status:** active\n\n## Next\n\n- [ ] do it\n\n```\nStatus: x\n```\n"
    assert plain_blocks(text) is not None
    scanned = document_facts.facts_of_text(text, links=True)
    monkeypatch.setattr(document_facts, "plain_blocks", lambda _text: None)
    assert document_facts.facts_of_text(text, links=True) == scanned


def test_a_last_line_of_spaces_is_no_line_to_either() -> None:
    assert _scanned("```\n ") == _markdown_it("```\n ")


def test_a_plain_file_is_never_given_to_markdown_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scan is what reads a plain file (the facts above would match either way)."""

    def no_markdown_it() -> None:
        raise AssertionError("markdown-it parsed a plain file")

    monkeypatch.setattr(document_facts, "block_parser", no_markdown_it)
    facts = document_facts.facts_of_text("# P\n\n- [x] done\n\n---\ntitle\n---\n", links=False)
    assert [item.checked for item in facts.list_items] == [True]
    assert [(h.level, h.text) for h in facts.headings] == [(1, "P"), (2, "title")]


def test_a_task_list_without_a_link_is_never_given_to_markdown_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Read for its links too (an instruction file's references), a record whose brackets
    are only task boxes and labels has no link: the scan reads it, and says so."""

    def no_markdown_it() -> None:
        raise AssertionError("markdown-it parsed a record that can hold no link")

    monkeypatch.setattr(document_facts, "block_parser", no_markdown_it)
    text = "# P\n\n## Next\n\n- [ ] open (as of 2025-10-01)\n- [x] done [label]\n"
    facts = document_facts.facts_of_text(text, links=True)
    assert facts.links == ()
    assert [item.checked for item in facts.list_items] == [False, True]


@pytest.mark.parametrize("link", ["[a](b)", "<http://x.io>", "[a]\n\n[a]: /u"])
def test_a_record_that_can_hold_a_link_still_goes_to_markdown_it(link: str) -> None:
    text = f"# P\n\n- [ ] open {link}\n"
    assert document_facts.facts_of_text(text, links=True).links
