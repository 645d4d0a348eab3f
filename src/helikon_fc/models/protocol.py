"""The `Model` protocol every provider implements, and the typed `ModelError` it raises."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeAlias, runtime_checkable

from ..core import ModelEvent, ModelFailed, ModelFailureKind, ModelRequest

ModelStream: TypeAlias = AbstractAsyncContextManager[AsyncIterator[ModelEvent]]
"""What `Model.stream` returns: ``async with model.stream(request) as events: async for event in events: ...``."""


class ModelError(Exception):
    """A model call failed. `kind` says how, in provider-neutral terms; `retry_after` is the provider's hint (seconds).

    Providers raise it from `Model.stream` (before the first event) or while iterating (mid-stream).
    The driver turns it into `RunFailed(ModelFailed(...))`.
    """

    def __init__(self, kind: ModelFailureKind, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after

    def to_agent_error(self) -> ModelFailed:
        """The `AgentError` a run fails with."""
        return ModelFailed(self.kind, self.message, self.retry_after)

    def __repr__(self) -> str:
        return f"ModelError({self.kind!r}, {self.message!r}, retry_after={self.retry_after!r})"


@runtime_checkable
class Model(Protocol):
    """A language model the agent loop can call.

    ``stream(request)`` returns an async context manager whose value is an async iterator of
    `ModelEvent`s: the streamed answer to `request`. Leaving the ``async with`` block closes the
    underlying connection at once, whether or not the stream was drained.

    The stream rules every implementation obeys (the conformance suite in
    ``tests/conformance`` checks them, in this order of precedence):

    1. `ModelFinish` is terminal: at most one, and nothing (no usage, no error, no delta) follows it.
    2. `ModelFinish` is emitted at the end of the stream if and only if the provider reported a stop
       reason, even when the body ended without the protocol's terminator. It is never emitted when
       the stream was truncated before a stop reason, after cancellation, or after a mid-stream error.
    3. On cancellation the stream ends (the iterator stops or the cancellation propagates) without
       a `ModelFinish`, and the connection is closed.
    4. `ModelUsage` may come anywhere before `ModelFinish`; each is a cumulative snapshot for the
       turn (the last one wins). When the provider reports usage after its stop reason (OpenAI's
       trailing usage chunk), the finish is held back until the usage has been emitted.
    5. `ModelToolCallDelta.name` is non-null exactly once per ``call_id``: on the first delta where
       the whole name is known. A name that arrives in fragments is buffered and reported whole.
    6. Failures raise `ModelError`; before the first event for failures of the call itself
       (HTTP status, connection), while iterating for failures mid-stream.
    7. Unknown stop reasons become ``FinishReason.OTHER`` with the provider's word in ``raw``.
    """

    @property
    def name(self) -> str:
        """The model's name, for messages and traces (e.g. ``"gpt-5-mini"``, ``"scripted"``)."""
        ...

    def stream(self, request: ModelRequest) -> ModelStream:
        """Ask the model; see the class docstring for the stream rules."""
        ...
