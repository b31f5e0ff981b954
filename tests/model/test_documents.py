"""The Markdown model: facts equal what the grammar says, and every walk is linear."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from context_doctor.cache import codec
from context_doctor.guards.markdown import block_parser, full_parser
from context_doctor.model.currency import as_of_markers, open_items
from context_doctor.model.document_facts import (
    DocumentFacts,
    Link,
    ListItem,
    _inline_rules_known,
    _may_hold_link,
    _text_may_hold_link,
    _walk_blocks,
    facts_of_text,
    load_parsers,
)
from context_doctor.model.documents import _RECENT, RECENT_FACTS, Document
from context_doctor.model.secrets import _known_formats

SAMPLE = """# Title

**Status:** Active **Phase:** round 3
**Last session:** 2025-11-02

## Current State
*State as of: 2025-11-01 round 3*

```
## not a heading
*State as of: 2020-01-01*
- not an item
```

## Next
- [ ] first (as of 2025-10-01)
- [x] done
  - nested
1. numbered
-
- [Guide](guide.md)
"""


class CountingTokens:
    """An iterable over tokens that counts every token handed out."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.visits = 0

    def __iter__(self) -> Iterator[Token]:
        for token in self.tokens:
            self.visits += 1
            yield token


def test_facts_of_a_sample(tmp_path: Path) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_text(SAMPLE, encoding="utf-8")
    document = Document(path, "CONTEXT.md")
    assert [(h.level, h.text, h.line) for h in document.headings] == [
        (1, "Title", 1),
        (2, "Current State", 6),
        (2, "Next", 15),
    ]
    assert document.list_items == [
        ListItem(16, "[ ] first (as of 2025-10-01)", False),
        ListItem(17, "[x] done", True),
        ListItem(18, "nested", None),
        ListItem(19, "numbered", None),
        ListItem(20, "", None),
        ListItem(21, "[Guide](guide.md)", None),
    ]
    assert document.code_lines == frozenset(range(9, 14))
    assert [(f.name, f.value, f.line) for f in document.header_fields] == [
        ("Status", "Active", 3),
        ("Phase", "round 3", 3),
        ("Last session", "2025-11-02", 4),
    ]
    markers = as_of_markers(document)
    assert [(m.line, m.spelled, m.ordinals) for m in markers] == [(7, "2025-11-01", {"round": 3})]
    assert markers[0].section is not None and markers[0].section.text == "Current State"
    # Only task-list items are open items; plain bullets and numbered lines are prose.
    assert [o.item.line for o in open_items(document)] == [16, 17]
    assert document.line_count == 21
    assert [(link.href, link.line) for link in document.links] == [("guide.md", 21)]


@pytest.mark.parametrize(
    "text", ["", "one", "a\nb\n", "a\r\nb\rc\n\n\n", "\ufeff1\n2\n3\n4\n5\n6\n7", SAMPLE]
)
def test_last_lines_come_from_the_facts(tmp_path: Path, text: str) -> None:
    path = tmp_path / "CONTEXT.md"
    path.write_bytes(text.encode("utf-8"))
    document = Document(path, "CONTEXT.md")
    wired = Document(path, "CONTEXT.md")
    wired.__dict__["facts"] = codec.decode(codec.encode(document.facts), DocumentFacts)
    for count in range(1, 9):
        assert document.last_lines(count) == document.lines[-count:], count
        assert wired.last_lines(count) == document.lines[-count:], count


def test_packed_facts_are_the_facts_and_are_let_go(tmp_path: Path) -> None:
    """A prepared document holds its facts packed, decodes them when asked, keeps only the
    last few documents' decoded, and ``release`` drops what was derived from them."""
    path = tmp_path / "CONTEXT.md"
    path.write_text(SAMPLE, encoding="utf-8")
    parsed = Document(path, "CONTEXT.md")
    packed = Document(path, "CONTEXT.md")
    packed.keep_packed(codec.encode(parsed.facts))
    path.write_text("# changed since it was prepared\n", encoding="utf-8")  # never re-read
    assert packed.facts == parsed.facts
    assert packed.headings == parsed.headings
    assert "facts" not in packed.__dict__ and "headings" in packed.__dict__
    packed.release()
    assert "headings" not in packed.__dict__
    assert packed.list_items == parsed.list_items
    others = [Document(path, f"other-{n}.md") for n in range(RECENT_FACTS + 1)]
    for other in others:
        other.keep_packed(codec.encode(parsed.facts))
        assert other.facts == parsed.facts
    assert all(entry[0] is not packed for entry in _RECENT.values())
    assert packed.header_fields == parsed.header_fields  # decoded again when asked


def test_list_items_take_one_pass_over_the_tokens() -> None:
    """Each item used to rescan the tokens from the start (80,000 items took 98 s)."""
    text = "# T\n\n## Next\n\n" + "".join(f"- [ ] item {n}\n" for n in range(20_000))
    tokens = CountingTokens(block_parser().parse(text))
    _headings, items, _code, _rows = _walk_blocks(tokens)
    assert len(items) == 20_000
    assert tokens.visits == len(tokens.tokens)


def test_eighty_thousand_list_items_finish(tmp_path: Path) -> None:
    """The #14 reproduction end to end: facts, open items and their sections.

    Quadratic walks made this take minutes; the bound is the test run itself (no timer).
    """
    body = "".join(
        f"## Next {block}\n\n" + "".join(f"- [ ] item {n}\n" for n in range(2_000))
        for block in range(40)
    )
    path = tmp_path / "CONTEXT.md"
    path.write_text("# T\n\n" + body, encoding="utf-8")
    document = Document(path, "CONTEXT.md")
    found = open_items(document)
    assert len(found) == 80_000
    assert found[-1].section.text == "Next 39"


# -- links: the inline pass only where a link can be, equal to a full parse ------------


def _links_of_a_full_parse(text: str) -> tuple[Link, ...]:
    """What a second, complete markdown-it parse (block and inline) finds: the reference."""
    found: list[Link] = []
    for token in MarkdownIt("commonmark", {"html": True}).enable("table").parse(text):
        line = (token.map[0] + 1) if token.map else 1
        for child in token.children or []:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open" and isinstance(child.attrs.get("href"), str):
                found.append(Link(str(child.attrs["href"]), line))
    return tuple(found)


LINK_CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "inline": (
        'See [the guide](guide.md) and [x](<a b.md> "t").\n',
        [("guide.md", 1), ("a%20b.md", 1)],
    ),
    "full reference": ("Read [the spec][s].\n\n[s]: spec.md\n", [("spec.md", 1)]),
    "collapsed and shortcut": (
        '[Spec][] and [spec]\n\n[SPEC]: spec.md "T"\n',
        [("spec.md", 1)] * 2,
    ),
    "definition after use, in a list": ("- [a]\n- [a]: a.md\n\n[a]\n", [("a.md", 1), ("a.md", 4)]),
    "undefined reference": ("[nothing] and [nothing][here]\n", []),
    "autolinks": (
        "<https://example.com/x> and <someone@example.com>\n",
        [("https://example.com/x", 1), ("mailto:someone@example.com", 1)],
    ),
    "across soft and hard breaks": (
        "one\ntwo [a](a.md)\nthree  \nfour [b](b.md) [c\nd](c.md)\n",
        [("a.md", 2), ("b.md", 4), ("c.md", 4)],
    ),
    "in a table": (
        "| a | b |\n|---|---|\n| [x](x.md) | y |\n| z | <http://z.io> |\n",
        [("x.md", 3), ("http://z.io", 4)],
    ),
    "html comment and inline html": (
        "<!-- [hidden](h.md) -->\n\ntext <span>[shown](s.md)</span> <b>\n",
        [("s.md", 3)],
    ),
    "checkboxes are not links": ("- [ ] (as of 2025-10-01) open\n- [x] done\n", []),
    "code spans and escapes": ("`[a](a.md)` \\[b](b.md) [c\\](c.md) [d](d.md)\n", [("d.md", 1)]),
    "a link inside an image": ("![alt [in](in.md)](img.png) [out](out.md)\n", [("out.md", 1)]),
    "in a heading and a blockquote": (
        "# [h](h.md)\n\n> quoted\n> [q](q.md)\n",
        [("h.md", 1), ("q.md", 4)],
    ),
}


@pytest.mark.parametrize("case", sorted(LINK_CASES))
def test_links_equal_a_full_parse(case: str) -> None:
    text, expected = LINK_CASES[case]
    links = facts_of_text(text, links=True).links
    assert links == _links_of_a_full_parse(text)
    assert [tuple(link) for link in links or ()] == expected


LINK_PIECES = st.sampled_from(
    [
        "[a](b)", "[a]", "[a][b]", "[a][]", "[A]", "![i](j)", "<http://x.io/y>", "<a@b.co>",
        "<x>", "<!-- c -->", "<span>", "`[a](b)`", "`", "\\[", "\\]", "](", "]", "[", "(",
        ")", "<", ">", "*", "_", "[a]: /u", "[b]: <v> \"t\"", "[ ]", "[x]", "- ", "1. ",
        "> ", "## ", "| a | b |", "|---|---|", "---", "===", "```", "    ", "\t", " ",
        "  \n", "\\\n", "\n", "\n\n", "word", "[a [b] c](d)", "[\na\n](b)", "<div>",
        "\r\n", "\r", "\x00", "[ﬀ]: /l", "[ff]",
    ]
)  # fmt: skip


LINK_LINES = st.one_of(
    st.lists(LINK_PIECES, max_size=8).map("".join),
    st.sampled_from(["", "[a]: /u", "[A]: <v> 'T'", "[b]:\n/w", "  [ff]: /l", "- [a]: /n"]),
)


@settings(max_examples=300)
@given(text=st.lists(LINK_LINES, max_size=16).map("\n".join))
def test_links_equal_a_full_parse_for_any_mix(text: str) -> None:
    assert facts_of_text(text, links=True).links == _links_of_a_full_parse(text)


@settings(max_examples=300)
@given(text=st.lists(LINK_LINES, max_size=16).map("\n".join))
def test_a_text_without_an_angle_a_bracket_parenthesis_or_a_definition_has_no_link(
    text: str,
) -> None:
    """What lets such a text skip markdown-it altogether (``_text_may_hold_link``)."""
    if not _text_may_hold_link(text):
        assert _links_of_a_full_parse(text) == ()


def test_the_link_filter_is_used_only_over_the_inline_rules_it_knows() -> None:
    """A markdown-it that enabled, say, linkify would make links the filter does not foresee."""
    assert _inline_rules_known(full_parser())
    linkify = MarkdownIt("commonmark", {"html": True, "linkify": True}).enable("linkify")
    assert not _inline_rules_known(linkify)


def test_only_a_bracket_before_a_parenthesis_or_an_angle_can_start_a_link() -> None:
    assert not _may_hold_link("- [ ] open (as of 2025-10-01)", {})
    assert _may_hold_link("[a](b)", {})
    assert _may_hold_link("<http://x.io>", {})
    assert not _may_hold_link("[a] and [b]", {})
    assert _may_hold_link("[a] and [b]", {"references": {"A": {"href": "a.md", "title": ""}}})


def test_load_parsers_builds_what_parsing_uses() -> None:
    """What the store calls before forking its workers, so none of them builds it again."""
    load_parsers()
    assert block_parser.cache_info().currsize == 1
    assert full_parser.cache_info().currsize == 1
    assert _known_formats.cache_info().currsize == 1
