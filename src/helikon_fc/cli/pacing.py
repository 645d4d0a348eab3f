"""`PacedModel`: a model wrapper that spaces out streamed text, so a simulated answer reads like a live one."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from ..core import ModelEvent, ModelReasoningDelta, ModelRequest, ModelTextDelta
from ..models.protocol import Model


class _Paced:
    """An async iterator over `events` that sleeps `delay` seconds before each text or reasoning delta."""

    __slots__ = ("_delay", "_events")

    def __init__(self, events: AsyncIterator[ModelEvent], delay: float) -> None:
        self._events = events
        self._delay = delay

    def __aiter__(self) -> _Paced:
        return self

    async def __anext__(self) -> ModelEvent:
        event = await self._events.__anext__()
        if isinstance(event, ModelTextDelta | ModelReasoningDelta):
            await trio.sleep(self._delay)
        return event


class PacedModel:
    """Wraps a `Model`; each streamed text or reasoning fragment arrives `delay` seconds after the previous event.

    Under trio's `MockClock` the pauses cost no real time.
    """

    __slots__ = ("_delay", "_inner")

    def __init__(self, inner: Model, delay: float = 0.04) -> None:
        self._inner = inner
        self._delay = delay

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self._inner.name

    @asynccontextmanager
    async def stream(self, request: ModelRequest) -> AsyncIterator[AsyncIterator[ModelEvent]]:
        """The wrapped model's stream, paced."""
        async with self._inner.stream(request) as events:
            yield _Paced(events, self._delay)
