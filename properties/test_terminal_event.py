"""Law: every run that ends has exactly one terminal event (`RunCompleted` or `RunFailed`), it is the last event,
and it agrees with the final state; a run handed off to another agent emits none (the target's run ends it)."""

from __future__ import annotations

from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import (
    ApplyingHandoff,
    Done,
    Failed,
    RunCompleted,
    RunFailed,
    TransitionCtx,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


@given(ctx=CTXS, script=SCRIPTS)
def test_exactly_one_terminal_event_and_it_is_last(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """A run ending in Done emits RunCompleted(usage) last and once; Failed emits RunFailed(error) last and once."""
    trace = drive(ctx, script)
    terminal = [event for event in trace.events if isinstance(event, RunCompleted | RunFailed)]
    match trace.final_state:
        case Done(usage=usage):
            assert terminal == [RunCompleted(usage)]
            assert trace.events[-1] == RunCompleted(usage)
        case Failed(error=error):
            assert terminal == [RunFailed(error)]
            assert trace.events[-1] == RunFailed(error)
        case ApplyingHandoff():
            assert terminal == []
        case other:
            raise AssertionError(f"run stopped in a live state: {other!r}")
