"""Law: any finite script of model behaviour, driven through `transition`, ends — in `Done`, `Failed`, or a handoff
to another agent — within the bound the rules give."""

from __future__ import annotations

from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import (
    ApplyingHandoff,
    CallModel,
    Compacting,
    Done,
    Failed,
    PerformHandoff,
    Terminate,
    TransitionCtx,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


@given(ctx=CTXS, script=SCRIPTS)
def test_every_scripted_run_ends_within_the_bound(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """A run ends in Done, Failed or ApplyingHandoff after at most max_turns tool-loop model calls plus one
    finalizing and one repair call, at most one summary call before each of them, and at most
    2 * max_turns + 3 transitions plus one per summary."""
    trace = drive(ctx, script)
    assert not trace.stopped_by_bound
    assert isinstance(trace.final_state, Done | Failed | ApplyingHandoff)
    last_action = trace.steps[-1].outcome.next_action
    assert last_action == Terminate() or isinstance(last_action, PerformHandoff)
    summaries = {
        id(step.outcome.next_action.request)
        for step in trace.steps
        if isinstance(step.outcome.next_state, Compacting) and isinstance(step.outcome.next_action, CallModel)
    }
    calls = [request for request in trace.requests if id(request) not in summaries]
    loop_calls = [request for request in calls if request.output_schema is None]
    structured_calls = [request for request in calls if request.output_schema is not None]
    assert len(loop_calls) <= ctx.max_turns
    assert len(structured_calls) <= (2 if ctx.max_turns > 0 else 0)
    assert len(summaries) <= len(calls)
    assert len(trace.steps) <= 2 * ctx.max_turns + 3 + len(summaries)
