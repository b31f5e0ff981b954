"""The audit's walk through the package's rooms: one audit of a corpus, traced call by call.

Runs ``context-doctor check --source CORPUS --json --no-cache --no-report-cache --jobs 1
--today 2026-07-01`` in this process under :func:`sys.setprofile` (and
:func:`threading.setprofile`, so the history thread is traced too; ``--jobs 1`` keeps the
parsing in this process), and reports how the audit moves between the package's rooms::

    python benchmarks/audit_walk.py /work/bench/kb-200
    python benchmarks/audit_walk.py /work/bench/kb-200 --cache     # a cold run with the cache
    python benchmarks/audit_walk.py /work/bench/kb-200 --json      # the figures as JSON
    python benchmarks/audit_walk.py /work/bench/kb-200 --climbs    # and every climb, listed

``--cache`` audits a copy of the corpus (made in a temporary directory, with a temporary
``XDG_CACHE_HOME`` for the replay secret) without ``--no-cache``: the first run of a
corpus, which takes the run key, audits, and stores the report for replay. Nothing is
written into the corpus or the user's cache either way.

Whichever ``context_doctor`` the interpreter imports is measured (an older install, for a
"before"); the layer order always comes from this checkout's ``docs/architecture.md``
(``--layers`` names another file), so two versions are measured against one order.

The definitions (also in benchmarks/README.md, "The audit walk"):

* A **room** is the top-level folder of ``context_doctor/`` a function's source file lies
  in (``model``, ``cache``, ...), or the loose module's name (``cli``, ``library``...).
  Code generated at run time (dataclass and NamedTuple methods, whose source is
  ``<string>``) and code outside the package belong to no room.
* A **call** is a profiler ``call`` event of a function in a room. Its **caller** is the
  nearest frame below it on the stack that is in a room: a call that goes through the
  standard library or a third-party package (``sorted`` calling a key, ``concurrent``,
  click, msgspec) is the package's caller's call. A call is **crossing** when the caller's
  room is not the callee's. The command line's own frames (the click group and the
  ``check`` command's option handling before the audit) are traced like any other.
* **Rooms crossed**: the number of distinct rooms any call enters.
* **The walk**: the package's functions in the order each is *first* called (a function
  called again adds nothing: the walk is where the audit goes, not how often), each
  mapped to its room. A **stay** is a maximal run of one room along the walk; **stays**
  counts them. (Counting stays along every call instead would count how often the checks
  ask the model, which is not the shape of the audit.)
* A **climb back up** is a crossing call from a room into a room of a *higher* layer in
  the documented layer order (docs/architecture.md, "What each room may import"): the
  lower room calling back into one that may import it. **Climbs** counts the distinct
  (caller room, callee room) pairs of those calls: the headline figure. Also reported:
  **climbing function edges**, the distinct (caller function, callee function) pairs of
  climbing calls, and **climbing events**, every climbing call counted. Two rooms of one
  layer (the loose public faces) are never a climb; a room the order does not name is
  reported as such and never counted.

Nothing here is timed: the profiler makes the run several times slower, and only its
shape is measured.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

TODAY = "2026-07-01"
HERE = Path(__file__).resolve().parent.parent


def layer_order(architecture: Path) -> dict[str, int]:
    """Room -> layer (0 lowest), from the numbered list under "What each room may import"."""
    text = architecture.read_text(encoding="utf-8")
    section = text.split("## What each room may import", 1)
    if len(section) != 2:
        sys.exit(f"{architecture} has no section 'What each room may import'")
    layers: dict[str, int] = {}
    for line in section[1].split("\n## ", 1)[0].splitlines():
        found = re.match(r"^(\d+)\. (.*)$", line.strip())
        if found is None:
            continue
        number = int(found.group(1))
        for room in re.findall(r"`([^`]+)`", found.group(2)):
            layers[room.removesuffix("/").removesuffix(".py")] = number
    return layers


class Tracer:
    def __init__(self, package: Path) -> None:
        self.prefix = str(package) + "/"
        self.rooms: dict[str, str | None] = {}  # filename -> room
        self.first: list[tuple[str, str]] = []  # (room, function) in order of first call
        self.seen: set[Any] = set()
        self.crossings: Counter[tuple[str, str, str, str]] = Counter()
        self.lock = threading.Lock()

    def room(self, filename: str) -> str | None:
        found = self.rooms.get(filename, "")
        if found != "":
            return found
        room = None
        if filename.startswith(self.prefix):
            relative = filename[len(self.prefix) :]
            head, _, rest = relative.partition("/")
            room = head if rest else head.removesuffix(".py")
        self.rooms[filename] = room
        return room

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        room = self.room(code.co_filename)
        if room is None:
            return
        caller = frame.f_back
        while caller is not None and self.room(caller.f_code.co_filename) is None:
            caller = caller.f_back
        name = f"{code.co_filename[len(self.prefix) :]}:{code.co_qualname}"
        with self.lock:
            if code not in self.seen:
                self.seen.add(code)
                self.first.append((room, name))
            if caller is None:
                return
            caller_room = self.room(caller.f_code.co_filename)
            assert caller_room is not None
            if caller_room != room:
                caller_name = (
                    f"{caller.f_code.co_filename[len(self.prefix) :]}:{caller.f_code.co_qualname}"
                )
                self.crossings[(caller_room, room, caller_name, name)] += 1


def trace(corpus: Path, cache: bool) -> tuple[Tracer, int]:
    import context_doctor
    from context_doctor.cli import main

    tracer = Tracer(Path(context_doctor.__file__).resolve().parent)
    args = ["check", "--source", str(corpus), "--json", "--no-report-cache"]
    args += [] if cache else ["--no-cache"]
    args += ["--jobs", "1", "--today", TODAY]
    out = io.StringIO()
    threading.setprofile(tracer.profile)
    sys.setprofile(tracer.profile)
    try:
        with contextlib.redirect_stdout(out):
            try:
                main(args)
                code = 0
            except SystemExit as exit_:
                code = int(exit_.code or 0)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type,unused-ignore]
    if '"findings"' not in out.getvalue():
        sys.exit(f"no report from the audit of {corpus} (exit {code})")
    return tracer, code


def figures(tracer: Tracer, layers: dict[str, int]) -> dict[str, Any]:
    walk = [room for room, _ in tracer.first]
    stay_rooms = [room for i, room in enumerate(walk) if i == 0 or walk[i - 1] != room]
    stays = len(stay_rooms)
    rooms = sorted({room for room, _ in tracer.first})
    unplaced = sorted(room for room in rooms if room not in layers)
    climbs: Counter[tuple[str, str]] = Counter()
    edges: Counter[tuple[str, str]] = Counter()
    listed: list[tuple[str, str, int]] = []
    for (low, high, caller, callee), count in tracer.crossings.items():
        if low in layers and high in layers and layers[high] > layers[low]:
            climbs[(low, high)] += count
            edges[(low, high)] += 1
            listed.append((caller, callee, count))
    return {
        "rooms_crossed": len(rooms),
        "rooms": rooms,
        "rooms_not_in_the_order": unplaced,
        "functions": len(walk),
        "stays": stays,
        "stays_by_room": dict(sorted(Counter(stay_rooms).items())),
        "climbs": len(climbs),
        "climbing_function_edges": sum(edges.values()),
        "climbing_events": sum(climbs.values()),
        "climbs_by_rooms": {
            f"{low} -> {high}": {"function_edges": edges[(low, high)], "events": count}
            for (low, high), count in sorted(climbs.items())
        },
        "climbing_edges": sorted(f"{a} -> {b} ({n})" for a, b, n in listed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--layers", type=Path, default=HERE / "docs" / "architecture.md")
    parser.add_argument("--cache", action="store_true", help="a cold run with the cache, on a copy")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--climbs", action="store_true", help="list every climbing edge")
    parser.add_argument("--stays", action="store_true", help="list the walk's stays")
    parser.add_argument("--into", metavar="ROOM", help="list the crossing calls into ROOM")
    options = parser.parse_args()
    layers = layer_order(options.layers)
    corpus = options.corpus.resolve()
    if options.cache:
        with tempfile.TemporaryDirectory(prefix="audit-walk-") as scratch:
            copy = Path(scratch) / corpus.name
            shutil.copytree(corpus, copy, symlinks=True)
            os.environ["XDG_CACHE_HOME"] = str(Path(scratch) / "xdg-cache")
            tracer, _code = trace(copy, cache=True)
    else:
        tracer, _code = trace(corpus, cache=False)
    found = figures(tracer, layers)
    if options.json:
        print(json.dumps(found, indent=2))
        return
    print(f"rooms crossed: {found['rooms_crossed']} ({', '.join(found['rooms'])})")
    if found["rooms_not_in_the_order"]:
        print(f"rooms the order does not name: {', '.join(found['rooms_not_in_the_order'])}")
    print(f"functions in the walk: {found['functions']}; stays: {found['stays']}")
    print("  stays by room: " + ", ".join(f"{r} {n}" for r, n in found["stays_by_room"].items()))
    print(
        f"climbs back up: {found['climbs']} room pairs, "
        f"{found['climbing_function_edges']} function edges, {found['climbing_events']} events"
    )
    for pair, counts in found["climbs_by_rooms"].items():
        print(f"  {pair}: {counts['function_edges']} function edges, {counts['events']} events")
    if options.stays:
        walk = tracer.first
        start = 0
        for i in range(1, len(walk) + 1):
            if i == len(walk) or walk[i][0] != walk[start][0]:
                print(f"    {walk[start][0]:10s} {i - start:4d}  from {walk[start][1]}")
                start = i
    if options.into:
        for (_low, high, caller, callee), count in sorted(tracer.crossings.items()):
            if high == options.into:
                print(f"    {caller} -> {callee} ({count})")
    if options.climbs:
        for edge in found["climbing_edges"]:
            print(f"    {edge}")


if __name__ == "__main__":
    main()
