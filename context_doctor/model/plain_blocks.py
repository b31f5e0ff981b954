"""The block structure of plain Markdown by a line scan, where markdown-it would give the same.

Most tier files are headings, one level of bullet items, paragraphs and blank lines (the
seed's templates, session logs, reference lists).  markdown-it's block pass costs about
two thirds of parsing them (a cold run at 2,000 projects is mostly parsing).
For such a file the headings and list items follow from each line alone, so this scanner
reads them in one pass and returns what :func:`context_doctor.model.document_facts._walk_blocks`
would return from markdown-it's tokens.

It is exact only on a subset, and says so: any line outside it (indentation, tabs, code
fences, block quotes, tables, setext underlines, ordered lists, reference definitions,
HTML other than a comment, anything it does not know) gives ``None``, and the caller
parses the whole file with markdown-it.  Every line kind it accepts is one that neither
starts a construct markdown-it would read differently nor changes how the lines around
it are read; ``tests/model/test_plain_blocks.py`` compares the two on random documents.
"""

from __future__ import annotations

import re

# Characters that make markdown-it split or read lines differently (CR, NUL, tabs) or that
# Python's ``str.strip`` treats as space where CommonMark does not: the file goes to
# markdown-it.
_OUTSIDE = re.compile(r"[\t\r\x00\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")
# A line that starts a paragraph (or continues one) and nothing else: a letter, a digit not
# followed by an ordered-list marker, an emphasis run followed by a word, inline code that
# is not a fence, or a punctuation mark no block rule looks at.
_PARAGRAPH_START = re.compile(
    r"""(?x)
    [^\W\d_]                            # a letter, in any script
  | [0-9](?![0-9]{0,8}[.)](?:\ |$))     # a digit, not an ordered item (`1. `, `12)`)
  | [*_]+[^\s*_]                        # `**Status:**`, `*State as of:*`, `_x_`
  | `(?!``)                             # inline code, not a fence
  | [("'.,/@$%&?;!)\]{}^]               # punctuation no block rule starts with
    """
)
_HEADING = re.compile(r"(#{1,6})(?: (.*))?")
# A list item: a marker, one space, then paragraph text or a task box.
_BULLET = re.compile(r"[-*+] (?=\S)")
_ORDERED = re.compile(r"([0-9]{1,9})[.)] (?=\S)")
_TASK_BOX = re.compile(r"\[[ xX]\](?: |$)")
_RULE = re.compile(r"(?:-{3,}|\*{3,}|_{3,}) *")  # a thematic break, or a `---` underline
_EQUALS = re.compile(r"=+ *")  # an `===` underline after a paragraph, else paragraph text
_FENCE = re.compile(r"(`{3,}|~{3,})(.*)")
_COMMENT_START = "<!--"
_COMMENT_END = "-->"

# What the line before belongs to: no paragraph, a paragraph of its own (a setext
# underline can close it; an ordered item other than 1 cannot interrupt it), or a list
# item's paragraph (continued lazily).
_NONE, _PARAGRAPH, _ITEM = 0, 1, 2

Blocks = tuple[
    tuple[tuple[int, int, str], ...], tuple[tuple[int, str], ...], tuple[tuple[int, int], ...]
]


def plain_blocks(text: str) -> Blocks | None:
    """``(headings, items, code ranges)`` of ``text``, or None when a line is outside the subset.

    Headings are ``(level, line, text)``; items ``(line, text)``, the text being the
    item's first line as markdown-it's walk reads it; code ranges ``(first line, line
    after the last)``; lines are 1-based.  No table rows exist in the subset.
    """
    if _OUTSIDE.search(text) is not None:
        return None
    headings: list[tuple[int, int, str]] = []
    items: list[tuple[int, str]] = []
    code: list[tuple[int, int]] = []
    lines = text.split("\n")
    if not lines[-1].strip(" "):
        lines.pop()  # a final break ends the last line; a final run of spaces is no line
    count = len(lines)
    state, paragraph_at = _NONE, 0
    number = 0  # lines read so far; the line being read is ``number`` (1-based)
    while number < count:
        line = lines[number]
        number += 1
        if not line.strip(" "):
            state = _NONE
            continue
        first = line[0]
        if first == "#":
            heading = _HEADING.fullmatch(line)
            if heading is None:
                return None
            content = (heading.group(2) or "").strip()
            if content.endswith("#"):
                return None  # a closing sequence: markdown-it's rule for it is not copied here
            headings.append((len(heading.group(1)), number, content))
            state = _NONE
        elif _RULE.fullmatch(line) is not None:
            if number > 1 and "|" in lines[number - 2]:
                return None  # `a |` over `---` is a one-column table
            if first == "-" and state == _PARAGRAPH:
                paragraph = "\n".join(lines[paragraph_at - 1 : number - 1]).strip()
                headings.append((2, paragraph_at, paragraph))
            state = _NONE
        elif first in "-*+" and _BULLET.match(line) is not None:
            if not _item_text_starts(line[2:]):
                return None
            items.append((number, line[2:].strip()))
            state = _ITEM
        elif first.isdigit() and (ordered := _ORDERED.match(line)) is not None:
            content = line[ordered.end() :]
            if not _item_text_starts(content):
                return None
            if state == _PARAGRAPH and int(ordered.group(1)) != 1:
                continue  # only an item numbered 1 interrupts a paragraph: this continues it
            items.append((number, content.strip()))
            state = _ITEM
        elif first == "=" and _EQUALS.fullmatch(line) is not None:
            if state == _ITEM:
                return None
            if state == _PARAGRAPH:
                paragraph = "\n".join(lines[paragraph_at - 1 : number - 1]).strip()
                headings.append((1, paragraph_at, paragraph))
                state = _NONE
            else:
                state, paragraph_at = _PARAGRAPH, number
        elif first in "`~" and (fence := _FENCE.fullmatch(line)) is not None:
            marker, info = fence.groups()
            if marker[0] == "`" and "`" in info:
                return None  # not a fence: markdown-it reads it as a paragraph
            opened = number
            closed = False
            while number < count:
                line = lines[number]
                number += 1
                rest = line.lstrip(" ")
                if (
                    len(line) - len(rest) < 4
                    and rest.startswith(marker)
                    and not rest.lstrip(marker[0]).strip(" ")
                ):
                    closed = True
                    break
            code.append((opened, number + 1 if closed else count + 1))
            state = _NONE
        elif line.startswith(_COMMENT_START):
            # An HTML block (CommonMark's kind 2) runs to the first line holding `-->`,
            # this one included; nothing inside it is read as Markdown.  Only the table
            # rule, tried before it, reads the next line: a delimiter row there would
            # make this line a table's header.
            if (
                _COMMENT_END not in line
                and number < count
                and lines[number].lstrip(" ")[:1] in ("|", ":", "-")
            ):
                return None
            while _COMMENT_END not in line and number < count:
                line = lines[number]
                number += 1
            state = _NONE
        elif _PARAGRAPH_START.match(line) is not None:
            if state == _NONE:
                state, paragraph_at = _PARAGRAPH, number
        else:
            return None
    return tuple(headings), tuple(items), tuple(code)


def _item_text_starts(content: str) -> bool:
    return _TASK_BOX.match(content) is not None or _PARAGRAPH_START.match(content) is not None
