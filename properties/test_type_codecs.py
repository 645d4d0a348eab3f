"""Laws of the tool/output type codecs: a schema and its decoder never disagree."""

from __future__ import annotations

import enum
import json
from typing import Any, Literal

import attrs
import pytest
from hypothesis import given, strategies as st
from properties.strategies import finite_floats, json_values, texts

from helikon_fc.core import JsonValue, validate
from helikon_fc.shell.function_tool import to_tool_output
from helikon_fc.shell.type_schema import DecodeError, decode, schema_for, strict_schema_for


class Mood(enum.Enum):
    CALM = "calm"
    BUSY = "busy"
    NONE = None


@attrs.frozen
class Leaf:
    label: str
    weight: float = 1.0
    note: str | None = None


@attrs.frozen
class Tree:
    leaves: tuple[Leaf, ...]
    mood: Mood
    kind: Literal["oak", 3, True, None] = "oak"
    counts: list[int | None] = attrs.field(factory=list)


def leaves() -> st.SearchStrategy[Leaf]:
    """Leaves, optional fields drawn or left at their defaults."""
    return st.builds(Leaf, texts(), finite_floats(), st.none() | texts())


def trees() -> st.SearchStrategy[Tree]:
    """Trees of a few leaves."""
    return st.builds(
        Tree,
        st.lists(leaves(), max_size=3).map(tuple),
        st.sampled_from(Mood),
        st.sampled_from(["oak", 3, True, None]),
        st.lists(st.none() | st.integers(), max_size=3),
    )


CASES: list[tuple[str, object, st.SearchStrategy[Any], bool]] = [
    # (id, type, values of the type, expressible in strict mode)
    ("int", int, st.integers(), True),
    ("float", float, finite_floats(), True),
    ("str", str, texts(), True),
    ("bool", bool, st.booleans(), True),
    ("optional-int", int | None, st.none() | st.integers(), True),
    ("union", int | str, st.integers() | texts(), True),
    ("list", list[int], st.lists(st.integers(), max_size=4), True),
    ("tuple", tuple[str, ...], st.lists(texts(), max_size=4).map(tuple), True),
    ("pair", tuple[int, str], st.tuples(st.integers(), texts()), False),
    ("dict", dict[str, float], st.dictionaries(texts(), finite_floats(), max_size=3), False),
    ("literal", Literal["a", 1, False], st.sampled_from(["a", 1, False]), True),
    ("enum", Mood, st.sampled_from(Mood), True),
    ("leaf", Leaf, leaves(), True),
    ("tree", Tree, trees(), True),
]
IDS = [name for name, _, _, _ in CASES]


def encode(value: object) -> JsonValue:
    """What a tool's return value, or a model's JSON, looks like after a trip through JSON text."""
    content = to_tool_output(value).content if not isinstance(value, str) else value
    result: JsonValue = json.loads(json.dumps(content))
    return result


@pytest.mark.parametrize(("name", "tp", "values", "strict"), CASES, ids=IDS)
@given(data=st.data())
def test_values_fit_their_schema_and_decode_to_themselves(
    name: str, tp: object, values: st.SearchStrategy[Any], strict: bool, data: st.DataObject
) -> None:
    """Every value of a supported type, sent as JSON, fits its schema (and strict form) and decodes back equal."""
    value = data.draw(values, label=name)
    wire = encode(value)
    assert validate(wire, schema_for(tp)) == []
    if strict:
        assert validate(wire, strict_schema_for(tp)) == []
    decoded = decode(tp, wire)
    assert decoded == value
    assert type(decoded) is type(value)


@pytest.mark.parametrize(("name", "tp", "values", "strict"), CASES, ids=IDS)
@given(wire=json_values())
def test_what_the_schema_accepts_decodes(
    name: str, tp: object, values: st.SearchStrategy[Any], strict: bool, wire: JsonValue
) -> None:
    """For any JSON value: if the schema accepts it, decoding succeeds; otherwise decoding raises only DecodeError."""
    accepted = validate(wire, schema_for(tp)) == []
    try:
        decode(tp, wire)
    except DecodeError as exc:
        assert not accepted, f"schema accepted {wire!r} but decode said {exc}"
        assert exc.errors and all(error.startswith("$") for error in exc.errors)
