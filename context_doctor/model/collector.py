"""The cyclic garbage collector during an audit: paused while it builds, frozen after it.

Kept apart from :mod:`context_doctor.pipeline.prepare` so that the console script can promise
the freeze (:func:`freeze_after_pauses`) without importing the audit (``--version``
must not load the pipeline to set a flag).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class _Collector:
    """How :func:`paused_collection` leaves the collector (process-wide, like ``gc`` itself)."""

    freeze_after = False  # set by the console script: the process ends after its command
    frozen = False  # a pause froze what it built (so a later pause lets it go first)


def freeze_after_pauses() -> None:
    """The console script's promise: the process ends soon after its audit.

    Then what a pause built is frozen (``gc.freeze``) rather than handed back to the
    collector: it stays alive until the report is out anyway, and the full passes the
    collector would make over it (one as soon as it is enabled again, one each time
    the objects move up a generation, one at interpreter exit) cost about 1.2 s of
    CPU after a warm run at 2,000 projects, for nothing.
    """
    _Collector.freeze_after = True


@contextmanager
def paused_collection() -> Iterator[None]:
    """The cyclic garbage collector off while the facts and findings are built.

    A run allocates millions of small tuples (facts, tokens in the workers, YAML
    nodes) and almost no reference cycles, so each of CPython's generation-2
    passes walks everything for nothing: with the collector paused a warm run at
    2,000 projects takes about a quarter less CPU (benchmarks/README.md).  It runs
    again when the audit is done; under the console script
    (:func:`freeze_after_pauses`) the audit's objects are frozen first, so it never
    walks them.  A second pause in one process (``check --fix`` audits again)
    unfreezes and collects the first one's objects before it starts.
    """
    was_enabled = gc.isenabled()
    if _Collector.frozen:
        _Collector.frozen = False
        gc.unfreeze()
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if _Collector.freeze_after:
            gc.freeze()
            _Collector.frozen = True
        if was_enabled:
            gc.enable()


_RELEASED_WITH_THE_AUDIT: list[Callable[[], None]] = []


def release_with_the_audit(forget: Callable[[], None]) -> None:
    """Have :func:`release_audit` call ``forget``: a module-level cache of the model's
    objects (the last documents' decoded facts) would otherwise keep them, and what they
    point at (a whole cache file's bytes), past the model's end."""
    _RELEASED_WITH_THE_AUDIT.append(forget)


def release_audit() -> None:
    """Free what the audit built and nothing refers to any more (the model, once its report
    is made): its objects hold reference cycles (projects and their sources, documents and
    their projects), which only a collection frees, and a frozen pause never collects them.
    """
    for forget in _RELEASED_WITH_THE_AUDIT:
        forget()
    if _Collector.frozen:
        _Collector.frozen = False
        gc.unfreeze()
    gc.collect()
