"""A document: one file of a project, read at most once, its facts held packed.

The facts themselves (:class:`~context_doctor.model.document_facts.DocumentFacts`) are
taken from the text by :mod:`context_doctor.model.document_facts`.  A prepared document
holds them as their cache encoding (:meth:`Document.keep_packed`) and decodes them when a
check asks; the last few documents' decoded facts are kept (:func:`_recent_facts`).

Nothing here raises on bad input except :class:`Unreadable`, which the engine
turns into a skip and ``record-unreadable`` turns into a finding.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from context_doctor.errors import Unreadable
from context_doctor.guards.limits import TooLarge, read_limited, resolves_within
from context_doctor.guards.text import lines as split_lines
from context_doctor.model.collector import release_with_the_audit
from context_doctor.model.document_facts import (
    TAIL_LINES,
    AsOfLine,
    DatedRow,
    DocumentFacts,
    HeaderField,
    Heading,
    Link,
    ListItem,
    decode,
    facts_of_bytes,
    facts_of_text,
    links_of_text,
    unreadable_facts,
)
from context_doctor.model.reference_text import Reference
from context_doctor.model.secrets import SecretHit, find_secrets
from context_doctor.model.suppression_comments import SuppressionComment

if TYPE_CHECKING:
    import msgspec


class Document:
    """One file of a project; its bytes are read and parsed at most once.

    ``links=True`` (``REFERENCE.md``) also collects links, which need markdown-it's
    inline pass.  The facts are normally filled in ahead of the checks by
    :func:`context_doctor.store.prepare_documents` (from the persistent cache, or
    parsed in parallel); a document nobody prepared parses itself when first asked.
    """

    def __init__(
        self,
        path: Path,
        rel_path: str,
        root: Path | None = None,
        *,
        links: bool = False,
        listed_file: bool | None = None,
    ) -> None:
        """``listed_file``: the caller's directory listing shows ``path`` as no symlink, in
        a folder that resolves to itself inside ``root``; True when the entry is a regular
        file.  Then ``exists`` and ``outside`` need no ``stat`` or ``realpath``."""
        self.path = path
        self.rel_path = rel_path
        self.root = root  # when given, a file that resolves outside it is never read
        self.wants_links = links
        if listed_file is not None:
            self.__dict__["exists"] = listed_file
            self.__dict__["outside"] = False

    @cached_property
    def outside(self) -> bool:
        """The file is a symlink leaving ``root`` (the repository): it is not read."""
        return self.root is not None and not resolves_within(self.path, self.root)

    def __repr__(self) -> str:
        return f"Document({self.rel_path!r})"

    @classmethod
    def from_text(cls, text: str, path: Path, rel_path: str) -> Document:
        """A document over text already read (it is parsed, never read again)."""
        document = cls(path, rel_path)
        document.__dict__["exists"] = True
        document.__dict__["_given_text"] = text
        return document

    @cached_property
    def exists(self) -> bool:
        return self.path.is_file()

    def read_bytes(self) -> bytes | str:
        """The file's bytes, or why they cannot be read (SECURITY.md: at most 4 MiB are parsed)."""
        if self.outside:
            return "resolves outside the repository: not read"
        try:
            return read_limited(self.path)
        except TooLarge as error:
            return f"{error}: split it (archive old entries) so it can be checked"
        except OSError as error:
            return f"cannot be read ({error.strerror or error.__class__.__name__})"

    def keep_packed(self, packed: bytes | msgspec.Raw) -> None:
        """Hold the facts as their cache encoding (already checked to decode), decoded on use.

        A parsed document's facts as Python objects take about ten times the bytes of the
        file (a list item is a tuple, a string and an int or two); as MessagePack they take
        less than the file. :func:`context_doctor.pipeline.prepare.prepare` hands every prepared
        document its facts this way, so a corpus holds them packed, decodes each document's
        when a check asks, and :meth:`release` lets the decoded form go.
        """
        self.__dict__["_packed"] = packed
        self.__dict__.pop("facts", None)

    @property
    def facts(self) -> DocumentFacts:
        """The facts: held (parsed here, or given), or decoded from the packed form.

        Decoded facts are not kept by the document: the last few documents' are
        (:func:`_recent_facts`), which serves a project's checks, run one project after
        another, and lets a pass over every document (the suppressions, the redaction)
        decode each in turn without holding them all.
        """
        found: DocumentFacts | None = self.__dict__.get("facts")
        if found is not None:
            return found
        packed = self.__dict__.get("_packed")
        if packed is not None:
            return _recent_facts(self, packed)
        found = self.__dict__["facts"] = self._parse()
        return found

    def _parse(self) -> DocumentFacts:
        given = self.__dict__.get("_given_text")
        if given is not None:
            return facts_of_text(given, self.wants_links)
        raw = self.read_bytes()
        if isinstance(raw, str):
            return unreadable_facts(raw)
        return facts_of_bytes(raw, self.wants_links)

    def release(self) -> None:
        """Let go of what was derived from the facts (and the facts, when held packed).

        Everything dropped is computed again, the same, if asked for: the engine calls this
        once a project's checks are done, so a corpus holds one project's views of its
        facts at a time rather than all of them.
        """
        kept = self.__dict__
        for name in _DERIVED:
            kept.pop(name, None)

    def _readable(self) -> DocumentFacts:
        facts = self.facts
        if facts.problem is not None:
            raise Unreadable(self.path, self.rel_path, facts.problem)
        return facts

    @property
    def problem(self) -> str | None:
        """Why the file cannot be read, without raising; None when it reads fine."""
        if not self.exists:
            return None
        return self.facts.problem

    @property
    def text(self) -> str:
        """The text itself: read again on demand (the checks work from the facts)."""
        given = self.__dict__.get("_given_text")
        if given is not None:
            return str(given)
        raw = self.read_bytes()
        text, problem = (None, raw) if isinstance(raw, str) else decode(raw)
        if text is None:
            raise Unreadable(self.path, self.rel_path, problem or "cannot be read")
        return text

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    def last_lines(self, count: int) -> list[str]:
        """``lines[-count:]`` (count >= 1): from the facts when they keep that many."""
        if 1 <= count <= TAIL_LINES:
            return list(self._readable().tail[-count:])
        return self.lines[-count:]

    @property
    def line_count(self) -> int:
        return self._readable().line_count

    @property
    def is_blank(self) -> bool:
        return self._readable().blank

    @cached_property
    def code_lines(self) -> frozenset[int]:
        """1-based lines inside fenced or indented code blocks."""
        return frozenset(
            line for start, end in self._readable().code_ranges for line in range(start, end)
        )

    @cached_property
    def headings(self) -> list[Heading]:
        return list(self._readable().headings)

    @cached_property
    def list_items(self) -> list[ListItem]:
        return list(self._readable().list_items)

    @property
    def as_of_lines(self) -> tuple[AsOfLine, ...]:
        return self._readable().as_of_lines

    @cached_property
    def header_fields(self) -> list[HeaderField]:
        """``**Name:** value`` fields of the header: the lines before the first ``##`` heading.

        Restricting fields to the header keeps a ``**Status:**`` line quoted in
        a body section (a paused note, a release table) from being read as the
        project's own status.
        """
        return list(self._readable().header_fields)

    @property
    def line_fields(self) -> tuple[HeaderField, ...]:
        """Every field anywhere in the file by the docs/layouts.md line rule, in file order."""
        return self._readable().line_fields

    @property
    def comment_fields(self) -> tuple[HeaderField, ...]:
        """Every ``<!-- Name: value -->`` comment field, in file order."""
        return self._readable().comment_fields

    @property
    def dated_rows(self) -> tuple[DatedRow, ...]:
        """Table body rows whose first cell starts with a date, outside code."""
        return self._readable().dated_rows

    @property
    def references(self) -> tuple[Reference, ...]:
        """The path references of the text (docs/references.md), in line order."""
        return self._readable().references

    @cached_property
    def links(self) -> list[Link]:
        facts = self._readable()
        return list(facts.links if facts.links is not None else links_of_text(self.text))

    @cached_property
    def _heading_index(self) -> dict[int, tuple[list[int], list[Heading]]]:
        return {}

    def heading_above(self, line: int, max_level: int = 6) -> Heading | None:
        """The nearest heading at or above ``line`` whose level is at most ``max_level``."""
        index = self._heading_index.get(max_level)
        if index is None:
            kept = [h for h in self.headings if h.level <= max_level]
            index = ([h.line for h in kept], kept)
            self._heading_index[max_level] = index
        position = bisect_right(index[0], line) - 1
        return index[1][position] if position >= 0 else None

    @property
    def claim_labels(self) -> tuple[tuple[int, str, str], ...]:
        return self._readable().claim_labels

    @property
    def release_lines(self) -> tuple[tuple[int, str, int, int, int, int], ...]:
        return self._readable().release_lines

    @property
    def may_hold_attributions(self) -> bool:
        return self._readable().may_hold_attributions

    @property
    def may_hold_markers(self) -> bool:
        """A merge-conflict marker may be in the text (guards/conflicts.py's cheap look)."""
        return self._readable().may_hold_markers

    @property
    def secret_hits(self) -> tuple[SecretHit, ...]:
        """Credential material in the file's lines (model/secrets.py), redacted."""
        return self._readable().secrets

    @cached_property
    def secret_values(self) -> tuple[str, ...]:
        """The secrets themselves, for redacting quotes (never kept, never printed).

        Read from the text again, and only when the facts (perhaps from the cache,
        which holds no secret's text) say the file holds one: few files do.
        """
        facts = self.facts
        if facts.problem is not None or not facts.secrets:
            return ()
        try:
            return tuple(hit.value for hit in find_secrets(self.lines))
        except Unreadable:
            return ()

    @cached_property
    def suppressions(self) -> list[SuppressionComment]:
        """Inline ``<!-- context-doctor: ... -->`` suppression comments (model/suppressions.py)."""
        return [replace(comment, path=self.rel_path) for comment in self._readable().suppressions]

    def field_values(self, name: str) -> list[HeaderField]:
        return list(self._fields_by_name.get(name.casefold(), ()))

    @cached_property
    def _fields_by_name(self) -> dict[str, list[HeaderField]]:
        """The header fields grouped by casefolded name, in order (checks ask by name often)."""
        grouped: dict[str, list[HeaderField]] = {}
        for field in self.header_fields:
            grouped.setdefault(field.name.casefold(), []).append(field)
        return grouped


# What :meth:`Document.release` drops: the cached views of the facts and the text's lines.
_DERIVED = (
    "lines",
    "code_lines",
    "headings",
    "list_items",
    "header_fields",
    "links",
    "_heading_index",
    "secret_values",
    "suppressions",
    "_fields_by_name",
)


# How many documents' decoded facts are kept: a project's tier files, a few times over.
RECENT_FACTS = 64
_RECENT: OrderedDict[int, tuple[Document, DocumentFacts]] = OrderedDict()
# Its documents' packed facts are views of the whole documents cache file's bytes.
release_with_the_audit(_RECENT.clear)


def _recent_facts(document: Document, packed: bytes | msgspec.Raw) -> DocumentFacts:
    """``document``'s facts decoded from ``packed``, kept for the last RECENT_FACTS documents."""
    key = id(document)
    found = _RECENT.get(key)
    if found is not None and found[0] is document:
        _RECENT.move_to_end(key)
        return found[1]
    facts = decode_facts(packed)
    _RECENT[key] = (document, facts)
    if len(_RECENT) > RECENT_FACTS:
        _RECENT.popitem(last=False)
    return facts


def decode_facts(packed: bytes | msgspec.Raw) -> DocumentFacts:
    """Facts from their cache encoding (:func:`context_doctor.cache.codec.encode`)."""
    from context_doctor.cache.codec import decode  # the codec imports the history model

    return decode(packed, DocumentFacts)
