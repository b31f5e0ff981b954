"""The doctor's JSON schemas, with jsonschema imported only to explain an invalid document.

jsonschema costs more to import than a small source's whole audit, and almost every
document the doctor validates (``index.yaml``, ``CURRENT_STATE.json``, the stored report,
the config, ``console.yaml``) is valid. :func:`validator` returns a
:class:`SchemaCheck` whose :meth:`~SchemaCheck.iter_errors` first walks the schema
itself (:func:`verdict`): when that walk proves the document valid there is nothing to
explain and jsonschema is never imported; otherwise jsonschema's own errors are
returned, exactly as before (every message the doctor shows about an invalid file is
still jsonschema's).

The walk knows the keywords the bundled schemas use, each checked as Draft 2020-12
and jsonschema's format checker check it, and answers in three values: valid, invalid,
or unknown (a keyword or format it does not check exactly, a number compared across
``int`` and ``float``). Only "valid" skips jsonschema, and "valid" is never answered for
a document jsonschema would reject: a keyword the walk does not know makes the answer
unknown, never valid. ``tests/guards/test_schema_check.py`` compares the two on generated
documents.
"""

from __future__ import annotations

import json
import os
import re
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jsonschema import Draft202012Validator, ValidationError

Verdict = bool | None
"""True: valid; False: invalid; None: not known without jsonschema."""

ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples"}
)
"""Keywords that never make a document invalid."""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)  # jsonschema's own test for "date"
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})", re.ASCII
)  # RFC 3339, stricter than any checker jsonschema may use for "date-time"


@cache
def schema(name: str) -> dict[str, Any]:
    """A bundled schema (``context_doctor/schemas/NAME``), read through the package's own
    loader (what ``pkgutil.get_data`` does; ``importlib.resources`` would import
    ``zipfile`` and ``tempfile`` first)."""
    from importlib import import_module

    package = import_module("context_doctor.schemas")  # a data folder: no static import
    loader: Any = package.__spec__.loader if package.__spec__ else None
    folder = os.path.dirname(package.__file__ or "")
    loaded: dict[str, Any] = json.loads(loader.get_data(os.path.join(folder, name)))
    return loaded


@cache
def _jsonschema_validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


class SchemaCheck:
    """One bundled schema: :meth:`iter_errors` as jsonschema's, without it for a valid document."""

    def __init__(self, name: str) -> None:
        self.name = name

    def iter_errors(self, instance: object) -> Iterator[ValidationError]:
        root = schema(self.name)
        if verdict(root, instance, root) is True:
            return iter(())
        errors: Iterator[ValidationError] = _jsonschema_validator(self.name).iter_errors(instance)
        return errors


@cache
def validator(name: str) -> SchemaCheck:
    """The check of the bundled schema ``name`` (Draft 2020-12, formats checked)."""
    return SchemaCheck(name)


def _all(verdicts: Iterator[Verdict]) -> Verdict:
    """Every part valid: False at the first invalid one, None if any is unknown."""
    unknown = False
    for one in verdicts:
        if one is False:
            return False
        unknown = unknown or one is None
    return None if unknown else True


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type(expected: str, value: object) -> Verdict:
    if expected == "object":
        return isinstance(value, dict)
    if expected == "array":
        return isinstance(value, list)
    if expected == "string":
        return isinstance(value, str)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "null":
        return value is None
    if expected == "number":
        return _is_number(value)
    if expected == "integer":
        if isinstance(value, float):
            return None  # 1.0 is an integer to jsonschema
        return isinstance(value, int) and not isinstance(value, bool)
    return None


def _equal(one: object, other: object) -> Verdict:
    """JSON equality as jsonschema sees it, where it can be told exactly."""
    if _is_number(one) and _is_number(other):
        return one == other
    if isinstance(one, bool) or isinstance(other, bool) or one is None or other is None:
        return one is other or (type(one) is type(other) and one == other)
    if isinstance(one, str) and isinstance(other, str):
        return one == other
    if type(one) is not type(other) and all(
        isinstance(value, str | int | float | dict | list) for value in (one, other)
    ):
        return False
    return None


def _format(name: str, value: object) -> Verdict:
    if not isinstance(value, str):
        return True
    if name == "date":
        try:
            return bool(_DATE.fullmatch(value) and date.fromisoformat(value))
        except ValueError:
            return False
    if name == "date-time" and _DATE_TIME.fullmatch(value):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return None
        return True
    return None


def _unique(items: list[Any]) -> Verdict:
    if len(items) < 2:
        return True
    if all(isinstance(item, str) for item in items):
        return len(set(items)) == len(items)
    return None


def _reference(root: dict[str, Any], reference: str) -> dict[str, Any] | bool | None:
    if not reference.startswith("#/$defs/"):
        return None
    found = root.get("$defs", {}).get(reference.removeprefix("#/$defs/"))
    return found if isinstance(found, dict | bool) else None


def verdict(node: dict[str, Any] | bool, value: object, root: dict[str, Any]) -> Verdict:
    """Whether ``value`` is valid against the schema ``node`` (of the document ``root``)."""
    if node is True:
        return True
    if node is False:
        return False
    return _all(_keyword(key, rule, node, value, root) for key, rule in node.items())


def _keyword(
    key: str, rule: Any, node: dict[str, Any], value: object, root: dict[str, Any]
) -> Verdict:
    if key in ANNOTATIONS:
        return True
    if key == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        answers = [_type(kind, value) for kind in kinds]
        return True if True in answers else (None if None in answers else False)
    if key == "enum":
        answers = [_equal(value, each) for each in rule]
        return True if True in answers else (None if None in answers else False)
    if key == "const":
        return _equal(value, rule)
    if key == "$ref":
        target = _reference(root, rule)
        return None if target is None else verdict(target, value, root)
    if key == "anyOf":
        answers = [verdict(branch, value, root) for branch in rule]
        return True if True in answers else (None if None in answers else False)
    if key == "oneOf":
        answers = [verdict(branch, value, root) for branch in rule]
        if answers.count(True) > 1:
            return False
        if None in answers:
            return None
        return answers.count(True) == 1
    if key == "if":
        condition = verdict(rule, value, root)
        if condition is None:
            return None
        branch = node.get("then" if condition else "else", True)
        return verdict(branch, value, root)
    if key in ("then", "else"):
        return True  # applied by "if"
    if key == "format":
        return _format(rule, value)
    if isinstance(value, str):
        return _string_keyword(key, rule, value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_keyword(key, rule, value)
    if isinstance(value, dict):
        return _object_keyword(key, rule, node, value, root)
    if isinstance(value, list):
        return _array_keyword(key, rule, value, root)
    return True if key in KEYWORDS else None


def _string_keyword(key: str, rule: Any, value: str) -> Verdict:
    if key == "minLength":
        return bool(len(value) >= rule)
    if key == "maxLength":
        return bool(len(value) <= rule)
    if key == "pattern":
        return re.search(rule, value) is not None
    return True if key in KEYWORDS else None


def _number_keyword(key: str, rule: Any, value: float) -> Verdict:
    if key == "minimum":
        return bool(value >= rule)
    if key == "maximum":
        return bool(value <= rule)
    if key == "exclusiveMinimum":
        return bool(value > rule)
    if key == "exclusiveMaximum":
        return bool(value < rule)
    return True if key in KEYWORDS else None


def _object_keyword(
    key: str, rule: Any, node: dict[str, Any], value: dict[str, Any], root: dict[str, Any]
) -> Verdict:
    if key == "properties":
        return _all(verdict(rule[name], item, root) for name, item in value.items() if name in rule)
    if key == "additionalProperties":
        if "patternProperties" in node:
            return None
        known = node.get("properties", {})
        extra = [item for name, item in value.items() if name not in known]
        return _all(verdict(rule, item, root) for item in extra)
    if key == "required":
        return all(name in value for name in rule)
    if key == "propertyNames":
        return _all(verdict(rule, name, root) for name in value)
    if key == "maxProperties":
        return bool(len(value) <= rule)
    if key == "minProperties":
        return bool(len(value) >= rule)
    return True if key in KEYWORDS else None


def _array_keyword(key: str, rule: Any, value: list[Any], root: dict[str, Any]) -> Verdict:
    if key == "items":
        return _all(verdict(rule, item, root) for item in value)
    if key == "minItems":
        return bool(len(value) >= rule)
    if key == "maxItems":
        return bool(len(value) <= rule)
    if key == "uniqueItems":
        return _unique(value) if rule else True
    return True if key in KEYWORDS else None


KEYWORDS = frozenset(
    {
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "properties",
        "additionalProperties",
        "required",
        "propertyNames",
        "maxProperties",
        "minProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
    }
)
"""Keywords that apply to one type of value and pass any other (as in JSON Schema)."""
