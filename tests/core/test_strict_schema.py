"""`strict_schema`: the strict form OpenAI's structured outputs require, applied at every depth."""

from __future__ import annotations

from helikon_fc.core import JsonObject, strict_schema

POINT: JsonObject = {"type": "object", "properties": {"x": {"type": "number"}}}
CLOSED_POINT: JsonObject = {
    "type": "object",
    "properties": {"x": {"type": "number"}},
    "required": ["x"],
    "additionalProperties": False,
}


def test_every_object_is_closed_and_every_property_required_at_every_depth() -> None:
    """Objects under properties, $defs, definitions, items, additionalProperties, prefixItems and the
    combinators are closed; other keywords and non-schema entries are copied as they are."""
    schema: JsonObject = {
        "type": "object",
        "properties": {"point": POINT, "flag": True, "tags": {"type": "array", "items": POINT}},
        "$defs": {"P": POINT, "any": True},
        "definitions": {"Q": POINT},
        "additionalProperties": POINT,
        "prefixItems": [POINT, False],
        "anyOf": [POINT],
        "oneOf": [POINT],
        "allOf": [POINT, True],
        "description": "kept",
        "examples": [{"type": "object"}],
        "items": True,
    }
    assert strict_schema(schema) == {
        "type": "object",
        "properties": {"point": CLOSED_POINT, "flag": True, "tags": {"type": "array", "items": CLOSED_POINT}},
        "$defs": {"P": CLOSED_POINT, "any": True},
        "definitions": {"Q": CLOSED_POINT},
        "additionalProperties": False,
        "prefixItems": [CLOSED_POINT, False],
        "anyOf": [CLOSED_POINT],
        "oneOf": [CLOSED_POINT],
        "allOf": [CLOSED_POINT, True],
        "description": "kept",
        "examples": [{"type": "object"}],
        "items": True,
        "required": ["point", "flag", "tags"],
    }


def test_an_object_is_recognised_by_its_type_or_its_properties() -> None:
    """``"type": "object"``, a type list naming ``"object"``, or ``properties`` alone make a schema an object."""
    assert strict_schema({"type": ["object", "null"]}) == {
        "type": ["object", "null"],
        "required": [],
        "additionalProperties": False,
    }
    assert strict_schema({"properties": {"a": {"type": "string"}}}) == {
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_schema({"additionalProperties": POINT}) == {"additionalProperties": CLOSED_POINT}
    assert strict_schema({"type": "string"}) == {"type": "string"}
    assert strict_schema({"type": ["string", "null"]}) == {"type": ["string", "null"]}
    assert strict_schema({"type": "array", "items": {"type": "integer"}}) == {
        "type": "array",
        "items": {"type": "integer"},
    }
