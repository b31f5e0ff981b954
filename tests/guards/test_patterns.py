"""Patterns compiled on first use (context_doctor/guards/patterns.py)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import context_doctor
from context_doctor.guards.patterns import LazyPattern


def test_nothing_is_compiled_until_the_pattern_is_asked() -> None:
    lazy = LazyPattern(r"(a)(b)?", re.IGNORECASE)
    assert lazy._compiled is None
    assert lazy.pattern == r"(a)(b)?"
    assert lazy._compiled is None
    assert lazy.compiled is lazy.compiled == re.compile(r"(a)(b)?", re.IGNORECASE)


@pytest.mark.parametrize("text", ["", "xAbyab", "a\nB\nA", "no match here"])
def test_every_method_answers_as_the_compiled_pattern(text: str) -> None:
    source, flags = r"(a)(b)?", re.IGNORECASE
    lazy, compiled = LazyPattern(source, flags), re.compile(source, flags)

    def spans(match: re.Match[str] | None) -> object:
        return None if match is None else (match.span(), match.groups())

    for pos, endpos in ((0, len(text)), (1, len(text)), (0, 2)):
        assert spans(lazy.search(text, pos, endpos)) == spans(compiled.search(text, pos, endpos))
        assert spans(lazy.match(text, pos, endpos)) == spans(compiled.match(text, pos, endpos))
        assert spans(lazy.fullmatch(text, pos, endpos)) == spans(
            compiled.fullmatch(text, pos, endpos)
        )
        assert [spans(m) for m in lazy.finditer(text, pos, endpos)] == [
            spans(m) for m in compiled.finditer(text, pos, endpos)
        ]
        assert lazy.findall(text, pos, endpos) == compiled.findall(text, pos, endpos)
    assert lazy.sub("-", text, 1) == compiled.sub("-", text, 1)
    assert lazy.sub(lambda m: m.group(1) * 2, text) == compiled.sub(lambda m: m.group(1) * 2, text)
    assert lazy.subn(r"<\1>", text) == compiled.subn(r"<\1>", text)
    assert lazy.split(text, 1) == compiled.split(text, 1)


def test_every_lazy_pattern_of_the_doctor_compiles() -> None:
    """A malformed pattern compiled lazily no longer fails at import but at its first use,
    perhaps on a rare path: every module-level one in the package is compiled here."""
    found: dict[int, str] = {}
    for module_info in pkgutil.walk_packages(context_doctor.__path__, "context_doctor."):
        if module_info.name.endswith("__main__"):
            continue  # it runs the command line
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if isinstance(value, LazyPattern):
                assert isinstance(value.compiled, re.Pattern), f"{module_info.name}.{name}"
                found[id(value)] = f"{module_info.name}.{name}"
    assert len(found) >= 40, sorted(found.values())
