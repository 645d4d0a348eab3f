"""A model whose answer waits for a watcher: proof that a fragment reached the client while the call ran."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import trio

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelUsage,
    TokenDelta,
    Usage,
)
from helikon_fc.models.protocol import ModelStream
from helikon_fc.temporal import RunHandle


class GatedModel:
    """Streams ``Hel``, then waits for `gate` (set once a watcher saw that fragment) before ``lo``."""

    name = "gated"

    def __init__(self, gate: threading.Event) -> None:
        self._gate = gate

    def stream(self, request: ModelRequest) -> ModelStream:
        return self._open()

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[AsyncIterator[ModelEvent]]:
        yield self._events()

    async def _events(self) -> AsyncIterator[ModelEvent]:
        yield ModelTextDelta("Hel")
        released = await trio.to_thread.run_sync(self._gate.wait, 30.0)
        yield ModelTextDelta("lo" if released else " (nobody saw the first fragment)")
        yield ModelUsage(Usage(input_tokens=3, output_tokens=2))
        yield ModelFinish(FinishReason.STOP)


def release_on_first_delta(gate: threading.Event) -> Callable[[RunHandle], Awaitable[None]]:
    """A `during` hook: follow the run and set `gate` at the first `TokenDelta` it streams."""

    async def follow(handle: RunHandle) -> None:
        async for event in handle.events():
            if isinstance(event, TokenDelta):
                gate.set()
                return

    return follow
