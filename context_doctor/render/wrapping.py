"""Where a report line breaks at the terminal's width (docs/output.md).

A finding, its remedy, a coverage line and the verdict wrap at word boundaries with a
hanging indent; a path, a check name or an option is one word, and a backticked span (an
inline command, a line to add, a field) is one unit however many spaces it holds: it is
never broken as prose would be. Three cases a plain word wrap does not meet:

* A unit longer than the line it would start on moves to a line of its own; one longer
  than its indent leaves room for starts closer to the margin (outdented), so that a
  75-character line to add, or a 79-character location, still fits at 80 columns.
* An inline shell command longer than the line is cut only where the shell cuts it,
  at a space outside quotes, each cut ending in `` \\`` (a line continuation): the
  command still runs as pasted.
* A single shell word (a quoted argument) longer than the whole line cannot be cut
  without changing it: it stands alone on its line, over the width.

Into a pipe or a file there is no width: each finding keeps one line (``grep`` works).
Only :mod:`context_doctor.render.text` uses this, and only for the human rendering.
"""

from __future__ import annotations

from dataclasses import dataclass

SHELL_COMMANDS = frozenset({"context-doctor", "git", "printf", "pip", "pipx", "python", "python3"})
"""The first words that mark a backticked span as a command (cut only as the shell cuts)."""
CONTINUATION = " \\"


@dataclass(frozen=True)
class Piece:
    """One output line: ``indent``, then ``text[start:end]``, then ``suffix``."""

    start: int
    end: int
    indent: str = ""
    suffix: str = ""


def code_spans(text: str) -> list[tuple[int, int]]:
    """Each backticked span as ``(start, end)``, backticks included (Markdown's rule: a run
    of backticks closes at the next run of the same length; an unclosed one is literal)."""
    spans: list[tuple[int, int]] = []
    position = 0
    while (opening := text.find("`", position)) != -1:
        run = opening
        while run < len(text) and text[run] == "`":
            run += 1
        fence = text[opening:run]
        search = run
        while True:
            closing = text.find(fence, search)
            if closing == -1:
                position = run  # unclosed: literal backticks
                break
            after = closing + len(fence)
            if after < len(text) and text[after] == "`":  # a longer run: not the closer
                while after < len(text) and text[after] == "`":
                    after += 1
                search = after
                continue
            spans.append((opening, after))
            position = after
            break
    return spans


def units(text: str) -> list[tuple[int, int]]:
    """The unbreakable units of ``text``: runs of non-space, a backticked span counting as
    no space (so ``(`a b`).`` is one unit)."""
    inside = bytearray(len(text))
    for start, end in code_spans(text):
        inside[start:end] = b"\x01" * (end - start)
    found: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        if text[position].isspace() and not inside[position]:
            position += 1
            continue
        start = position
        while position < len(text) and not (text[position].isspace() and not inside[position]):
            position += 1
        found.append((start, position))
    return found


def _command_cuts(text: str, start: int, end: int) -> list[int] | None:
    """Where the shell command spanning ``text[start:end]`` may be cut: the offsets of the
    spaces outside quotes inside its backticks. None: the unit holds no command."""
    spans = code_spans(text[start:end])
    if len(spans) != 1:
        return None
    opening, closing = (start + offset for offset in spans[0])
    fence = len(text[opening:closing]) - len(text[opening:closing].lstrip("`"))
    open_end = opening + fence
    body = text[open_end : closing - fence]
    first = body.split(" ", 1)[0]
    if first not in SHELL_COMMANDS and not first.endswith(("/python", "/python3")):
        return None
    cuts: list[int] = []
    quote = ""
    escaped = False
    for offset, char in enumerate(body):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == " ":
            cuts.append(open_end + offset)
    return cuts


def break_line(text: str, width: int | None, subsequent: str) -> list[Piece]:
    """``text`` (which carries its own first-line indent) as lines of at most ``width``
    columns, continuation lines indented by ``subsequent``. ``width`` None: one line."""
    if width is None or len(text) <= width:
        return [Piece(0, len(text))]
    pieces: list[Piece] = []
    line_start, indent, line_end = 0, "", -1  # line_end -1: nothing on the line yet

    def close_line(next_start: int) -> None:
        nonlocal line_start, indent, line_end
        pieces.append(Piece(line_start, line_end, indent))
        line_start, indent, line_end = next_start, subsequent, -1

    for start, end in units(text):
        if line_end >= 0 and len(indent) + end - line_start <= width:
            line_end = end
            continue
        cuts = _command_cuts(text, start, end) if end - start > width - len(subsequent) else None
        if cuts:
            if line_end >= 0 and len(indent) + cuts[0] - line_start + len(CONTINUATION) > width:
                close_line(start)
            _cut_command(text, start, end, cuts, width, subsequent, pieces, line_start, indent)
            last = pieces.pop()
            line_start, indent, line_end = last.start, last.indent, last.end
            continue
        if line_end >= 0:
            close_line(start)
        lead = len(indent) + start - line_start  # the columns before the unit on its line
        if lead + end - start > width:
            # Too long for its indent: closer to the margin, else alone and over.
            line_start, indent = start, " " * max(0, min(lead, width - (end - start)))
        line_end = end
    if line_end >= 0:
        pieces.append(Piece(line_start, line_end, indent))
    return pieces


def _cut_command(
    text: str,
    start: int,
    end: int,
    cuts: list[int],
    width: int,
    subsequent: str,
    pieces: list[Piece],
    line_start: int,
    indent: str,
) -> None:
    """Lay the command unit ``text[start:end]`` out from the current line, cut at ``cuts``
    with a line continuation, each continuation one step deeper than ``subsequent``."""
    deeper = subsequent + "  "
    boundaries = [*cuts, end]
    segment_start = line_start
    segment_indent = indent
    position = 0
    while position < len(boundaries):
        last_fit = position
        # The segment always takes one word; then as many more as fit with the continuation.
        while (
            last_fit + 1 < len(boundaries)
            and len(segment_indent) + boundaries[last_fit + 1] - segment_start
            + (len(CONTINUATION) if last_fit + 1 < len(boundaries) - 1 else 0)
            <= width
        ):  # fmt: skip
            last_fit += 1
        stop = boundaries[last_fit]
        final = last_fit == len(boundaries) - 1
        pieces.append(Piece(segment_start, stop, segment_indent, "" if final else CONTINUATION))
        if final:
            return
        segment_start = stop + 1  # past the space the shell cuts at
        segment_indent = deeper
        position = last_fit + 1
