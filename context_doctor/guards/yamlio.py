"""YAML and JSON-Schema plumbing shared by the index, console and scenario readers."""

from __future__ import annotations

import re
import warnings
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import MaxDepthExceededError
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError, YAMLFutureWarning, YAMLWarning
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver

from context_doctor.errors import DoctorError
from context_doctor.guards.conflicts import conflict_regions, may_hold_markers
from context_doctor.guards.limits import (
    MAX_CAREFUL_YAML_BYTES,
    MAX_FILE_BYTES,
    MAX_YAML_COLLECTIONS,
    MAX_YAML_FILE_BYTES,
    TooLarge,
    read_limited,
    yaml_node_limit,
)

# The bundled schemas and their checks (jsonschema only for an invalid document).
from context_doctor.guards.schema_check import schema as schema
from context_doctor.guards.schema_check import validator as validator
from context_doctor.guards.text import BOM, join_surrogate_pairs

# index.yaml and console.yaml are lists of flat records; nothing real nests this deep.
MAX_FILE_DEPTH = 64

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
    """A round-trip loader whose impossible dates stay strings (see ``_LenientConstructor``).

    Its composer recurses once per level of nesting: past :data:`MAX_FILE_DEPTH` levels
    it stops (``MaxDepthExceededError``), whatever a line scan of the text made of it (a
    quote the scan took for an opening one hid 100,000 nested ``[``).
    """
    loader = YAML(typ="rt")
    loader.Constructor = _LenientConstructor
    loader.max_depth = MAX_FILE_DEPTH
    return loader


def load_yaml(path: Path, what: str) -> Any:
    """Round-trip load, so entries keep their line numbers; exit 2 when it is not YAML."""
    return load_yaml_text(read_text(path, what, MAX_YAML_FILE_BYTES), path, what)


def load_yaml_text(text: str, path: Path, what: str) -> Any:
    """:func:`load_yaml` over text already read (``path`` names it in errors)."""
    try:
        return careful_load(text)
    except TooDeepYaml as error:
        raise DoctorError(
            f"{what} {path} {error.problem}",
            "write the data out flat; no field of it nests that deeply",
        ) from error
    except YamlOverBound as error:
        raise DoctorError(
            f"{what} {path} {error.problem}{_line_of(error)}",
            "split or shorten it; it is not parsed",
        ) from error
    except RecursiveYaml as error:
        raise DoctorError(
            f"{what} {path} is not valid YAML: {error}", "remove the alias"
        ) from error
    except YamlTooLarge as error:
        raise DoctorError(
            f"{what} {path} is refused: {error}",
            "write the data out instead of nesting aliases of aliases",
        ) from error
    except UnreadableConstruct as error:
        raise DoctorError(
            f"{what} {path} {error.problem}{_line_of(error)}",
            "write the data out as plain keys and values",
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


def _line_of(error: FastYamlError) -> str:
    return "" if error.problem_mark is None else f" (line {error.problem_mark.line + 1})"


def careful_load(text: str) -> Any:
    """``text`` as the round-trip loader reads it (mappings and sequences carry ``lc`` line
    data), within a bounded time whatever the text: the one YAML read of an index or
    console file, by the audit and by the writers re-reading it.

    Decision: libyaml (C, PyYAML's parser)
    parses, and :func:`fast_load` builds from its events the values ruamel's round-trip
    loader would (YAML 1.2 scalars, the same line and column of every key, value and
    item): ruamel's own parser is pure Python, a second per 100-odd KiB, and a valid
    4 MiB index took the better part of a minute.  ruamel still reads what that
    builder does not reproduce exactly (explicit tags, merge keys, keys that are
    collections, duplicate keys, a ``%YAML`` directive, an alias of an enclosing
    collection) and words a syntax error, but only in text up to
    :data:`~context_doctor.guards.limits.MAX_CAREFUL_YAML_BYTES`; a larger file holding one
    is refused with one line (:class:`UnreadableConstruct`, or libyaml's syntax error
    at its line).  Nesting past :data:`MAX_FILE_DEPTH` is :class:`TooDeepYaml`,
    counted on libyaml's events, never by recursion.  Aliases that expand past
    :func:`~context_doctor.guards.limits.yaml_node_limit` values are :class:`YamlTooLarge`, and
    one that contains itself :class:`RecursiveYaml`, on either path.  A refusal is a
    :class:`FastYamlError`, or one of those two.
    """
    if len(text) > MAX_YAML_FILE_BYTES:
        raise YamlOverBound(TooLarge(MAX_YAML_FILE_BYTES).args[0], None)
    try:
        return fast_load(text)
    except FastYamlError as reason:
        if isinstance(reason, TooDeepYaml | YamlOverBound) or len(text) > MAX_CAREFUL_YAML_BYTES:
            raise
    problem = careful_parse_refusal(text)
    if problem is not None:
        raise TooDeepYaml(problem, None)
    try:
        data = lenient_loader().load(text)
    except MaxDepthExceededError:
        raise TooDeepYaml(f"nests more than {MAX_FILE_DEPTH} levels deep: refused", None) from None
    # A recursive alias or an alias bomb is refused here, once, rather than in every reader.
    plain(data, limit=yaml_node_limit(text))
    return data


def careful_parse_refusal(text: str) -> str | None:
    """Why ``text`` is never handed to the careful (round-trip) parser, or None.

    That parser and its composer recurse once per level of nesting (3,000 nested ``[``
    take tens of seconds), so nesting past :data:`MAX_FILE_DEPTH` is refused unread.
    """
    if nesting_depth(text, MAX_FILE_DEPTH) > MAX_FILE_DEPTH:
        return f"nests more than {MAX_FILE_DEPTH} levels deep: refused unread"
    return None


class FastYamlError(ValueError):
    """libyaml refused a document's syntax, or the document is refused unread."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = None if line is None else _Mark(line)


class TooDeepYaml(FastYamlError):
    """Collections nested past :data:`MAX_FILE_DEPTH`."""


class YamlOverBound(FastYamlError):
    """Text past :data:`~context_doctor.guards.limits.MAX_YAML_FILE_BYTES`, or holding more than
    :data:`~context_doctor.guards.limits.MAX_YAML_COLLECTIONS` collections."""


class UnreadableConstruct(FastYamlError):
    """A construct :func:`fast_load` does not reproduce, in text too large for ruamel."""


class _Mark:
    def __init__(self, line: int) -> None:
        self.line = line


class _Located:
    """Where a collection and its parts start (0-based line and column) and how it was
    written, answering ruamel's ``lc`` (``key(k)``, ``value(k)``, ``item(i)``, ``line``,
    ``col``) and ``fa`` (``flow_style()``: True for ``{...}``/``[...]``, False for block
    style, None for an empty one) on the collection itself: no object more per
    collection, which a 1 MiB flow list of small mappings has by the hundred thousand."""

    __slots__ = ()
    line: int
    col: int
    flow: bool | None
    places: Any  # key -> (key line, key col, value line, value col); item -> (line, col)

    @property
    def lc(self) -> _Located:
        return self

    @property
    def fa(self) -> _Located:
        return self

    def flow_style(self, default: bool | None = None) -> bool | None:
        return default if self.flow is None else self.flow

    def key(self, key: Any) -> tuple[int, int]:
        found = self.places[key]
        return found[0], found[1]

    def value(self, key: Any) -> tuple[int, int]:
        found = self.places[key]
        return found[2], found[3]

    def item(self, index: int) -> tuple[int, int]:
        found: tuple[int, int] = self.places[index]
        return found


class YamlMap(_Located, dict[Any, Any]):
    """A mapping :func:`fast_load` built; ``lc`` and ``fa`` as ruamel's (see ``_Located``)."""

    __slots__ = ("col", "flow", "line", "places")


class YamlSeq(_Located, list[Any]):
    """A sequence :func:`fast_load` built; ``lc`` and ``fa`` as ruamel's."""

    __slots__ = ("col", "flow", "line", "places")


_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
# A plain scalar whose first character is none of these is text under every YAML 1.2
# resolver ruamel has (bool, int, float, null, timestamp, merge, value): no regex asked.
_RESOLVED_FIRST = frozenset("tTfF-+0123456789.<~nN=!&*")
_UNREAD_TAGS = frozenset((_TAG + "merge", _TAG + "value", _TAG + "yaml"))


def fast_load(text: str) -> Any:
    """``text``'s single document as ruamel's round-trip loader reads it, built from
    libyaml's events (see :func:`careful_load`; raises what it does not reproduce).

    Equal to ruamel's result as plain data, with the same ``lc`` lines and columns:
    mappings are :class:`YamlMap`, sequences :class:`YamlSeq`, plain scalars resolved by
    ruamel's YAML 1.2 resolver and built by its round-trip constructor (so a date is a
    ``date``, ``0x1F`` ruamel's ``HexInt``), block scalars ruamel's string types.  An
    alias is the anchored value itself, never expanded here; its expansion is counted.
    """
    import yaml

    loader = getattr(yaml, "CBaseLoader", None)
    if loader is None:  # PyYAML without libyaml: only ruamel remains
        raise UnreadableConstruct("cannot be read quickly (PyYAML has no libyaml)", None)
    resolver = VersionedResolver(version=(1, 2))
    # Its own instance: the scalars are built by ruamel's code, not a stand-in's.
    rt = YAML(typ="rt")
    rt.Constructor = _LenientConstructor
    constructor = rt.constructor
    builders = {
        _TAG + name: getattr(constructor, f"construct_yaml_{name}")
        for name in ("int", "float", "bool", "null", "timestamp")
    }
    tags: dict[str, str] = {}
    built: dict[tuple[str, str], Any] = {}
    # An anchor's value, where its node starts (ruamel places an alias at its anchor) and
    # how many values it expands to (counted as plain() counts them: the bound is O(1)
    # per event, so an alias bomb is refused as it is read, never expanded).
    anchors: dict[str, tuple[Any, Any, int]] = {}
    limit = yaml_node_limit(text)
    open_ids: set[int] = set()
    # One frame per open collection:
    # [container, is_mapping, key, key_line, key_col, values expanded so far, anchor].
    stack: list[list[Any]] = []
    root: Any = None
    documents = collections = 0
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    stream_end, document_start = yaml.StreamEndEvent, yaml.DocumentStartEvent
    parser = loader(text)
    missing = builders  # a sentinel no value is
    try:
        next_event = parser.get_event
        while True:
            event = next_event()
            kind = event.__class__
            mark = event.start_mark
            if kind is scalar_event:
                if event.tag is not None:
                    raise UnreadableConstruct(f"uses a YAML tag (`{event.tag}`)", mark.line)
                value: Any = event.value
                style = event.style
                if not style:  # plain: resolved as ruamel's YAML 1.2 resolver does
                    if value and value[0] not in _RESOLVED_FIRST:
                        tag = _STR
                    else:
                        tag = tags.get(value) or tags.setdefault(
                            value, resolver.resolve(ScalarNode, value, (True, False)).suffix
                        )
                    if tag != _STR or event.anchor is not None:
                        if tag in _UNREAD_TAGS or (tag not in builders and tag != _STR):
                            raise UnreadableConstruct(
                                f"uses a YAML merge key or value indicator (`{value}`)",
                                mark.line,
                            )
                        if event.anchor is not None:
                            value = constructor.construct_object(
                                ScalarNode(tag, value, mark, event.end_mark, anchor=event.anchor)
                            )
                        else:
                            value = built.get((tag, value), missing)
                            if value is missing:
                                node = ScalarNode(tag, event.value, mark, event.end_mark)
                                value = built[(tag, event.value)] = builders[tag](node)
                elif style in "|>" or event.anchor is not None:
                    value = constructor.construct_object(
                        ScalarNode(_STR, value, mark, event.end_mark, style, anchor=event.anchor)
                    )
                size = 1
                if event.anchor is not None:
                    anchors[event.anchor] = (value, mark, size)
            elif kind is alias_event:
                if event.anchor not in anchors:
                    raise FastYamlError(f"found undefined alias {event.anchor!r}", mark.line)
                value, mark, size = anchors[event.anchor]
                if id(value) in open_ids:
                    raise UnreadableConstruct(
                        "holds an alias of a collection inside itself", mark.line
                    )
            elif kind is mapping_start or kind is sequence_start:
                if event.tag is not None:
                    raise UnreadableConstruct(f"uses a YAML tag (`{event.tag}`)", mark.line)
                if len(stack) >= MAX_FILE_DEPTH:
                    raise TooDeepYaml(
                        f"nests more than {MAX_FILE_DEPTH} levels deep: refused unread", None
                    )
                collections += 1
                if collections > MAX_YAML_COLLECTIONS:
                    raise YamlOverBound(
                        f"holds more than {MAX_YAML_COLLECTIONS:,} mappings and lists, the most "
                        "the doctor parses",
                        mark.line,
                    )
                if kind is mapping_start:
                    value = YamlMap()
                    value.places = {}
                else:
                    value = YamlSeq()
                    value.places = []
                value.line, value.col, value.flow = mark.line, mark.column, event.flow_style
                size = 0  # counted when it closes
                if event.anchor is not None:
                    anchors[event.anchor] = (value, mark, 0)
            elif kind is mapping_end or kind is sequence_end:
                frame = stack.pop()
                open_ids.discard(id(frame[0]))
                if not frame[0]:
                    frame[0].flow = None  # ruamel keeps no style for an empty one
                size = frame[5] + 1
                if frame[6] is not None:
                    anchors[frame[6]] = (frame[0], anchors[frame[6]][1], size)
                if stack:
                    stack[-1][5] += size
                    size = stack[-1][5]
                if size >= limit:
                    raise YamlTooLarge(_too_large(limit))
                continue
            elif kind is stream_end:
                break
            elif kind is document_start:
                documents += 1
                if documents > 1:
                    raise FastYamlError(
                        "expected a single document in the stream, but found another document",
                        mark.line,
                    )
                if event.version is not None or event.tags:
                    raise UnreadableConstruct("starts with a YAML directive (`%`)", mark.line)
                continue
            else:
                continue
            if stack:
                frame = stack[-1]
                container = frame[0]
                if not frame[1]:
                    container.places.append((mark.line, mark.column))
                    container.append(value)
                    frame[5] += size
                    if frame[5] >= limit:
                        raise YamlTooLarge(_too_large(limit))
                elif frame[3] is None:
                    if kind is not scalar_event and isinstance(value, YamlMap | YamlSeq):
                        raise UnreadableConstruct("has a key that is a collection", mark.line)
                    frame[2], frame[3], frame[4] = value, mark.line, mark.column
                else:
                    key = frame[2]
                    if key in container:
                        raise UnreadableConstruct(f'has the key "{key}" twice', frame[3])
                    container.places[key] = (frame[3], frame[4], mark.line, mark.column)
                    container[key] = value
                    frame[3] = None
                    frame[5] += size
                    if frame[5] >= limit:
                        raise YamlTooLarge(_too_large(limit))
            else:
                root = value
            if kind is mapping_start or kind is sequence_start:
                stack.append([value, kind is mapping_start, None, None, 0, 0, event.anchor])
                open_ids.add(id(value))
    except yaml.MarkedYAMLError as error:
        where = error.problem_mark
        raise FastYamlError(
            error.problem or "not YAML", None if where is None else where.line
        ) from None
    except yaml.YAMLError as error:
        raise FastYamlError(
            str(error).splitlines()[0] if str(error) else "not YAML", None
        ) from None
    finally:
        parser.dispose()
    return root


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
    """Aliases that expand past :func:`~context_doctor.guards.limits.yaml_node_limit` (an alias bomb)."""


def _too_large(limit: int | None) -> str:
    return f"its aliases expand to more than {limit:,} values (an alias bomb?)"


def plain(value: Any, *, limit: int | None = None) -> Any:
    """Round-trip YAML data as plain JSON data (dates as ISO strings) for validation.

    Aliases are followed, so the result can be far larger than the text: past
    ``limit`` nodes :class:`YamlTooLarge` is raised instead of expanding on.
    """
    budget = [limit if limit is not None else -1]

    def convert(value: Any, open_nodes: frozenset[int]) -> Any:
        budget[0] -= 1
        if budget[0] == 0:
            raise YamlTooLarge(_too_large(limit))
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
