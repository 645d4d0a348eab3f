"""Law: holding tool calls for approval changes nothing but the wait. Whatever calls of a round are held and in
however many rounds of decisions they are answered, the run ends in the same state, with the same conversation
and the same events besides one `ApprovalRequested` per hold, as a run whose calls were all answered at once."""

from __future__ import annotations

import attrs
from hypothesis import given, strategies as st
from properties.reference import Answer, answer_of, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import (
    AgentEvent,
    ApprovalRequested,
    AwaitApproval,
    CallModel,
    ExecuteTools,
    ModelResponse,
    PerformHandoff,
    Start,
    Terminate,
    ToolResults,
    TransitionCtx,
    TransitionInput,
    initial_state,
    transition,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


def _held_drive(
    ctx: TransitionCtx, script: list[ModelResponse | Answer], data: st.DataObject
) -> tuple[object, object, list[AgentEvent], int]:
    """`drive`, but each round holds the calls `data` picks and answers them over rounds of decisions."""
    state = initial_state()
    conversation = ctx.conversation
    given_input: TransitionInput = Start()
    events: list[AgentEvent] = []
    answered = 0
    holds = 0
    for _ in range(1_000):
        outcome = transition(state, given_input, attrs.evolve(ctx, conversation=conversation))
        events.extend(outcome.events)
        conversation = conversation.extend(outcome.conversation_appends)
        state = outcome.next_state
        match outcome.next_action:
            case CallModel(request=request):
                scripted = script[answered] if answered < len(script) else ModelResponse()
                given_input = scripted.to(request) if isinstance(scripted, Answer) else scripted
                answered += 1
            case ExecuteTools(calls=calls, problems=problems) | AwaitApproval(pending=calls, problems=problems):
                hold = [data.draw(st.booleans()) for _ in calls]
                if isinstance(outcome.next_action, AwaitApproval) and all(hold):
                    hold[data.draw(st.integers(0, len(calls) - 1))] = False  # each decision round decides one at least
                held = tuple(call for call, h in zip(calls, hold, strict=True) if h)
                holds += len(held)
                answers = zip(calls, problems, hold, strict=True)
                results = tuple(answer_of(call, problem) for call, problem, h in answers if not h)
                given_input = ToolResults(results, held)
            case PerformHandoff() | Terminate():
                break
    return state, conversation, events, holds


@given(CTXS, SCRIPTS, st.data())
def test_holding_calls_for_approval_changes_nothing_but_the_wait(
    ctx: TransitionCtx, script: list[ModelResponse | Answer], data: st.DataObject
) -> None:
    """Same final state, same conversation, same events except one ApprovalRequested per held call."""
    direct = drive(ctx, script)
    state, conversation, events, holds = _held_drive(ctx, script, data)
    assert state == direct.final_state
    assert conversation == direct.conversation
    requested = [event for event in events if isinstance(event, ApprovalRequested)]
    assert len(requested) == holds
    assert [event for event in events if not isinstance(event, ApprovalRequested)] == list(direct.events)
