"""Law: `transition` is total — for every (state, input, context) it returns an outcome and never raises;
an input the state cannot accept gives a `Failed` outcome."""

from __future__ import annotations

from hypothesis import given
from properties.strategies import loop_states, transition_ctxs, transition_inputs

from helikon_fc.core import (
    Failed,
    InvalidTransition,
    LoopState,
    RunFailed,
    Terminate,
    TransitionCtx,
    TransitionInput,
    TransitionOutcome,
    transition,
)

STATES = loop_states()
INPUTS = transition_inputs()
CTXS = transition_ctxs()


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_transition_never_raises(state: LoopState, given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """For any state, input and context, transition returns a TransitionOutcome and raises nothing."""
    assert isinstance(transition(state, given_input, ctx), TransitionOutcome)


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_a_failed_outcome_reports_its_error_last(
    state: LoopState, given_input: TransitionInput, ctx: TransitionCtx
) -> None:
    """A step that moves a live state to Failed(error) ends with the event RunFailed(error) and the action Terminate."""
    outcome = transition(state, given_input, ctx)
    if isinstance(outcome.next_state, Failed) and not isinstance(state, Failed):
        assert outcome.events[-1] == RunFailed(outcome.next_state.error)
        assert outcome.next_action == Terminate()
        if isinstance(outcome.next_state.error, InvalidTransition):
            assert outcome.next_state.error.state == type(state).__name__
