"""The collector paused during an audit and frozen after it under the console script."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from context_doctor.model import collector


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


def test_letting_the_audit_go_empties_the_last_documents_facts(tmp_path: Path) -> None:
    """The recent-facts cache holds views of the documents cache file: it goes with the model."""
    from context_doctor.cache.codec import encode
    from context_doctor.model import documents
    from context_doctor.model.document_facts import facts_of_text

    path = tmp_path / "CONTEXT.md"
    path.write_text("# P\n\n- [ ] item\n", encoding="utf-8")
    document = documents.Document(path, "CONTEXT.md")
    document.keep_packed(encode(facts_of_text(path.read_text(encoding="utf-8"))))
    assert document.list_items
    assert any(held is document for held, _ in documents._RECENT.values())
    collector.release_audit()
    assert not documents._RECENT
    assert document.list_items  # decoded again when asked
