"""Law: any finite script of model behaviour, driven through `transition`, ends — in `Done`, `Failed`, or a handoff
to another agent — within the bound the rules give."""

from __future__ import annotations

from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import ApplyingHandoff, Done, Failed, PerformHandoff, Terminate, TransitionCtx

CTXS = scenario_ctxs()
SCRIPTS = scripts()


@given(ctx=CTXS, script=SCRIPTS)
def test_every_scripted_run_ends_within_the_bound(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """A run ends in Done, Failed or ApplyingHandoff after at most max_turns tool-loop model calls plus one
    finalizing and one repair call, and at most 2 * max_turns + 3 transitions."""
    trace = drive(ctx, script)
    assert not trace.stopped_by_bound
    assert isinstance(trace.final_state, Done | Failed | ApplyingHandoff)
    last_action = trace.steps[-1].outcome.next_action
    assert last_action == Terminate() or isinstance(last_action, PerformHandoff)
    loop_calls = [request for request in trace.requests if request.output_schema is None]
    structured_calls = [request for request in trace.requests if request.output_schema is not None]
    assert len(loop_calls) <= ctx.max_turns
    assert len(structured_calls) <= (2 if ctx.max_turns > 0 else 0)
    assert len(trace.steps) <= 2 * ctx.max_turns + 3
