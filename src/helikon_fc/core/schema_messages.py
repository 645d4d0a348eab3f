"""The words of a failed schema check: one ``path: problem`` line per problem, for a model or a person to act on."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from decimal import Decimal

import jsonschema_rs

from .json_value import JsonValue

_K = jsonschema_rs.ValidationErrorKind

_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}

_BOUNDS: dict[type[jsonschema_rs.ValidationErrorKind], tuple[str, str]] = {
    _K.Minimum: ("a number", ">="),
    _K.Maximum: ("a number", "<="),
    _K.ExclusiveMinimum: ("a number", ">"),
    _K.ExclusiveMaximum: ("a number", "<"),
}

_SIZES: dict[type[jsonschema_rs.ValidationErrorKind], tuple[str, str]] = {
    _K.MinItems: ("at least", "items"),
    _K.MaxItems: ("at most", "items"),
    _K.MinLength: ("at least", "characters"),
    _K.MaxLength: ("at most", "characters"),
    _K.MinProperties: ("at least", "properties"),
    _K.MaxProperties: ("at most", "properties"),
}


def json_type_name(value: JsonValue) -> str:
    """The JSON type of a decoded value: null, boolean, integer, number, string, array or object."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _type_name(value: object) -> str:
    return _TYPE_NAMES.get(type(value), "number" if isinstance(value, Decimal) else type(value).__name__)


def json_path(root: str, keys: Iterable[str | int]) -> str:
    """``$.a[0]["b c"]``: the path below `root` through object keys (str) and array indexes (int)."""
    parts = [root]
    for key in keys:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        else:
            parts.append(_child("", key))
    return "".join(parts)


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{json.dumps(key)}]"


def messages(errors: Iterable[jsonschema_rs.ValidationError], root: str) -> list[str]:
    """One line per problem, in the order found, each said once."""
    return list(dict.fromkeys(line for error in errors for line in _lines(error, root)))


def _lines(error: jsonschema_rs.ValidationError, root: str) -> Iterator[str]:
    path = json_path(root, error.instance_path)
    kind = error.kind
    value = error.instance
    match kind:
        case _K.Type():
            yield f"{path}: expected {' or '.join(kind.types)}, got {_type_name(value)}"
        case _K.Required():
            yield f"{_child(path, kind.property)}: missing required field"
        case _K.AdditionalProperties() | _K.UnevaluatedProperties():
            yield from (f"{_child(path, key)}: unexpected field" for key in kind.unexpected)
        case _K.UnevaluatedItems():
            yield from (f"{path}: unexpected item {item}" for item in kind.unexpected)
        case _K.Enum():
            yield f"{path}: {_dump(value)} is not one of {', '.join(_dump(option) for option in kind.options)}"
        case _K.Constant():
            yield f"{path}: expected {_dump(kind.expected_value)}, got {_dump(value)}"
        case _K.Minimum() | _K.Maximum() | _K.ExclusiveMinimum() | _K.ExclusiveMaximum():
            what, op = _BOUNDS[type(kind)]
            yield f"{path}: expected {what} {op} {kind.limit}, got {_dump(value)}"
        case _K.MinItems() | _K.MaxItems() | _K.MinLength() | _K.MaxLength() | _K.MinProperties() | _K.MaxProperties():
            bound, unit = _SIZES[type(kind)]
            yield f"{path}: expected {bound} {kind.limit} {unit}, got {_size(value)}"
        case _K.Pattern():
            yield f"{path}: {_dump(value)} does not match the pattern {kind.pattern}"
        case _K.MultipleOf():
            yield f"{path}: expected a multiple of {kind.multiple_of}, got {_dump(value)}"
        case _K.FalseSchema():
            yield f"{path}: no value is allowed here"
        case _K.AnyOf() | _K.OneOfNotValid():
            yield from _closest(kind.context, path, root, value)
        case _K.Not():
            yield f"{path}: must not fit the schema {_dump(kind.schema)}"
        case _K.PropertyNames():
            yield f"{path}: property name {kind.error.message}"
        case _K.UniqueItems():
            yield f"{path}: expected unique items, got duplicates"
        case _K.Contains():
            yield f"{path}: too few or too many items fit the schema under contains"
        case _K.OneOfMultipleValid():
            yield f"{path}: fits more than one option of oneOf (it must fit exactly one)"
        case _:
            yield f"{path}: {error.message}"


def _closest(options: list[list[jsonschema_rs.ValidationError]], path: str, root: str, value: object) -> list[str]:
    """The problems of the option nearest the value (fewest problems, of the value's own type);
    one summary line when no option takes a value of its type."""
    near: list[list[str]] = []
    kinds: list[str] = []
    for option in options:
        mismatch = next(
            (e.kind for e in option if isinstance(e.kind, _K.Type) and json_path(root, e.instance_path) == path), None
        )
        if isinstance(mismatch, _K.Type):
            kinds.extend(name for name in mismatch.types if name not in kinds)
        else:
            near.append(messages(option, root))
    if near:
        return min(near, key=len)
    expected = " or ".join(kinds) if kinds else "a value matching one of the options"
    return [f"{path}: expected {expected}, got {_type_name(value)}"]


def _size(value: object) -> int:
    return len(value) if isinstance(value, str | list | dict) else 0


def _dump(value: object) -> str:
    """The value as JSON text; a big number the native checker hands back as a Decimal is written as digits."""
    return json.dumps(value, ensure_ascii=False, default=str)
