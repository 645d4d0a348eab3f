"""`helikon_fc.core.validate` on the keywords of JSON Schema draft 2020-12: one message per problem, naming its path.

The official suite (test_schema_suite.py) decides valid/invalid for every keyword; these tests pin the
cases the old checker got wrong and the words of the messages."""

from __future__ import annotations

import pytest

from helikon_fc.core import JsonObject, JsonValue, validate

BOUNDED: JsonObject = {
    "type": "object",
    "properties": {
        "low": {"type": "number", "minimum": 0, "exclusiveMaximum": 10},
        "high": {"type": "integer", "maximum": 5, "exclusiveMinimum": 1},
    },
}


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ({"low": 0, "high": 5}, []),
        ({"low": 9.5, "high": 2}, []),
        ({"low": -1, "high": 2}, ["$.low: expected a number >= 0, got -1"]),
        ({"low": 10, "high": 2}, ["$.low: expected a number < 10, got 10"]),
        ({"low": 1, "high": 6}, ["$.high: expected a number <= 5, got 6"]),
        ({"low": 1, "high": 1}, ["$.high: expected a number > 1, got 1"]),
    ],
)
def test_numeric_bounds_are_checked_inclusively_and_exclusively(value: JsonValue, errors: list[str]) -> None:
    """minimum/maximum admit the bound itself, exclusiveMinimum/exclusiveMaximum do not."""
    assert validate(value, BOUNDED) == errors


def test_a_boolean_bound_makes_the_schema_invalid() -> None:
    """A bound that is not a number (``true`` is not one in JSON) is a broken schema, said with its place."""
    assert validate(-5, {"type": "number", "minimum": True}) == [
        '$: invalid JSON Schema: schema.minimum: true is not of type "number"'
    ]


def test_any_of_fits_when_one_option_fits_and_reports_the_closest_option_otherwise() -> None:
    """anyOf passes when any option fits; when none does, the errors are those of the option nearest the value."""
    schema: JsonObject = {
        "anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        ]
    }
    assert validate("x", schema) == []
    assert validate({"n": 1}, schema) == []
    assert validate({"n": "one"}, schema) == ["$.n: expected integer, got string"]
    assert validate(3, schema) == ["$: expected string or object, got integer"]


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        (0, {"const": False}),
        (1, {"const": True}),
        (False, {"const": 0}),
        (True, {"enum": [1, "a"]}),
        (0, {"enum": [False, None]}),
        ([0], {"const": [False]}),
        ({"a": 1}, {"enum": [{"a": True}]}),
    ],
)
def test_const_and_enum_tell_booleans_from_numbers(value: JsonValue, schema: JsonObject) -> None:
    """``false`` is not ``0`` and ``true`` is not ``1``, at any depth."""
    assert len(validate(value, schema)) == 1


def test_const_and_enum_take_numbers_by_value() -> None:
    """``1.0`` is the number ``1``; the messages show the value and what was allowed."""
    assert validate(1.0, {"const": 1}) == []
    assert validate([1.0], {"enum": [[1]]}) == []
    assert validate({"on": 0}, {"properties": {"on": {"const": False}}}) == ["$.on: expected false, got 0"]
    assert validate(True, {"enum": [1, "a"]}) == ['$: true is not one of 1, "a"']


def test_boolean_schemas_accept_everything_or_nothing() -> None:
    """``true`` and ``false`` are schemas, at the top and as any subschema."""
    assert validate({"x": [1]}, True) == []
    assert validate(None, False) == ["$: no value is allowed here"]
    closed: JsonObject = {"properties": {"old": False}, "items": False}
    assert validate({"old": 1}, closed) == ["$.old: no value is allowed here"]
    assert validate({"new": 1}, closed) == []
    assert validate([], closed) == []
    assert validate([1], {"prefixItems": [True], "items": False}) == []
    assert validate([1, 2], {"prefixItems": [True], "items": False}) == ["$[1]: no value is allowed here"]


def test_keywords_beside_ref_also_apply() -> None:
    """A ``$ref`` no longer hides the keywords next to it."""
    schema: JsonObject = {"$defs": {"name": {"type": "string"}}, "$ref": "#/$defs/name", "maxLength": 3}
    assert validate("abc", schema) == []
    assert validate("abcd", schema) == ["$: expected at most 3 characters, got 4"]
    assert validate(4, schema) == ["$: expected string, got integer"]


def test_all_of_applies_every_subschema() -> None:
    """``allOf``: the value must fit each subschema; each one it misses is named."""
    schema: JsonObject = {"allOf": [{"type": "integer"}, {"minimum": 2}, {"multipleOf": 3}]}
    assert validate(3, schema) == []
    assert validate(4, schema) != []
    assert validate(0, schema) != []
    assert validate("3", schema) != []
    nested: JsonObject = {
        "type": "object",
        "allOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}}],
    }
    assert validate({"a": 1, "b": "x"}, nested) == []
    assert len(validate({"b": 1}, nested)) == 2


def test_not_and_if_then_else() -> None:
    """``not`` inverts its schema; ``if`` picks ``then`` or ``else``."""
    assert validate("x", {"not": {"type": "string"}}) == ['$: must not fit the schema {"type": "string"}']
    assert validate(1, {"not": {"type": "string"}}) == []
    rule: JsonObject = {
        "if": {"properties": {"unit": {"const": "pct"}}},
        "then": {"properties": {"amount": {"maximum": 100}}},
        "else": {"properties": {"amount": {"minimum": 0}}},
    }
    assert validate({"unit": "pct", "amount": 50}, rule) == []
    assert validate({"unit": "pct", "amount": 150}, rule) == ["$.amount: expected a number <= 100, got 150"]
    assert validate({"unit": "eur", "amount": -1}, rule) == ["$.amount: expected a number >= 0, got -1"]


def test_object_keywords() -> None:
    """patternProperties, propertyNames, min/maxProperties, dependentRequired, dependentSchemas."""
    assert validate({"x_a": 1, "x_b": "2"}, {"patternProperties": {"^x_": {"type": "integer"}}}) == [
        "$.x_b: expected integer, got string"
    ]
    assert validate({"ok": 1, "Bad": 2}, {"propertyNames": {"pattern": "^[a-z]+$"}}) == [
        '$: property name "Bad" does not match "^[a-z]+$"'
    ]
    assert validate({}, {"minProperties": 1}) == ["$: expected at least 1 properties, got 0"]
    assert validate({"a": 1, "b": 2}, {"maxProperties": 1}) == ["$: expected at most 1 properties, got 2"]
    needs: JsonObject = {"dependentRequired": {"card": ["cvc"]}}
    assert validate({"card": "4111"}, needs) == ["$.cvc: missing required field"]
    assert validate({"cash": 5}, needs) == []
    shaped: JsonObject = {"dependentSchemas": {"card": {"required": ["expiry"]}}}
    assert validate({"card": "4111"}, shaped) == ["$.expiry: missing required field"]


def test_array_keywords() -> None:
    """uniqueItems (1 and true differ, 1 and 1.0 do not), contains with min/maxContains."""
    assert validate([1, True], {"uniqueItems": True}) == []
    assert validate([1, 1.0], {"uniqueItems": True}) == ["$: expected unique items, got duplicates"]
    assert validate([{"a": [1]}, {"a": [1]}], {"uniqueItems": True}) != []
    assert validate(["a", "b"], {"contains": {"type": "integer"}}) != []
    assert validate([1, "b"], {"contains": {"type": "integer"}}) == []
    assert validate([1, 2, 3], {"contains": {"type": "integer"}, "maxContains": 2}) != []


def test_multiple_of() -> None:
    """multipleOf holds for integers and for floats that are whole multiples."""
    assert validate(7.5, {"multipleOf": 2.5}) == []
    assert validate(10, {"multipleOf": 3}) == ["$: expected a multiple of 3, got 10"]


def test_unevaluated_properties_and_items_see_through_combinators() -> None:
    """unevaluatedProperties/Items close a schema composed with allOf/anyOf/if, naming each extra."""
    schema: JsonObject = {
        "allOf": [{"properties": {"a": {"type": "integer"}}}],
        "anyOf": [{"properties": {"b": {"type": "string"}}}],
        "unevaluatedProperties": False,
    }
    assert validate({"a": 1, "b": "x"}, schema) == []
    assert validate({"a": 1, "b": "x", "c": None}, schema) == ["$.c: unexpected field"]
    items: JsonObject = {"prefixItems": [{"type": "integer"}], "unevaluatedItems": False}
    assert validate([1], items) == []
    assert validate([1, 2], items) == ["$: unexpected item 2"]


def test_one_of_fails_when_several_options_fit() -> None:
    """oneOf is exactly one: a value fitting two options fails (the old checker took it like anyOf)."""
    schema: JsonObject = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert validate(-1, schema) == []
    assert validate(1, schema) == ["$: fits more than one option of oneOf (it must fit exactly one)"]
