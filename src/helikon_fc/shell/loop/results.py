"""Results: draining a run stream into a `RunResult`, and `RunError`, the one exception a failed run raises.

The exceptions::

    RunError                 a run failed; `.error` is the `AgentError`, `.events` what was seen
     +-- RunStartError       the run could not start (raised from ``agent.run(...).__aenter__``)
          +-- HandoffCollisionError   two handoffs, or a handoff and a tool, share a tool name
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from types import MappingProxyType
from typing import Generic, TypeVar

import attrs

from ...core import (
    AgentError,
    AgentEvent,
    ApprovalRequested,
    HandoffCollision,
    MessageOutput,
    OtherError,
    RunCompleted,
    RunFailed,
    RunPaused,
    RunStarted,
    Usage,
)
from ...pricing import PriceTable, RunCost, default_prices, run_cost
from .run_stream import forward_run

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class RunError(Exception):
    """A run ended with `RunFailed`; `error` is the `AgentError` it carried.

    Attributes:
        error: why the run failed, as data.
        events: every event the run emitted, the terminal `RunFailed` included (empty when the
            run never started).
    """

    def __init__(self, error: AgentError, events: tuple[AgentEvent, ...] = ()) -> None:
        super().__init__(str(error))
        self.error = error
        self.events = events

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.error!r})"


class RunStartError(RunError):
    """A run could not start; raised from entering its run stream, before any event."""


class HandoffCollisionError(RunStartError):
    """Two handoffs of one agent, or a handoff and one of its tools, claim the same tool name.

    Raised when the run starts, before the first model call; `error` is the `HandoffCollision`.
    """

    error: HandoffCollision

    def __init__(self, error: HandoffCollision) -> None:
        super().__init__(error)


@attrs.frozen
class RunResult(Generic[T_co]):
    """What a successful run produced.

    Attributes:
        final_output: the text of the last `MessageOutput` (``""`` if there was none), or for
            `RunResultStreaming.collect_typed` the decoded value.
        events: every event of the run, in order, `RunStarted` first and `RunCompleted` last (or
            `RunPaused`, for a run that waits for approval: see `paused`).
        usage: the run's total usage, from `RunCompleted` (or `RunPaused`): every model call made on its behalf,
            sub-runs of every kind (handoffs, workflow children, agent-as-tool calls) included.
    """

    final_output: T_co
    events: tuple[AgentEvent, ...]
    usage: Usage

    @property
    def run_id(self) -> str | None:
        """The id the run was recorded under (from its `RunStarted`), or `None` for a run not recorded."""
        first = self.events[0] if self.events else None
        return first.run_id if isinstance(first, RunStarted) else None

    @property
    def paused(self) -> bool:
        """Whether the run paused for approval (`RunPaused`) instead of completing: resume it with approvals."""
        return bool(self.events) and isinstance(self.events[-1], RunPaused)

    @property
    def pending(self) -> tuple[ApprovalRequested, ...]:
        """What a paused run waits for: one request per waiting call (empty unless `paused`)."""
        last = self.events[-1] if self.events else None
        return last.pending if isinstance(last, RunPaused) else ()

    @property
    def usage_by_agent(self) -> Mapping[str, Usage]:
        """`usage` split by the agent whose model made each call (read-only), sorted by agent name.

        Example: a writer that asked a summarizer through `AgentAsTool` twice shows both,
        ``{"writer": Usage(requests=3, ...), "summarizer": Usage(requests=2, ...)}``.
        """
        last = self.events[-1] if self.events else None
        pairs = last.usage_by_agent if isinstance(last, RunCompleted) else ()
        return MappingProxyType({pair.agent: pair.usage for pair in pairs})

    @property
    def cost(self) -> RunCost:
        """What the run cost in US dollars at `default_prices()` (the ``genai-prices`` package where installed).

        Its `total` is `None` when a model has no price (named in `unpriced`) or a call reported no
        usage: never a number that leaves a part out. Split by agent like `usage_by_agent`.
        """
        return self.cost_with(default_prices())

    def cost_with(self, prices: PriceTable) -> RunCost:
        """What the run cost at `prices`: ``result.cost_with(Prices({"my-model": Price(input="1", output="3")}))``."""
        last = self.events[-1] if self.events else None
        return run_cost(last.usage_by_model if isinstance(last, RunCompleted) else (), prices)

    @staticmethod
    def from_events(events: Iterable[AgentEvent]) -> RunResult[str]:
        """The result of a run whose events you drained yourself (what `RunResultStreaming.collect` returns).

        Raises:
            RunError: the events end with `RunFailed`, or with no terminal event.
        """
        drained = tuple(events)
        return RunResult(final_text(drained), drained, _settled_usage(drained))


RunStreamLike = AbstractAsyncContextManager[AsyncIterator[AgentEvent]]


class RunResultStreaming:
    """A consumer of one run stream that drains it into a `RunResult`.

    ``await RunResultStreaming(agent.run(ctx, input)).collect()`` is the common way to run an agent
    to its end. A run stream can be entered once, so each `RunResultStreaming` collects once.
    """

    __slots__ = ("_run", "_used")

    def __init__(self, run: RunStreamLike) -> None:
        self._run = run
        self._used = False

    async def collect(self, *, on_event: Callable[[AgentEvent], object] | None = None) -> RunResult[str]:
        """Drain the run; return its result.

        Args:
            on_event: called with each event as it arrives, to react live while collecting.

        Raises:
            RunError: the run ended with `RunFailed` (or could not start: `RunStartError`).
        """
        events, usage = await self._drain(on_event)
        return RunResult(final_text(events), events, usage)

    async def collect_typed(
        self, tp: type[T], *, on_event: Callable[[AgentEvent], object] | None = None
    ) -> RunResult[T]:
        """Drain a structured-output run; return a result whose `final_output` is a `tp`.

        The trimmed text of the last `MessageOutput` is parsed as JSON and decoded into `tp`.

        Raises:
            RunError: the run failed; or its last answer was not JSON or did not decode into `tp`
                (`OtherError` saying which). An agent with an `output_type` never ends with an
                answer that is not JSON (its run fails first), so a non-JSON answer here means the
                agent had no `output_type`, and the message says so.
        """
        from ..tools.type_schema import DecodeError, decode

        events, usage = await self._drain(on_event)
        text = final_text(events).strip()
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise RunError(OtherError(_not_json(tp, text, exc)), events) from None
        try:
            decoded = decode(tp, value)
        except DecodeError as exc:
            message = f"collect_typed: failed to decode the final output as {_type_name(tp)}: {exc}"
            raise RunError(OtherError(message), events) from None
        return RunResult(decoded, events, usage)

    async def _drain(self, on_event: Callable[[AgentEvent], object] | None) -> tuple[tuple[AgentEvent, ...], Usage]:
        if self._used:
            raise RuntimeError("this RunResultStreaming was already collected; a run stream runs once")
        self._used = True
        keep = _Keep(on_event)
        await forward_run(self._run, keep, send_cannot_fail=on_event is None)
        events = tuple(keep.events)
        return events, _settled_usage(events)


class _Keep:
    """The `Send` that `RunResultStreaming` collects a run with: keeps each event, then calls `on_event`.

    A slotted object rather than a closure: a closure costs a function and a cell per captured
    variable, all held (and tracked by the garbage collector) for as long as the run is suspended.
    """

    __slots__ = ("_on_event", "events")

    def __init__(self, on_event: Callable[[AgentEvent], object] | None) -> None:
        self.events: list[AgentEvent] = []
        self._on_event = on_event

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910
        # `Send` is async; keeping an event needs no wait (the run's own awaits are the checkpoints).
        self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)


def _settled_usage(events: tuple[AgentEvent, ...]) -> Usage:
    """The usage of a run that completed; `RunError` for one that failed."""
    match events[-1] if events else None:
        case RunCompleted(usage=usage):
            return usage
        case RunPaused(usage=usage):
            return usage
        case RunFailed(error=error):
            raise RunError(error, events)
        case _:
            raise RunError(OtherError("the run stream ended without a terminal event"), events)


def final_text(events: Sequence[AgentEvent]) -> str:
    """The text of the last `MessageOutput` among `events`, or ``""``."""
    for event in reversed(events):
        if isinstance(event, MessageOutput):
            return event.item.text
    return ""


def _not_json(tp: object, text: str, exc: ValueError) -> str:
    """Why `collect_typed` could not parse `text`: most likely the agent was never asked for JSON."""
    name = _type_name(tp)
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"collect_typed({name}): the run's final output is not JSON ({exc}): {shown!r}; "
        f"the agent has no output_type, so its answer is free text: build it with output_type={name} "
        "(LlmAgent(..., output_type=...)) to have the model answer in JSON checked against the type's schema"
    )


def _type_name(tp: object) -> str:
    return getattr(tp, "__qualname__", None) or repr(tp)
