"""Schemas from annotations, the strict form, and decoding JSON back into typed values."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import annotated_types as at
import attrs
import pytest

from helikon_fc import AgentInput, LlmAgent
from helikon_fc.core import JsonObject, JsonValue, OutputSchema, RepairStarted, strict_schema, validate
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.loop.results import RunResultStreaming
from helikon_fc.shell.tools.type_schema import DecodeError, decode, output_schema_for, schema_for, strict_schema_for
from helikon_fc.testing import ScriptedModel, reply


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Weird(enum.Enum):
    OBJ = object()


@attrs.frozen
class Point:
    """A point on the plane.

    A second paragraph that is not part of the description.
    """

    x: int
    """Horizontal position."""
    y: int = 0
    label: str | None = attrs.field(default=None, metadata={"description": "What to call it"})


@attrs.frozen
class Shape:
    points: list[Point]
    color: Color
    kind: Literal["polygon", "line"] = "polygon"
    weight: Annotated[float, "Line weight in points"] = 1.0


@attrs.frozen
class Node:
    value: int
    children: list[Node]


@attrs.frozen
class Bag:
    items: dict[str, int]


@attrs.frozen
class Positive:
    n: int = attrs.field(validator=attrs.validators.gt(0))


POINT_SCHEMA: JsonObject = {
    "title": "Point",
    "description": "A point on the plane.",
    "type": "object",
    "properties": {
        "x": {"type": "integer", "description": "Horizontal position."},
        "y": {"type": "integer"},
        "label": {"type": ["string", "null"], "description": "What to call it"},
    },
    "required": ["x"],
    "additionalProperties": False,
}


# schema_for


@pytest.mark.parametrize(
    ("tp", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (list[str], {"type": "array", "items": {"type": "string"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (list, {"type": "array"}),
        (dict, {"type": "object"}),
        (int | None, {"type": ["integer", "null"]}),
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (list[int] | None, {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, "one"], {"enum": [1, "one"]}),
        (Color, {"type": "string", "enum": ["red", "blue"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Annotated[int, "How many"], {"type": "integer", "description": "How many"}),
        (Point, POINT_SCHEMA),
    ],
)
def test_schema_for_each_supported_annotation(tp: object, expected: JsonObject) -> None:
    """Every supported annotation has one fixed JSON Schema."""
    assert schema_for(tp) == expected


def test_schema_for_nested_attrs_classes_inlines_them() -> None:
    """A nested attrs class is inlined where it is used; field descriptions come from docstrings,
    metadata and `Annotated`; fields with defaults are optional."""
    assert schema_for(Shape) == {
        "title": "Shape",
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": POINT_SCHEMA},
            "color": {"type": "string", "enum": ["red", "blue"]},
            "kind": {"type": "string", "enum": ["polygon", "line"]},
            "weight": {"type": "number", "description": "Line weight in points"},
        },
        "required": ["points", "color"],
        "additionalProperties": False,
    }


def test_schema_for_returns_a_fresh_dict() -> None:
    """Changing a returned schema does not change the next one."""
    first = schema_for(Point)
    first["title"] = "changed"
    assert schema_for(Point)["title"] == "Point"


@pytest.mark.parametrize(
    ("tp", "fragment"),
    [
        (set[int], "unsupported type set[int] at $"),
        (list[complex], "unsupported type complex at $[]"),
        (dict[int, str], "JSON object keys are strings"),
        (Any, "unsupported type"),
        (Node, "recursive classes cannot be inlined"),
        (Weird, "enum values must be str, int, float, bool or None"),
        (tuple[()], "unsupported type"),
    ],
)
def test_schema_for_rejects_unsupported_types(tp: object, fragment: str) -> None:
    """An unsupported type is a `TypeError` naming the type and where it sits."""
    with pytest.raises(TypeError) as info:
        schema_for(tp)
    assert fragment in str(info.value)


def test_schema_for_names_the_path_of_a_nested_unsupported_type() -> None:
    """The error for a bad field type inside an attrs class names the field's path."""

    @attrs.frozen
    class Holder:
        when: complex

    with pytest.raises(TypeError, match=r"unsupported type complex at \$\.when"):
        schema_for(Holder)


# strict form and output schemas


def test_strict_schema_for_requires_every_key_and_makes_optional_fields_nullable() -> None:
    """Strict form: every object closed, every key required, fields with defaults nullable."""
    schema: Any = strict_schema_for(Shape)
    point = schema["properties"]["points"]["items"]
    assert point["required"] == ["x", "y", "label"]
    assert point["properties"]["y"] == {"type": ["integer", "null"]}
    assert point["properties"]["label"] == {"type": ["string", "null"], "description": "What to call it"}
    assert schema["required"] == ["points", "color", "kind", "weight"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["kind"] == {
        "anyOf": [{"type": "string", "enum": ["polygon", "line"]}, {"type": "null"}]
    }
    assert schema["properties"]["weight"] == {
        "type": ["number", "null"],
        "description": "Line weight in points",
    }


@pytest.mark.parametrize(
    ("tp", "fragment"),
    [
        (Bag, "$.items: a dict with free-form keys"),
        (tuple[int, str], "a fixed-length tuple"),
        (list, "an array of anything"),
    ],
)
def test_strict_schema_for_rejects_what_strict_mode_cannot_express(tp: object, fragment: str) -> None:
    """Free-form dicts, untyped arrays and fixed tuples cannot be sent in strict mode: a clear `TypeError`."""
    with pytest.raises(TypeError) as info:
        strict_schema_for(tp)
    assert fragment in str(info.value)


def test_output_schema_for_an_attrs_class_is_sent_as_its_strict_schema() -> None:
    """An attrs output type is named after the class and, in strict form (what a provider sends), is its
    strict schema."""
    output = output_schema_for(Point)
    assert output.name == "Point" and output.strict
    assert strict_schema(output.schema) == strict_schema_for(Point)


def test_output_fields_with_defaults_are_optional_and_nullable() -> None:
    """As the docs say, a defaulted field may be left out of a structured answer, or be ``null``: both mean
    the default. Nested classes included."""
    schema = output_schema_for(Shape).schema
    assert schema["required"] == ["points", "color"]
    assert validate({"points": [{"x": 1}], "color": "red"}, schema) == []
    assert validate({"points": [{"x": 1, "y": None}], "color": "red", "kind": None}, schema) == []
    assert validate({"points": [{"y": 1}], "color": "red"}, schema) == ["$.points[0].x: missing required field"]
    assert decode(Shape, {"points": [{"x": 1}], "color": "red"}) == Shape([Point(1)], Color.RED)


async def test_an_agent_answer_leaving_out_a_defaulted_field_is_accepted_without_a_repair() -> None:
    """An answer that omits a defaulted field completes the run at once and `collect_typed` fills the default."""
    agent: LlmAgent[None] = LlmAgent(
        name="reporter", model=ScriptedModel([reply('{"points": [{"x": 3}], "color": "blue"}')]), output_type=Shape
    )
    run = agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("draw"))
    result = await RunResultStreaming(run).collect_typed(Shape)
    assert result.final_output == Shape([Point(3)], Color.BLUE)
    assert not any(isinstance(event, RepairStarted) for event in result.events)


def test_output_schema_for_a_non_object_type_wraps_it_under_value() -> None:
    """A non-object output type is wrapped as ``{"value": T}`` (providers need an object root)."""
    schema = output_schema_for(list[int])
    assert schema == OutputSchema(
        "list_int",
        {
            "type": "object",
            "properties": {"value": {"type": "array", "items": {"type": "integer"}}},
            "required": ["value"],
            "additionalProperties": False,
        },
    )
    assert decode(list[int], {"value": [1, 2]}) == [1, 2]


def test_output_schema_for_an_optional_class_is_wrapped_too() -> None:
    """``Point | None`` has no object root (it is an ``anyOf``), so it is wrapped; decode unwraps it."""
    schema = output_schema_for(Point | None)  # type: ignore[arg-type]
    assert schema.schema["required"] == ["value"]
    assert validate({"value": None}, schema.schema) == []
    assert decode(Point | None, {"value": {"x": 1, "y": None, "label": None}}) == Point(1)
    assert decode(Point | None, {"value": None}) is None
    assert decode(Point | None, {"x": 2}) == Point(2)


def test_decode_reports_the_wrapped_problems_for_a_wrapper() -> None:
    """A wrapper whose content does not fit reports paths under ``$.value``."""
    with pytest.raises(DecodeError) as info:
        decode(list[int], {"value": ["x"]})
    assert info.value.errors == ("$.value[0]: expected integer, got string",)


def test_output_schema_for_a_dict_type_is_refused() -> None:
    """``dict[str, X]`` has free-form keys, which strict output cannot express."""
    with pytest.raises(TypeError, match="free-form keys"):
        output_schema_for(dict[str, int])


def test_decoded_output_fits_its_own_schema() -> None:
    """A value that fits the strict output schema (nulls for defaults) decodes into the class."""
    schema = output_schema_for(Shape)
    value: JsonValue = {
        "points": [{"x": 1, "y": None, "label": None}],
        "color": "blue",
        "kind": None,
        "weight": 2,
    }
    assert validate(value, schema.schema) == []
    assert decode(Shape, value) == Shape([Point(1)], Color.BLUE, "polygon", 2.0)


# decode: success


@pytest.mark.parametrize(
    ("tp", "value", "expected"),
    [
        (str, "hi", "hi"),
        (int, 3, 3),
        (int, 3.0, 3),
        (float, 2, 2.0),
        (bool, False, False),
        (None, None, None),
        (list[int], [1, 2], [1, 2]),
        (tuple[int, ...], [1, 2], (1, 2)),
        (tuple[int, str], [1, "a"], (1, "a")),
        (dict[str, int], {"a": 1}, {"a": 1}),
        (int | None, None, None),
        (int | str, "x", "x"),
        (Literal["a", "b"], "b", "b"),
        (Color, "red", Color.RED),
        (Level, 2, Level.HIGH),
        (Annotated[int, "n"], 4, 4),
        (list, [1, "a"], [1, "a"]),
        (dict, {"a": [1]}, {"a": [1]}),
    ],
)
def test_decode_each_supported_annotation(tp: object, value: JsonValue, expected: object) -> None:
    """Decoding returns the Python value the annotation describes."""
    result = decode(tp, value)
    assert result == expected
    assert type(result) is type(expected)


def test_decode_attrs_class_with_defaults_and_nulls() -> None:
    """Missing fields take their defaults, and so does ``null`` for a field that does not accept None."""
    assert decode(Point, {"x": 1}) == Point(1, 0, None)
    assert decode(Point, {"x": 1, "y": None, "label": "p"}) == Point(1, 0, "p")


def test_decode_round_trips_unstructured_values() -> None:
    """What `schema_for` describes decodes back to an equal value."""
    shape = Shape([Point(1, 2, "a"), Point(3)], Color.RED, "line", 0.5)
    value: JsonValue = {
        "points": [{"x": 1, "y": 2, "label": "a"}, {"x": 3, "y": 0, "label": None}],
        "color": "red",
        "kind": "line",
        "weight": 0.5,
    }
    assert validate(value, schema_for(Shape)) == []
    assert decode(Shape, value) == shape


# decode: failures


@pytest.mark.parametrize(
    ("tp", "value", "errors"),
    [
        (int, "1", ("$: expected integer, got string",)),
        (int, True, ("$: expected integer, got boolean",)),
        (int, 1.5, ("$: expected integer, got number",)),
        (str, 1, ("$: expected string, got integer",)),
        (bool, 0, ("$: expected boolean, got integer",)),
        (float, "1.0", ("$: expected number, got string",)),
        (None, 0, ("$: expected null, got integer",)),
        (list[int], [1, "2", 3, None], ("$[1]: expected integer, got string", "$[3]: expected integer, got null")),
        (tuple[int, str], [1], ("$: expected 2 items, got 1",)),
        (tuple[int, str], [1, 2], ("$[1]: expected string, got integer",)),
        (
            dict[str, int],
            {"a": "x", "b c": 1.5},
            ("$.a: expected integer, got string", '$["b c"]: expected integer, got number'),
        ),
        (Literal["a", "b"], "c", ('$: "c" is not one of "a", "b"',)),
        (Color, "green", ('$: "green" is not one of "red", "blue"',)),
        (Level, True, ("$: true is not one of 1, 2",)),
        (Color, ["red"], ('$: ["red"] is not one of "red", "blue"',)),
        (int | None, "x", ("$: expected integer, got string",)),
        (Point, [], ("$: expected object, got array",)),
        (
            Point,
            {"y": "2", "z": 0},
            ("$.x: missing required field", "$.y: expected integer, got string", "$.z: unexpected field"),
        ),
        (
            Shape,
            {"points": [{"x": 1}, {"x": "a"}], "color": "red"},
            ("$.points[1].x: expected integer, got string",),
        ),
        (Positive, {"n": 0}, ("$: 'n' must be > 0: 0",)),
    ],
)
def test_decode_failures_name_each_problem_with_its_path(tp: object, value: JsonValue, errors: tuple[str, ...]) -> None:
    """A value that does not fit raises `DecodeError` listing every problem as ``path: problem``."""
    with pytest.raises(DecodeError) as info:
        decode(tp, value)
    assert info.value.errors == errors
    for error in errors:
        assert error in str(info.value)


def test_decode_error_is_a_value_error() -> None:
    """`DecodeError` subclasses `ValueError`, so generic handlers catch it."""
    assert issubclass(DecodeError, ValueError)


def test_decode_rejects_a_non_finite_float() -> None:
    """``NaN`` (which `json.loads` accepts) is not a number a tool should get."""
    with pytest.raises(DecodeError, match="finite"):
        decode(float, float("nan"))


def test_decode_does_not_unwrap_an_object_type() -> None:
    """The ``{"value": ...}`` wrapper is only unwrapped for non-object types."""
    assert decode(dict[str, int], {"value": 1}) == {"value": 1}
    with pytest.raises(DecodeError, match="unexpected field"):
        decode(Point, {"value": {"x": 1}})


# dataclasses, TypedDicts, datetimes, UUIDs and constrained Annotated types


@dataclasses.dataclass(frozen=True)
class Trip:
    """A trip to book."""

    city: str
    """Where to."""
    start: datetime.date
    nights: Annotated[int, at.Ge(1), at.Le(30)] = 1
    tags: list[str] = dataclasses.field(default_factory=list, metadata={"description": "Labels."})


class Search(TypedDict):
    query: Annotated[str, at.MinLen(1), "What to look for."]
    limit: NotRequired[Annotated[int, at.Interval(gt=0, le=100)]]


class Flags(TypedDict, total=False):
    verbose: bool


def test_a_dataclass_is_a_closed_object_like_an_attrs_class() -> None:
    """Fields with defaults or factories are optional; descriptions come from metadata and attribute docstrings."""
    assert schema_for(Trip) == {
        "title": "Trip",
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Where to."},
            "start": {"type": "string", "format": "date"},
            "nights": {"type": "integer", "minimum": 1, "maximum": 30},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
        },
        "required": ["city", "start"],
        "additionalProperties": False,
        "description": "A trip to book.",
    }
    assert decode(Trip, {"city": "Oslo", "start": "2026-03-01"}) == Trip("Oslo", datetime.date(2026, 3, 1))
    assert decode(Trip, {"city": "Oslo", "start": "2026-03-01", "nights": None, "tags": ["x"]}).tags == ["x"]


def test_a_typeddict_decodes_into_a_dict_without_its_absent_keys() -> None:
    """Required keys are required, ``NotRequired`` (and ``total=False``) keys optional; absent or null stays absent."""
    schema = schema_for(Search)
    assert schema["required"] == ["query"]
    assert schema["properties"] == {
        "query": {"type": "string", "minLength": 1, "description": "What to look for."},
        "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100},
    }
    assert decode(Search, {"query": "rent"}) == {"query": "rent"}
    assert decode(Search, {"query": "rent", "limit": None}) == {"query": "rent"}
    assert decode(Search, {"query": "rent", "limit": 5}) == {"query": "rent", "limit": 5}
    assert schema_for(Flags)["required"] == []
    with pytest.raises(DecodeError) as info:
        decode(Search, {"limit": 5, "other": 1})
    assert info.value.errors == ("$.query: missing required field", "$.other: unexpected field")


@pytest.mark.parametrize(
    ("tp", "schema", "text", "value"),
    [
        (
            datetime.datetime,
            {"type": "string", "format": "date-time"},
            "2026-03-01T09:30:00Z",
            datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC),
        ),
        (datetime.date, {"type": "string", "format": "date"}, "2026-03-01", datetime.date(2026, 3, 1)),
        (datetime.time, {"type": "string", "format": "time"}, "09:30:00", datetime.time(9, 30)),
        (uuid.UUID, {"type": "string", "format": "uuid"}, "00000000-0000-0000-0000-000000000001", uuid.UUID(int=1)),
    ],
)
def test_datetimes_and_uuids_are_formatted_strings(tp: type, schema: JsonObject, text: str, value: object) -> None:
    """A datetime, date, time or UUID is a string with a ``format``, decoded into the Python value."""
    assert schema_for(tp) == schema
    assert decode(tp, text) == value
    with pytest.raises(DecodeError) as info:
        decode(tp, "soon")
    assert info.value.errors[0].startswith("$: expected an ISO 8601") or info.value.errors == (
        '$: expected a UUID, got "soon"',
    )
    with pytest.raises(DecodeError):
        decode(tp, 20260301)


@pytest.mark.parametrize(
    ("tp", "keywords", "good", "bad", "problem"),
    [
        (Annotated[int, at.Ge(0)], {"minimum": 0}, 0, -1, "must be >= 0, got -1"),
        (Annotated[int, at.Gt(0)], {"exclusiveMinimum": 0}, 1, 0, "must be > 0, got 0"),
        (Annotated[float, at.Le(1.5)], {"maximum": 1.5}, 1.5, 2, "must be <= 1.5, got 2"),
        (Annotated[float, at.Lt(1)], {"exclusiveMaximum": 1}, 0.5, 1.0, "must be < 1, got 1.0"),
        (Annotated[float, at.MultipleOf(0.1)], {"multipleOf": 0.1}, 0.3, 0.35, "must be a multiple of 0.1, got 0.35"),
        (Annotated[int, at.MultipleOf(5)], {"multipleOf": 5}, 15, 16, "must be a multiple of 5, got 16"),
        (Annotated[str, at.MaxLen(3)], {"maxLength": 3}, "abc", "abcd", "must have at most 3 characters, got 4"),
        (Annotated[list[int], at.MinLen(1)], {"minItems": 1}, [1], [], "must have at least 1 items, got 0"),
        (Annotated[tuple[int, ...], at.Len(1, 2)], {"minItems": 1, "maxItems": 2}, [1], [1, 2, 3], "at most 2 items"),
        (Annotated[dict[str, int], at.MaxLen(1)], {"maxProperties": 1}, {}, {"a": 1, "b": 2}, "at most 1 keys"),
    ],
)
def test_annotated_types_constraints_are_in_the_schema_and_checked(
    tp: object, keywords: JsonObject, good: JsonValue, bad: JsonValue, problem: str
) -> None:
    """An `annotated_types` bound becomes its JSON Schema keyword and is enforced when decoding; never dropped."""
    schema = schema_for(tp)
    assert {key: schema[key] for key in keywords} == keywords
    decode(tp, good)
    with pytest.raises(DecodeError) as info:
        decode(tp, bad)
    assert len(info.value.errors) == 1 and problem in info.value.errors[0]
    assert validate(good, schema) == []


def test_a_bound_on_an_optional_member_lets_none_through() -> None:
    """``Annotated[int, Ge(0)] | None`` bounds the int and still accepts ``null``."""
    tp = Annotated[int, at.Ge(0)] | None
    assert decode(tp, None) is None
    with pytest.raises(DecodeError):
        decode(tp, -1)


@pytest.mark.parametrize(
    ("tp", "fragment"),
    [
        (Annotated[int, at.Predicate(lambda n: n > 0)], "unsupported annotation metadata Predicate"),
        (Annotated[datetime.datetime, at.Timezone(None)], "unsupported annotation metadata Timezone"),
        (Annotated[int, object()], "unsupported annotation metadata <object"),
        (Annotated[str, at.Ge(1)], "unsupported constraint minimum=1 at $: str cannot have it"),
        (Annotated[int, at.MaxLen(3)], "unsupported constraint maxLength=3 at $: int cannot have it"),
        (Annotated[int | None, at.Ge(0)], "annotate the member: Annotated[int, Ge(0)] | None"),
        (Annotated[int, at.Ge(datetime.date(2026, 1, 1))], "its limit must be an int or a float"),
        (Annotated[float, at.MultipleOf(0)], "MultipleOf needs a positive number"),
    ],
)
def test_metadata_that_cannot_be_honoured_is_refused_loudly(tp: object, fragment: str) -> None:
    """A constraint the schema cannot carry is a `TypeError` when the schema is built, never silently dropped."""
    with pytest.raises(TypeError) as info:
        schema_for(tp)
    assert fragment in str(info.value)


def test_strict_mode_refuses_string_length_bounds_but_keeps_number_bounds() -> None:
    """OpenAI's strict mode has no minLength/maxLength: refused by name; numeric bounds pass through."""
    with pytest.raises(TypeError, match=r"\$\.query: a string length bound"):
        strict_schema_for(Search)
    properties = strict_schema_for(Trip)["properties"]
    assert isinstance(properties, dict)
    assert properties["nights"] == {"type": ["integer", "null"], "minimum": 1, "maximum": 30}


def test_a_dataclass_output_type_round_trips_through_its_output_schema() -> None:
    """A dataclass works as an output type: its answer validates against the output schema and decodes."""
    output = output_schema_for(Trip)
    answer: JsonValue = {"city": "Oslo", "start": "2026-03-01", "nights": 2}
    assert validate(answer, output.schema) == []
    assert decode(Trip, answer) == Trip("Oslo", datetime.date(2026, 3, 1), 2)


def test_multiple_of_judges_a_large_whole_float_by_its_exact_value() -> None:
    """``4.003617038919725e16`` is the integer 40036170389197248, a multiple of 3, though its shortest decimal
    spelling (…250) is not: the decoder agrees with the schema check (found by the codec laws)."""
    wire = 4.003617038919725e16
    tp = Annotated[int, at.MultipleOf(3)]
    assert validate(wire, schema_for(tp)) == []
    assert decode(tp, wire) == 40036170389197248
