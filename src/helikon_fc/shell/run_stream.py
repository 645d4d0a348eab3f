"""Run streams: a run living in a nursery, observed through a bounded memory channel.

`open_run_stream(produce)` is the one way a run is exposed. It opens a nursery, starts
``produce(send_channel, task_status=...)`` in it with `nursery.start`, and yields the receive end
of a bounded memory channel. So:

- the run lives inside the ``async with`` block and nowhere else; leaving the block (drained or
  not, normally or by an exception) cancels whatever is still running and leaves no task behind;
- the channel is bounded, so a slow consumer slows the run (a full channel blocks the producer's
  ``send``) and no event is ever dropped;
- whatever ``produce`` raises *before* it calls ``task_status.started()`` is a failure to start and
  is raised from ``__aenter__``, unwrapped; after that, failures are events.

`emit_run` is the producer-side half every agent shares: it sends `RunStarted`, runs the body in a
cancel scope attached to the context's cancel token, and sends exactly one terminal event, last —
the body's, `RunFailed(Cancelled)` when the run was cancelled from outside, or
`RunFailed(OtherError("internal error: ..."))` when the body raised.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeAlias

import trio

from ..core import AgentEvent, Cancelled, OtherError, RunFailed, RunStarted, TerminalEvent
from .context import RunContext

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


@asynccontextmanager
async def open_run_stream(
    produce: Producer, *, buffer: int = STREAM_BUFFER
) -> AsyncIterator[AsyncIterator[AgentEvent]]:
    """Run `produce` in a nursery for the duration of the block; yield the events it sends.

    Args:
        produce: the producer; it owns (and must close) the send channel it is given, and calls
            ``task_status.started()`` once the run has started.
        buffer: how many events the producer may send before the consumer takes one.

    Raises:
        Exception: whatever `produce` raised before it called ``task_status.started()``.
    """
    send_channel, receive_channel = trio.open_memory_channel[AgentEvent](buffer)
    try:
        async with trio.open_nursery() as nursery:
            try:
                await nursery.start(produce, send_channel)
                yield receive_channel
            finally:
                nursery.cancel_scope.cancel()
                send_channel.close()
                receive_channel.close()
    except BaseExceptionGroup as group:
        raise _only(group) from None


def _only(group: BaseExceptionGroup[Any]) -> BaseException:
    """The single exception the run's nursery wrapped, so callers see what was raised; else the group."""
    if len(group.exceptions) == 1:
        return group.exceptions[0]
    return group


async def emit_run(send: Send, ctx: RunContext[Any], agent_name: str, body: RunBody) -> None:
    """Send `RunStarted(agent_name)`, run `body`, then send exactly one terminal event, last.

    The body runs in a cancel scope attached to ``ctx.cancel_token``: ``ctx.cancel()`` from any
    task stops it and the run ends with `RunFailed(Cancelled(reason))`. An exception out of the
    body ends the run with `RunFailed(OtherError("internal error: ..."))`, never an exception out of
    the stream. When the consumer has gone (the channel is closed), nothing more is sent.
    """
    try:
        await send(RunStarted(agent_name))
        terminal: TerminalEvent | None = None
        with trio.CancelScope() as scope, ctx.cancel_token.attach(scope):
            terminal = await body(send)
        if terminal is None:
            terminal = RunFailed(Cancelled(ctx.cancel_token.reason or "run cancelled"))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return
    except Exception as exc:
        terminal = RunFailed(OtherError(f"internal error: {type(exc).__name__}: {exc}"))
    try:
        await send(terminal)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return
