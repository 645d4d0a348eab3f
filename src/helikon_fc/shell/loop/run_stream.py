"""Run streams: a run living in a nursery, observed through a bounded memory channel.

`open_run_stream(produce)` is the one way a run is exposed. It opens a nursery, starts
``produce(send_channel, task_status=...)`` in it with `nursery.start`, and yields the receive end
of a bounded memory channel. So:

- the run lives inside the ``async with`` block and nowhere else; leaving the block (drained or
  not, normally or by an exception) cancels whatever is still running and leaves no task behind;
- the channel is bounded, so a slow consumer slows the run (a full channel blocks the producer's
  ``send``) and no event is ever dropped; producers send through `sender`, and the consumer's
  `RunEvents` takes buffered events without a task switch, so a burst of events costs one
  switch, not one per event;
- whatever ``produce`` raises *before* it calls ``task_status.started()`` is a failure to start and
  is raised from ``__aenter__``, unwrapped; after that, failures are events.

`emit_run` is the producer-side half every agent shares: it sends `RunStarted`, runs the body in a
cancel scope attached to the context's cancel token, and sends exactly one terminal event, last —
the body's, `RunFailed(Cancelled)` when the run was cancelled from outside, or
`RunFailed(OtherError("internal error: ..."))` when the body raised.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from types import TracebackType
from typing import Any, Protocol, TypeAlias

import trio

from ...core import AgentEvent, Cancelled, OtherError, RunCompleted, RunFailed, RunPaused, RunStarted, TerminalEvent
from .._checks import cancelled_before_start
from ..context.run_context import RunContext
from ..telemetry.tracing import trace_agent_run
from .protocol import RunStream

STREAM_BUFFER = 32
"""How many events a run may get ahead of its consumer before it waits for it."""

Send: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""How a producer emits one event (`MemorySendChannel.send`)."""

RunBody: TypeAlias = Callable[[Send], Awaitable[TerminalEvent]]
"""The body of a run: emits its non-terminal events through `Send` and returns its terminal event."""


class Producer(Protocol):
    """What `open_run_stream` runs: ``await produce(send_channel, task_status=...)``."""

    async def __call__(
        self,
        send_channel: trio.MemorySendChannel[AgentEvent],
        *,
        task_status: trio.TaskStatus[None] = ...,
    ) -> None: ...


def open_run_stream(
    produce: Producer,
    *,
    check: Callable[[], None] | None = None,
    wait_started: bool = True,
    direct: Callable[[Send], Awaitable[None]] | None = None,
    buffer: int = STREAM_BUFFER,
) -> RunStreamManager:
    """A run stream: run `produce` in a nursery for the duration of the block; yield the events it sends.

    Args:
        produce: the producer; it owns (and must close) the send channel it is given, and calls
            ``task_status.started()`` once the run has started.
        check: called when the block is entered, before anything starts; what it raises is a
            failure to start.
        wait_started: wait for ``task_status.started()`` before entering the block (so whatever
            `produce` raises before it is a failure to start); `False` starts it without waiting.
        direct: the same run, performed in the caller's task with a given `Send` (no nursery, no
            channel); `RunResultStreaming.collect` uses it when it is given (see `RunStreamManager.drain`).
        buffer: how many events the producer may send before the consumer takes one.

    Raises:
        Exception: on entering the block, whatever `check` raised, or `produce` raised before it
            called ``task_status.started()``.
    """
    return RunStreamManager(produce, check, wait_started, buffer, direct)


class RunStreamManager:
    """The async context manager `open_run_stream` returns; it can be entered once."""

    __slots__ = (
        "_buffer",
        "_check",
        "_direct",
        "_entered",
        "_manager",
        "_nursery",
        "_produce",
        "_receive",
        "_send",
        "_wait",
    )

    def __init__(
        self,
        produce: Producer,
        check: Callable[[], None] | None,
        wait_started: bool,
        buffer: int,
        direct: Callable[[Send], Awaitable[None]] | None = None,
    ) -> None:
        self._produce = produce
        self._check = check
        self._wait = wait_started
        self._buffer = buffer
        self._direct = direct
        self._entered = False

    @property
    def can_drain(self) -> bool:
        """Whether `drain` can run this stream in the caller's task."""
        return self._direct is not None and not self._entered

    def drain(self, send: Send, *, started: Callable[[], None] | None = None) -> Awaitable[None]:
        """Run the whole run in the caller's task, handing each event to `send`, instead of entering the block.

        Same events, same failures to start; no task, no channel. For consumers that take every event
        at once and never leave early (`RunResultStreaming.collect`). The start checks run on the call;
        the run itself is what it returns, to await at once (no coroutine frame of its own stays alive
        for the whole run).

        Args:
            send: receives every event, the terminal one included.
            started: called once the run has passed its start checks, before its first event.

        Raises:
            RuntimeError: the stream cannot be drained directly (see `can_drain`).
        """
        if self._direct is None or self._entered:
            raise RuntimeError("this run stream cannot be drained directly (no direct form, or already used)")
        self._entered = True
        if self._check is not None:
            self._check()
        if started is not None:
            started()
        return self._direct(send)

    async def __aenter__(self) -> RunEvents:
        if self._entered:
            raise RuntimeError("a run stream runs once: call agent.run(...) again for another run")
        self._entered = True
        if self._check is not None:
            self._check()
        # Not `open_memory_channel[AgentEvent](...)`: subscripting at run time costs a typing lookup per run.
        send_channel: trio.MemorySendChannel[AgentEvent]
        receive_channel: trio.MemoryReceiveChannel[AgentEvent]
        send_channel, receive_channel = trio.open_memory_channel(self._buffer)
        self._send, self._receive = send_channel, receive_channel
        manager = self._manager = trio.open_nursery()
        nursery = self._nursery = await manager.__aenter__()
        if not self._wait:
            # Deliberate (`wait_started=False`): a producer that reports its start at once (the model
            # loop) need not be waited for; its failures after that are events.
            nursery.start_soon(self._produce, send_channel)  # noqa: ASYNC113
            return RunEvents(receive_channel)
        try:
            await nursery.start(self._produce, send_channel)
        except BaseException as exc:
            # The nursery must be exited to wait for the producer, which is cancelled: this cannot block.
            await self.__aexit__(type(exc), exc, exc.__traceback__)  # noqa: ASYNC102
            raise
        return RunEvents(receive_channel)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        self._nursery.cancel_scope.cancel()
        self._send.close()
        self._receive.close()
        try:
            return bool(await self._manager.__aexit__(exc_type, exc, tb))  # noqa: ASYNC102 - as in __aenter__
        except BaseExceptionGroup as group:
            if exc is not None and group.exceptions == (exc,):
                # Only the block's own exception (the producer is cancelled, never failing): let that
                # very exception go on, as if there were no nursery, instead of a group around it.
                return False  # noqa: ASYNC910 - the nursery's exit above was the checkpoint
            raise


class RunEvents:
    """The consumer's end of a run stream: an async iterator of the run's events.

    Taking an event that is already buffered does not yield to the scheduler (only waiting for
    one does), so draining a burst of events costs no task switches.
    """

    __slots__ = ("_channel",)

    def __init__(self, channel: trio.MemoryReceiveChannel[AgentEvent]) -> None:
        self._channel = channel

    def __aiter__(self) -> RunEvents:
        return self

    async def __anext__(self) -> AgentEvent:
        try:
            return self._channel.receive_nowait()  # noqa: ASYNC910 - by design, see the class docstring
        except trio.WouldBlock:
            pass
        except trio.EndOfChannel:
            raise StopAsyncIteration from None
        try:
            return await self._channel.receive()
        except trio.EndOfChannel:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Stop receiving: the run's next send fails and it stops (the block's end does this anyway)."""
        await self._channel.aclose()


def sender(channel: trio.MemorySendChannel[AgentEvent]) -> Send:
    """A `Send` over `channel` that only yields to the scheduler when the channel is full (backpressure)."""
    send_nowait = channel.send_nowait
    send = channel.send

    async def emit(event: AgentEvent) -> None:  # noqa: ASYNC910 - by design: no task switch per event
        try:
            send_nowait(event)
        except trio.WouldBlock:
            await send(event)

    return emit


async def emit_run(send: Send, ctx: RunContext[Any], agent_name: str, body: RunBody) -> None:
    """Send `RunStarted(agent_name)`, run `body`, then send exactly one terminal event, last.

    The body runs in a cancel scope attached to ``ctx.cancel_token``: ``ctx.cancel()`` from any
    task stops it and the run ends with `RunFailed(Cancelled(reason))`. An exception out of the
    body ends the run with `RunFailed(OtherError("internal error: ..."))`, never an exception out of
    the stream. When the consumer has gone (sending raises trio's `BrokenResourceError` or
    `ClosedResourceError`), nothing more is sent. With a tracer on ``ctx``, the run (up to its
    terminal event) is one agent-run span.
    """
    tracer = ctx.tracer
    if tracer is None:
        terminal = await _run_body(send, ctx, agent_name, body)
    else:
        terminal = await trace_agent_run(tracer, agent_name, partial(_run_body, send, ctx, agent_name, body))
    try:
        await send(terminal)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return  # noqa: ASYNC910 - the consumer has gone; the run's own sends were its checkpoints


async def _run_body(send: Send, ctx: RunContext[Any], agent_name: str, body: RunBody) -> TerminalEvent:
    """`emit_run` up to its terminal event, which it returns instead of sending."""
    try:
        await send(RunStarted(agent_name, ctx.run_id))
        terminal: TerminalEvent | None = None
        if not ctx.cancel_token.cancelled:
            with trio.CancelScope() as scope, ctx.cancel_token.attach(scope):
                terminal = await body(send)
        else:  # a context cancelled by an earlier run (or before this one) stays cancelled
            terminal = RunFailed(Cancelled(cancelled_before_start(ctx.cancel_token.reason or "run cancelled")))
        if terminal is None:
            terminal = RunFailed(Cancelled(ctx.cancel_token.reason or "run cancelled"))
    except Exception as exc:
        # A BrokenResourceError here is the consumer gone only if sending the terminal fails too:
        # a model, tool or child stream on a trio connection can raise it for its own reasons.
        terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
    return terminal  # noqa: ASYNC910 - `emit_run` sends it next, as it always did


async def forward_run(
    run: RunStream, send: Send, *, started: Callable[[], None] | None = None, send_cannot_fail: bool = False
) -> None:
    """Hand every event of `run` to `send`, up to its terminal event: the one place that picks how a run executes.

    A stream with a direct form (an `LlmAgent`'s, a `Runner`'s: see `open_run_stream`) runs in the
    caller's task, with no task and no channel — on the S2 benchmark that is about a fifth less time
    per run, which is why there are two ways; any other stream runs in its own nursery and channel.
    `send` cannot tell them apart: the same events in the same order, the same failure to start
    (raised before `started` is called), and an exception out of `send` stops the run and propagates
    unchanged.

    Args:
        run: the run stream, not yet entered.
        send: receives each event, the terminal one last.
        started: called once the run has started (passed its start checks), before its first event.
        send_cannot_fail: `send` never raises (it only keeps the event): a run drained in the caller's
            task then needs no guard around it (`_Guarded`), which saves a cancel scope per run and a
            call per event.
    """
    if isinstance(run, RunStreamManager) and run.can_drain:
        if send_cannot_fail:
            await run.drain(send, started=started)
            return
        with trio.CancelScope() as scope:
            guarded = _Guarded(send, scope)
            await run.drain(guarded, started=started)
        if guarded.failure is not None:
            raise guarded.failure
        return
    async with run as events:
        if started is not None:
            started()
        async for event in events:
            await send(event)
            if type(event) is RunCompleted or type(event) is RunFailed or type(event) is RunPaused:
                return


class _Guarded:
    """A `Send` for a run drained in the caller's task: an exception out of the real `send` stops the run and is kept.

    Inside the run it would become the run's own failure (`emit_run` turns exceptions into
    `RunFailed`); kept aside and raised once the run has unwound, it reaches the caller as it would
    from a run in its own nursery.
    """

    __slots__ = ("_send", "failure", "scope")

    def __init__(self, send: Send, scope: trio.CancelScope) -> None:
        self._send = send
        self.failure: Exception | None = None
        self.scope = scope

    async def __call__(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per event, as `sender`
        if self.failure is not None:
            return  # noqa: ASYNC910
        try:
            await self._send(event)
        except Exception as exc:
            self.failure = exc
            self.scope.cancel()
