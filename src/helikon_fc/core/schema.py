"""Pure JSON Schema checking: tool arguments and structured output are checked here, before anything runs.

`validate` covers the part of JSON Schema that tool and output schemas use: ``type`` (one or a
list), ``enum``, ``const``, ``properties``, ``required``, ``additionalProperties``, ``items``,
``prefixItems``, ``minItems``/``maxItems``, ``minimum``/``maximum`` (and their exclusive forms),
``minLength``/``maxLength``, ``pattern``, ``anyOf``, ``oneOf`` (checked like ``anyOf``: a value
fitting several options passes), ``allOf`` and local ``$ref`` (``#/$defs/...``). Other keywords
are ignored. Each problem is one message naming its path, so
a model (or a person) can fix it: ``$.city: missing required field``.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable
from typing import cast

from .json_value import JsonObject, JsonValue

_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def json_type_name(value: JsonValue) -> str:
    """The JSON type of a decoded value: null, boolean, integer, number, string, array or object."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _has_type(value: JsonValue, expected: str) -> bool:
    match expected:
        case "null":
            return value is None
        case "boolean":
            return isinstance(value, bool)
        case "integer":
            if isinstance(value, bool):
                return False
            return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        case "string":
            return isinstance(value, str)
        case "array":
            return isinstance(value, list)
        case "object":
            return isinstance(value, dict)
        case _:
            return True


def _resolve(schema: JsonObject, root: JsonObject) -> JsonObject:
    ref = schema.get("$ref")
    seen = 0
    while isinstance(ref, str) and seen < 32:
        target: JsonValue = root
        if not ref.startswith("#"):
            return {}
        for part in ref.lstrip("#").strip("/").split("/") if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                return {}
            target = target[part]
        if not isinstance(target, dict):
            return {}
        schema = target
        ref = schema.get("$ref")
        seen += 1
    return schema


def validate(value: JsonValue, schema: JsonObject, path: str = "$") -> list[str]:
    """Every way `value` fails to fit `schema`, as ``path: problem`` messages; empty when it fits."""
    errors: list[str] = []
    try:
        _validate(value, schema, schema, path, errors)
    except RecursionError:
        errors.append(f"{path}: nested too deeply to check")
    return errors


def _validate(value: JsonValue, schema: JsonObject, root: JsonObject, path: str, errors: list[str]) -> None:
    schema = _resolve(schema, root)
    expected = schema.get("type")
    if isinstance(expected, str):
        if not _has_type(value, expected):
            errors.append(f"{path}: expected {expected}, got {json_type_name(value)}")
            return
    elif isinstance(expected, list):
        names = [t for t in expected if isinstance(t, str)]
        if names and not any(_has_type(value, t) for t in names):
            errors.append(f"{path}: expected {' or '.join(names)}, got {json_type_name(value)}")
            return

    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {json.dumps(schema['const'])}, got {json.dumps(value)}")
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_json_equal(value, option) for option in enum):
        allowed = ", ".join(json.dumps(option) for option in enum)
        errors.append(f"{path}: {json.dumps(value)} is not one of {allowed}")
        return

    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list) and options:
            if not any(isinstance(opt, dict) and not validate_within(value, opt, root, path) for opt in options):
                errors.extend(_closest_errors(value, options, root, path))
                return
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        for part in all_of:
            if isinstance(part, dict):
                _validate(value, part, root, path, errors)

    if isinstance(value, dict):
        _validate_object(value, schema, root, path, errors)
    elif isinstance(value, list):
        _validate_array(value, schema, root, path, errors)
    elif isinstance(value, str):
        _validate_string(value, schema, path, errors)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _validate_number(value, schema, path, errors)


def validate_within(value: JsonValue, schema: JsonObject, root: JsonObject, path: str = "$") -> list[str]:
    """Like `validate`, resolving ``$ref`` against `root` rather than `schema`."""
    errors: list[str] = []
    _validate(value, schema, root, path, errors)
    return errors


def _closest_errors(value: JsonValue, options: list[JsonValue], root: JsonObject, path: str) -> list[str]:
    """The errors of the option that came closest, or one summary line when none matches the value's type."""
    candidates: list[list[str]] = []
    for option in options:
        if not isinstance(option, dict):
            continue
        resolved = _resolve(option, root)
        expected = resolved.get("type")
        if isinstance(expected, str) and not _has_type(value, expected):
            continue
        candidates.append(validate_within(value, option, root, path))
    if candidates:
        return min(candidates, key=len)
    kinds = []
    for option in options:
        if isinstance(option, dict):
            t = _resolve(option, root).get("type")
            if isinstance(t, str) and t not in kinds:
                kinds.append(t)
    expected_text = " or ".join(kinds) if kinds else "a value matching one of the options"
    return [f"{path}: expected {expected_text}, got {json_type_name(value)}"]


def _json_equal(a: JsonValue, b: JsonValue) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def _validate_object(
    value: dict[str, JsonValue], schema: JsonObject, root: JsonObject, path: str, errors: list[str]
) -> None:
    properties = schema.get("properties")
    props: dict[str, JsonValue] = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    if isinstance(required, list):
        for key in required:
            if isinstance(key, str) and key not in value:
                errors.append(f"{_child(path, key)}: missing required field")
    additional = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key)
        if isinstance(sub, dict):
            _validate(item, sub, root, _child(path, key), errors)
        elif additional is False:
            errors.append(f"{_child(path, key)}: unexpected field")
        elif isinstance(additional, dict):
            _validate(item, additional, root, _child(path, key), errors)


def _validate_array(value: list[JsonValue], schema: JsonObject, root: JsonObject, path: str, errors: list[str]) -> None:
    prefix = schema.get("prefixItems")
    start = 0
    if isinstance(prefix, list):
        for index, (item, sub) in enumerate(zip(value, prefix, strict=False)):
            if isinstance(sub, dict):
                _validate(item, sub, root, f"{path}[{index}]", errors)
        start = len(prefix)
    items = schema.get("items")
    if isinstance(items, dict):
        for index in range(start, len(value)):
            _validate(value[index], items, root, f"{path}[{index}]", errors)
    elif items is False and len(value) > start:
        errors.append(f"{path}: expected at most {start} items, got {len(value)}")
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and len(value) < min_items:
        errors.append(f"{path}: expected at least {min_items} items, got {len(value)}")
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and len(value) > max_items:
        errors.append(f"{path}: expected at most {max_items} items, got {len(value)}")


def _validate_string(value: str, schema: JsonObject, path: str, errors: list[str]) -> None:
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(value) < min_length:
        errors.append(f"{path}: expected at least {min_length} characters, got {len(value)}")
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(value) > max_length:
        errors.append(f"{path}: expected at most {max_length} characters, got {len(value)}")
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            matched = re.search(pattern, value) is not None
        except re.error:
            matched = True
        if not matched:
            errors.append(f"{path}: {json.dumps(value)} does not match the pattern {pattern}")


_BOUNDS: tuple[tuple[str, str, Callable[[float, float], bool]], ...] = (
    ("minimum", ">=", operator.ge),
    ("maximum", "<=", operator.le),
    ("exclusiveMinimum", ">", operator.gt),
    ("exclusiveMaximum", "<", operator.lt),
)


def _validate_number(value: int | float, schema: JsonObject, path: str, errors: list[str]) -> None:
    for keyword, op, holds in _BOUNDS:
        bound = schema.get(keyword)
        if isinstance(bound, int | float) and not isinstance(bound, bool) and not holds(value, bound):
            errors.append(f"{path}: expected a number {op} {bound}, got {value}")


def _child(path: str, key: str) -> str:
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"


def parse_arguments(text: str) -> JsonObject:
    """Decode a tool call's argument text: blank means ``{}``; anything but a JSON object raises `ValueError`."""
    if not text.strip():
        return {}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"arguments must be a JSON object, got {json_type_name(cast(JsonValue, value))}")
    return cast(JsonObject, value)


def strict_schema(schema: JsonObject) -> JsonObject:
    """The strict form OpenAI's structured outputs require: every object closed and every property required.

    Applies to ``properties``, ``items``, ``prefixItems``, ``anyOf``/``oneOf``/``allOf`` and ``$defs``;
    returns a new schema, the argument is left as it was.
    """
    result: JsonObject = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            result[key] = {name: strict_schema(sub) if isinstance(sub, dict) else sub for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            result[key] = strict_schema(value)
        elif key in ("prefixItems", "anyOf", "oneOf", "allOf") and isinstance(value, list):
            result[key] = [strict_schema(sub) if isinstance(sub, dict) else sub for sub in value]
        else:
            result[key] = value
    is_object = result.get("type") == "object" or (
        isinstance(result.get("type"), list) and "object" in cast(list[JsonValue], result["type"])
    )
    if is_object or "properties" in result:
        properties = result.get("properties")
        names: list[JsonValue] = list(properties) if isinstance(properties, dict) else []
        result["required"] = names
        result["additionalProperties"] = False
    return result
