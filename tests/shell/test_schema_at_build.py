"""A tool's schema is checked when the agent is built, and the whole of JSON Schema decides whether a call runs."""

from __future__ import annotations

import attrs
import pytest

from helikon_fc import LlmAgent
from helikon_fc.core import JsonObject, ToolOutputItem
from helikon_fc.shell.tools.tool import ToolContext, ToolOutput
from helikon_fc.testing import ScriptedModel, call, call_tools, reply, simulate


@attrs.frozen
class HandTool:
    """A hand-written `Tool` with the schema it is given."""

    name: str
    parameters: JsonObject
    description: str = "a hand-written tool"

    async def invoke(self, ctx: ToolContext[None], arguments: JsonObject) -> ToolOutput:
        return ToolOutput(arguments)


def test_a_remote_ref_in_a_hand_written_tool_is_refused_when_the_agent_is_built() -> None:
    """No call has to arrive: building the agent names the tool and the reference it will not fetch."""
    tool = HandTool("lookup", {"type": "object", "properties": {"to": {"$ref": "https://example.com/to.json"}}})
    with pytest.raises(ValueError, match=r"tool 'lookup': parameters: invalid JSON Schema: \$ref to 'https://example"):
        LlmAgent(name="a", model=ScriptedModel([reply("x")]), tools=[tool])


def test_an_uncompilable_pattern_is_refused_when_the_agent_is_built() -> None:
    """A pattern that is not a regular expression no longer means "anything goes"."""
    tool = HandTool("code", {"type": "object", "properties": {"c": {"type": "string", "pattern": "(["}}})
    with pytest.raises(ValueError, match=r"tool 'code': parameters: invalid JSON Schema: schema\.properties\.c"):
        LlmAgent(name="a", model=ScriptedModel([reply("x")]), tools=[tool])


def test_a_call_off_a_rich_schema_is_answered_with_an_error_the_model_reads() -> None:
    """if/then, dependentRequired and const false are enforced before the tool runs; a fitting call runs."""
    schema: JsonObject = {
        "type": "object",
        "properties": {"mode": {"enum": ["card", "cash"]}, "card": {"type": "string"}, "test": {"const": False}},
        "required": ["mode"],
        "if": {"properties": {"mode": {"const": "card"}}},
        "then": {"required": ["card"]},
        "dependentRequired": {"test": ["card"]},
    }
    model = ScriptedModel(
        [
            call_tools(call("pay", mode="card", test=0), call("pay", mode="cash")),
            reply("done"),
        ]
    )
    outcome = simulate(LlmAgent(name="a", model=model, tools=[HandTool("pay", schema)]), "pay")
    outputs = [event.item.output for event in outcome.events if isinstance(event, ToolOutputItem)]
    assert outputs == [
        "invalid arguments for tool 'pay': $.card: missing required field; $.test: expected false, got 0",
        '{"mode":"cash"}',
    ]
