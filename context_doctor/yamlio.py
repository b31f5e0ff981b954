"""YAML and JSON-Schema plumbing shared by the index, console and scenario readers."""

from __future__ import annotations

import json
from datetime import date, datetime
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from ruamel.yaml import YAML
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError

from context_doctor.errors import DoctorError


def read_text(path: Path, what: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise DoctorError(
            f"cannot read {what} {path}: {error.strerror or error}",
            "check the path and its permissions",
        ) from error
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise DoctorError(
            f"{what} {path} is not valid UTF-8 (byte {error.start})",
            "re-save the file as UTF-8",
        ) from error


class _LenientConstructor(RoundTripConstructor):
    """Round-trip constructor that keeps an impossible date (``2026-13-45``) as its string.

    ruamel raises ``ValueError`` for such a scalar, which would turn one bad index
    field into "not valid YAML" (exit 2); as a string it reaches schema validation
    and is reported against its entry and field instead.
    """

    def construct_yaml_timestamp(self, node: Any, values: Any = None) -> Any:
        try:
            return super().construct_yaml_timestamp(node, values)
        except ValueError:
            return self.construct_scalar(node)


_LenientConstructor.add_constructor(
    "tag:yaml.org,2002:timestamp", _LenientConstructor.construct_yaml_timestamp
)


def lenient_loader() -> YAML:
    """A round-trip loader whose impossible dates stay strings (see ``_LenientConstructor``)."""
    loader = YAML(typ="rt")
    loader.Constructor = _LenientConstructor
    return loader


def load_yaml(path: Path, what: str) -> Any:
    """Round-trip load, so entries keep their line numbers; exit 2 when it is not YAML."""
    return load_yaml_text(read_text(path, what), path, what)


def load_yaml_text(text: str, path: Path, what: str) -> Any:
    """:func:`load_yaml` over text already read (``path`` names it in errors)."""
    try:
        data = lenient_loader().load(text)
        plain(data)  # refuse a recursive alias here, once, rather than in every reader
        return data
    except RecursiveYaml as error:
        raise DoctorError(
            f"{what} {path} is not valid YAML: {error}", "remove the alias"
        ) from error
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise DoctorError(
            f"{what} {path} is not valid YAML{where}: {problem}",
            "fix the YAML syntax (a YAML linter will point at it)",
        ) from error
    except Exception as error:  # ruamel raises a few non-YAMLError types on odd input
        raise DoctorError(
            f"{what} {path} is not valid YAML: {error.__class__.__name__}",
            "fix the YAML syntax (a YAML linter will point at it)",
        ) from error


class RecursiveYaml(ValueError):
    """An alias that contains itself (``&a [*a]``): no finite document to check."""


def plain(value: Any, _open: frozenset[int] = frozenset()) -> Any:
    """Round-trip YAML data as plain JSON data (dates as ISO strings) for validation."""
    if isinstance(value, dict | list | tuple):
        if id(value) in _open:
            raise RecursiveYaml("a YAML alias refers to a node that contains it")
        inner = _open | {id(value)}
        if isinstance(value, dict):
            return {str(key): plain(item, inner) for key, item in value.items()}
        return [plain(item, inner) for item in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        return str(value)
    return value


@cache
def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        files("context_doctor.schemas").joinpath(name).read_text(encoding="utf-8")
    )
    return loaded


@cache
def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


def line_of(node: Any, key: Any) -> int | None:
    """1-based line of a key in a round-trip mapping or an index in a sequence."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        position = lc.key(key) if isinstance(node, dict) else lc.item(key)
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
    if not isinstance(position, tuple | list) or not position or not isinstance(position[0], int):
        return None  # a tagged node (`!!python/object`) carries no line data
    return int(position[0]) + 1
