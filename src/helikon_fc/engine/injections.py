"""The injections of `OnRunStart` / `OnTurnStart` hooks, as the next model request carries them.

A pure function and the small holder of a run's pending injections, kept by `engine.Controls` for
every runtime (the Temporal workflow's sandbox imports this module: it needs nothing but the core).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..core import ModelRequest, SystemMessage

__all__ = ["PendingInjections", "with_injections"]


def with_injections(request: ModelRequest, injections: Sequence[str]) -> ModelRequest:
    """`request` with `injections` appended as system messages, at the end of its items; `request` itself if
    there are none. They are never in the conversation, the session or the log: only this request has them."""
    if not injections:
        return request
    extra = tuple(SystemMessage(text) for text in injections)
    return attrs.evolve(request, items=request.items.extend(extra))


class PendingInjections:
    """The injections a run's hooks gave that its next model request has not carried yet."""

    __slots__ = ("_texts",)

    def __init__(self) -> None:
        self._texts: list[str] = []

    def add(self, texts: Sequence[str]) -> None:
        """Keep `texts` for the next model request, after those already waiting."""
        self._texts.extend(texts)

    def onto(self, request: ModelRequest) -> ModelRequest:
        """`request` with the waiting injections appended (`with_injections`); they are used up."""
        if not self._texts:
            return request
        request = with_injections(request, self._texts)
        self._texts.clear()
        return request
