"""A refusal in its caller's words: the editor names CLI flags, a Python caller wants keywords.

The editor's messages are written for the command line (``--allow-stale-body``,
``--field Phase``, ``--count 3``).  A Python caller passed keywords, so the
library surfaces (:mod:`context_doctor.edit`, :func:`context_doctor.diagnose`)
re-raise each refusal with every flag outside backticks renamed to the keyword
that does the same (``allow_stale_body=True``, ``field='Phase'``, ``count=3``).
Text inside backticks is a whole shell command the user can run as printed, and
stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from context_doctor.errors import DoctorError
from context_doctor.write.atomic import WriteRefused

# The flags that take no value: as keywords they are switched on.
SWITCHES = frozenset(
    {
        "allow-header-lag",
        "allow-stale-body",
        "state-reviewed",
        "allow-header-ahead",
        "whole-value",
        "set-header",
        "dry-run",
    }
)
# A flag, and the value printed after it when there is one: a quoted string, a number, a
# placeholder, or a word starting in capitals (field names are written that way).
_FLAG = re.compile(
    r"(?<![\w`-])--([a-z][a-z-]*[a-z])"
    r"(?:=| (?='|\"|\d|…|[A-Z]))?"
    r"('[^']*'|\"[^\"]*\"|\d+|…|[A-Z][\w-]*)?"
)


def python_words(text: str) -> str:
    """``text`` with each CLI flag outside backticks as the Python keyword that does the same."""
    pieces = text.split("`")
    for index in range(0, len(pieces), 2):  # even pieces lie outside backticks
        pieces[index] = _FLAG.sub(_keyword, pieces[index])
    return "`".join(pieces)


def _keyword(match: re.Match[str]) -> str:
    flag, value = match.group(1), match.group(2)
    name = flag.replace("-", "_")
    if flag in SWITCHES:
        return f"{name}=True"
    if value is None:
        return name
    if value[0] in "'\"" or value.isdigit() or value == "…":
        return f"{name}={value}"
    return f"{name}={value!r}"


def in_python_words(error: Exception) -> Exception:
    """The same refusal (same type, rule and meaning), worded for a Python caller."""
    from context_doctor.editor.edit import EditRefused

    if isinstance(error, EditRefused):
        return EditRefused(
            error.rule,
            python_words(error.message),
            override=python_words(error.override) if error.override else None,
            remedy=python_words(error.remedy) if error.remedy else None,
        )
    if isinstance(error, WriteRefused):
        return WriteRefused(error.rule, python_words(error.message))
    if isinstance(error, DoctorError):
        return DoctorError(python_words(error.problem), python_words(error.remedy))
    return error


@contextmanager
def python_refusals() -> Iterator[None]:
    """Re-raise a refusal or a DoctorError worded for a Python caller."""
    try:
        yield
    except (WriteRefused, DoctorError) as error:
        worded = in_python_words(error)
        if worded is error:
            raise
        raise worded from None


Params = ParamSpec("Params")
Result = TypeVar("Result")


def speaking_python(function: Callable[Params, Result]) -> Callable[Params, Result]:
    """``function`` with its refusals worded for a Python caller (same signature, same doc)."""
    from functools import wraps

    @wraps(function)
    def worded(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        with python_refusals():
            return function(*args, **kwargs)

    return worded
