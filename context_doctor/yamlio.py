"""YAML and JSON-Schema plumbing shared by the index, console and scenario readers."""

from __future__ import annotations

import re
import warnings
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError, YAMLFutureWarning, YAMLWarning

from context_doctor.errors import DoctorError
from context_doctor.limits import (
    MAX_CAREFUL_YAML_BYTES,
    MAX_FILE_BYTES,
    TooLarge,
    read_limited,
    yaml_node_limit,
)
from context_doctor.model.conflicts import conflict_regions, may_hold_markers
from context_doctor.model.text import BOM, join_surrogate_pairs

# The bundled schemas and their checks (jsonschema only for an invalid document, #32).
from context_doctor.schema_check import schema as schema
from context_doctor.schema_check import validator as validator

# ruamel reports odd input (a reused anchor, say) as Python warnings, which print the
# offending YAML raw on stderr: hostile text, unescaped.  The doctor reports what
# matters itself, so those warnings are never shown.
warnings.filterwarnings("ignore", category=YAMLWarning)
warnings.filterwarnings("ignore", category=YAMLFutureWarning)


def read_text(path: Path, what: str, limit: int = MAX_FILE_BYTES) -> str:
    try:
        raw = read_limited(path, limit)
    except TooLarge as error:
        raise DoctorError(
            f"{what} {path} {error}", "split or shorten it; it is not parsed"
        ) from error
    except OSError as error:
        raise DoctorError(
            f"cannot read {what} {path}: {error.strerror or error}",
            "check the path and its permissions",
        ) from error
    try:
        return raw.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"{what} {path} is not valid UTF-8 (byte {error.start})",
            "re-save the file as UTF-8",
        ) from error


class _LenientConstructor(RoundTripConstructor):
    """Round-trip constructor that keeps an impossible date (``2026-13-45``) as its string.

    ruamel raises ``ValueError`` for such a scalar, which would turn one bad index
    field into "not valid YAML" (exit 2); as a string it reaches schema validation
    and is reported against its entry and field instead.
    """

    def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except ValueError:
            return self.construct_scalar(node)


_LenientConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", _LenientConstructor.construct_yaml_timestamp
)


def lenient_loader() -> YAML:
    """A round-trip loader whose impossible dates stay strings (see ``_LenientConstructor``)."""
    loader = YAML(typ="rt")
    loader.Constructor = _LenientConstructor
    return loader


def load_yaml(path: Path, what: str) -> Any:
    """Round-trip load, so entries keep their line numbers; exit 2 when it is not YAML."""
    return load_yaml_text(read_text(path, what), path, what)


# index.yaml and console.yaml are lists of flat records; nothing real nests this deep.
MAX_FILE_DEPTH = 64


def load_yaml_text(text: str, path: Path, what: str) -> Any:
    """:func:`load_yaml` over text already read (``path`` names it in errors)."""
    problem = careful_parse_refusal(text)
    if problem is not None:
        raise DoctorError(
            f"{what} {path} {problem}", "write the data out flat; no field of it nests that deeply"
        )
    try:
        if len(text) > MAX_CAREFUL_YAML_BYTES:
            syntax_checked(text)
        data = lenient_loader().load(text)
        # Refuse a recursive alias or an alias bomb here, once, rather than in every reader.
        plain(data, limit=yaml_node_limit(text))
        return data
    except RecursiveYaml as error:
        raise DoctorError(
            f"{what} {path} is not valid YAML: {error}", "remove the alias"
        ) from error
    except YamlTooLarge as error:
        raise DoctorError(
            f"{what} {path} is refused: {error}",
            "write the data out instead of nesting aliases of aliases",
        ) from error
    except (YAMLError, FastYamlError) as error:
        conflict = (
            conflict_regions(text.splitlines(), frozenset()) if may_hold_markers(text) else []
        )
        if conflict:
            raise DoctorError(
                f"{what} {path} holds an unresolved merge conflict (line {conflict[0].start})",
                "resolve the conflict (keep the right entries, delete the `<<<<<<<`, `=======` "
                "and `>>>>>>>` lines) and commit",
            ) from error
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise DoctorError(
            f"{what} {path} is not valid YAML{where}: {problem}",
            "fix the YAML syntax (a YAML linter will point at it)",
        ) from error
    except Exception as error:  # ruamel raises a few non-YAMLError types on odd input
        raise DoctorError(
            f"{what} {path} is not valid YAML: {error.__class__.__name__}",
            "fix the YAML syntax (a YAML linter will point at it)",
        ) from error


def careful_load(text: str) -> Any:
    """The round-trip load of ``text`` under the same bounds as :func:`load_yaml_text`, for
    a writer re-reading a file the audit already parsed (it may have changed since): a
    refusal is a :class:`FastYamlError`."""
    problem = careful_parse_refusal(text)
    if problem is not None:
        raise FastYamlError(problem, None)
    if len(text) > MAX_CAREFUL_YAML_BYTES:
        syntax_checked(text)
    return lenient_loader().load(text)


def careful_parse_refusal(text: str) -> str | None:
    """Why ``text`` is never handed to the careful (round-trip) parser, or None.

    That parser and its composer recurse once per level of nesting (3,000 nested ``[``
    take tens of seconds), so nesting past :data:`MAX_FILE_DEPTH` is refused unread.
    """
    if nesting_depth(text, MAX_FILE_DEPTH) > MAX_FILE_DEPTH:
        return f"nests more than {MAX_FILE_DEPTH} levels deep: refused unread"
    return None


class FastYamlError(ValueError):
    """libyaml refused a large document's syntax (see :func:`syntax_checked`)."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None if line is None else _Mark(line)


class _Mark:
    def __init__(self, line: int) -> None:
        self.line = line


def syntax_checked(text: str) -> None:
    """Raise :class:`FastYamlError` when libyaml (C) refuses ``text``'s syntax.

    The careful parser is pure Python and spends a second per 100-odd KiB before it finds
    an error at a large file's end (a 1.6 MiB broken index took over half a minute);
    libyaml parses the same text in a fraction of a second (events only, aliases unexpanded). Asked
    only of a file over :data:`~context_doctor.limits.MAX_CAREFUL_YAML_BYTES`: what it
    accepts is then parsed carefully as ever; what it refuses is never handed over.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for _event in yaml.parse(text, Loader=loader):  # events: no node is built
            pass
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        raise FastYamlError(
            error.problem or "not YAML", None if mark is None else mark.line
        ) from None
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        raise FastYamlError(
            str(error).splitlines()[0] if str(error) else "not YAML", None
        ) from None


# The only characters the scan of a line's text acts on.
_FLOW_OR_QUOTE = re.compile(r"[\[\]{}'\"#]")
# Where a quote opens a quoted scalar (a quote inside a plain scalar, as in `it's`, does not).
_QUOTE_OPENERS = frozenset(" \t[{,:-?")


def nesting_depth(text: str, limit: int) -> int:
    """How deeply collections nest in YAML ``text``, measured without parsing it.

    ruamel's parser and composer recurse once per level: 3,000 nested ``[`` take tens of
    seconds, so a depth past ``limit`` is refused before the text is parsed.  A line's
    depth is its place in the stack of indentations, plus the sequence (``- ``) and
    complex-key (``? ``) indicators that open it, plus the flow collections (``[``,
    ``{``) open at that point, outside quoted scalars.  Stops counting past ``limit``.
    """
    deepest = 0
    flow = 0
    indents: list[int] = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        if flow == 0:
            indent = len(line) - len(stripped)
            while indents and indents[-1] > indent:
                indents.pop()
            if not indents or indents[-1] < indent:
                indents.append(indent)
            rest = stripped
            while rest[:2] in ("- ", "? ") or rest in ("-", "?"):
                indents.append(indents[-1] + 1)  # a compact nested entry: one more level
                rest = rest[2:].lstrip(" ")
            deepest = max(deepest, len(indents))
        if deepest > limit:
            break
        if not _FLOW_OR_QUOTE.search(stripped):
            continue  # nothing below changes on this line (most lines of a large file)
        quote = ""
        previous = " "
        for character in stripped:
            if quote:
                if character == quote:
                    quote = ""
            elif character in "'\"" and previous in _QUOTE_OPENERS:
                quote = character
            elif character == "#" and previous in " \t":
                break  # a comment runs to the line's end
            elif character in "[{":
                flow += 1
                deepest = max(deepest, len(indents) + flow)
            elif character in "]}":
                flow = max(0, flow - 1)
            previous = character
        if deepest > limit:
            break
    return deepest


class RecursiveYaml(ValueError):
    """An alias that contains itself (``&a [*a]``): no finite document to check."""


class YamlTooLarge(ValueError):
    """Aliases that expand past :func:`~context_doctor.limits.yaml_node_limit` (an alias bomb)."""


def plain(value: Any, *, limit: int | None = None) -> Any:
    """Round-trip YAML data as plain JSON data (dates as ISO strings) for validation.

    Aliases are followed, so the result can be far larger than the text: past
    ``limit`` nodes :class:`YamlTooLarge` is raised instead of expanding on.
    """
    budget = [limit if limit is not None else -1]

    def convert(value: Any, open_nodes: frozenset[int]) -> Any:
        budget[0] -= 1
        if budget[0] == 0:
            raise YamlTooLarge(f"its aliases expand to more than {limit:,} values (an alias bomb?)")
        if isinstance(value, dict | list | tuple):
            if id(value) in open_nodes:
                raise RecursiveYaml("a YAML alias refers to a node that contains it")
            inner = open_nodes | {id(value)}
            if isinstance(value, dict):
                return {
                    join_surrogate_pairs(str(key)): convert(item, inner)
                    for key, item in value.items()
                }
            return [convert(item, inner) for item in value]
        if isinstance(value, datetime | date):
            return value.isoformat()
        if isinstance(value, str):
            return join_surrogate_pairs(str(value))
        return value

    return convert(value, frozenset())


def line_of(node: Any, key: Any) -> int | None:
    """1-based line of a key in a round-trip mapping or an index in a sequence."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        position = lc.key(key) if isinstance(node, dict) else lc.item(key)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    if not isinstance(position, tuple | list) or not position or not isinstance(position[0], int):
        return None  # a tagged node (`!!python/object`) carries no line data
    return int(position[0]) + 1
