"""`ExecuteTools.arguments` and `problems`: the machine hands the driver the arguments it parsed and checked, so
no call's argument text is parsed twice (issue 14), and the problem of each call that cannot run, which the driver
answers it with after `PreToolUse` and the permission decision (original-notes section 3.2)."""

from __future__ import annotations

import json

from properties.reference import make_ctx

from helikon_fc.core import (
    AwaitApproval,
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


def test_every_call_carries_its_parsed_arguments_or_its_problem_in_call_order() -> None:
    """Every call goes to the driver: a valid one with its arguments, an invalid one with its problem instead."""
    calls = (
        ToolCall("a", "add", '{"a": 1, "b": 2}'),
        ToolCall("bad", "add", '{"a": '),
        ToolCall("b", "get_weather", ' {"city": "Oslo"} '),
    )
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=calls), make_ctx())
    action = outcome.next_action
    assert isinstance(action, ExecuteTools)
    assert action.calls == calls
    assert action.arguments == ({"a": 1, "b": 2}, None, {"city": "Oslo"})
    assert action.problems[0] is None and action.problems[2] is None
    assert (action.problems[1] or "").startswith("invalid arguments for tool 'add': not valid JSON")


def test_the_parsed_arguments_and_problems_are_derived_state() -> None:
    """They take no part in equality and are not on the wire: the action reads back equal, without them."""
    call = ToolCall("a", "add", '{"a": 1, "b": 2}')
    parsed = ExecuteTools((call,), ({"a": 1, "b": 2},), (None,))
    assert parsed == ExecuteTools((call,)) and hash(parsed) == hash(ExecuteTools((call,)))
    text = to_json(parsed)
    assert json.loads(text) == {"type": "execute_tools", "calls": [json.loads(to_json(call))]}
    back = from_json(NextAction, text)
    assert back == parsed and isinstance(back, ExecuteTools) and back.arguments == () and back.problems == ()


def test_the_problems_of_waiting_calls_are_derived_state_too() -> None:
    """`AwaitApproval.problems` is off the wire and out of equality, as `ExecuteTools.problems`."""
    call = ToolCall("a", "nope", "{}")
    waiting = AwaitApproval((call,), ("unknown tool: 'nope'",))
    assert waiting == AwaitApproval((call,))
    assert json.loads(to_json(waiting)) == {"type": "await_approval", "pending": [json.loads(to_json(call))]}
    back = from_json(NextAction, to_json(waiting))
    assert isinstance(back, AwaitApproval) and back.problems == ()


def test_a_resumed_round_asks_for_its_calls_checked_again() -> None:
    """`Start` on a stored `ExecutingTools` re-asks its calls, each checked again (arguments or problem)."""
    calls = (ToolCall("a", "add", '{"a": 1, "b": 2}'), ToolCall("b", "nope", "{}"))
    action = transition(ExecutingTools(calls, (), 0), Start(), make_ctx()).next_action
    assert action == ExecuteTools(calls) and isinstance(action, ExecuteTools)
    assert action.arguments == ({"a": 1, "b": 2}, None)
    assert action.problems == (None, "unknown tool: 'nope' (available tools: add, get_weather)")


def test_a_round_recorded_by_an_older_version_asks_only_for_its_runnable_calls() -> None:
    """An older version settled invalid calls in `ExecutingTools.rejected` itself: resumed, such a round asks the
    driver for the others only (`test_a_result_for_an_already_rejected_call_is_an_invalid_transition`)."""
    calls = (ToolCall("a", "add", '{"a": 1, "b": 2}'), ToolCall("b", "nope", "{}"))
    rejected = (ToolResult("b", "unknown tool", is_error=True),)
    action = transition(ExecutingTools(calls, rejected, 0), Start(), make_ctx()).next_action
    assert action == ExecuteTools((calls[0],)) and isinstance(action, ExecuteTools)
    assert action.arguments == ({"a": 1, "b": 2},) and action.problems == (None,)
