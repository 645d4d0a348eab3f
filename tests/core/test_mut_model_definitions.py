"""`ToolDef` and `OutputSchema`: their defaults and the compiled schema they keep out of identity; finish reasons.

`compiled` is derived from the schema when the value is built: it is not an argument, takes no part in equality
(two equal schemas written in another key order are the same tool) and is not shown in the repr.
"""

from __future__ import annotations

import pytest

from helikon_fc.core import FinishReason, OutputSchema, ToolDef, from_json, to_json
from helikon_fc.core.schema import compile_schema


def test_a_tool_is_not_strict_and_an_output_schema_is_strict_by_default() -> None:
    """`ToolDef.strict` defaults to False, `OutputSchema.strict` to True (structured outputs are strict)."""
    assert ToolDef("t", "d", {}).strict is False
    assert OutputSchema("o", {}).strict is True


def test_the_compiled_schema_is_no_argument() -> None:
    """`compiled` is made from the schema, never given: a fifth (or third) argument is refused."""
    with pytest.raises(TypeError):
        ToolDef("t", "d", {}, False, compile_schema({}))  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        OutputSchema("o", {}, True, compile_schema({}))  # type: ignore[call-arg]


def test_equal_schemas_in_another_key_order_make_equal_definitions() -> None:
    """Equality compares the schemas as JSON values: key order (which changes the compiled form) does not count."""
    first = ToolDef("t", "d", {"type": "object", "properties": {}})
    second = ToolDef("t", "d", {"properties": {}, "type": "object"})
    assert first.compiled is not second.compiled
    assert first == second
    assert OutputSchema("o", {"type": "object", "required": []}) == OutputSchema(
        "o", {"required": [], "type": "object"}
    )


def test_the_repr_shows_the_schema_not_its_compiled_form() -> None:
    """The repr lists the declared fields only."""
    assert repr(ToolDef("t", "d", {})) == "ToolDef(name='t', description='d', parameters={}, strict=False)"
    assert repr(OutputSchema("o", {})) == "OutputSchema(name='o', schema={}, strict=True)"


def test_finish_reasons_are_the_five_wire_words() -> None:
    """A finish is one of five reasons, written on the wire (and in stored records) by these exact words."""
    assert {reason.name: reason.value for reason in FinishReason} == {
        "STOP": "stop",
        "LENGTH": "length",
        "TOOL_CALLS": "tool_calls",
        "CONTENT_FILTER": "content_filter",
        "OTHER": "other",
    }
    for reason in FinishReason:
        assert from_json(FinishReason, to_json(reason)) is reason
