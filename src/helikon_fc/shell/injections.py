"""The injections of `OnRunStart` / `OnTurnStart` hooks, as the next model request carries them.

One pure function, shared by the trio shell's `LoopControls` and the Temporal workflow's (whose sandbox
imports this module: it needs nothing but the core).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..core import ModelRequest, SystemMessage

__all__ = ["with_injections"]


def with_injections(request: ModelRequest, injections: Sequence[str]) -> ModelRequest:
    """`request` with `injections` appended as system messages, at the end of its items; `request` itself if
    there are none. They are never in the conversation, the session or the log: only this request has them."""
    if not injections:
        return request
    extra = tuple(SystemMessage(text) for text in injections)
    return attrs.evolve(request, items=request.items.extend(extra))
