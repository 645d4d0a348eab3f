"""Scripted models for the tests of the model wrappers: each call plays one `Attempt` (fail, or emit then fail/hang)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

import attrs
import trio

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import Model, ModelError, ModelStream

REQUEST = ModelRequest(instructions=None, items=Conversation([UserMessage("hi")]))
HELLO = ModelTextDelta("Hello")
STOP = ModelFinish(FinishReason.STOP)


@attrs.frozen
class FailOnEnter:
    """The call itself fails: entering the stream raises."""

    error: ModelError


@attrs.frozen
class Emit:
    """The stream yields `events`, then raises `error` (if any), or waits forever first when `hang`."""

    events: tuple[ModelEvent, ...] = ()
    error: ModelError | None = None
    hang: bool = False


Attempt = FailOnEnter | Emit


@attrs.define
class FakeModel:
    """A `Model` that plays one scripted `Attempt` per call and notes when each call starts and is closed."""

    attempts: list[Attempt]
    started: list[float] = attrs.Factory(list)
    closed: int = 0

    name: str = "fake"

    def stream(self, request: ModelRequest) -> ModelStream:
        return self._stream()

    @contextlib.asynccontextmanager
    async def _stream(self) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        self.started.append(trio.current_time())
        attempt = self.attempts[len(self.started) - 1]
        try:
            await trio.lowlevel.checkpoint()
            match attempt:
                case FailOnEnter(error=error):
                    raise error
                case Emit():
                    events = self._events(attempt)
                    async with contextlib.aclosing(events):
                        yield events
        finally:
            self.closed += 1

    async def _events(self, attempt: Emit) -> AsyncGenerator[ModelEvent, None]:
        for event in attempt.events:
            await trio.lowlevel.checkpoint()
            yield event
        if attempt.hang:
            await trio.sleep_forever()
        if attempt.error is not None:
            raise attempt.error


def err(kind: ModelFailureKind, retry_after: float | None = None) -> ModelError:
    return ModelError(kind, f"fake {kind.value}", retry_after=retry_after)


async def collect(model: Model, request: ModelRequest | None = None) -> list[ModelEvent]:
    """Every event of one call of `model`."""
    async with model.stream(REQUEST if request is None else request) as events:
        return [event async for event in events]
