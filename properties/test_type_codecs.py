"""Laws of the tool/output type codecs: a schema and its decoder never disagree."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import uuid
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import annotated_types as at
import attrs
import pytest
from hypothesis import given, strategies as st
from properties.strategies import finite_floats, json_values, texts

from helikon_fc.core import JsonValue, validate
from helikon_fc.shell.tools.function_tool import to_tool_output
from helikon_fc.shell.tools.type_schema import DecodeError, decode, schema_for, strict_schema_for


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


@dataclasses.dataclass(frozen=True)
class Crate:
    items: Annotated[list[Leaf], at.MaxLen(2)]
    size: Annotated[int, at.Ge(0)] = 0
    tags: tuple[str, ...] = dataclasses.field(default=())


class Label(TypedDict):
    text: str
    score: NotRequired[Annotated[int, at.Ge(0)]]


def crates() -> st.SearchStrategy[Crate]:
    """Dataclasses with bounded fields, defaults drawn or left."""
    return st.builds(
        Crate, st.lists(leaves(), max_size=2), st.integers(min_value=0), st.lists(texts(), max_size=2).map(tuple)
    )


def labels() -> st.SearchStrategy[Label]:
    """TypedDicts with and without their optional key."""
    return st.fixed_dictionaries({"text": texts()}, optional={"score": st.integers(min_value=0)}).map(
        lambda d: Label(**d)  # type: ignore[typeddict-item]
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
    ("bounded-int", Annotated[int, at.Ge(-5), at.Lt(100)], st.integers(-5, 99), True),
    ("multiple", Annotated[int, at.MultipleOf(3)], st.integers().map(lambda n: 3 * n), True),
    ("bounded-float", Annotated[float, at.Interval(gt=0, le=1)], st.floats(0, 1, exclude_min=True), True),
    ("short-list", Annotated[list[int], at.MaxLen(3)], st.lists(st.integers(), max_size=3), True),
    ("short-str", Annotated[str, at.MinLen(1), at.MaxLen(5)], st.text(min_size=1, max_size=5), False),
    ("crate", Crate, crates(), True),
    # A value without its NotRequired key fits the plain schema; the strict form spells that key null.
    ("label", Label, labels(), False),
]
IDS = [name for name, _, _, _ in CASES]

ROUND_TRIP_ONLY: list[tuple[str, object, st.SearchStrategy[Any]]] = [
    ("datetime", datetime.datetime, st.datetimes(timezones=st.none() | st.just(datetime.UTC))),
    ("date", datetime.date, st.dates()),
    ("time", datetime.time, st.times()),
    ("uuid", uuid.UUID, st.uuids()),
]
"""Strings with a ``format``: their schema accepts more than their decoder (JSON Schema makes ``format`` an
annotation a validator need not check, so decoding is the check), so they obey the round trip but not the
second law."""


@pytest.mark.parametrize(("name", "tp", "values"), ROUND_TRIP_ONLY, ids=[name for name, _, _ in ROUND_TRIP_ONLY])
@given(data=st.data())
def test_values_the_schema_under_checks_still_round_trip(
    name: str, tp: object, values: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    """A datetime, date, time or UUID returned by a tool and read back as an argument fits its schema (and
    strict form) and decodes back equal."""
    value = data.draw(values, label=name)
    wire = encode(value)
    assert validate(wire, schema_for(tp)) == [] and validate(wire, strict_schema_for(tp)) == []
    decoded = decode(tp, wire)
    assert decoded == value and type(decoded) is type(value)


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
