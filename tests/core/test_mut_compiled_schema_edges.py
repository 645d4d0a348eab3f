"""`compile_schema` and `CompiledSchema` at their edges: the documented depth limit, schemas that are not JSON,
and a compiled schema's copy, pickle and repr.

``docs/tools.md`` gives the limit: values nested more than 200 levels deep under a recursive schema are
refused. A schema holding a NaN or a non-JSON object is a `SchemaError` naming where. A `CompiledSchema` is
immutable: a copy is itself, a pickle recompiles it from its text, and its repr does not print the schema.
"""

from __future__ import annotations

import copy
import enum
import json
import pickle

import pytest

from helikon_fc.core import JsonValue, validate
from helikon_fc.core.compiled_schema import _plain_json
from helikon_fc.core.schema import MAX_DEPTH, SchemaError, compile_schema

RECURSIVE: JsonValue = {"type": "array", "items": {"$ref": "#"}}


def _nested(depth: int) -> JsonValue:
    value: JsonValue = []
    for _ in range(depth):
        value = [value]
    return value


def test_the_depth_limit_is_two_hundred_levels() -> None:
    """200 levels below the root is too deep to check under a recursive schema; 199 is checked."""
    assert MAX_DEPTH == 200
    assert validate(_nested(200), RECURSIVE) == ["$: nested more than 200 levels deep, too deep to check"]
    assert validate(_nested(199), RECURSIVE) == []


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"const": float("nan")}, "schema.const: nan is not a JSON number"),
        ({"enum": [1, float("inf")]}, "schema.enum[1]: inf is not a JSON number"),
        ({"default": object()}, "schema.default: a object is not a JSON value"),
    ],
)
def test_a_schema_that_is_not_json_is_refused_naming_where(schema: dict[str, object], message: str) -> None:
    """A NaN, an infinity or a non-JSON object in a schema is a `SchemaError` with its path in the schema."""
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_a_compiled_schema_copies_as_itself_and_shows_no_schema() -> None:
    """`copy.copy` and `copy.deepcopy` return the same object; the repr is ``CompiledSchema(...)``."""
    compiled = compile_schema({"type": "integer", "description": "a long description"})
    assert copy.copy(compiled) is compiled
    assert copy.deepcopy(compiled) is compiled
    assert repr(compiled) == "CompiledSchema(...)"


def test_a_pickled_compiled_schema_checks_as_the_original() -> None:
    """Pickling keeps the schema's text, and loading compiles it again: the same schema, the same verdicts."""
    compiled = compile_schema({"properties": {"n": {"type": "integer"}}})
    loaded = pickle.loads(pickle.dumps(compiled))
    assert loaded is compile_schema({"properties": {"n": {"type": "integer"}}})
    assert loaded.errors({"n": "x"}) == ["$.n: expected integer, got string"]


DEEP = _nested(250)
TOO_DEEP = ["$: nested more than 200 levels deep, too deep to check"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array"},
        {"type": "array", "items": {"type": "array"}},
        {"$id": "urn:root", "type": "array"},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "array"}}},
        {"items": {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}, "$defs": {"a": {"type": "array"}}},
    ],
)
def test_a_schema_that_cannot_recurse_checks_a_deep_value_in_full(schema: JsonValue) -> None:
    """Nested subschemas, a root ``$id``, ``$ref`` without a cycle (twice to one place too) cannot recurse."""
    assert validate(DEEP, schema) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"$ref": "#"}},
        {"items": {"$anchor": "a"}},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}}}},
        {"$id": "urn:s", "type": "array", "items": {"$ref": "urn:s"}},
        {"type": "array", "items": {"$ref": "#/$defs/a%20b"}, "$defs": {"a b": {"type": "array"}}},
    ],
)
def test_a_schema_that_may_recurse_refuses_a_value_deeper_than_the_limit(schema: JsonValue) -> None:
    """A ``$ref`` cycle (at the root or below it), a nested anchor, or a ``$ref`` the offline reading cannot follow
    may recurse: too deep."""
    assert validate(DEEP, schema) == TOO_DEEP


def test_a_ref_through_a_list_index_to_a_sibling_is_no_cycle() -> None:
    """``#/allOf/0`` names the first option itself, not the list: a sibling referring to it makes no cycle."""
    schema: JsonValue = {"allOf": [{"type": "array"}, {"items": {"$ref": "#/allOf/0"}}]}
    assert validate(DEEP, schema) == []


def test_a_ref_shaped_value_inside_const_is_data() -> None:
    """A ``$ref`` key inside ``const`` is a value to compare, not a reference: the schema compiles, even when
    the text would point past the end of a list."""
    schema: JsonValue = {"allOf": [{}], "const": {"$ref": "#/allOf/1"}}
    assert validate({"$ref": "#/allOf/1"}, schema) == []
    assert validate({"$ref": "#"}, schema) == ['$: expected {"$ref": "#/allOf/1"}, got {"$ref": "#"}']


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"x", "$: a bytes is not a JSON value"),
        ([b"x"], "$[0]: a bytes is not a JSON value"),
        ({"a": (1,)}, "$.a: a tuple is not a JSON value"),
        ({1: []}, "$: an object key is int, not a string"),
        ([float("nan")], "$[0]: nan is not a JSON number"),
    ],
)
def test_a_non_json_value_under_a_recursive_schema_gets_a_message(value: object, message: str) -> None:
    """Bytes, a tuple, a non-string key or a NaN, alone or inside a value, under a schema that may recurse: one
    message naming where, never a raise."""
    assert validate(value, RECURSIVE) == [message]  # type: ignore[arg-type]


class Colour(enum.StrEnum):
    """A str enum: a JSON string, though not of the exact type `str`."""

    RED = "red"


def _nested_objects(depth: int) -> JsonValue:
    value: JsonValue = {}
    for _ in range(depth):
        value = {"a": value}
    return value


RECURSIVE_OBJECTS: JsonValue = {"type": "object", "additionalProperties": {"$ref": "#"}}


def test_a_value_holding_a_str_enum_is_checked_in_full_within_the_depth_limit() -> None:
    """A str enum is a JSON string: a value holding one is walked by the slower path, which counts depth as the
    fast one does: 199 levels of lists or 150 of objects below the root are checked, 250 are too deep."""
    assert validate([Colour.RED, _nested(198)], RECURSIVE) == ["$[0]: expected array, got string"]
    assert validate({"c": {}, "s": Colour.RED, "d": _nested_objects(150)}, RECURSIVE_OBJECTS) == [
        "$.s: expected object, got string"
    ]
    assert validate({"s": Colour.RED, "d": _nested_objects(250)}, RECURSIVE_OBJECTS) == TOO_DEEP
    assert validate([Colour.RED, _nested(250)], RECURSIVE) == TOO_DEEP


@pytest.mark.parametrize(
    "value",
    [1, "s", True, None, 1.5, {}, [], [1, "a", True, None, 2.5], {"a": {"b": [1]}}, _nested(199), _nested_objects(199)],
)
def test_the_fast_path_takes_values_of_exact_json_types_within_the_depth(value: object) -> None:
    """`_plain_json` answers True for exact JSON types, finite, fewer than `MAX_DEPTH` levels below the root."""
    assert _plain_json(value) is True


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        b"x",
        Colour.RED,
        [float("inf")],
        [Colour.RED],
        {"a": (1,)},
        {1: 2},
        [{"a": {2: 1}}],
        _nested(200),
        _nested_objects(200),
    ],
)
def test_the_fast_path_leaves_subclasses_non_finite_numbers_and_deep_values_to_the_walk(value: object) -> None:
    """`_plain_json` answers False for anything else: the slower walk then accepts subclasses and names faults."""
    assert _plain_json(value) is False


def test_a_string_the_checker_cannot_read_gets_a_message_not_an_exception() -> None:
    """``json.loads`` accepts a lone surrogate escape, which the native checker cannot encode: `errors` says the
    value cannot be checked, and why, instead of raising."""
    value = json.loads('"\\ud800"')
    assert validate(value, {"type": "integer"}) == [
        "$: cannot be checked ('utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed)"
    ]


def test_a_broken_reference_is_refused_without_a_path_in_the_schema() -> None:
    """A ``$ref`` that does not resolve is reported in the checker's words alone; a keyword of the wrong form is
    named by its path in the schema."""
    with pytest.raises(SchemaError) as caught:
        compile_schema({"$ref": "#/$defs/missing"})
    assert str(caught.value) == "invalid JSON Schema: Pointer '/$defs/missing' does not exist"
    with pytest.raises(SchemaError) as caught:
        compile_schema({"pattern": "("})
    assert str(caught.value) == 'invalid JSON Schema: schema.pattern: "(" is not a "regex"'
