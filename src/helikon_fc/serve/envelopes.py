"""How a run's events become envelopes (``{"position", "at_ms", "path", "event"}``) and how a stretch ends."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..core import AgentEvent, ApprovalRequested, Cancelled, RunCompleted, RunFailed, RunPaused, to_json
from ..core.wire import TAGS
from ..pricing import Price, PriceTable
from .event_log import Envelope


def envelope(position: int, at_ms: int, path: Sequence[str], event: AgentEvent) -> Envelope:
    """The envelope of `event` at `position`; its SSE ``event:`` name is the event's wire tag."""
    wire = to_json(event)
    tag = TAGS[type(event)]
    data = f'{{"position":{position},"at_ms":{at_ms},"path":{json.dumps(list(path))},"event":{wire}}}'
    return Envelope(position, tag, data)


def status_of(terminal: AgentEvent | None) -> str:
    """The run status a stretch that ended with `terminal` leaves (``interrupted`` when none came)."""
    match terminal:
        case RunCompleted():
            return "completed"
        case RunPaused():
            return "paused"
        case RunFailed(error=Cancelled()):
            return "cancelled"
        case RunFailed():
            return "failed"
        case _:
            return "interrupted"


def pending_of(terminal: AgentEvent | None) -> list[dict[str, object]]:
    """The calls a paused run waits on, as ``{"call_id", "tool", "args"}`` (args decoded when they are JSON)."""
    if not isinstance(terminal, RunPaused):
        return []
    return [_waiting(request) for request in terminal.pending]


def _waiting(request: ApprovalRequested) -> dict[str, object]:
    try:
        args: object = json.loads(request.args)
    except ValueError:
        args = request.args
    return {"call_id": request.call_id, "tool": request.tool, "args": args}


class CachedPrices:
    """A price table whose look-ups are kept: a run's end asks for the same few models again and again, and
    a table such as genai-prices matches each name anew (about 0.1 ms a look-up)."""

    def __init__(self, table: PriceTable) -> None:
        self._table = table
        self._known: dict[str, Price | None] = {}

    def price(self, model: str) -> Price | None:
        if model not in self._known:
            self._known[model] = self._table.price(model)
        return self._known[model]


def cost_of(terminal: RunCompleted, prices: PriceTable) -> float | None:
    """What the run cost by `prices`, or `None` when a model that answered has no price."""
    total = 0.0
    for share in terminal.usage_by_model:
        price = prices.price(share.model) if share.model is not None else None
        if price is None:
            return None
        total += float(price.cost(share.usage))
    return total
