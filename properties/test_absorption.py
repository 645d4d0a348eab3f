"""Law: terminal states absorb every input — `Done` and `Failed` stay as they are, emit nothing and say Terminate."""

from __future__ import annotations

from hypothesis import given
from properties.strategies import terminal_states, transition_ctxs, transition_inputs

from helikon_fc.core import LoopState, Terminate, TransitionCtx, TransitionInput, TransitionOutcome, transition

STATES = terminal_states()
INPUTS = transition_inputs()
CTXS = transition_ctxs()


@given(state=STATES, given_input=INPUTS, ctx=CTXS)
def test_terminal_states_absorb_every_input(state: LoopState, given_input: TransitionInput, ctx: TransitionCtx) -> None:
    """For a Done or Failed state, any input in any context gives the same state, no events, Terminate, no appends."""
    assert transition(state, given_input, ctx) == TransitionOutcome(state, (), Terminate(), ())
