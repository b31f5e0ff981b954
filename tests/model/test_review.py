"""The post-close review's view of the index at a reviewed commit (model/review.py).

That view is a memo kept between runs, reduced to the two dates a review compares; the
reduced form must decide exactly as comparing the dates themselves did.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

from ruamel.yaml import YAML

from context_doctor.cache import codec
from context_doctor.guards.text import parse_iso_date
from context_doctor.guards.yamlio import load_yaml_text, plain
from context_doctor.model.review import DatesById, _dates_by_id, _stamp

VALUES = [
    "2025-01-01",
    "'2025-01-01'",
    "' 2025-01-01 '",
    "2025-01-02",
    "2025-01-01 10:00:00",
    "2025-01-01T10:00:00+02:00",
    "'2025-13-01'",
    "''",
    "null",
    "7",
    "yes",
    "[2025-01-01]",
]


def test_the_reduced_dates_decide_as_the_dates_did() -> None:
    for then_text, now_text in product(VALUES, VALUES):
        then = YAML(typ="safe").load(f"d: {then_text}\n")["d"]  # the index at the commit
        now = plain(load_yaml_text(f"d: {now_text}\n", Path("index.yaml"), "index file"))[
            "d"
        ]  # today's
        expected = parse_iso_date(then) != parse_iso_date(now)
        assert (_stamp(then) != _stamp(now)) == expected, (then_text, now_text)


def test_the_dates_at_a_commit_round_trip_through_the_cache() -> None:
    raw = (
        b"projects:\n  - id: a\n    completed_date: 2025-01-01\n    last_session: 2025-01-01 10:00:00\n"
        b"  - id: b\n  - id: a\n    completed_date: 2026-01-01\n"
    )
    dates = _dates_by_id(raw)
    assert dates == {"a": ("2025-01-01", "time 2025-01-01T10:00:00"), "b": (None, None)}
    assert codec.decode(codec.encode(dates), DatesById) == dates
