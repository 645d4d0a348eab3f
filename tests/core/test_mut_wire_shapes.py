"""The wire's rules at the edges the main tests leave out: JSON-valued fields of every spelling, containers
other than lists, floats JSON cannot hold, enum values of the wrong shape, and text written as it is.

Each rule is the module's own (``core/wire.py``): reading is strict and every problem names its path;
`JsonValue` fields pass through, checked to be JSON; only homogeneous tuples are supported; `to_json` raises
`WireFormatError` for a value JSON cannot represent (such as a NaN float).
"""

from __future__ import annotations

import typing
from typing import Any

import pytest
from tests.core.test_wire import problems

from helikon_fc.core import (
    GuardrailTriggered,
    JsonValue,
    ModelFinish,
    TimedOut,
    ToolDef,
    Usage,
    UserMessage,
    WireFormatError,
    from_json,
    to_json,
)
from helikon_fc.core.wire import structure_data


def test_a_json_object_field_refuses_anything_but_an_object() -> None:
    """A tool's `parameters` (a `JsonObject`) must be a JSON object: a list or a number is refused at its path."""
    assert problems(ToolDef, '{"name":"t","description":"d","parameters":[1]}') == (
        "$.parameters: expected object, got list",
    )
    assert problems(ToolDef, '{"name":"t","description":"d","parameters":3}') == (
        "$.parameters: expected object, got int",
    )
    tool = from_json(ToolDef, '{"name":"t","description":"d","parameters":{"type":"object"}}')
    assert tool == ToolDef("t", "d", {"type": "object"})


def test_a_json_value_type_of_any_spelling_passes_json_through() -> None:
    """A union naming every JSON scalar, lists and objects reads JSON as it is, also spelled with `typing.Union`."""
    assert from_json(JsonValue, '[1, {"a": null}]') == [1, {"a": None}]
    spelled = typing.Union[bool, int, float, str, None, list[Any], dict[str, Any]]  # noqa: UP007
    assert from_json(spelled, '[1, {"a": null}]') == [1, {"a": None}]


def test_a_union_of_json_scalars_only_refuses_a_list_or_an_object() -> None:
    """Reading is strict: a union of the JSON scalars alone is not `JsonValue`, so ``[1]`` or ``{}`` is refused."""
    scalars = bool | int | float | str | None
    assert from_json(scalars, "1.5") == 1.5
    assert from_json(scalars, '"x"') == "x"
    assert problems(scalars, "[1]") == ("$: [1] (<class 'list'>) not part of bool | int | float | str | None",)
    assert problems(scalars, "{}") == ("$: {} (<class 'dict'>) not part of bool | int | float | str | None",)


def test_a_mapping_of_core_values_reads_each_value_as_that_value() -> None:
    """``dict[str, Usage]`` is not a JSON object type: its values are read as `Usage`, not passed through."""
    assert from_json(dict[str, Usage], '{"a": {"input_tokens": 1}}') == {"a": Usage(input_tokens=1)}


def test_json_data_holding_a_nan_is_refused_at_its_path() -> None:
    """`structure_data` checks a `JsonValue` field as `from_json` does: a NaN inside is named by its path."""
    data = {"type": "guardrail_triggered", "kind": "k", "info": [1, float("nan")]}
    with pytest.raises(WireFormatError) as caught:
        structure_data(GuardrailTriggered, data)
    assert caught.value.problems == ("$.info[1]: expected a finite number, got nan",)


def test_a_float_field_refuses_a_number_too_large_for_a_float() -> None:
    """``1e999`` parses as infinity, which a float field refuses (the wire holds finite numbers only)."""
    assert problems(TimedOut, '{"type":"timed_out","seconds":1e999}') == (
        "$.seconds: expected a finite float, got inf",
    )


def test_writing_a_nan_float_field_is_a_wire_format_error() -> None:
    """A NaN in a plain float field cannot be written: `to_json` raises `WireFormatError`, never writes ``NaN``."""
    with pytest.raises(WireFormatError) as caught:
        to_json(TimedOut(float("nan")))
    assert caught.value.problems == ("$: cannot be written as JSON: Out of range float values are not JSON compliant",)


def test_text_is_written_as_it_is_not_escaped() -> None:
    """Non-ASCII text goes on the wire as UTF-8 characters, not ``\\u`` escapes."""
    assert to_json(UserMessage("héllo ✓")) == '{"type":"user_message","text":"héllo ✓"}'


def test_an_enum_field_refuses_a_list_with_the_allowed_values() -> None:
    """A value of the wrong shape (a list) for an enum is refused with the allowed values, not a crash."""
    assert problems(ModelFinish, '{"type":"model_finish","reason":["stop"]}') == (
        '$.reason: expected one of "stop", "length", "tool_calls", "content_filter", "other", got ["stop"]',
    )


def test_only_homogeneous_tuples_are_read() -> None:
    """``tuple[int, str]`` is not a wire type: reading one is a `WireFormatError` that says so."""
    assert problems(tuple[int, str], '[1, "a"]') == (
        "$: only homogeneous tuples are supported on the wire, not tuple[int, str]",
    )
    assert from_json(tuple[int, ...], "[1, 2]") == (1, 2)


def test_a_set_of_values_names_the_index_of_each_bad_element() -> None:
    """Containers other than lists and tuples report their faults with the element's index too."""
    assert problems(frozenset[Usage], '[{"input_tokens":"x"}]') == ("$[0].input_tokens: expected int, got str",)
    assert from_json(frozenset[Usage], '[{"input_tokens":1}]') == frozenset({Usage(input_tokens=1)})


def test_plain_containers_are_read_as_plain_json() -> None:
    """A bare `dict` or `tuple` (not a core value, not an enum) is read as the JSON data it holds."""
    assert from_json(dict, '{"a": 1}') == {"a": 1}
    assert from_json(tuple, "[1]") == (1,)


def test_a_value_that_is_not_an_object_is_refused_for_a_class() -> None:
    """A class (tagged or not) is read from a JSON object only: a list or a string is refused at its path."""
    assert problems(Usage, "[1]") == ("$: expected object, got list",)
    assert problems(ToolDef, '"x"') == ("$: expected object, got str",)
    assert problems(tuple[Usage, ...], "[null]") == ("$[0]: expected object, got null",)
