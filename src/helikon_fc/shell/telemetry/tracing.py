"""The tracing seam: what the shell tells a tracer about a run, with no tracing library in sight.

A `RunContext` carries a `Tracer` or `None` (the default). With `None` the shell pays one
attribute check per agent run, per model call and per tool round, and nothing else. With a
tracer, the shell opens a span around every agent run (`emit_run`), every model call and every
tool call, and ends it exactly once: `finish` with the outcome, or `interrupt` with
``"cancelled"`` / ``"timeout"`` when trio cancellation unwinds through it.

The parent of each new span is passed explicitly: the shell keeps the innermost open span in a
context variable of its own, which trio copies into every child task when it is spawned — so
parallel branches (tasks of one nursery) are siblings under the span that spawned them, and a
handoff target or an agent-as-tool sub-run is a child of the span it runs in. Nothing relies on a
tracing library's implicit context (which does not follow ``trio.to_thread``).

`helikon_fc.otel.OpenTelemetryTracer` implements `Tracer` with OpenTelemetry.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

import trio

from ...core import ModelRequest, ModelResponse, RunFailed, TerminalEvent, ToolCall, ToolResult
from ...models.protocol import Model

__all__ = [
    "AgentRunSpan",
    "ModelCallSpan",
    "Span",
    "ToolCallSpan",
    "Tracer",
    "current_span",
    "run_deadline",
    "span_event",
    "trace_agent_run",
    "trace_model_call",
    "within_span",
]


class Span(Protocol):
    """A span the shell opened; it is ended exactly once, by `interrupt` or by its kind's ``finish``.

    A span may also have ``add_event(name, attributes)``: events the shell hears while it is open are
    then recorded on it (`span_event`).
    """

    def interrupt(self, error_type: str) -> None:
        """End the span as stopped by trio cancellation: `error_type` is ``"cancelled"`` or ``"timeout"``."""


class AgentRunSpan(Span, Protocol):
    """The span of one agent run (a model loop, a workflow, a graph, a swarm, a handoff target)."""

    def finish(self, terminal: TerminalEvent) -> None:
        """End the span with the run's terminal event (`RunCompleted` or `RunFailed`)."""


class ModelCallSpan(Span, Protocol):
    """The span of one model call."""

    def finish(self, outcome: ModelResponse | RunFailed) -> None:
        """End the span with the assembled response, or the failure that ends the run."""


class ToolCallSpan(Span, Protocol):
    """The span of one tool call."""

    def finish(self, result: ToolResult, error_type: str | None) -> None:
        """End the span with the call's result; `error_type` names a failure (``None`` on success)."""


class Tracer(Protocol):
    """What the shell calls to trace a run; set it with ``RunContext(..., tracer=...)`` or `RunContext.with_tracer`.

    It crosses every boundary a run context crosses: handoffs, workflow children and the isolated
    context of an `AgentAsTool` sub-run. Each ``start_*`` receives the span the new one nests in
    (one this tracer returned), or `None` at the top of a run. Methods are called from trio tasks
    and must not block.
    """

    def start_agent_run(self, agent_name: str, parent: Span | None) -> AgentRunSpan:
        """Open the span of a run of the agent called `agent_name`."""
        ...

    def start_model_call(self, model: Model, request: ModelRequest, parent: Span | None) -> ModelCallSpan:
        """Open the span of a call to `model` with `request`."""
        ...

    def start_tool_call(self, call: ToolCall, parent: Span | None) -> ToolCallSpan:
        """Open the span of the tool call `call`."""
        ...


_CURRENT: ContextVar[Span | None] = ContextVar("helikon_fc_current_span", default=None)
_DEADLINE: ContextVar[float] = ContextVar("helikon_fc_run_deadline", default=math.inf)


def current_span() -> Span | None:
    """The innermost span the shell has open in this task (inherited by tasks spawned under it)."""
    return _CURRENT.get()


def span_event(span: Span | None, name: str, attributes: Mapping[str, str | int | float | bool]) -> None:
    """Record the event `name` on `span`, if its tracer's spans take events (an ``add_event(name, attributes)``
    method, as `helikon_fc.otel`'s have); nothing otherwise, and nothing without a span (no tracer).

    What a tool hears while it runs (an MCP server's progress and log messages) goes on its call's span.
    """
    add = getattr(span, "add_event", None)
    if add is not None:
        add(name, attributes)


@contextmanager
def run_deadline(deadline: float) -> Iterator[None]:
    """Mark the block as running under `deadline` (trio time), so a cancellation past it is traced as a timeout."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _interruption() -> str:
    """Why trio cancellation is unwinding: ``"timeout"`` past a `run_deadline`, else ``"cancelled"``."""
    return "timeout" if trio.current_time() >= _DEADLINE.get() else "cancelled"


async def trace_agent_run(
    tracer: Tracer, agent_name: str, run: Callable[[], Awaitable[TerminalEvent]]
) -> TerminalEvent:
    """Run `run` (an agent run's body up to its terminal event) inside an agent-run span."""
    span = tracer.start_agent_run(agent_name, _CURRENT.get())
    token = _CURRENT.set(span)
    try:
        terminal = await run()
    except BaseException:
        span.interrupt(_interruption())
        raise
    finally:
        _CURRENT.reset(token)
    span.finish(terminal)
    return terminal


async def trace_model_call(
    tracer: Tracer,
    call: Callable[[Model, ModelRequest, Any], Awaitable[ModelResponse | RunFailed]],
    model: Model,
    request: ModelRequest,
    send: Any,
) -> ModelResponse | RunFailed:
    """``await call(model, request, send)`` (`helikon_fc.models.call.call_model`) inside a model-call span."""
    span = tracer.start_model_call(model, request, _CURRENT.get())
    try:
        outcome = await call(model, request, send)
    except BaseException:
        span.interrupt(_interruption())
        raise
    span.finish(outcome)
    return outcome


@contextmanager
def within_span(span: Span) -> Iterator[None]:
    """Make `span` the innermost open span inside the block; interrupt it if the block is unwound by an exception
    (trio cancellation included) — the caller ends it with its kind's ``finish`` after the block."""
    token = _CURRENT.set(span)
    try:
        yield
    except BaseException:
        span.interrupt(_interruption())
        raise
    finally:
        _CURRENT.reset(token)
