"""The one glob engine: every glob the user or the audited tree supplies is matched here, in
linear time (docs/configuration.md).

A committed configuration is hostile input. A glob translated to a regular expression
(``**`` to ``.*``) is matched by Python's backtracking engine, and ``**a**a**a…**b``
against one long file name takes time exponential in the number of ``**``: a pull request
could hang the doctor in CI. No regular expression is built from a glob here. A glob is
compiled to a small automaton over its *positions* (how much of the glob has matched), and
a name is read once, character by character, carrying the set of positions it could be at
as the bits of one integer (Thompson's simulation, bit-parallel). Each character costs a
fixed handful of integer operations on that set, whatever the glob, so a match costs time
proportional to the name's length times the glob's length in machine words, with no
backtracking at all. :attr:`Globs.steps` counts those operations, so a test bounds the
cost of a match by counting, never by timing.

Two dialects, each the one its setting has always had:

* :data:`PATH` (``work_ignore``, ``[per-path-ignores]``): ``*`` is any run of characters
  within one folder name, ``?`` one such character, ``**/`` any number of whole folders
  (none too), ``**`` elsewhere any run of characters, across folders. Nothing else is
  special.
* :data:`SHELL` (``[instructions] budgets``): :func:`fnmatch.fnmatchcase`'s own, where
  ``*`` and ``?`` cross ``/`` and ``[seq]``/``[!seq]`` is one character of a set. A set
  decides one character, by ``fnmatchcase`` itself on that character alone, so its
  corner cases (ranges, a leading ``]``, an empty range) are the standard library's.

``below=True`` makes a glob also cover everything under what it names (``public/`` and
``public`` both cover ``public/feeds/x.json``). Globs are case-sensitive; a newline in a
name is a character like any other (the regular expressions this replaces let ``**`` stop
at one: no real file name has one, and a name that does is no reason to miss a match).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Final

PATH: Final = "path"
"""``*`` within a folder name, ``**`` across folders (``work_ignore``, ``[per-path-ignores]``)."""
SHELL: Final = "shell"
"""fnmatch's: ``*`` and ``?`` cross ``/``, ``[seq]`` sets (``[instructions] budgets``)."""

_MAX_CACHED_CHARACTERS = 4096  # the per-character tables kept (what a name's alphabet costs)
_MAX_REMEMBERED = 1 << 16  # names whose answer is kept: the history pass asks the same paths


# A glob as tokens: one character (a literal, a set, any but `/`, any), a run (within a
# folder name, or of anything), `**/` (whole folders, or none), and the tail `below` adds.
_LITERAL, _SET, _ONE, _ANY_ONE, _STAR, _GLOBSTAR, _FOLDERS, _BELOW = range(8)


@dataclass(frozen=True)
class _Token:
    kind: int
    text: str = ""  # a literal's character, a set's bracket expression


def _path_tokens(glob: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(glob):
        if glob.startswith("**/", position):
            tokens.append(_Token(_FOLDERS))
            position += 3
        elif glob.startswith("**", position):
            tokens.append(_Token(_GLOBSTAR))
            position += 2
        elif glob[position] == "*":
            tokens.append(_Token(_STAR))
            position += 1
        elif glob[position] == "?":
            tokens.append(_Token(_ONE))
            position += 1
        else:
            tokens.append(_Token(_LITERAL, glob[position]))
            position += 1
    return tokens


def _shell_tokens(glob: str) -> list[_Token]:
    """fnmatch's reading of ``glob``: where a bracket expression ends is found as
    :func:`fnmatch.translate` finds it (an unclosed ``[`` is a literal)."""
    tokens: list[_Token] = []
    position, end = 0, len(glob)
    while position < end:
        character = glob[position]
        position += 1
        if character == "*":
            tokens.append(_Token(_GLOBSTAR))
        elif character == "?":
            tokens.append(_Token(_ANY_ONE))
        elif character == "[":
            close = position
            if close < end and glob[close] == "!":
                close += 1
            if close < end and glob[close] == "]":
                close += 1
            while close < end and glob[close] != "]":
                close += 1
            if close >= end:
                tokens.append(_Token(_LITERAL, "["))
            else:
                tokens.append(_Token(_SET, glob[position - 1 : close + 1]))
                position = close + 1
        else:
            tokens.append(_Token(_LITERAL, character))
    return tokens


_RUNS = frozenset({_STAR, _GLOBSTAR, _FOLDERS})


def _merged(first: int, second: int) -> int | None:
    """The one run two adjacent runs match together, when there is one (None: keep both).

    Each rule is an equality of languages: ``**`` swallows any run beside it, two of a kind
    are one, and ``**/*`` is ``**`` (whole folders then a run within one name is any run).
    Merging keeps every chain of optional tokens short, so a character's closure below
    takes a bounded number of rounds.
    """
    if first == second:
        return first
    if _GLOBSTAR in (first, second):
        return _GLOBSTAR
    if (first, second) == (_FOLDERS, _STAR):
        return _GLOBSTAR
    return None  # `*` then `**/`: a name, or folders ending in `/`; no one token says it


def _normalized(tokens: list[_Token]) -> list[_Token]:
    kept: list[_Token] = []
    for token in tokens:
        kept.append(token)
        while len(kept) > 1 and kept[-1].kind in _RUNS and kept[-2].kind in _RUNS:
            merged = _merged(kept[-2].kind, kept[-1].kind)
            if merged is None:
                break
            kept[-2:] = [_Token(merged)]
    return kept


@dataclass(frozen=True)
class _Position:
    """What a position does: consume one character (``test``) and move on (``advance``) or
    stay (a run); and where it leads without consuming (``skips``: distances ahead)."""

    test: int | None = None  # _LITERAL, _SET, _ONE, _ANY_ONE (a test of one character)
    text: str = ""
    advance: bool = True
    skips: tuple[int, ...] = ()


def _positions(tokens: list[_Token], below: bool) -> list[_Position]:
    """The automaton of one glob: its positions in order; the one after the last accepts.

    A run is one position that stays on each character it accepts and may be left without
    one. An optional group (``**/``, the tail of ``below``) starts at a position of its own
    that can skip the whole group, so leaving the group early is never possible from
    inside it (``**/`` must end with its ``/``).
    """
    made: list[_Position] = []
    for token in tokens:
        if token.kind == _STAR:
            made.append(_Position(_ONE, advance=False, skips=(1,)))
        elif token.kind == _GLOBSTAR:
            made.append(_Position(_ANY_ONE, advance=False, skips=(1,)))
        elif token.kind == _FOLDERS:  # (anything, then `/`) or nothing
            made.append(_Position(skips=(1, 3)))
            made.append(_Position(_ANY_ONE, advance=False, skips=(1,)))
            made.append(_Position(_LITERAL, "/"))
        else:
            made.append(_Position(token.kind, token.text))
    if below:  # (`/`, then anything) or nothing
        made.append(_Position(_LITERAL, "/", skips=(2,)))
        made.append(_Position(_ANY_ONE, advance=False, skips=(1,)))
    return made


def _accepts(position: _Position, character: str) -> bool:
    if position.test == _LITERAL:
        return character == position.text
    if position.test == _ONE:
        return character != "/"
    if position.test == _ANY_ONE:
        return True
    if position.test == _SET:
        return fnmatchcase(character, position.text)
    return False


class Globs:
    """Several globs compiled into one automaton: :meth:`matches` says whether a name
    matches any of them (in full, from its first character to its last).

    Each glob's positions take consecutive bits; bit 0 of glob *k* is where it starts, and
    the bit after its last position is where it accepts. A character moves every set bit
    that accepts it one place on (``advance``) or keeps it (a run), then every bit that may
    be passed without a character is carried on (its skips) until nothing new is set. The
    tables of what a character does are built once per distinct character (up to
    :data:`_MAX_CACHED_CHARACTERS`; past that, rebuilt per use: the same cost, not kept).
    """

    def __init__(self, globs: Iterable[str], *, dialect: str = PATH, below: bool = False) -> None:
        self.globs = tuple(globs)
        self.dialect = dialect
        self.below = below
        self.steps = 0  # integer operations on position sets, over every match so far
        tokenize = _shell_tokens if dialect == SHELL else _path_tokens
        self._positions: list[_Position] = []
        starts = accepting = 0
        prefixes: list[str] = []
        for glob in self.globs:
            tokens = tokenize(glob)
            if below:
                while tokens and tokens[-1] == _Token(_LITERAL, "/"):
                    tokens.pop()  # `public/` and `public` name the same folder
            tokens = _normalized(tokens)
            offset = len(self._positions)
            self._positions += _positions(tokens, below)
            starts |= 1 << offset
            accepting |= 1 << len(self._positions)
            self._positions.append(_Position())  # accepts: no character leads on from it
            prefixes.append(_literal_prefix(tokens))
        self._accepting = accepting
        self._skips: dict[int, int] = {}
        for index, position in enumerate(self._positions):
            for distance in position.skips:
                self._skips[distance] = self._skips.get(distance, 0) | 1 << index
        self._start = self._closure(starts)
        # Every name a glob can match starts with its literal prefix: a name that starts
        # with none of them is answered at once (most names, for most globs).
        self._prefixes = tuple(prefixes) if all(prefixes) else ()
        literals = {p.text for p in self._positions if p.test == _LITERAL}
        self._literals = frozenset(literals)
        self._sets = any(p.test == _SET for p in self._positions)
        self._tables: dict[str, tuple[int, int]] = {}
        self._remembered: dict[str, bool] = {}

    @property
    def size(self) -> int:
        """The automaton's positions (what one character's step is linear in)."""
        return len(self._positions)

    def _closure(self, states: int) -> int:
        skips = self._skips
        while True:
            self.steps += 1
            grown = states
            for distance, mask in skips.items():
                grown |= (states & mask) << distance
            if grown == states:
                return states
            states = grown

    def _table(self, character: str) -> tuple[int, int]:
        """(positions that consume ``character`` and move on, those that consume it and stay)."""
        # A character no literal or set of these globs names behaves like every other such
        # character: one table serves them all (one for `/`, one for the rest).
        key = character
        if not self._sets and character not in self._literals and character != "/":
            key = ""
        found = self._tables.get(key)
        if found is not None:
            return found
        advance = stay = 0
        for index, position in enumerate(self._positions):
            self.steps += 1
            if position.test is not None and _accepts(position, character):
                if position.advance:
                    advance |= 1 << index
                else:
                    stay |= 1 << index
        if len(self._tables) < _MAX_CACHED_CHARACTERS:
            self._tables[key] = (advance, stay)
        return advance, stay

    def matches(self, name: str) -> bool:
        """Whether ``name`` matches one of the globs, as a whole."""
        if not self.globs:
            return False
        if self._prefixes and not name.startswith(self._prefixes):
            self.steps += 1
            return False
        remembered = self._remembered.get(name)
        if remembered is not None:
            self.steps += 1
            return remembered
        states = self._start
        for character in name:
            advance, stay = self._table(character)
            states = self._closure(((states & advance) << 1) | (states & stay))
            if not states:
                break
        found = bool(states & self._accepting)
        if len(self._remembered) >= _MAX_REMEMBERED:
            self._remembered.clear()
        self._remembered[name] = found
        return found


def _literal_prefix(tokens: list[_Token]) -> str:
    prefix: list[str] = []
    for token in tokens:
        if token.kind != _LITERAL:
            break
        prefix.append(token.text)
    return "".join(prefix)


@lru_cache(maxsize=256)
def compiled(globs: tuple[str, ...], *, dialect: str = PATH, below: bool = False) -> Globs:
    """:class:`Globs` for ``globs``, compiled once per process (a run asks per commit)."""
    return Globs(globs, dialect=dialect, below=below)


def shell_match(name: str, glob: str) -> bool:
    """:func:`fnmatch.fnmatchcase`'s answer, in linear time (see :data:`SHELL`)."""
    return compiled((glob,), dialect=SHELL).matches(name)
