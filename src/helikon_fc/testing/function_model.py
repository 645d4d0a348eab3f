"""`FunctionModel`: a fake model that computes each turn from the request with your function."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from ..core import ModelRequest
from ..models.protocol import ModelStream
from ._stream import DEFAULT_KEEP_REQUESTS, PerRunLog, TurnStream, keep_requests_checked
from .script import ScriptedTurn

TurnFunction: TypeAlias = Callable[[ModelRequest], ScriptedTurn | Awaitable[ScriptedTurn]]
"""What `FunctionModel` calls: a sync or async function from the request to a turn."""


class FunctionModel:
    """A `Model` that answers each request with the turn `fn(request)` returns; `fn` may be sync or async.

    The returned turn streams exactly as in `ScriptedModel` (tool-call ids default to
    ``call_<turn>_<index>``, where `turn` counts this model's requests in the trio run from 0).
    An exception `fn` raises propagates from entering the stream, as a provider's would; raise
    `ModelError` to simulate a typed failure (or return `fail(...)`).

    Example:
        ``FunctionModel(lambda request: reply(f"you said {len(request.items)} things"))``
    """

    __slots__ = ("_fn", "_log", "_name")

    def __init__(
        self, fn: TurnFunction, *, name: str = "function", keep_requests: int | None = DEFAULT_KEEP_REQUESTS
    ) -> None:
        if not callable(fn):
            raise TypeError(f"FunctionModel needs a callable, got {fn!r}")
        self._fn = fn
        self._name = name
        self._log = PerRunLog(
            f"helikon_fc.testing.FunctionModel:{name}", keep_requests_checked(f"FunctionModel {name!r}", keep_requests)
        )

    @property
    def name(self) -> str:
        """The model's name, as given (default ``"function"``)."""
        return self._name

    @property
    def requests(self) -> tuple[ModelRequest, ...]:
        """The latest requests of the latest trio run that used the model, in order (see ``keep_requests``)."""
        return tuple(self._log.latest.requests)

    def stream(self, request: ModelRequest) -> ModelStream:
        """Answer `request` with the turn `fn(request)` returns; see the `Model` protocol."""

        async def open_turn() -> tuple[int, ScriptedTurn]:
            turn_index = self._log.current().record(request)
            answer = self._fn(request)
            turn = await answer if inspect.isawaitable(answer) else answer
            if not isinstance(turn, ScriptedTurn):
                raise TypeError(
                    f"FunctionModel {self._name!r}: the function returned {turn!r} for turn {turn_index};"
                    " return a turn built with reply(), call_tools(), fail(), raw() or broken()"
                )
            return turn_index, turn  # noqa: ASYNC910 - `TurnStream.__aenter__` checkpoints right after

        return TurnStream(open_turn)

    def __repr__(self) -> str:
        return f"FunctionModel({self._fn!r}, name={self._name!r})"
