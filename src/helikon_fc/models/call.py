"""`call_model`: one model call as a run makes it — the answer streamed, its deltas forwarded as run events.

A run's driver, a stored session's compaction and a Temporal activity all call a model the same way:
stream the answer, forward each text, reasoning and tool-call delta to `send` as it arrives, and fold
the stream into one `ModelResponse`. Every way the call can go wrong is returned as a `RunFailed`
(a `ModelFailed` inside), never raised, so each caller decides what a failure means for its run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from ..core import (
    AgentEvent,
    ModelFailed,
    ModelFailureKind,
    ReasoningDelta,
    RunFailed,
    TokenDelta,
    ToolCallDelta,
    usage_problem,
)
from ..core.model import (  # the stream a model answers with, and how it folds into one response
    ModelEvent,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelResponse,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    assemble_response,
)
from .protocol import Model, ModelError

Send: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""Where a call's deltas go, one event at a time (a run's event channel, or a sink that drops them)."""


async def call_model(model: Model, request: ModelRequest, send: Send) -> ModelResponse | RunFailed:
    """Stream `model`'s answer to `request`, forwarding deltas live; return the assembled response."""
    received: list[ModelEvent] = []
    finished = False
    try:
        async with model.stream(request) as stream:
            async for event in stream:
                received.append(event)
                if isinstance(event, ModelTextDelta):
                    await send(TokenDelta(event.text))
                elif isinstance(event, ModelToolCallDelta):
                    await send(ToolCallDelta(event.call_id, event.name, event.args_delta))
                elif isinstance(event, ModelReasoningDelta):
                    await send(ReasoningDelta(event.text))
                elif isinstance(event, ModelFinish):
                    finished = True
                elif isinstance(event, ModelUsage):  # needs no forwarding; counted into the run's usage
                    problem = usage_problem(event.usage)
                    if problem is not None:
                        message = f"model {model.name!r} reported {problem}"
                        return RunFailed(ModelFailed(ModelFailureKind.OTHER, message))  # noqa: ASYNC910 - see below
                else:
                    message = f"model {model.name!r} streamed {type(event).__name__}, which is not a ModelEvent"
                    return RunFailed(ModelFailed(ModelFailureKind.OTHER, message))  # noqa: ASYNC910 - see below
    except Exception as exc:
        # Also trio's BrokenResourceError: a model on a trio stream raises it when its connection
        # breaks. Should it come from `send` instead (the consumer has gone), the terminal event's
        # own send raises it again and `emit_run` stops there.
        # No checkpoint of its own on these paths: the step that called the model began with a cancel point.
        return RunFailed(_model_failure(exc))  # noqa: ASYNC910
    if not finished:
        return RunFailed(
            ModelFailed(
                ModelFailureKind.TRANSPORT,
                f"the stream of model {model.name!r} ended without a finish reason (truncated)",
            )
        )
    return assemble_response(received)


def _model_failure(exc: Exception) -> ModelFailed:
    """A model failure as data: `ModelError` keeps its kind; anything else is ``OTHER``."""
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, ModelError):
        return exc.to_agent_error()
    return ModelFailed(ModelFailureKind.OTHER, f"{type(exc).__name__}: {exc}")
