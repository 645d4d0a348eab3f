"""Pure JSON Schema checking: tool arguments and structured output are checked here, before anything runs.

`validate` honours the whole of JSON Schema draft 2020-12 (and the earlier drafts a schema names in
``$schema``): every keyword, boolean schemas, ``$ref``/``$dynamicRef`` inside the schema,
``unevaluated*``, ``dependent*``, ``if``/``then``/``else``... It never fetches anything: a remote
``$ref`` is refused like an unresolvable one. Each problem is one message naming its path, so
a model (or a person) can fix it: ``$.city: missing required field``.

`compile_schema` checks a schema once and returns a `CompiledSchema` that checks values fast;
`ToolDef` and `OutputSchema` compile theirs when they are built, so a bad schema is refused there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import cast

from .compiled_schema import MAX_DEPTH, CompiledSchema, SchemaError, compile_schema
from .json_value import JsonObject, JsonValue
from .schema_messages import json_type_name

__all__ = [
    "MAX_DEPTH",
    "CompiledSchema",
    "SchemaError",
    "compile_schema",
    "json_type_name",
    "parse_arguments",
    "strict_schema",
    "validate",
]


def validate(value: JsonValue, schema: JsonValue | CompiledSchema, path: str = "$") -> list[str]:
    """Every way `value` fails to fit `schema`, as ``path: problem`` messages; empty when it fits.

    Args:
        value: A decoded JSON value.
        schema: A JSON Schema (an object or a boolean; compiled, or found among the schemas compiled
            lately), or a `CompiledSchema` (fastest: the schema is not looked at again).
        path: The name of the value's root in the messages.

    Never raises: a schema that cannot be used is reported as ``$: invalid JSON Schema: ...``.
    """
    if isinstance(schema, CompiledSchema):
        return schema.errors(value, path)
    try:
        compiled = compile_schema(schema)
    except SchemaError as exc:
        return [f"{path}: {exc}"]
    return compiled.errors(value, path)


_scan_once: Callable[[str, int], tuple[object, int]] = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The C scanner `json.loads` runs (a decoder with its defaults, as ``json.loads(text)`` uses)."""


def parse_arguments(text: str) -> JsonObject:
    """Decode a tool call's argument text: blank means ``{}``; anything but a JSON object raises `ValueError`."""
    if text[:1] == "{" and text[-1:] == "}":
        # Text that opens and closes an object, with no whitespace around it (what models send): the scanner
        # `json.loads` ends in, called directly. Whatever it would refuse (a fault, or more after the object)
        # goes the way below, so the error is `json.loads`'s own.
        try:
            value, end = _scan_once(text, 0)
        except (StopIteration, ValueError):
            pass
        else:
            if end == len(text):
                return cast(JsonObject, value)
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
