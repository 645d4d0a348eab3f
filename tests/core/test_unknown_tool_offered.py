"""An unknown tool's answer lists every tool the model was offered: its tools and its handoffs' transfer tools."""

from __future__ import annotations

from properties.reference import ADD, WEATHER, make_ctx

from helikon_fc.core import (
    AwaitApproval,
    CallingModel,
    ExecuteTools,
    HandoffTarget,
    ModelResponse,
    NeedsApproval,
    ToolCall,
    ToolDef,
    ToolResults,
    Usage,
    transition,
)

TECH = HandoffTarget("transfer_to_tech_support", "tech", "Hand off to tech support.")
BILLING = HandoffTarget("billing_desk", "billing", "Hand off to billing.")


def _problem(
    call: ToolCall, *, tools: tuple[ToolDef, ...] = (WEATHER, ADD), handoffs: tuple[HandoffTarget, ...] = ()
) -> str | None:
    """What checking `call` found, in a tool-loop turn of an agent offered `tools` and `handoffs`."""
    ctx = make_ctx(tools=tools, handoffs=handoffs)
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=(call,)), ctx)
    action = outcome.next_action
    assert isinstance(action, ExecuteTools)
    return action.problems[0]


def test_an_agent_with_only_handoffs_lists_its_transfer_tools() -> None:
    """The issue's case: the model misspelt the transfer tool it was offered; the answer names the right one."""
    call = ToolCall("c", "transfer_to_tech", "{}")
    assert _problem(call, tools=(), handoffs=(TECH,)) == (
        "unknown tool: 'transfer_to_tech' (available tools: transfer_to_tech_support)"
    )


def test_tools_and_transfer_tools_are_listed_together_in_name_order() -> None:
    call = ToolCall("c", "launch_rockets", "{}")
    assert _problem(call, handoffs=(TECH, BILLING)) == (
        "unknown tool: 'launch_rockets' (available tools: add, billing_desk, get_weather, transfer_to_tech_support)"
    )


def test_with_nothing_offered_the_answer_says_none() -> None:
    assert _problem(ToolCall("c", "x", "{}"), tools=()) == "unknown tool: 'x' (available tools: none)"


def test_a_call_waiting_for_approval_gets_the_same_answer() -> None:
    """The problems of calls waiting for a human (`AwaitApproval.problems`) list the transfer tools too."""
    call = ToolCall("c", "transfer_to_tech", "{}")
    outcome = transition(CallingModel(0), ModelResponse(tool_calls=(call,)), make_ctx(tools=(), handoffs=(TECH,)))
    waiting = transition(outcome.next_state, ToolResults((), (call,)), make_ctx(tools=(), handoffs=(TECH,)))
    assert isinstance(waiting.next_state, NeedsApproval) and waiting.next_state.usage == Usage(requests=1)
    action = waiting.next_action
    assert isinstance(action, AwaitApproval)
    assert action.problems == ("unknown tool: 'transfer_to_tech' (available tools: transfer_to_tech_support)",)
