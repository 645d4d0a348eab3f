"""`RetryingModel`: opt-in retries around any `Model`, safe for streams.

A model call is retried only when it has not streamed anything yet: when entering the stream
fails, or when its *first* item is a failure. Once one event has been delivered, everything
after it (events and failures alike) is passed through untouched, so a consumer never sees a
turn twice. Only transient failures are retried (``RATE_LIMITED``, ``UNAVAILABLE``,
``TRANSPORT`` by default), at most ``max_attempts`` calls in all, waiting between them with
full-jitter exponential backoff::

    delay(attempt) = max(min(base_delay * multiplier ** attempt, max_delay) * U[0, 1), retry_after)

where ``attempt`` counts the failed calls from 0 and ``retry_after`` is the server's hint (a
floor, never shortened). The waits are ``trio.sleep``\\ s, so they run in virtual time under
``trio.testing.MockClock``; cancelling during a wait (or while waiting for the first event) ends
the stream at once with the cancellation, without an error or a finish.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable

import attrs
import trio

from ..core import ModelEvent, ModelFailureKind, ModelRequest
from .protocol import Model, ModelError, ModelStream

RETRYABLE: frozenset[ModelFailureKind] = frozenset(
    {ModelFailureKind.RATE_LIMITED, ModelFailureKind.UNAVAILABLE, ModelFailureKind.TRANSPORT}
)
"""The failure kinds worth another try: waiting may fix them (context length, refusal and other it will not)."""


def _non_negative(instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not value >= 0.0:
        raise ValueError(f"{attribute.name} must be >= 0 seconds, got {value!r}")


def _at_least_one(instance: object, attribute: attrs.Attribute[float] | attrs.Attribute[int], value: float) -> None:
    if not value >= 1:
        raise ValueError(f"{attribute.name} must be >= 1, got {value!r}")


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """How often and how long to retry.

    Attributes:
        max_attempts: model calls in all, the first included (1 disables retrying).
        base_delay: the backoff ceiling after the first failure, in seconds.
        multiplier: how much the ceiling grows with each further failure.
        max_delay: the most the ceiling grows to, in seconds (a ``retry_after`` hint may exceed it).
        retry_on: the failure kinds that are retried.
    """

    max_attempts: int = attrs.field(default=3, validator=_at_least_one)
    base_delay: float = attrs.field(default=0.5, validator=_non_negative)
    multiplier: float = attrs.field(default=2.0, validator=_at_least_one)
    max_delay: float = attrs.field(default=30.0, validator=_non_negative)
    retry_on: frozenset[ModelFailureKind] = RETRYABLE

    def delay(self, attempt: int, jitter: float, retry_after: float | None = None) -> float:
        """The wait after failed call number `attempt` (from 0), for a `jitter` drawn from [0, 1).

        Full jitter: a uniform fraction of the exponential ceiling, never below `retry_after`.
        """
        ceiling = min(self.base_delay * self.multiplier**attempt, self.max_delay)
        delay = ceiling * min(max(jitter, 0.0), 1.0)
        return max(delay, retry_after) if retry_after is not None and retry_after > 0 else delay


@attrs.frozen
class RetryAttempt:
    """A failed call about to be retried: which one (from 0), why, and how long the wait is (seconds)."""

    attempt: int
    error: ModelError
    delay: float


@attrs.frozen(kw_only=True)
class _Empty:
    """The first item of a stream that had none."""


_EMPTY = _Empty()


class RetryingModel:
    """Wraps a `Model`, retrying transient failures that happen before the first event (see the module docs).

    Args:
        inner: the model to call.
        policy: attempts and backoff; `RetryPolicy()` by default (3 calls, 0.5 s base, x2, 30 s cap).
        random: the jitter source, a function returning floats in [0, 1); inject one for
            reproducible waits.
        on_retry: called before each wait with the `RetryAttempt` (for logging or metrics).

    Example:
        ``model = RetryingModel(OpenAIModel.chat("gpt-5-mini"), RetryPolicy(max_attempts=5))``
    """

    __slots__ = ("_inner", "_on_retry", "_policy", "_random")

    def __init__(
        self,
        inner: Model,
        policy: RetryPolicy | None = None,
        *,
        random: Callable[[], float] = random.random,
        on_retry: Callable[[RetryAttempt], None] | None = None,
    ) -> None:
        self._inner = inner
        self._policy = policy if policy is not None else RetryPolicy()
        self._random = random
        self._on_retry = on_retry

    @property
    def name(self) -> str:
        """The wrapped model's name."""
        return self._inner.name

    @property
    def inner(self) -> Model:
        """The wrapped model."""
        return self._inner

    @property
    def policy(self) -> RetryPolicy:
        """The retry policy."""
        return self._policy

    def __repr__(self) -> str:
        return f"RetryingModel({self._inner!r}, {self._policy!r})"

    def stream(self, request: ModelRequest) -> ModelStream:
        """Stream `request` from the inner model, retrying as the policy allows before the first event.

        Raises:
            ModelError: the last failure, when it is not retryable or the attempts ran out; or a
                failure after the first event, as the inner model raised it.
        """
        return self._stream(request)

    @contextlib.asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        attempt = 0
        while True:
            async with contextlib.AsyncExitStack() as stack:
                try:
                    events = await stack.enter_async_context(self._inner.stream(request))
                    first = await anext(aiter(events), _EMPTY)
                except ModelError as error:
                    failure = error
                else:
                    forwarded = _forward(first, events)
                    async with contextlib.aclosing(forwarded):
                        yield forwarded
                    return
            if failure.kind not in self._policy.retry_on or attempt + 1 >= self._policy.max_attempts:
                raise failure
            delay = self._policy.delay(attempt, self._random(), failure.retry_after)
            if self._on_retry is not None:
                self._on_retry(RetryAttempt(attempt, failure, delay))
            await trio.sleep(delay)
            attempt += 1


async def _forward(first: ModelEvent | _Empty, events: AsyncIterator[ModelEvent]) -> AsyncGenerator[ModelEvent, None]:  # noqa: ASYNC911 - a pass-through of the model's stream, which checkpoints itself
    """The first event (already read), then the rest of the stream as it comes."""
    if isinstance(first, _Empty):
        return  # noqa: ASYNC910 - the empty stream was read (awaited) by the caller already
    yield first  # noqa: ASYNC911
    async for event in events:
        yield event
