"""The history pass's reading of one commit: a bot's authorship (SPEC §10 work)."""

from __future__ import annotations

import pytest

from context_doctor.git.history import is_bot


@pytest.mark.parametrize(
    ("author", "bot"),
    [
        ("github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>", True),
        ("GitHub Action <action@github.com>", True),
        ("renovate[bot] <bot@renovateapp.com>", True),
        ("Ada Lovelace <ada@example.org>", False),
        ("botanist <b@example.org>", False),
    ],
)
def test_a_bots_authorship(author: str, bot: bool) -> None:
    assert is_bot(author) is bot
