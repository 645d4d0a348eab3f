"""Law: checking JSON against a schema is total and pure — `validate` and `strict_schema` accept any schema and
value without raising or changing them, and every problem `validate` reports names its path."""

from __future__ import annotations

import copy

from hypothesis import given
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
