"""Law: checking JSON against a schema is total and pure — `validate` and `strict_schema` accept any schema and
value without raising or changing them, and every problem `validate` reports names its path."""

from __future__ import annotations

import copy

from hypothesis import given, strategies as st
from properties.strategies import json_schemas, json_values

from helikon_fc.core import JsonObject, JsonValue, strict_schema, validate

SCHEMAS = json_schemas()
VALUES = json_values()


@given(value=VALUES, schema=SCHEMAS)
def test_validate_is_total_and_pure(value: JsonValue, schema: JsonObject) -> None:
    """For any JSON value and schema, validate returns path-prefixed problems, raises nothing and mutates nothing."""
    value_before, schema_before = copy.deepcopy(value), copy.deepcopy(schema)
    problems = validate(value, schema)
    assert all(problem.startswith("$") and ": " in problem for problem in problems)
    assert validate(value, schema) == problems
    assert value == value_before and schema == schema_before


@given(value=VALUES)
def test_the_empty_schema_accepts_everything(value: JsonValue) -> None:
    """Every JSON value fits the empty schema."""
    assert validate(value, {}) == []


@given(schema=SCHEMAS)
def test_strict_schema_is_pure_and_idempotent(schema: JsonObject) -> None:
    """strict_schema leaves its argument unchanged and applying it twice is the same as applying it once."""
    before = copy.deepcopy(schema)
    strict = strict_schema(schema)
    assert schema == before
    assert strict_schema(strict) == strict


@given(depth=st.integers(min_value=0, max_value=3_000), schema=SCHEMAS)
def test_validate_is_total_on_deep_values(depth: int, schema: JsonObject) -> None:
    """However deep the value (here to 3,000 levels, as the tool-argument properties feed), validate returns
    path-prefixed problems and never raises, under any schema, recursive ones included."""
    value: JsonValue = [1]
    for _ in range(depth):
        value = [value]
    schemas: list[JsonObject] = [schema, {"items": {"$ref": "#"}}, {"anyOf": [schema, {"$ref": "#"}]}]
    for each in schemas:
        problems = validate(value, each)
        assert all(problem.startswith("$") and ": " in problem for problem in problems)
