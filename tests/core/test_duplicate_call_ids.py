"""Tool calls that share an id within one response: each is renamed apart, run and answered exactly once.

OpenAI rejects a request whose tool messages share an id ("Duplicate value for 'tool_call_id'"), and some
models and proxies do reuse ids within one response. So `transition` gives every later call of a reused id
a fresh one (``ID#2``, ``ID#3``, ...; the first keeps its id) before anything else reads the response: the
conversation, the events and the driver only ever see unique ids.
"""

from __future__ import annotations

import json

from properties.reference import ANSWER, BILLING, drive, make_ctx

from helikon_fc.core import (
    ApplyingHandoff,
    CallingModel,
    ExecuteTools,
    ModelResponse,
    ToolCall,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    Usage,
    transition,
)


def weather(call_id: str, city: str = "Oslo") -> ToolCall:
    return ToolCall(call_id, "get_weather", json.dumps({"city": city}))


def test_two_valid_calls_sharing_an_id_both_run_under_distinct_ids() -> None:
    """Both calls run; the second is renamed ``c1#2``, and each gets its own result in call order."""
    trace = drive(make_ctx(), [ModelResponse(tool_calls=(weather("c1", "Oslo"), weather("c1", "Bergen")))])
    assert trace.tool_batches == ((weather("c1", "Oslo"), weather("c1#2", "Bergen")),)
    calls = [item for item in trace.conversation if isinstance(item, ToolCall)]
    results = [item for item in trace.conversation if isinstance(item, ToolResult)]
    assert [call.call_id for call in calls] == ["c1", "c1#2"]
    assert [result.call_id for result in results] == ["c1", "c1#2"]
    called = [event.item.call_id for event in trace.events if isinstance(event, ToolCallItem)]
    answered = [event.item.call_id for event in trace.events if isinstance(event, ToolOutputItem)]
    assert called == answered == ["c1", "c1#2"]


def test_an_invalid_call_sharing_an_id_with_a_valid_one_does_not_stop_it() -> None:
    """The valid call still runs (once an empty `ExecuteTools(())` was asked for) and the invalid one is answered
    with its problem, each under its own id."""
    calls = (ToolCall("c1", "launch_rockets", "{}"), weather("c1"))
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=calls), make_ctx())
    action = outcome.next_action
    assert action == ExecuteTools((calls[0], weather("c1#2")))
    assert isinstance(action, ExecuteTools) and action.problems[1] is None
    assert action.problems[0] == "unknown tool: 'launch_rockets' (available tools: add, get_weather)"
    trace = drive(make_ctx(), [ModelResponse(tool_calls=calls)])
    results = [item for item in trace.conversation if isinstance(item, ToolResult)]
    assert [(result.call_id, result.is_error) for result in results] == [("c1", True), ("c1#2", False)]


def test_a_renamed_id_never_takes_an_id_already_in_the_response() -> None:
    """``c1#2`` is skipped when another call of the response is already called that."""
    calls = (weather("c1"), weather("c1#2"), weather("c1"))
    trace = drive(make_ctx(), [ModelResponse(tool_calls=calls)])
    assert [call.call_id for call in trace.tool_batches[0]] == ["c1", "c1#2", "c1#3"]


def test_a_response_without_reused_ids_is_left_as_it_is() -> None:
    """Unique ids (the common case) are never renamed."""
    calls = (weather("a"), weather("b"))
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=calls), make_ctx())
    assert outcome.next_action == ExecuteTools(calls)


def test_handoff_siblings_sharing_the_winners_id_are_answered_apart() -> None:
    """A handoff's transcript answers each call once, under distinct ids, when the model reused the winner's id."""
    calls = (ToolCall("h", "transfer_to_billing", "{}"), weather("h"))
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=calls), make_ctx(handoffs=(BILLING,)))
    assert isinstance(outcome.next_state, ApplyingHandoff)
    results = [item for item in outcome.next_state.transcript if isinstance(item, ToolResult)]
    assert [(result.call_id, result.is_error) for result in results] == [("h", False), ("h#2", True)]


def test_tool_calls_on_a_structured_output_turn_are_refused_under_distinct_ids() -> None:
    """The refusals of tool calls made on a structured-output turn do not share an id either."""
    trace = drive(
        make_ctx(tools=(), output_schema=ANSWER),
        [ModelResponse(tool_calls=(weather("x"), weather("x")), usage=Usage())],
    )
    refused = [item.call_id for item in trace.conversation if isinstance(item, ToolResult)]
    assert refused == ["x", "x#2"]
