"""Law: every tool call is answered by exactly one tool result before the next model call (whether it ran, was
rejected, or was cut short by a handoff), and each `ToolCallItem` gets exactly one `ToolOutputItem`."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import (
    ApplyingHandoff,
    CallingModel,
    Compacting,
    Conversation,
    ExecuteTools,
    ExecutingTools,
    JsonObject,
    ModelResponse,
    ToolCall,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    TransitionCtx,
    parse_arguments,
    validate,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


def unanswered(conversation: Conversation) -> list[str]:
    """Call ids with no result after them, or with other than exactly one result."""
    calls = [item.call_id for item in conversation if isinstance(item, ToolCall)]
    results = Counter(item.call_id for item in conversation if isinstance(item, ToolResult))
    problems = [call_id for call_id in calls if results[call_id] != 1]
    for call_id in calls:
        call_at = next(
            i for i, item in enumerate(conversation) if isinstance(item, ToolCall) and item.call_id == call_id
        )
        if not any(isinstance(item, ToolResult) and item.call_id == call_id for item in conversation[call_at:]):
            problems.append(call_id)
    return problems


@given(ctx=CTXS, script=SCRIPTS)
def test_every_tool_call_is_answered_exactly_once(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """Each model request, the handoff transcript and the final conversation hold exactly one result per call."""
    trace = drive(ctx, script)
    for request in trace.requests[1:]:
        assert unanswered(request.items) == []
    if isinstance(trace.final_state, ApplyingHandoff):
        assert unanswered(trace.final_state.transcript) == []
    assert unanswered(trace.conversation) == []
    called = [event.item.call_id for event in trace.events if isinstance(event, ToolCallItem)]
    answered = Counter(event.item.call_id for event in trace.events if isinstance(event, ToolOutputItem))
    assert all(answered[call_id] == 1 for call_id in called)
    assert sorted(answered) == sorted(called)


@given(ctx=CTXS, script=SCRIPTS)
def test_only_valid_calls_to_real_tools_come_without_a_problem(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """The driver is asked for calls only from a tool-loop turn; a call comes without a problem (so the driver may
    run it, with its parsed arguments) exactly when it names one of the agent's tools with arguments that fit that
    tool's schema."""
    trace = drive(ctx, script)
    tools = {tool.name: tool for tool in ctx.tools}
    for step in trace.steps:
        action = step.outcome.next_action
        if isinstance(action, ExecuteTools):
            assert isinstance(step.state, CallingModel | ExecutingTools)
            assert action.calls
            assert len(action.problems) == len(action.arguments) == len(action.calls)
            for call, arguments, problem in zip(action.calls, action.arguments, action.problems, strict=True):
                valid = call.name in tools and _fits(call.arguments, tools[call.name].parameters)
                assert (problem is None) == valid
                assert (arguments is None) == (problem is not None)
                if arguments is not None:
                    assert arguments == parse_arguments(call.arguments)


def _fits(text: str, schema: JsonObject) -> bool:
    try:
        return validate(parse_arguments(text), schema) == []
    except (ValueError, RecursionError):
        return False


@given(ctx=CTXS, script=SCRIPTS)
def test_reused_call_ids_are_renamed_apart_and_no_call_is_dropped(
    ctx: TransitionCtx, script: tuple[Answer, ...]
) -> None:
    """Each call of a response becomes one `ToolCallItem`, in the model's order with its name and arguments, under
    an id no other call of the response has; the first call with an id keeps it."""
    trace = drive(ctx, script)
    for step in trace.steps:
        if not isinstance(step.input, ModelResponse) or not step.input.tool_calls:
            continue
        if isinstance(step.state, Compacting):
            continue  # a summary answers a request with no tools: only its text is read
        made = step.input.tool_calls
        items = [event.item for event in step.outcome.events if isinstance(event, ToolCallItem)]
        assert [(item.name, item.arguments) for item in items] == [(call.name, call.arguments) for call in made]
        ids = [item.call_id for item in items]
        assert len(set(ids)) == len(ids)
        firsts = {call.call_id: index for index, call in reversed(list(enumerate(made)))}
        assert all(ids[index] == call_id for call_id, index in firsts.items())
