"""Surgical edits of a frontmatter block: each value's span replaced, every other byte kept.

ruamel composes the block to locate each value's exact span; the span alone is replaced
(keeping its quoting style) or a new ``key: value`` line is added, so key order,
comments, quoting and indentation stay as the user wrote them. (A full ruamel dump would
also re-indent sequences and re-wrap long lines.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from context_doctor.errors import DoctorError
from context_doctor.guards.text import (
    LINE_BREAK,
)

if TYPE_CHECKING:
    pass


def compose_block(block: str) -> MappingNode | None:
    node = YAML(typ="rt").compose(block)
    if node is None or isinstance(node, MappingNode):
        return node
    raise ValueError("the frontmatter is not a mapping of keys to values")


def block_pairs(block: str) -> list[tuple[str, Node]]:
    node = compose_block(block)
    if node is None:
        return []
    return [(str(key.value), value) for key, value in node.value]


def node_shape(node: Node) -> Any:
    """A comparable picture of a node: tag, style and value, recursively."""
    if isinstance(node, ScalarNode):
        return ("scalar", node.tag, node.style, node.value)
    if isinstance(node, SequenceNode):
        return ("sequence", node.tag, [node_shape(item) for item in node.value])
    if isinstance(node, MappingNode):
        return ("mapping", node.tag, [(node_shape(k), node_shape(v)) for k, v in node.value])
    return ("other", node.tag)


def edit_block(block: str, updates: dict[str, str], *, shown: Path, newline: str) -> str:
    """The block with each key's value span replaced, or a ``key: value`` line added."""
    path = shown
    root = compose_block(block)
    pairs = list(root.value) if root is not None else []
    if root is not None and root.flow_style:
        raise DoctorError(
            f"{path}'s frontmatter is a flow mapping (`{{...}}`)",
            "rewrite it as one `key: value` per line, then rerun",
        )
    indent = " " * (pairs[0][0].start_mark.column if pairs else 0)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in block indices
    for key, value in updates.items():
        found = next(((k, v) for k, v in pairs if str(k.value) == key), None)
        if found is not None:
            key_node, node = found
            if not isinstance(node, ScalarNode) or node.style not in (None, "'", '"'):
                raise DoctorError(
                    f"{path}: frontmatter `{key}` is not a single value",
                    f"make `{key}` a plain one-line value by hand, then rerun",
                )
            text = yaml_scalar(key, value, node.style)
            start, end = node.start_mark.index, node.end_mark.index
            if start == end and node.value == "":  # `key:` with nothing after it
                colon = block.index(":", key_node.end_mark.index)
                edits.append((colon + 1, colon + 1, " " + text))
            else:
                edits.append((start, end, text))
            continue
        line = f"{indent}{key}: {yaml_scalar(key, value, None)}{newline}"
        edits.append((_insertion_point(block, pairs, key), -1, line))
    # Apply from the end so earlier indices stay valid; stable for additions at one point.
    for _, (start, end, text) in sorted(
        enumerate(edits), key=lambda item: (item[1][0], item[0]), reverse=True
    ):
        block = block[:start] + text + block[start if end < 0 else end :]
    return block


def _insertion_point(block: str, pairs: list[tuple[Node, Node]], key: str) -> int:
    """Right after the partner key's line (``last_reviewed_by`` after ``last_reviewed``), else the end."""
    partner = key.removesuffix("_by") if key.endswith("_by") else None
    for key_node, node in pairs:
        if partner is None or str(key_node.value) != partner:
            continue
        span = block[key_node.start_mark.index : node.end_mark.index]
        if isinstance(node, ScalarNode) and not re.search(r"[\r\n]", span):
            line_end = LINE_BREAK.search(block, node.end_mark.index)
            if line_end is not None:
                return line_end.end()
    return len(block)


def yaml_scalar(key: str, value: str, style: str | None) -> str:
    """``value`` as YAML text in the style the file used; plain only when it reads back the same."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == '"' or not _plain_reads_back(key, value):
        return json.dumps(value, ensure_ascii=False)
    return value


def _plain_reads_back(key: str, value: str) -> bool:
    try:
        pairs = block_pairs(f"{key}: {value}\n")
    except Exception:
        return False
    if len(pairs) != 1 or not isinstance(pairs[0][1], ScalarNode):
        return False
    node = pairs[0][1]
    wanted = "timestamp" if key in ("last_updated", "last_reviewed") else "str"
    return node.style is None and node.value == value and str(node.tag).endswith(f":{wanted}")
