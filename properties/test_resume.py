"""Law: a run can be resumed at any transition boundary — feeding `Start` to a stored live state, with the
conversation as it stood, asks again for exactly the action that state was waiting on and changes nothing."""

from __future__ import annotations

import attrs
from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import Done, Failed, Start, TransitionCtx, from_json, to_json, transition

CTXS = scenario_ctxs()
SCRIPTS = scripts()


@given(ctx=CTXS, script=SCRIPTS)
def test_start_resumes_every_stored_state(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """For every live state a run passes through, persisted to JSON and read back, Start gives the same state,
    the same next action, and no conversation appends."""
    trace = drive(ctx, script)
    for step in trace.steps:
        stored = step.outcome.next_state
        if isinstance(stored, Done | Failed):
            continue
        conversation = step.conversation.extend(step.outcome.conversation_appends)
        restored = from_json(type(stored), to_json(stored))
        resumed = transition(restored, Start(), attrs.evolve(ctx, conversation=conversation))
        assert resumed.next_state == stored
        assert resumed.next_action == step.outcome.next_action
        assert resumed.conversation_appends == ()
