"""One vault note's facts (docs/vaults.md): pure functions of its bytes, cached like document facts.

What Bastra Recall makes of a Markdown file decides everything here: a note
whose frontmatter ``type`` is one of Bastra's types is a memory; a note with
``id`` and ``recall_when`` but a type Bastra does not know is silently never
loaded (``memory-type-unknown``); any other note is a plain Obsidian note and
is left alone.  Bastra's loader is lenient: a block that is not YAML is
re-read entry by entry, and missing required fields are filled in (from the
file name, the body, the file time); the doctor reports both, and never
treats what Bastra still loads as lost.  Nothing here reads the disk.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from typing import Any, NamedTuple

import yaml

from context_doctor.freshness.frontmatter import MAX_DEPTH, read_frontmatter, split_frontmatter
from context_doctor.guards.limits import (
    MAX_FRONTMATTER_BYTES,
    MAX_NOTE_FRONTMATTER_BYTES,
    MAX_RESCUED_ENTRIES,
    yaml_node_limit,
)
from context_doctor.guards.redact import scrub_value
from context_doctor.guards.text import lines as split_lines
from context_doctor.guards.yamlio import (
    RecursiveYaml,
    YamlTooLarge,
    lenient_loader,
    nesting_depth,
    plain,
)
from context_doctor.model.document_facts import decode
from context_doctor.model.secrets import SecretHit, find_secrets, scan_lines
from context_doctor.vault import EMPTY, MEMORY, PLAIN, REJECTED, UNKNOWN_TYPE, UNREADABLE

# Bastra's `MemoryTypeEnum` (packages/core/src/schema.ts).
MEMORY_TYPES = frozenset(
    (
        "lesson",
        "preference",
        "project-fact",
        "meta-working",
        "decision",
        "workflow",
        "reference",
        "user-preference",
        "bookmark",
        "doc",
    )
)
# Required for every type; Bastra repairs a missing or empty one (and says so in its report).
REQUIRED_FIELDS = (
    "id",
    "title",
    "type",
    "summary",
    "topic_path",
    "tags",
    "scope",
    "recall_when",
    "created",
    "updated",
)
_LIST_FIELDS = frozenset(("topic_path", "tags", "recall_when"))
_TEXT_FIELDS = frozenset(("id", "title", "summary", "scope"))
# Written by Bastra's daemon itself, not by a user's hand: a change to only these is no
# mutation a user made, so it needs no audit line (docs/vaults.md).
DAEMON_FIELDS = frozenset(("related_via", "superseded_by", "stale_status"))
DAEMON_PREFIXES = ("recall_when_expanded",)
AUTO_RELATED_START = "<!-- bastra:auto-related:start -->"
AUTO_RELATED_END = "<!-- bastra:auto-related:end -->"


_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TOP_KEY = re.compile(r"^([^\s#:-][^:]*|-[^\s:][^:]*):")
# Bastra's typed optional fields (its `FrontmatterSchema`): a value outside these is
# dropped by its loader (the memory loads without it; releases before the loader's
# repair skip the whole memory instead).
UNIT_RANGE_FIELDS = ("confidence", "salience")  # a number in 0..1
ENUM_FIELDS: dict[str, tuple[str, ...]] = {
    "sensitivity": ("private", "team", "public"),
    "stale_status": ("fresh", "aging", "stale", "expired"),
    "write_origin": ("user-directed", "agent-session", "capture-review"),
    "emotion": ("frustration", "success", "risk", "neutral"),
    "recall_mode": ("reflex", "deliberate"),
}
POSITIVE_INT_FIELDS = ("expires_after_days",)
_TYPE_LINE = re.compile(r"^type:\s*['\"]?([A-Za-z-]+)['\"]?\s*$", re.MULTILINE)
_ENTRY_START = re.compile(r"^(?!-(?:\s|$))[^\s#][^:]*:")


class MemoryFacts(NamedTuple):
    """What the checks need of one note; plain data (the cache stores it as is)."""

    status: str
    problem: str | None  # why the frontmatter is not YAML (or why the file is unreadable)
    rescued: bool  # not YAML as a block, but Bastra's entry-by-entry rescue loads it
    repairs: tuple[tuple[str, str], ...]  # (field, what Bastra does about it)
    declared_id: str | None
    memory_id: str | None  # the id Bastra indexes it under (derived when missing)
    type: str | None
    title: str | None
    aliases: tuple[str, ...]
    related: tuple[str, ...]
    related_via: tuple[str, ...]
    replaces: str | None
    superseded_by: str | None
    field_lines: tuple[tuple[str, int], ...]  # frontmatter key -> 1-based line
    links: tuple[tuple[int, str], ...]  # body [[wikilinks]] outside code: (line, target)
    secrets: tuple[SecretHit, ...]
    authored: str  # digest of what a user writes (daemon-written fields left out)
    # Typed optional fields Bastra's schema rejects: (field, the value as written, why).
    invalid_optional: tuple[tuple[str, str, str], ...]
    obsolete: bool  # `obsolete: true`: Bastra's report judges none of its links

    def line_of(self, key: str) -> int | None:
        for name, line in self.field_lines:
            if name == key:
                return line
        return None


def _facts(status: str, problem: str | None = None, **values: Any) -> MemoryFacts:
    defaults: dict[str, Any] = {
        "rescued": False,
        "repairs": (),
        "declared_id": None,
        "memory_id": None,
        "type": None,
        "title": None,
        "aliases": (),
        "related": (),
        "related_via": (),
        "replaces": None,
        "superseded_by": None,
        "field_lines": (),
        "links": (),
        "secrets": (),
        "authored": "",
        "invalid_optional": (),
        "obsolete": False,
    }
    defaults.update(values)
    return MemoryFacts(status=status, problem=problem, **defaults)


def _core_schema_loader() -> type[Any]:
    """libyaml's safe loader, read the way Bastra's YAML library reads: `yes`, `no`, `on`
    and `off` are text (YAML 1.2), only `true`/`false` are booleans."""
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    resolvers = {
        first: [(tag, regex) for tag, regex in entries if tag != "tag:yaml.org,2002:bool"]
        for first, entries in base.yaml_implicit_resolvers.items()
    }
    loader: Any = type("CoreSchemaLoader", (base,), {"yaml_implicit_resolvers": resolvers})
    loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )
    built: type[Any] = loader
    return built


_LOADER = _core_schema_loader()


def _fast_load(block: str) -> dict[str, Any] | None:
    """The block as plain data through libyaml (about 25 times the round-trip loader's
    speed), or None when it needs the careful path: not YAML, not a mapping, an impossible
    date, aliases that expand too far, nesting past MAX_DEPTH (those are then judged by the
    careful loader, which refuses what nests too deep unread)."""
    if nesting_depth(block, MAX_DEPTH) > MAX_DEPTH:
        return None
    try:
        data = yaml.load(block, Loader=_LOADER)
        if data is None:
            return {}
        if not isinstance(data, dict):
            return None
        converted = plain(data, limit=yaml_node_limit(block))
    except Exception:  # libyaml raises several unrelated types on bad input
        return None
    return converted if isinstance(converted, dict) else None


def unreadable_facts(problem: str) -> MemoryFacts:
    """A note the doctor cannot read (too large, not UTF-8, unreachable): nothing is known."""
    return _facts(UNREADABLE, problem)


def slug_from_filename(name: str) -> str:
    """The id Bastra derives for a memory without a usable one (its `slugFromFilename`)."""
    stem = name[:-3] if name.lower().endswith(".md") else name
    folded = unicodedata.normalize("NFKD", stem).lower()
    slug = re.sub(r"(?:[^\w]|_)+", "-", folded).strip("-")[:120]
    return slug or "untitled"


def path_safe(value: str) -> bool:
    """Bastra's `isPathSafeComponent`: what may become a file name in the vault or trash."""
    return not ("/" in value or "\\" in value or ".." in value or "\0" in value) and (
        not value.startswith(".")
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(value: Any) -> tuple[str, ...]:
    """A list of ids as Bastra reads it (a bare scalar is one item; other items are skipped)."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(str(item).strip() for item in items if isinstance(item, str | int | float))


def _entries(block: str) -> list[str]:
    """The block's top-level entries, split the way Bastra's rescue splits them."""
    entries: list[str] = []
    current: list[str] = []
    for line in block.split("\n"):
        starts = bool(_ENTRY_START.match(line))
        if starts and current:
            entries.append("\n".join(current))
            current = []
        if starts or current:
            current.append(line)
    if current:
        entries.append("\n".join(current))
    return entries


def rescue(block: str) -> tuple[dict[str, Any], list[str]]:
    """What Bastra's lenient loader keeps of a block that is not YAML: each top-level entry
    parsed alone; returns (data, the fields it drops)."""
    data: dict[str, Any] = {}
    dropped: list[str] = []
    parsed_entries = parsed_bytes = 0  # the YAML work is bounded per file (SECURITY.md)
    for entry in _entries(block):
        if not entry.strip():
            continue
        field = entry.split(":", 1)[0].strip() or "(unknown)"
        parsed_entries += 1
        parsed_bytes += len(entry)
        if parsed_entries > MAX_RESCUED_ENTRIES or parsed_bytes > MAX_FRONTMATTER_BYTES:
            dropped.append(field)  # past the bound: not parsed
            continue
        if nesting_depth(entry, MAX_DEPTH) > MAX_DEPTH:
            dropped.append(field)  # refused unread, as read_frontmatter refuses the block
            continue
        try:
            parsed = plain(lenient_loader().load(entry), limit=yaml_node_limit(entry))
        except (RecursiveYaml, YamlTooLarge):
            dropped.append(field)
            continue
        except Exception:  # ruamel raises several unrelated types on bad input
            dropped.append(field)
            continue
        if isinstance(parsed, dict):
            data.update({str(key): value for key, value in parsed.items()})
        else:
            dropped.append(field)
    return data, dropped


def _required_repairs(data: dict[str, Any]) -> list[tuple[str, str]]:
    """Required fields Bastra must fill in itself, and the ones it cannot accept at all."""
    repairs: list[tuple[str, str]] = []
    for name in REQUIRED_FIELDS:
        if name == "type":
            continue
        value = data.get(name)
        if name in _TEXT_FIELDS:
            if not isinstance(value, str) or not value.strip():
                what = "missing" if value is None else "empty or not text"
                repairs.append((name, what))
            elif name == "id" and not path_safe(value):
                repairs.append((name, "not path-safe (Bastra replaces it with the file name)"))
        elif name in _LIST_FIELDS:
            if not isinstance(value, list) or not value:
                repairs.append((name, "missing" if value is None else "empty or not a list"))
        elif value is None or value == "":
            repairs.append((name, "missing"))
    return repairs


def _rejections(data: dict[str, Any]) -> list[str]:
    """Why Bastra's schema would still throw this memory out after its repairs."""
    problems: list[str] = []
    for name in _LIST_FIELDS:
        value = data.get(name)
        if isinstance(value, list) and value and not all(isinstance(v, str) for v in value):
            problems.append(f"`{name}` holds an item that is not text")
    for name in ("created", "updated"):
        value = data.get(name)
        if value not in (None, "") and not isinstance(value, str):
            problems.append(f"`{name}` is not a date or text")
    return problems


def _number(value: Any) -> float | None:
    """A YAML number as JavaScript sees one (a boolean or a quoted number is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def invalid_optional_fields(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Bastra's typed optional fields whose value its schema rejects: (field, value, why).
    Absent or empty fields are fine (Bastra's default is what an empty value means anyway);
    each rejected one is dropped whole by Bastra's loader."""
    data = {key: value for key, value in data.items() if value is not None}
    found: list[tuple[str, str, str]] = []
    for name in UNIT_RANGE_FIELDS:
        if name in data:
            number = _number(data[name])
            if number is None or not 0 <= number <= 1:
                why = "is not a number" if number is None else "is outside 0..1"
                found.append((name, _shown(data[name]), why))
    for name, allowed in ENUM_FIELDS.items():
        if name in data and data[name] not in allowed:
            found.append((name, _shown(data[name]), f"is not one of {'|'.join(allowed)}"))
    for name in POSITIVE_INT_FIELDS:
        if name in data:
            number = _number(data[name])
            if number is None or not number.is_integer() or number <= 0:
                found.append((name, _shown(data[name]), "is not a positive whole number"))
    if "related_via" in data:
        problem = _related_via_problem(data["related_via"])
        if problem is not None:
            found.append(("related_via", _shown(data["related_via"]), problem))
    return found


def _related_via_problem(value: Any) -> str | None:
    """Why Bastra rejects a `related_via` list (each item `{id, reason, score 0..1}`)."""
    if not isinstance(value, list):
        return "is not a list"
    for position, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            return f"item {position} is not a mapping"
        for key in ("id", "reason"):
            if not isinstance(item.get(key), str) or not item[key]:
                return f"item {position} has no `{key}` text"
        score = _number(item.get("score"))
        if score is None:
            return f"item {position} has no numeric `score`"
        if not 0 <= score <= 1:
            return f"item {position} has `score` {_shown(item['score'])}, outside 0..1"
    return None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def authored_digest(data: dict[str, Any] | None, body_lines: list[str]) -> str:
    """A digest of what a user writes: frontmatter without the daemon's own fields, and the
    body without the auto-related block (docs/vaults.md)."""
    kept = {
        key: value
        for key, value in (data or {}).items()
        if key not in DAEMON_FIELDS and not key.startswith(DAEMON_PREFIXES)
    }
    body: list[str] = []
    inside = False
    for line in body_lines:
        if AUTO_RELATED_START in line:
            inside = True
            before = line.split(AUTO_RELATED_START, 1)[0]
            if before.strip().startswith("#"):
                continue  # the block's own heading carries the start marker
        if not inside:
            body.append(line.rstrip())
        if AUTO_RELATED_END in line:
            inside = False
    while body and not body[-1]:
        body.pop()
    digest = hashlib.blake2b(digest_size=16)
    digest.update(_canonical(kept).encode("utf-8", "surrogatepass"))
    digest.update(b"\x00")
    digest.update("\n".join(body).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def body_links(lines: list[str], first: int) -> tuple[tuple[int, str], ...]:
    """``[[target]]`` / ``[[target|label]]`` / ``[[target#part]]`` outside code; embeds
    (``![[...]]``) and links to non-Markdown files are attachments, not memory links.
    ``first``: the file line number of ``lines[0]``."""
    found: list[tuple[int, str]] = []
    fence: str | None = None
    for offset, line in enumerate(lines):
        opened = _FENCE_OPEN.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if "[[" not in line:
            continue
        visible = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for match in _WIKILINK.finditer(visible):
            if match.group(1):
                continue
            target = re.split(r"[|#^]", match.group(2), maxsplit=1)[0].strip()
            if not target:
                continue
            tail = target.rsplit("/", 1)[-1]
            if "." in tail and not tail.lower().endswith(".md"):
                continue  # an attachment (`diagram.png`)
            found.append((first + offset, target.removesuffix(".md")))
    return tuple(found)


def _key_lines(block_lines: list[str], first: int) -> tuple[tuple[str, int], ...]:
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for offset, line in enumerate(block_lines):
        match = _TOP_KEY.match(line)
        if match:
            key = match.group(1).strip().strip("'\"")
            if key not in seen:
                seen.add(key)
                found.append((key, first + offset))
    return tuple(found)


def memory_facts_of_bytes(raw: bytes, name: str) -> MemoryFacts:
    """The facts of one note's bytes, with no detected secret's text in them (they are
    cached, and the checks quote them)."""
    facts = _facts_of_bytes(raw, name)
    if not facts.secrets:
        return facts
    values = secret_values_of_bytes(raw)
    return facts._replace(
        **{
            key: scrub_value(getattr(facts, key), values)
            for key in MemoryFacts._fields
            if key not in ("secrets", "authored", "field_lines")
        }
    )


def secret_values_of_bytes(raw: bytes) -> list[str]:
    """The secrets in a note's text (in memory only: for scrubbing and redaction)."""
    text, _ = decode(raw)
    return [] if text is None else [hit.value for hit in find_secrets(split_lines(text))]


def _facts_of_bytes(raw: bytes, name: str) -> MemoryFacts:
    """The facts of one vault note (pure: safe in a worker process); ``name``: its file name."""
    if not raw.strip():
        return _facts(EMPTY)
    text, problem = decode(raw)
    if text is None:
        return unreadable_facts(f"the file {problem}")
    lines = split_lines(text)
    try:
        parts = split_frontmatter(text)
    except ValueError as error:
        # Never closed: Bastra's loader finds no frontmatter and skips the file; only a
        # note that says it is a memory is worth reporting.
        typed = _TYPE_LINE.search(text[:4096])
        if typed and typed.group(1) in MEMORY_TYPES:
            return _facts(REJECTED, str(error), type=typed.group(1), secrets=_scan(lines))
        return _facts(PLAIN)
    if parts is None:
        return _facts(PLAIN)
    head, block, _body = parts
    if len(block) > MAX_NOTE_FRONTMATTER_BYTES:
        # Not YAML-parsed at all: libyaml alone spends seconds on a few MiB. Whether
        # it is a memory is not known, so nothing is judged: it counts as unreadable.
        return unreadable_facts(
            f"its frontmatter is over {MAX_NOTE_FRONTMATTER_BYTES // 1024} KiB, the most the "
            "doctor parses"
        )
    block_first = 2
    body_first = head.count("\n") + 1
    rescued = False
    dropped: list[str] = []
    yaml_problem: str | None = None
    fast = _fast_load(block)
    if fast is not None:
        data: dict[str, Any] = fast
    else:
        frontmatter, yaml_problem = read_frontmatter(text)
        if frontmatter is not None:
            data = frontmatter.data
        else:
            data, dropped = rescue(block.replace("\r\n", "\n"))
            rescued = True
    declared_type = data.get("type")
    type_text = str(declared_type) if isinstance(declared_type, str | int | float) else None
    is_memory = type_text in MEMORY_TYPES
    field_lines = _key_lines(lines[block_first - 1 : body_first - 2], block_first)
    if not is_memory:
        if "id" in data and "recall_when" in data:
            return _facts(
                UNKNOWN_TYPE,
                yaml_problem,
                rescued=rescued,
                declared_id=_text(data.get("id")),
                type=type_text,
                field_lines=field_lines,
                secrets=_scan(lines),
            )
        return _facts(PLAIN)
    repairs = [repair for repair in _required_repairs(data) if repair[0] not in dropped]
    repairs += [(field, "not YAML (Bastra drops the entry)") for field in dropped]
    declared_id = _text(data.get("id"))
    memory_id = (
        declared_id.strip()
        if declared_id and declared_id.strip() and path_safe(declared_id.strip())
        else slug_from_filename(name)
    )
    rejections = _rejections(data)
    body_lines = lines[body_first - 1 :]
    invalid = invalid_optional_fields(data)
    # A rejected `related_via` is dropped whole: Bastra sees none of its links.
    related_via = (
        None if any(name == "related_via" for name, _, _ in invalid) else data.get("related_via")
    )
    return _facts(
        REJECTED if rejections else MEMORY,
        "; ".join(rejections) if rejections else yaml_problem,
        rescued=rescued,
        repairs=tuple(repairs),
        declared_id=declared_id,
        memory_id=memory_id,
        type=type_text,
        title=_text(data.get("title")),
        aliases=_texts(data.get("aliases")),
        related=_texts(data.get("related")),
        related_via=tuple(
            str(item["id"]).strip()
            for item in (related_via if isinstance(related_via, list) else [])
            if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"].strip()
        ),
        replaces=(_text(data.get("replaces")) or "").strip() or None,
        superseded_by=(_text(data.get("superseded_by")) or "").strip() or None,
        field_lines=field_lines,
        links=body_links(body_lines, body_first),
        secrets=_scan(lines),
        authored=authored_digest(data, body_lines),
        invalid_optional=tuple(invalid),
        obsolete=data.get("obsolete") is True,
    )


def _scan(lines: list[str]) -> tuple[SecretHit, ...]:
    return tuple(scan_lines(lines))
