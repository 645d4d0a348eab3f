"""Law: a run makes at most one repair — at most one `RepairStarted`, at most two structured-output model calls,
and `StructuredOutputFailed` only after the repair failed."""

from __future__ import annotations

from hypothesis import given
from properties.reference import Answer, drive
from properties.strategies import scenario_ctxs, scripts

from helikon_fc.core import (
    Compacting,
    Failed,
    Finalizing,
    LoopState,
    RepairingOutput,
    RepairStarted,
    ResumePhase,
    StructuredOutputFailed,
    StructuredOutputInvalid,
    TransitionCtx,
)

CTXS = scenario_ctxs()
SCRIPTS = scripts()


def _repairing(state: LoopState) -> bool:
    """Whether `state` is the repair turn, or a compaction just before it."""
    return isinstance(state, RepairingOutput) or (
        isinstance(state, Compacting) and state.resume is ResumePhase.REPAIRING_OUTPUT
    )


@given(ctx=CTXS, script=SCRIPTS)
def test_at_most_one_repair(ctx: TransitionCtx, script: tuple[Answer, ...]) -> None:
    """RepairStarted(1) appears at most once, only after a Finalizing turn, and a second miss fails the run."""
    trace = drive(ctx, script)
    repairs = [event for event in trace.events if isinstance(event, RepairStarted)]
    assert repairs in ([], [RepairStarted(1)])
    entered = [step for step in trace.steps if _repairing(step.outcome.next_state)]
    assert all(isinstance(step.state, Finalizing) or _repairing(step.state) for step in entered)
    assert len([step for step in entered if isinstance(step.state, Finalizing)]) == len(repairs)
    assert len([r for r in trace.requests if r.output_schema is not None]) <= 2
    failures = [event for event in trace.events if isinstance(event, StructuredOutputFailed)]
    if failures:
        assert repairs and trace.events.index(repairs[0]) < trace.events.index(failures[0])
        assert isinstance(trace.final_state, Failed)
        assert trace.final_state.error == StructuredOutputInvalid(failures[0].schema_errors, failures[0].final_text)
