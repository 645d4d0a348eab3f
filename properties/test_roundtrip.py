"""Law: every core value survives the JSON wire format unchanged; damaged JSON fails only with WireFormatError."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, strategies as st
from properties.strategies import WIRE_TYPES, json_values

from helikon_fc.core import WireFormatError, from_json, to_json

CASES = [pytest.param(tp, strategy(), id=name) for name, tp, strategy in WIRE_TYPES]


@pytest.mark.parametrize(("tp", "values"), CASES)
@given(data=st.data())
def test_json_round_trip(tp: object, values: st.SearchStrategy[object], data: st.DataObject) -> None:
    """For every core type T and value v of T, from_json(T, to_json(v)) == v, also read as v's own class."""
    value = data.draw(values)
    text = to_json(value)
    assert from_json(tp, text) == value
    assert from_json(type(value), text) == value
    assert to_json(from_json(tp, text)) == text


def _locations(document: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path to a value inside a decoded JSON document."""
    found = [path]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(_locations(value, (*path, key)))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found.extend(_locations(value, (*path, index)))
    return found


@st.composite
def damaged_documents(draw: st.DrawFn, values: st.SearchStrategy[object]) -> str:
    """A valid document with one thing broken: a value replaced, a key dropped, or a key added."""
    document = json.loads(to_json(draw(values)))
    if not isinstance(document, dict | list):
        return json.dumps(draw(json_values()))
    path = draw(st.sampled_from(_locations(document)))
    if not path:
        return json.dumps(draw(json_values()))
    parent: Any = document
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "replace" or isinstance(parent, list):
        parent[last] = draw(json_values())
    elif action == "drop":
        del parent[last]
    else:
        parent[draw(st.text(min_size=1, max_size=5))] = draw(json_values())
    return json.dumps(document)


DAMAGED = [pytest.param(tp, damaged_documents(strategy()), id=name) for name, tp, strategy in WIRE_TYPES]


@pytest.mark.parametrize(("tp", "documents"), DAMAGED)
@given(data=st.data())
def test_damaged_documents_fail_only_with_wire_format_error(
    tp: object, documents: st.SearchStrategy[str], data: st.DataObject
) -> None:
    """Reading any damaged document either raises WireFormatError whose every problem starts with a path, or
    gives a value (a dropped field with a default, an int where a float goes) that round-trips."""
    text = data.draw(documents)
    try:
        value = from_json(tp, text)
    except WireFormatError as error:
        assert error.problems and all(problem.startswith("$") for problem in error.problems)
    else:
        assert from_json(tp, to_json(value)) == value
