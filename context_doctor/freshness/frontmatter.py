"""The pai-freshness-v1 syntax on a file: frontmatter block, timestamps, slugs, section markers.

Pure functions of text; nothing here reads the disk or the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ruamel.yaml.error import YAMLError

from context_doctor.guards.limits import MAX_FRONTMATTER_BYTES, yaml_node_limit
from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.text import BOM, lines_with_ends
from context_doctor.guards.yamlio import (
    RecursiveYaml,
    YamlTooLarge,
    lenient_loader,
    nesting_depth,
    plain,
)

CONVENTION = "pai-freshness-v1"
# A ``##`` section's review marker: ``<!-- updated: YYYY-MM-DD by:NAME -->`` (names are non-space runs).
SECTION_MARKER = LazyPattern(r"<!--\s*updated:\s*(\S+)\s+by:(\S+)\s*-->")
_SLUG_JUNK = LazyPattern(r"[^a-z0-9]+")
# LifeOS's own section slug (docs/freshness-grades.md "Sections"): parentheticals out, cut at the first dash.
_INNER_PARENTHETICAL = LazyPattern(r"\s*\([^()]*\)")
_PARENTHETICAL_PASSES = 8
_FIRST_DASH = LazyPattern(r"\s*[\u2014\u2013-]")
_SECTION_JUNK = LazyPattern(r"[^A-Za-z0-9_]+")
_FENCE = LazyPattern(r"^(---|\.\.\.)[ \t]*$")
# Frontmatter is a few flat keys; nothing real nests this deep (yamlio.nesting_depth).
MAX_DEPTH = 32


def slug_of(name: str) -> str:
    """``PRINCIPAL_IDENTITY.md`` -> ``principal_identity``; ``## Current State`` -> ``current_state``."""
    stem = name[:-3] if name.lower().endswith(".md") else name
    return _SLUG_JUNK.sub("_", stem.lower()).strip("_")


def section_slug(heading: str) -> str:
    """A ``##`` heading's slug as LifeOS computes it.

    ``GOALS (measurable milestones toward the problems)`` -> ``goals``; ``Current State
    (where you are now)`` -> ``current_state``; ``Status — Current Work`` -> ``status``;
    ``Self-Care`` -> ``self``.  A heading that is only a parenthetical has the empty slug.
    """
    text = heading
    for _ in range(_PARENTHETICAL_PASSES):
        text, replaced = _INNER_PARENTHETICAL.subn("", text)
        if not replaced:
            break
    dash = _FIRST_DASH.search(text)
    if dash is not None:
        text = text[: dash.start()]
    return _SECTION_JUNK.sub("_", text.strip().lower()).strip("_")


@dataclass
class Frontmatter:
    data: dict[str, Any]
    lines: dict[str, int]  # key -> 1-based line in the file
    end_line: int  # the closing fence's line


@dataclass(frozen=True)
class Timestamp:
    raw: str
    day: date | None
    problem: str | None  # "not a real date", or None


def split_frontmatter(text: str) -> tuple[str, str, str] | None:
    """(opening fence + block, YAML block text, body) of a leading ``---`` block, or None.

    Tolerates a BOM and CRLF line ends; only the first block counts, so a
    ``last_reviewed:`` quoted later in the body is never read as frontmatter.
    """
    body = text.removeprefix(BOM)
    lines = lines_with_ends(body)  # only CRLF, CR and LF end a line (guards/text.py)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index].rstrip("\r\n")):
            head = "".join(lines[: index + 1])
            return head, "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise ValueError("the frontmatter block is never closed (no second `---` line)")


def read_frontmatter(text: str) -> tuple[Frontmatter | None, str | None]:
    """The frontmatter, or the reason it cannot be read; (None, None) when there is none."""
    try:
        parts = split_frontmatter(text)
    except ValueError as error:
        return None, str(error)
    if parts is None:
        return None, None
    head, block, _ = parts
    if nesting_depth(block, MAX_DEPTH) > MAX_DEPTH:
        return None, f"the frontmatter nests more than {MAX_DEPTH} levels deep: refused unread"
    if len(block) > MAX_FRONTMATTER_BYTES:
        return None, (
            f"the frontmatter is over {MAX_FRONTMATTER_BYTES // 1024} KiB, the most the doctor "
            "parses: refused unread"
        )
    try:
        data = lenient_loader().load(block)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return None, f"the frontmatter is not valid YAML{where}"
    except Exception as error:  # ruamel raises a few non-YAMLError types on odd input
        return None, f"the frontmatter is not valid YAML ({error.__class__.__name__})"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, "the frontmatter is not a mapping of keys to values"
    lines: dict[str, int] = {}
    lc = getattr(data, "lc", None)
    for key in data:
        try:
            lines[str(key)] = int(lc.key(key)[0]) + 2 if lc is not None else 1
        except (KeyError, TypeError, AttributeError):
            lines[str(key)] = 1
    try:
        values = plain(data, limit=yaml_node_limit(block))
    except RecursiveYaml as error:
        return None, f"the frontmatter is not valid YAML: {error}"
    except YamlTooLarge as error:
        return None, f"the frontmatter is refused: {error}"
    return Frontmatter(values, lines, head.count("\n")), None


def parse_timestamp(value: Any) -> Timestamp | None:
    """A date or ISO-8601 datetime; a date-only value is that calendar day."""
    if value is None or value == "":
        return None
    raw = str(value)
    if isinstance(value, datetime):
        return Timestamp(raw, value.date(), None)
    if isinstance(value, date):
        return Timestamp(raw, value, None)
    if isinstance(value, str):
        text = value.strip()
        try:
            return Timestamp(raw, date.fromisoformat(text), None)
        except ValueError:
            pass
        try:
            return Timestamp(raw, datetime.fromisoformat(text.replace("z", "Z")).date(), None)
        except ValueError:
            pass
    return Timestamp(raw, None, "not a real date")


# -- graded files -----------------------------------------------------------
