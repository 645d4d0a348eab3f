"""How a scripted turn becomes a model stream: the rendering into events, the stream object, the request log."""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import assert_never

import trio

from ..core import (
    FinishReason,
    ModelEvent,
    ModelFailed,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
)
from ..models.protocol import ModelError
from .script import (
    Pause,
    ScriptedCall,
    ScriptedEvents,
    ScriptedFailure,
    ScriptedReply,
    ScriptedToolCalls,
    ScriptedTurn,
    Step,
)

_WORDS = re.compile(r"\s*\S+|\s+")


@functools.lru_cache(maxsize=256)
def split_words(text: str) -> tuple[str, ...]:
    """`text` cut before each word, whitespace kept with the word after it; the parts join back to `text`."""
    return tuple(_WORDS.findall(text))


def call_deltas(scripted: ScriptedCall, call_id: str) -> tuple[ModelToolCallDelta, ...]:
    """One call as a provider streams it: the name with the first half of the arguments, then the rest."""
    middle = len(scripted.arguments) // 2
    if middle == 0:
        return (ModelToolCallDelta(call_id, scripted.name, scripted.arguments),)
    return (
        ModelToolCallDelta(call_id, scripted.name, scripted.arguments[:middle]),
        ModelToolCallDelta(call_id, None, scripted.arguments[middle:]),
    )


def render(turn: ScriptedReply | ScriptedToolCalls, turn_index: int) -> tuple[ModelEvent, ...]:
    """The events of a well-formed turn: reasoning, text, tool calls, usage, finish."""
    events: list[ModelEvent] = [ModelReasoningDelta(part) for part in split_words(turn.reasoning or "")]
    match turn:
        case ScriptedReply(text=text):
            events.extend(ModelTextDelta(part) for part in split_words(text))
            finish = FinishReason.STOP
        case ScriptedToolCalls(calls=calls, text=text):
            events.extend(ModelTextDelta(part) for part in split_words(text or ""))
            for index, scripted in enumerate(calls):
                events.extend(call_deltas(scripted, scripted.call_id or f"call_{turn_index}_{index}"))
            finish = FinishReason.TOOL_CALLS
        case _:
            assert_never(turn)
    events.append(ModelUsage(turn.usage))
    events.append(ModelFinish(finish))
    return tuple(events)


def model_error(failure: ModelFailed) -> ModelError:
    """A fresh `ModelError` carrying `failure`."""
    return ModelError(failure.kind, failure.message, retry_after=failure.retry_after)


async def _wait(seconds: float) -> None:
    if seconds > 0:
        await trio.sleep(seconds)
    else:
        await trio.lowlevel.checkpoint()


DEFAULT_KEEP_REQUESTS = 100
"""How many of its latest requests a fake model keeps by default (each holds its whole conversation)."""


class RequestLog:
    """How many requests a fake model received in one trio run (so the index of the next turn), and the latest ones.

    Only the last `keep` requests are kept (all when `keep` is `None`), so a long-lived trio run
    that uses a fake model for thousands of runs does not hold every conversation it ever saw.
    """

    __slots__ = ("count", "requests")

    def __init__(self, keep: int | None = DEFAULT_KEEP_REQUESTS) -> None:
        self.count = 0
        self.requests: deque[ModelRequest] = deque(maxlen=keep)

    def record(self, request: ModelRequest, at_least: int = 0) -> int:
        """Log `request`; returns its turn index: the next one (0 for the first), or `at_least` if that is further
        on (the turns before it are then taken as served)."""
        self.requests.append(request)
        index = max(self.count, at_least)
        self.count = index + 1
        return index


def keep_requests_checked(owner: str, keep: int | None) -> int | None:
    """`keep` if it is a valid ``keep_requests`` argument (an int of at least 0, or `None`).

    Raises:
        TypeError: `keep` is not an int or `None`.
        ValueError: `keep` is negative.
    """
    if keep is not None and (not isinstance(keep, int) or isinstance(keep, bool)):
        raise TypeError(f"{owner}: keep_requests must be an int or None, got {keep!r}")
    if keep is not None and keep < 0:
        raise ValueError(f"{owner}: keep_requests must be at least 0 (or None to keep all), got {keep}")
    return keep


class PerRunLog:
    """A `RequestLog` per trio run (so every `trio.run` starts a script from the top); remembers the latest."""

    __slots__ = ("_keep", "_latest", "_var")

    def __init__(self, label: str, keep: int | None = DEFAULT_KEEP_REQUESTS) -> None:
        self._var: trio.lowlevel.RunVar[RequestLog] = trio.lowlevel.RunVar(label)
        self._keep = keep
        self._latest = RequestLog(keep)

    def current(self) -> RequestLog:
        """The log of the running trio run (created on first use)."""
        try:
            return self._var.get()
        except LookupError:
            log = RequestLog(self._keep)
            self._var.set(log)
            self._latest = log
            return log

    @property
    def latest(self) -> RequestLog:
        """The log of the latest trio run that used the model."""
        return self._latest


class _Events:
    """The iterator of a scripted stream: plays its steps, then raises its failure if it has one.

    Each step is a cancellation point (a cancelled stream ends there, with no finish); only
    pauses yield to the scheduler, so streaming costs about a microsecond per event and the
    consumer's own awaits interleave concurrent runs.
    """

    __slots__ = ("_closed", "_failure", "_position", "_steps")

    def __init__(self, steps: tuple[Step, ...], failure: ModelFailed | None) -> None:
        self._steps = steps
        self._failure = failure
        self._position = 0
        self._closed = False

    def __aiter__(self) -> _Events:
        return self

    async def __anext__(self) -> ModelEvent:
        while True:
            await trio.lowlevel.checkpoint_if_cancelled()
            if self._closed:
                raise StopAsyncIteration
            if self._position >= len(self._steps):
                self._closed = True
                if self._failure is not None:
                    raise model_error(self._failure)
                raise StopAsyncIteration
            step = self._steps[self._position]
            self._position += 1
            match step:
                case Pause(seconds=seconds):
                    await _wait(seconds)
                case _:
                    return step

    def close(self) -> None:
        self._closed = True


class _Rendered:
    """The iterator of a well-formed turn's events (no pauses, no failure): each event a cancellation point."""

    __slots__ = ("_events",)

    def __init__(self, events: tuple[ModelEvent, ...]) -> None:
        self._events = iter(events)

    def __aiter__(self) -> _Rendered:
        return self

    async def __anext__(self) -> ModelEvent:
        await trio.lowlevel.checkpoint_if_cancelled()
        for event in self._events:
            return event
        raise StopAsyncIteration

    def close(self) -> None:
        self._events = iter(())


class TurnStream:
    """The async context manager a fake model's `stream` returns.

    Entering it takes the model's next turn (synchronously, so concurrent callers take turns in
    the order they entered), waits the turn's latency, and either raises the turn's failure or
    returns the event iterator. Leaving it ends the iterator.
    """

    __slots__ = ("_events", "_open_turn")

    def __init__(self, open_turn: Callable[[], Awaitable[tuple[int, ScriptedTurn]]]) -> None:
        self._open_turn = open_turn
        self._events: _Events | _Rendered | None = None

    async def __aenter__(self) -> AsyncIterator[ModelEvent]:
        turn_index, turn = await self._open_turn()
        events: _Events | _Rendered
        match turn:
            case ScriptedFailure(failure=failure, latency=latency):
                await _wait(latency)
                raise model_error(failure)
            case ScriptedEvents(steps=steps, failure=failure, latency=latency):
                events = _Events(steps, failure)
            case ScriptedReply() | ScriptedToolCalls():
                latency = turn.latency
                events = _Rendered(render(turn, turn_index))
            case _:
                assert_never(turn)
        await _wait(latency)  # a zero latency still yields, as entering a real provider's stream does
        self._events = events
        return events

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._events is not None:
            self._events.close()
