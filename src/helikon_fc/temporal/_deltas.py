"""Live deltas of a model call on Temporal: collected in the activity, sent to the workflow in batches.

A model call is one activity, so its deltas would otherwise reach the run only with the whole
response. Instead the activity collects them as the model streams (on the trio thread) and, every
``ActivityPolicy.delta_interval`` seconds, its thread signals the run's workflow with what came
since the last batch (``helikon.deltas``); what is left at the end rides back with the response.
The workflow appends them to the run's events as they arrive, so `RunHandle.events()` shows them
while the call runs.

Each signal is an event in the run's history, so the batches are bounded twice: at most one per
interval (a call of `t` seconds adds at most ``t / interval`` signals; a call shorter than the
interval adds none), and adjacent fragments are joined (a batch holds one `TokenDelta` per run of
text, not one per token), so what the deltas add to a history is about the size of the answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..core import AgentEvent, ReasoningDelta, TokenDelta, ToolCallDelta, to_json


def joined(events: list[AgentEvent]) -> list[AgentEvent]:
    """`events` with adjacent fragments of the same kind joined (a tool call's only while its name is not repeated)."""
    out: list[AgentEvent] = []
    for event in events:
        last = out[-1] if out else None
        if isinstance(event, TokenDelta) and isinstance(last, TokenDelta):
            out[-1] = TokenDelta(last.text + event.text)
        elif isinstance(event, ReasoningDelta) and isinstance(last, ReasoningDelta):
            out[-1] = ReasoningDelta(last.text + event.text)
        elif (
            isinstance(event, ToolCallDelta)
            and isinstance(last, ToolCallDelta)
            and event.call_id == last.call_id
            and event.name is None
        ):
            out[-1] = ToolCallDelta(last.call_id, last.name, last.args_delta + event.args_delta)
        else:
            out.append(event)
    return out


class DeltaBuffer:
    """The deltas of one model call not yet sent: filled on the trio thread, drained on the activity's.

    Args:
        send: sends one batch (wire JSON texts) to the workflow; called from the activity's thread.
    """

    def __init__(self, send: Callable[[list[str]], None]) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._pending: list[AgentEvent] = []

    async def collect(self, event: AgentEvent) -> None:  # noqa: ASYNC910 - a pass-through per delta, as `sender`
        """Keep one delta (the `Send` the shell's `call_model` forwards deltas to)."""
        with self._lock:
            self._pending.append(event)

    def drain(self) -> tuple[AgentEvent, ...]:
        """What came since the last drain, joined."""
        with self._lock:
            batch, self._pending = self._pending, []
        return tuple(joined(batch))

    def flush(self) -> None:
        """Send what came since the last flush, if anything."""
        batch = self.drain()
        if batch:
            self._send([to_json(event) for event in batch])
