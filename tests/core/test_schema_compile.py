"""Schemas are compiled once and refused when broken; checking is total on any value, however deep or odd."""

from __future__ import annotations

import copy
import pickle

import pytest

from helikon_fc.core import JsonObject, JsonValue, OutputSchema, ToolDef, validate
from helikon_fc.core.schema import MAX_DEPTH, CompiledSchema, SchemaError, compile_schema

RECURSIVE: JsonObject = {"type": "array", "items": {"$ref": "#"}}


def _nested(depth: int) -> JsonValue:
    value: JsonValue = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"$ref": "#/$defs/missing"}, "Pointer '/$defs/missing' does not exist"),
        ({"properties": {"code": {"pattern": "("}}}, 'schema.properties.code.pattern: "(" is not a "regex"'),
        ({"type": "text"}, "schema.type:"),
        ({"minimum": "1"}, 'schema.minimum: "1" is not of type "number"'),
        ({"required": "name"}, 'schema.required: "name" is not of type "array"'),
    ],
)
def test_a_broken_schema_is_refused_when_compiled(schema: JsonObject, reason: str) -> None:
    """Unresolvable $ref, uncompilable pattern, a keyword of the wrong form: SchemaError, saying where."""
    with pytest.raises(SchemaError, match="invalid JSON Schema") as info:
        compile_schema(schema)
    assert reason in str(info.value)
    assert validate(1, schema) == [f"$: {info.value}"]


@pytest.mark.parametrize(
    "ref", ["https://example.com/address.json", "http://127.0.0.1:9/x.json", "other.json", "urn:example:thing"]
)
def test_a_remote_ref_is_refused_and_never_fetched(ref: str) -> None:
    """A $ref outside the schema is an error at compile time; the retriever refuses it without any IO."""
    with pytest.raises(SchemaError, match=r"which is not inside the schema \(remote references are never fetched\)"):
        compile_schema({"properties": {"to": {"$ref": ref}}})


def test_refs_inside_the_schema_resolve_by_pointer_anchor_and_id() -> None:
    """$defs pointers, $anchor and embedded $id resources are inside the schema: no fetch needed."""
    schema: JsonObject = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "name": {"$anchor": "name", "type": "string"},
            "age": {"$id": "age.json", "type": "integer", "minimum": 0},
        },
        "properties": {"n": {"$ref": "#name"}, "a": {"$ref": "age.json"}, "b": {"$ref": "#/$defs/age"}},
    }
    compiled = compile_schema(schema)
    assert validate({"n": "Ada", "a": 3, "b": 4}, compiled) == []
    assert validate({"n": 1, "a": -1}, compiled) == [
        "$.n: expected string, got integer",
        "$.a: expected a number >= 0, got -1",
    ]


def test_a_schema_is_an_object_or_a_boolean() -> None:
    """Anything else is refused, naming what it was."""
    with pytest.raises(SchemaError, match="a JSON Schema is an object or a boolean, got str"):
        compile_schema("string")
    assert validate(1, ["type"]) == ["$: a JSON Schema is an object or a boolean, got list"]


def test_tool_and_output_definitions_compile_their_schema_once_when_built() -> None:
    """ToolDef and OutputSchema refuse a broken schema when built, naming it; equality ignores the compiled form."""
    with pytest.raises(ValueError, match=r"tool 'lookup': parameters: invalid JSON Schema: \$ref to 'https://x.org/a'"):
        ToolDef("lookup", "finds", {"type": "object", "properties": {"a": {"$ref": "https://x.org/a"}}})
    with pytest.raises(ValueError, match=r"output schema 'Answer': invalid JSON Schema: schema\.maxLength"):
        OutputSchema("Answer", {"maxLength": -1})
    tool = ToolDef("add", "adds", {"properties": {"a": {"type": "integer"}}})
    assert isinstance(tool.compiled, CompiledSchema)
    assert tool == ToolDef("add", "adds", {"properties": {"a": {"type": "integer"}}})
    assert "compiled" not in repr(tool)
    assert validate({"a": "1"}, tool.compiled) == ["$.a: expected integer, got string"]
    with pytest.raises(AttributeError):
        setattr(tool.compiled, "_validator", None)  # noqa: B010


def test_a_compiled_schema_and_its_source_agree() -> None:
    """validate with the dict (compiled on the fly, then remembered) says what the compiled form says."""
    schema: JsonObject = {"properties": {"a": {"enum": [1, 2]}}, "required": ["a"]}
    compiled = compile_schema(schema)
    values: list[JsonValue] = [{"a": 1}, {"a": 3}, {}, [], {"a": True}]
    for value in values:
        assert validate(value, schema) == validate(value, compiled)


def test_a_schema_changed_in_place_is_compiled_again() -> None:
    """The remembered compiled form is used only while the dict is unchanged."""
    schema: JsonObject = {"type": "integer"}
    assert validate("x", schema) == ["$: expected integer, got string"]
    schema["type"] = "string"
    assert validate("x", schema) == []
    assert validate(1, schema) == ["$: expected string, got integer"]


@pytest.mark.parametrize("depth", [MAX_DEPTH, 3_000, 200_000])
def test_deep_values_are_refused_not_crashed(depth: int) -> None:
    """A recursive schema would recurse in native code with the value: too-deep values get a message instead."""
    problems = validate(_nested(depth), RECURSIVE)
    assert problems == [f"$: nested more than {MAX_DEPTH} levels deep, too deep to check"]
    assert validate(_nested(depth), {"type": "object"}) == [
        f"$: nested more than {MAX_DEPTH} levels deep, too deep to check"
    ]


def test_values_just_within_the_depth_limit_are_checked() -> None:
    """MAX_DEPTH - 1 levels below the root are checked in full, errors and all."""
    assert validate(_nested(MAX_DEPTH - 1), RECURSIVE) == []
    deep_error = _nested(MAX_DEPTH - 2)
    assert isinstance(deep_error, list)
    deep_error.append("x")
    assert validate(deep_error, RECURSIVE) == ["$[1]: expected array, got string"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (float("nan"), "$: nan is not a JSON number"),
        ({"a": [1, float("inf")]}, "$.a[1]: inf is not a JSON number"),
        ({"a": {1: 2}}, "$.a: an object key is int, not a string"),
        ({"b c": b"x"}, '$["b c"]: a bytes is not a JSON value'),
        ([(1, 2)], "$[0]: a tuple is not a JSON value"),
    ],
)
def test_values_json_cannot_hold_are_named_not_raised(value: object, problem: str) -> None:
    """Where a schema looks, a NaN (shown as null by the native checker), a non-string key, bytes, a tuple
    get one message each, under a plain or a recursive schema; the empty schema takes them, as it takes anything."""
    assert validate(value, {"type": "null"}) == [problem]  # type: ignore[arg-type]
    assert validate(value, {"anyOf": [{"type": "null"}, {"$ref": "#"}]}) == [problem]  # type: ignore[arg-type]
    assert validate(value, {}) == []  # type: ignore[arg-type]


def test_an_unknown_meta_schema_is_refused_not_fetched() -> None:
    """A ``$schema`` naming no draft known offline is refused, said as such (not as a $ref)."""
    with pytest.raises(SchemaError, match=r"'http://example\.com/meta' is not a meta-schema known offline"):
        compile_schema({"$schema": "http://example.com/meta", "type": "string"})
    assert compile_schema({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]})


def test_compiled_schemas_copy_and_pickle_with_their_definitions() -> None:
    """A CompiledSchema is immutable: a copy is itself; pickling a ToolDef recompiles its schema on load."""
    tool = ToolDef("add", "adds", {"properties": {"a": {"type": "integer"}}})
    assert copy.deepcopy(tool.compiled) is tool.compiled
    assert copy.deepcopy(tool) == tool
    loaded = pickle.loads(pickle.dumps(tool))
    assert loaded == tool
    assert validate({"a": "x"}, loaded.compiled) == ["$.a: expected integer, got string"]


def test_the_same_schema_text_is_compiled_once() -> None:
    """Equal schemas share one compiled form; ``true`` and ``1`` are not equal here, though Python says so."""
    assert compile_schema({"const": 1}) is compile_schema({"const": 1})
    assert compile_schema({"const": 1}) is not compile_schema({"const": True})
    assert validate(True, {"const": 1}) == ["$: expected 1, got true"]
    assert validate(True, {"const": True}) == []
