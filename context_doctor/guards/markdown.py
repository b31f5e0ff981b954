"""markdown-it, set up once for every reader of Markdown: the documents' facts and the write path's readability gate.

markdown-it is imported and its parsers built on first use, not at import time: a warm
run takes every document's facts from the cache and never parses, and the import and the
rule chains cost tens of milliseconds of start-up. Its per-rule debug loggers are swapped
for a no-op unless someone asked for their output.
"""

from __future__ import annotations

import logging
import sys
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token


class _NoDebug:
    """Stands in for markdown-it's per-rule module loggers, which are never enabled here.

    Every block rule calls ``LOGGER.debug(...)`` on entry: about 2.5 million calls on a
    2,000-project corpus, each paying for ``Logger.isEnabledFor``.  ``str.format`` on an
    empty string accepts and ignores any arguments in C, so a call costs almost nothing.
    """

    debug = "".format


def _silence_block_rule_loggers() -> None:
    """Swap the block rules' loggers for :class:`_NoDebug` unless someone wants their output.

    Only loggers still at their defaults are swapped: a caller that configured
    ``markdown_it`` logging for DEBUG keeps it.
    """
    for name, module in list(sys.modules.items()):
        if not name.startswith("markdown_it."):
            continue
        logger = getattr(module, "LOGGER", None)
        if isinstance(logger, logging.Logger) and not logger.isEnabledFor(logging.DEBUG):
            module.LOGGER = _NoDebug()  # type: ignore[attr-defined]


@cache
def full_parser() -> MarkdownIt:
    """The whole grammar; only its inline parser is used (for ``links``, see :func:`_links`)."""
    from markdown_it import MarkdownIt  # a third-party import deferred for start-up time

    _silence_block_rule_loggers()
    return MarkdownIt("commonmark", {"html": True}).enable("table")


@cache
def block_parser() -> MarkdownIt:
    """The same block grammar with only the core rules that build block tokens.

    The inline pass (about a quarter of parsing time) and text_join (which works on
    inline children) are off.  Block tokens, and each inline token's raw ``content``,
    are identical; only ``children`` stays empty, and only ``links`` needs them: it
    runs the inline pass itself, on the few inline tokens that can hold a link.
    """
    from markdown_it import MarkdownIt  # a third-party import deferred for start-up time

    _silence_block_rule_loggers()
    return MarkdownIt("commonmark", {"html": True}).enable("table").disable(["inline", "text_join"])


def block_tokens(text: str) -> list[Token]:
    """markdown-it's block tokens of ``text``, as the documents read it (no inline pass)."""
    return block_parser().parse(text, {})
