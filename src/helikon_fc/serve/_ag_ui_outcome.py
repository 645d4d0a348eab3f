"""How a run ends, in AG-UI terms: ``RUN_FINISHED`` (with its answer, its usage per model, or the interrupts
of a paused run, or the ``cancelled`` outcome) or ``RUN_ERROR`` (the error in words). Pure: no IO."""

from __future__ import annotations

from typing import assert_never

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TokenUsage,
)

from ..core import ApprovalRequested, Cancelled, RunCompleted, RunFailed, RunPaused, Usage
from ..core.wire import unstructure_data


def terminal_event(
    event: RunCompleted | RunFailed | RunPaused,
    thread_id: str,
    run_id: str,
    answer: str | None,
    recorded_as: str | None,
) -> BaseEvent:
    """The AG-UI event that ends the run `event` ends.

    Args:
        event: the run's terminal event.
        thread_id: the AG-UI thread.
        run_id: the AG-UI run.
        answer: the run's answer (its last message's text), the ``result`` of a completed run.
        recorded_as: the id the run is recorded under, named on a paused run's interrupts.
    """
    match event:
        case RunCompleted():
            return RunFinishedEvent(thread_id=thread_id, run_id=run_id, result=answer, usage=_usage(event))
        case RunPaused(pending=pending, usage=usage):
            interrupts = [_interrupt(request, recorded_as) for request in pending]
            outcome = RunFinishedInterruptOutcome(interrupts=interrupts)
            return RunFinishedEvent(
                thread_id=thread_id, run_id=run_id, outcome=outcome, usage=[_token_usage(None, usage)]
            )
        case RunFailed(error=Cancelled() as error):
            cancelled = RunFinishedCancelledOutcome()
            return RunFinishedEvent(
                thread_id=thread_id, run_id=run_id, outcome=cancelled, metadata={"reason": str(error)}
            )
        case RunFailed(error=error):
            return RunErrorEvent(message=str(error), code=wire_tag(error))
    assert_never(event)


def _interrupt(request: ApprovalRequested, recorded_as: str | None) -> Interrupt:
    """A waiting call as an AG-UI interrupt, its id the call id; the metadata names the tool, its argument
    JSON and (for a recorded run) the run id its decision goes to (``POST /runs/{run_id}/approvals``)."""
    metadata: dict[str, object] = {"tool": request.tool, "args": request.args}
    if recorded_as is not None:
        metadata["run_id"] = recorded_as
    return Interrupt(
        id=request.call_id,
        reason="tool_approval",
        message=f"{request.tool} wants to run with {request.args}",
        tool_call_id=request.call_id,
        metadata=metadata,
    )


def _usage(event: RunCompleted) -> list[TokenUsage]:
    """The run's usage, one entry per model that answered (one entry of the total when unknown)."""
    if not event.usage_by_model:
        return [_token_usage(None, event.usage)]
    models: dict[str | None, Usage] = {}
    for share in event.usage_by_model:
        models[share.model] = models.get(share.model, Usage()) + share.usage
    return [_token_usage(model, usage) for model, usage in models.items()]


def _token_usage(model: str | None, usage: Usage) -> TokenUsage:
    return TokenUsage(
        model=model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.input_tokens + usage.output_tokens,
        reasoning_tokens=usage.reasoning_tokens,
        cached_input_tokens=usage.cached_input_tokens,
    )


def wire_tag(value: object) -> str:
    """The wire-format ``"type"`` tag of an event or error (``handoff_item``, ``max_turns_exceeded``)."""
    data = unstructure_data(value)
    return str(data["type"]) if isinstance(data, dict) and "type" in data else type(value).__name__
