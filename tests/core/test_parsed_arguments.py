"""`ExecuteTools.arguments`: the machine hands the driver the arguments it parsed and checked, so no call's
argument text is parsed twice (issue 14)."""

from __future__ import annotations

import json

from properties.reference import make_ctx

from helikon_fc.core import (
    CallingModel,
    ExecuteTools,
    ExecutingTools,
    ModelResponse,
    NextAction,
    Start,
    ToolCall,
    ToolResult,
    from_json,
    to_json,
    transition,
)


def test_the_runnable_calls_carry_their_parsed_arguments_in_call_order() -> None:
    """Rejected calls have none; the others have theirs, in the order of `ExecuteTools.calls`."""
    calls = (
        ToolCall("a", "add", '{"a": 1, "b": 2}'),
        ToolCall("bad", "add", '{"a": '),
        ToolCall("b", "get_weather", ' {"city": "Oslo"} '),
    )
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=calls), make_ctx())
    action = outcome.next_action
    assert isinstance(action, ExecuteTools)
    assert action.calls == (calls[0], calls[2])
    assert action.arguments == ({"a": 1, "b": 2}, {"city": "Oslo"})


def test_the_parsed_arguments_are_derived_state() -> None:
    """They take no part in equality and are not on the wire: the action reads back equal, without them."""
    call = ToolCall("a", "add", '{"a": 1, "b": 2}')
    parsed = ExecuteTools((call,), ({"a": 1, "b": 2},))
    assert parsed == ExecuteTools((call,)) and hash(parsed) == hash(ExecuteTools((call,)))
    text = to_json(parsed)
    assert json.loads(text) == {"type": "execute_tools", "calls": [json.loads(to_json(call))]}
    back = from_json(NextAction, text)
    assert back == parsed and isinstance(back, ExecuteTools) and back.arguments == ()


def test_a_resumed_round_asks_for_its_calls_unparsed() -> None:
    """`Start` on a stored `ExecutingTools` re-asks its calls; the driver parses them itself then."""
    calls = (ToolCall("a", "add", '{"a": 1, "b": 2}'), ToolCall("b", "nope", "{}"))
    rejected = (ToolResult("b", "unknown tool", is_error=True),)
    action = transition(ExecutingTools(calls, rejected, 0), Start(), make_ctx()).next_action
    assert action == ExecuteTools((calls[0],)) and isinstance(action, ExecuteTools) and action.arguments == ()
