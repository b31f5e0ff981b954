"""The Markdown model: facts equal what the grammar says, and every walk is linear."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from markdown_it.token import Token

from context_doctor.model.currency import as_of_markers, open_items
from context_doctor.model.documents import (
    Document,
    ListItem,
    _block_parser,
    _walk_blocks,
    facts_from_wire,
    facts_of_text,
    facts_to_wire,
)

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
    assert [o.item.line for o in open_items(document)] == [16, 17, 18, 19, 20, 21]
    assert document.line_count == 21
    assert [(link.href, link.line) for link in document.links] == [("guide.md", 21)]


def test_facts_survive_their_wire_form() -> None:
    facts = facts_of_text(SAMPLE, links=True)
    assert facts_from_wire(facts_to_wire(facts)) == facts
    commented = facts_of_text("# T\n<!-- context-doctor: disable-next-line context-budget -->\nx\n")
    assert len(commented.suppressions) == 1
    assert facts_from_wire(facts_to_wire(commented)) == commented


def test_list_items_take_one_pass_over_the_tokens() -> None:
    """Each item used to rescan the tokens from the start (#14: 80,000 items took 98 s)."""
    text = "# T\n\n## Next\n\n" + "".join(f"- [ ] item {n}\n" for n in range(20_000))
    tokens = CountingTokens(_block_parser().parse(text))
    _headings, items, _code = _walk_blocks(tokens)
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
