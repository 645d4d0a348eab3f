"""`helikon_fc.core.validate` on the keywords its docstring lists: one message per problem, naming its path."""

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


def test_a_boolean_bound_is_ignored() -> None:
    """A bound that is not a number (``true`` is not one in JSON) checks nothing."""
    assert validate(-5, {"type": "number", "minimum": True}) == []


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
