"""The schema checker's cost on tool payloads: ``python -m bench.schema_check`` prints µs per check.

Two payloads, both fitting their schema (the common case: a model's arguments are usually right):
``flat``, a 4-field object of scalars with bounds and an enum; ``nested``, an order with ``$defs`` and
``$ref``, an array of objects, an ``anyOf`` and a pattern. Each is checked through the public
``validate(value, schema)`` with the schema as a dict and, where `compile_schema` exists, with the
compiled form that `ToolDef`/`OutputSchema` hold (what `transition` uses). Run it against another
checkout (``PYTHONPATH=/other/src python -m bench.schema_check``) for a before/after figure.
"""

from __future__ import annotations

import argparse
import functools
import timeit
from collections.abc import Callable
from typing import Any

from helikon_fc.core import JsonObject, JsonValue, validate

FLAT_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "units": {"enum": ["metric", "imperial"]},
        "detailed": {"type": "boolean"},
    },
    "required": ["city", "days", "units", "detailed"],
    "additionalProperties": False,
}
FLAT_VALUE: JsonObject = {"city": "Oslo", "days": 3, "units": "metric", "detailed": True}

_LINE: JsonObject = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
        "quantity": {"type": "integer", "minimum": 1},
        "price": {"type": "number", "exclusiveMinimum": 0},
    },
    "required": ["sku", "quantity", "price"],
    "additionalProperties": False,
}
_ADDRESS: JsonObject = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}, "postcode": {"type": "string"}},
    "required": ["street", "city", "postcode"],
    "additionalProperties": False,
}
NESTED_SCHEMA: JsonObject = {
    "type": "object",
    "$defs": {"line": _LINE, "address": _ADDRESS},
    "properties": {
        "customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "required": ["name", "address"],
            "additionalProperties": False,
        },
        "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}, "minItems": 1},
        "shipping": {"anyOf": [{"type": "null"}, {"enum": ["post", "courier"]}]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    },
    "required": ["customer", "lines", "shipping", "tags"],
    "additionalProperties": False,
}
NESTED_VALUE: JsonObject = {
    "customer": {"name": "Ada", "address": {"street": "Storgata 1", "city": "Oslo", "postcode": "0155"}},
    "lines": [{"sku": "ABC-1", "quantity": 2, "price": 9.5}, {"sku": "DEF-22", "quantity": 1, "price": 120.0}],
    "shipping": "courier",
    "tags": ["gift", "fragile"],
}

PAYLOADS: dict[str, tuple[JsonObject, JsonObject]] = {
    "flat": (FLAT_SCHEMA, FLAT_VALUE),
    "nested": (NESTED_SCHEMA, NESTED_VALUE),
}


def _us_per_call(check: Callable[[], object], number: int, repeat: int) -> float:
    """The fastest of `repeat` batches of `number` calls, in µs per call."""
    return min(timeit.repeat(check, number=number, repeat=repeat)) / number * 1e6


def measure(number: int = 20_000, repeat: int = 7) -> dict[str, dict[str, float]]:
    """µs per check of each payload: ``{"flat": {"dict": ..., "compiled": ...}, ...}`` (no "compiled" if absent)."""
    import helikon_fc.core.schema as schema_module

    compile_schema: Callable[[JsonValue], Any] | None = getattr(schema_module, "compile_schema", None)
    figures: dict[str, dict[str, float]] = {}
    for name, (schema, value) in PAYLOADS.items():
        as_json: JsonValue = value
        if validate(as_json, schema):
            raise SystemExit(f"the {name} payload does not fit its schema: {validate(as_json, schema)}")
        row = {"dict": _us_per_call(functools.partial(validate, as_json, schema), number, repeat)}
        if compile_schema is not None:  # absent before the compiled checker
            row["compiled"] = _us_per_call(functools.partial(validate, as_json, compile_schema(schema)), number, repeat)
        figures[name] = row
    return figures


def main() -> None:
    """Print the figures, one line per payload and form."""
    parser = argparse.ArgumentParser(prog="python -m bench.schema_check", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = parser.parse_args()
    figures = measure(number=500, repeat=2) if args.quick else measure()
    for name, row in figures.items():
        for form, us in row.items():
            print(f"{name:<7} {form:<9} {us:8.2f} µs/check")


if __name__ == "__main__":
    main()
