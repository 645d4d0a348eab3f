"""Law: `turn` never decreases and never exceeds `max_turns`; a model that always calls tools gets exactly
`max_turns` calls, and the last round's tool outputs come before `RunFailed(MaxTurnsExceeded)`."""

from __future__ import annotations

from hypothesis import given, strategies as st
from properties.reference import Answer, drive, make_ctx
from properties.strategies import scenario_ctxs, scripts, tool_calling_scripts

from helikon_fc.core import (
    CallingModel,
    ExecutingTools,
    Failed,
    Finalizing,
    LoopState,
    MaxTurnsExceeded,
    RepairingOutput,
    RunFailed,
    ToolOutputItem,
    TransitionCtx,
    TurnStarted,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


def turn_of(state: LoopState) -> int | None:
    match state:
        case CallingModel(turn=turn) | ExecutingTools(turn=turn) | Finalizing(turn=turn) | RepairingOutput(turn=turn):
            return turn
        case _:
            return None


@given(ctx=CTXS, script=SCRIPTS)
def test_turn_never_decreases_nor_exceeds_max_turns(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """Along any run, the turn of each state and of each TurnStarted is non-decreasing and at most max_turns."""
    trace = drive(ctx, script)
    turns = [turn for step in trace.steps if (turn := turn_of(step.outcome.next_state)) is not None]
    assert turns == sorted(turns)
    assert all(0 <= turn <= ctx.max_turns for turn in turns)
    started = [event.turn for event in trace.events if isinstance(event, TurnStarted)]
    assert started == sorted(started)
    assert all(turn <= ctx.max_turns for turn in started)


@given(max_turns=st.integers(min_value=1, max_value=6), data=st.data())
def test_always_calling_tools_gets_exactly_max_turns_calls(max_turns: int, data: st.DataObject) -> None:
    """A model that always calls tools is called exactly max_turns times; the run fails with MaxTurnsExceeded
    right after the last round's ToolOutputItem events."""
    script = data.draw(tool_calling_scripts(max_turns + 2))
    trace = drive(make_ctx(max_turns=max_turns), script)
    assert len(trace.requests) == max_turns
    assert isinstance(trace.final_state, Failed)
    assert trace.final_state.error == MaxTurnsExceeded(max_turns)
    last_round = script[max_turns - 1].tool_calls
    tail = trace.events[-len(last_round) - 1 :]
    assert [event.item.call_id for event in tail[:-1] if isinstance(event, ToolOutputItem)] == [
        call.call_id for call in last_round
    ]
    assert tail[-1] == RunFailed(MaxTurnsExceeded(max_turns))
