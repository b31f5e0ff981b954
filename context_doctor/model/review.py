"""The post-close review rule (docs/checks.md "Terminal").

``post_close_reviewed_through: <sha>`` in the index silences
``terminal-project-active`` only while all of these hold: the sha resolves to
a commit; every commit of the project is that commit or its ancestor (not
only the newest by date: a branch merged later can carry older-dated project
commits); the project has no uncommitted changes; and the index entry's ``completed_date``
and ``last_session`` at that commit equal today's.  The acknowledgment lives
in the index, not in the project, because writing it inside the project would
itself be a new project commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from ruamel.yaml.error import YAMLError

from context_doctor.git.commits import Scope
from context_doctor.git.facts import RepositoryFacts
from context_doctor.guards.limits import MAX_YAML_FILE_BYTES
from context_doctor.guards.patterns import LazyPattern
from context_doctor.guards.text import parse_iso_date
from context_doctor.guards.yamlio import careful_load
from context_doctor.model.index import IndexEntry

_HEX = LazyPattern(r"[0-9a-fA-F]{4,64}")


@dataclass(frozen=True)
class PostCloseReview:
    recorded: str | None  # the sha as written in the index
    resolved: str | None  # the full sha, when it names a commit
    holds: bool
    why_not: str | None = None


# What a review compares of the index at the reviewed commit: each id's first entry's
# `completed_date` and `last_session`, as ``parse_iso_date`` reads them, in ISO text (a
# YAML timestamp marked as one: it equals no index date).  Kept as a memo between runs.
REVIEWED_DATES = ("completed_date", "last_session")
DatesById = dict[str, tuple[str | None, str | None]]


def _stamp(value: object) -> str | None:
    day = parse_iso_date(value)
    if day is None:
        return None
    return f"time {day.isoformat()}" if isinstance(day, datetime) else day.isoformat()


def _dates_at(
    facts: RepositoryFacts, index_rel_path: str, project_id: str, sha: str
) -> tuple[str | None, str | None] | None:
    raw = facts.file_at(sha, index_rel_path, MAX_YAML_FILE_BYTES)
    if raw is None:
        return None
    memo = facts.store
    dates = memo.recall("index-dates-at", DatesById, raw) if memo is not None else None
    if dates is None:
        dates = _dates_by_id(raw)
        if memo is not None and dates is not None:
            memo.keep("index-dates-at", raw, dates)
    return None if dates is None else dates.get(project_id)


@lru_cache(maxsize=8)
def _dates_by_id(raw: bytes) -> DatesById | None:
    """Each id's first entry's dates in an index file's bytes, parsed once per distinct content.

    Reviews usually name one or a few commits, so without this the whole index at
    that commit would be parsed again for every reviewed project (reviewed projects x
    index size; benchmarks/README.md).  Callers only read the result.
    """
    if len(raw) > MAX_YAML_FILE_BYTES:
        return None  # bounded as the index itself is (limits.py)
    try:
        text = raw.decode("utf-8")
        # An old index is as untrusted as today's: 10,000 nested `[` made the parser
        # recurse past Python's limit; a large broken one cost half a minute. It is
        # read as today's is (yamlio.careful_load: libyaml, bounded).
        data = careful_load(text)
    except (YAMLError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    entries = data.get("projects") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        return None
    found: DatesById = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            completed, last = (_stamp(entry.get(name)) for name in REVIEWED_DATES)
            found.setdefault(entry["id"], (completed, last))
    return found


def review_of(
    entry: IndexEntry | None,
    facts: RepositoryFacts,
    *,
    index_rel_path: str,
    scope: Scope,
    project_id: str,
    has_uncommitted: Callable[[], bool],
) -> PostCloseReview:
    """The review recorded in a project's index ``entry``, judged against the repository."""
    raw = entry.fields.get("post_close_reviewed_through") if entry else None
    if raw is None or entry is None:
        return PostCloseReview(None, None, False, "no review recorded")
    recorded = str(raw).strip()
    # Only a hex object name counts: a branch or tag name would move under the review.
    resolved = facts.resolve_commit(recorded) if _HEX.fullmatch(recorded) else None
    if resolved is None:
        return PostCloseReview(recorded, None, False, "the sha does not resolve")
    history = facts.history()
    if history is None:
        return PostCloseReview(
            recorded, resolved, False, "the history is incomplete (shallow clone)"
        )
    commits = history.of(scope, project_id)
    if commits and not facts.all_ancestors([pc.commit.sha for pc in commits], resolved):
        return PostCloseReview(recorded, resolved, False, "the project has commits after it")
    if has_uncommitted():
        return PostCloseReview(recorded, resolved, False, "the project has uncommitted changes")
    then = _dates_at(facts, index_rel_path, project_id, resolved)
    if then is None:
        return PostCloseReview(recorded, resolved, False, "the index at that commit has no entry")
    for name, stamp in zip(REVIEWED_DATES, then, strict=True):
        if stamp != _stamp(entry.fields.get(name)):
            return PostCloseReview(recorded, resolved, False, f"`{name}` changed since that commit")
    return PostCloseReview(recorded, resolved, True)
