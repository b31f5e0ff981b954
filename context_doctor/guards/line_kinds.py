"""How each line of a Markdown text reads: as text, code, an HTML block or a table row.

The write path's readability gate (:mod:`context_doctor.write.readable`) compares these
before and after a write: text a writer adds must not change how the lines around it
read (an unclosed code fence turns every entry after it into code, an unclosed
``<!--`` into a comment, a table header absorbs the lines below it as rows), nor leave
the file ending inside a fence or a comment that would swallow what is written next.

The reading is markdown-it's block pass, the one the doctor's documents use
(:mod:`context_doctor.guards.markdown`), so the gate and the checks never disagree.
"""

from __future__ import annotations

from context_doctor.guards.text import LINE_BREAK

TEXT = "text"
CODE = "code"
HTML = "html"
TABLE = "table"

WORDS = {TEXT: "text", CODE: "code", HTML: "an HTML comment", TABLE: "a table row"}

# A paragraph after a blank line: what the next writer would add. No open block but a
# fence or an HTML block reads it as anything but text.
_PROBE = "context-doctor probe"


def lines_of(text: str) -> list[str]:
    """``text``'s lines as markdown-it counts them (CR LF, a lone CR and LF each end one;
    a final break is followed by one empty line)."""
    return LINE_BREAK.split(text)


def line_kinds(text: str) -> tuple[list[str], str]:
    """The kind of each line of ``text`` (as :func:`lines_of` counts them), and the kind a
    paragraph written after it, past a blank line, would read as (``TEXT`` unless the text
    ends inside an unclosed fence or HTML block)."""
    from context_doctor.guards.markdown import block_tokens

    count = len(lines_of(text))
    probed = f"{text}\n\n{_PROBE}\n"
    kinds = [TEXT] * (count + 3)
    for token in block_tokens(probed):
        if token.map is None:
            continue
        if token.type in ("fence", "code_block"):
            kind = CODE
        elif token.type == "html_block":
            kind = HTML
        elif token.type == "table_open":
            kind = TABLE
        else:
            continue
        start, end = token.map
        for line in range(start, min(end, len(kinds))):
            kinds[line] = kind
    return kinds[:count], kinds[count + 1]
