"""`FallbackModel`: ask the next model of a chain when one fails before it has streamed anything.

A model call moves on to the next model only while nothing of it has gone out: when entering the
stream fails, or when its *first* item is a failure, of one of the listed kinds (by default the
transient ones: ``RATE_LIMITED``, ``UNAVAILABLE``, ``TRANSPORT`` — timeouts are transport failures).
Once one event of an answer has been delivered, the answer belongs to that model: a later failure is
raised as it came, and a stream is never stitched together from two models.

When every model failed, the call fails with the last failure's kind and a message that names each
model and what it said. Which model answered is on the stream: every `ModelUsage` of an answer that
came from a model other than the first carries that model's name in `ModelUsage.model` (and an
answer of a fallback that reports no usage gets one, with the request counted as unreported), so a
run's usage can be priced by the model that really answered. ``on_fallback`` is told of each move.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable

import attrs

from ..core import ModelEvent, ModelFailureKind, ModelFinish, ModelRequest, ModelUsage, Usage
from .protocol import Model, ModelError, ModelStream
from .retry import RETRYABLE


@attrs.frozen
class FallbackAttempt:
    """A model of the chain failed before streamed anything, and `next_model` is asked instead."""

    model: str
    """The name of the model that failed."""
    error: ModelError
    """How it failed."""
    next_model: str
    """The name of the model asked next."""


@attrs.frozen(kw_only=True)
class _Empty:
    """The first item of a stream that had none."""


_EMPTY = _Empty()


def _kinds(value: Iterable[ModelFailureKind | str]) -> frozenset[ModelFailureKind]:
    """`fallback_on` as failure kinds: each a `ModelFailureKind` or its exact value string."""
    if isinstance(value, str | ModelFailureKind):
        value = (value,)
    kinds: set[ModelFailureKind] = set()
    for kind in value:
        try:
            kinds.add(ModelFailureKind(kind))
        except ValueError:
            allowed = ", ".join(repr(member.value) for member in ModelFailureKind)
            raise ValueError(
                f"fallback_on: got {kind!r}; allowed are the ModelFailureKind members ({allowed})"
            ) from None
    return frozenset(kinds)


class FallbackModel:
    """A chain of models: `primary` first, then each of `others` in turn when one fails before answering.

    Args:
        primary: the model asked first; the chain is named after it.
        *others: the models asked next, in order (at least one).
        fallback_on: the failure kinds that move on to the next model (default: rate limited,
            unavailable, transport). Any other failure is raised at once.
        on_fallback: called with a `FallbackAttempt` each time the chain moves on (for logging or metrics).

    Example:
        ``model = FallbackModel(AnthropicModel("claude-sonnet-4-5"), OpenAIModel.chat("gpt-5-mini"))``

    Raises:
        TypeError: a member of the chain is not a `Model`, or the chain has no fallback.
    """

    __slots__ = ("_fallback_on", "_models", "_on_fallback")

    def __init__(
        self,
        primary: Model,
        *others: Model,
        fallback_on: Iterable[ModelFailureKind | str] = RETRYABLE,
        on_fallback: Callable[[FallbackAttempt], None] | None = None,
    ) -> None:
        if not others:
            raise TypeError("FallbackModel: got only a primary model; give at least one model to fall back to")
        for index, model in enumerate((primary, *others)):
            if not isinstance(model, Model):
                where = "primary" if index == 0 else f"fallback {index}"
                raise TypeError(f"FallbackModel: {where} must be a Model (with name and stream), got {model!r}")
        self._models: tuple[Model, ...] = (primary, *others)
        self._fallback_on = _kinds(fallback_on)
        self._on_fallback = on_fallback

    @property
    def name(self) -> str:
        """The primary model's name."""
        return self._models[0].name

    @property
    def models(self) -> tuple[Model, ...]:
        """The chain, primary first."""
        return self._models

    @property
    def fallback_on(self) -> frozenset[ModelFailureKind]:
        """The failure kinds that move on to the next model."""
        return self._fallback_on

    def __repr__(self) -> str:
        inner = ", ".join(repr(model) for model in self._models)
        return f"FallbackModel({inner})"

    def stream(self, request: ModelRequest) -> ModelStream:
        """Stream `request` from the first model of the chain that starts answering.

        Raises:
            ModelError: a failure not in `fallback_on`; a failure after the first event, as the model raised it;
                or, when every model failed, the last failure's kind with every model's message.
        """
        return self._stream(request)

    @contextlib.asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncGenerator[AsyncIterator[ModelEvent], None]:
        failures: list[tuple[str, ModelError]] = []
        for index, model in enumerate(self._models):
            async with contextlib.AsyncExitStack() as stack:
                try:
                    events = await stack.enter_async_context(model.stream(request))
                    first = await anext(aiter(events), _EMPTY)
                except ModelError as error:
                    failure = error
                else:
                    answer = _answer(first, events, model.name if index > 0 else None)
                    async with contextlib.aclosing(answer):
                        yield answer
                    return
            failures.append((model.name, failure))
            if failure.kind not in self._fallback_on:
                raise failure
            if index + 1 < len(self._models) and self._on_fallback is not None:
                self._on_fallback(FallbackAttempt(model.name, failure, self._models[index + 1].name))
        raise _all_failed(failures)


def _all_failed(failures: list[tuple[str, ModelError]]) -> ModelError:
    """The failure of a chain whose every model failed: the last kind and hint, every model's message."""
    last = failures[-1][1]
    told = "; ".join(f"{name!r}: {error.message}" for name, error in failures)
    return ModelError(last.kind, f"every model of the fallback chain failed ({told})", retry_after=last.retry_after)


async def _answer(  # noqa: ASYNC911 - a pass-through of the model's stream, which checkpoints itself
    first: ModelEvent | _Empty, events: AsyncIterator[ModelEvent], fallback: str | None
) -> AsyncGenerator[ModelEvent, None]:
    """The first event (already read), then the rest; a fallback's usage is marked with its name."""
    if isinstance(first, _Empty):
        return  # noqa: ASYNC910 - the empty stream was read (awaited) by the caller already
    if fallback is None:
        yield first  # noqa: ASYNC911
        async for event in events:
            yield event  # noqa: ASYNC911
        return  # noqa: ASYNC911
    marked = False
    async for event in _chain(first, events):
        if isinstance(event, ModelUsage):
            marked = True
            yield ModelUsage(event.usage, model=fallback)  # noqa: ASYNC911 - the model's stream checkpoints
            continue
        if isinstance(event, ModelFinish) and not marked:
            yield ModelUsage(Usage(unreported_requests=1), model=fallback)  # noqa: ASYNC911
        yield event  # noqa: ASYNC911


async def _chain(first: ModelEvent, events: AsyncIterator[ModelEvent]) -> AsyncGenerator[ModelEvent, None]:  # noqa: ASYNC911 - a pass-through
    """`first`, then every event of `events`."""
    yield first  # noqa: ASYNC911
    async for event in events:
        yield event
