"""The collector paused during an audit and frozen after it under the console script."""

from __future__ import annotations

import gc

import pytest

from context_doctor import collector


def test_under_the_console_script_a_pause_freezes_what_it_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The collector never walks an audit's objects again; a second audit lets them go."""
    monkeypatch.setattr(collector._Collector, "freeze_after", True)
    monkeypatch.setattr(collector._Collector, "frozen", False)
    try:
        with collector.paused_collection():
            assert not gc.isenabled()
            built = [[n] for n in range(1000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(built)
        with collector.paused_collection():  # check --fix audits again: the first audit is let go
            assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        collector._Collector.frozen = False
    assert gc.isenabled()
