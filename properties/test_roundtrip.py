"""Law: every core value survives the JSON wire format unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from properties.strategies import WIRE_TYPES

from helikon_fc.core import from_json, to_json

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
