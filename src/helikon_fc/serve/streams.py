"""A run's events as server-sent events: the log up to where the live feed starts, then the feed, then `end`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from .hub import RunHub

REPLAY_BATCH = 500
"""How many logged envelopes a stream reads from the log at a time."""

Message = dict[str, str]
"""One SSE message as sse-starlette takes it: ``id``, ``event``, ``data``."""


async def run_events(hub: RunHub, run_id: str, after: int) -> AsyncIterator[Message]:  # noqa: ASYNC911
    """Every envelope of `run_id` after position `after`, then live ones until the run ends or pauses; then
    one ``end`` message with the run's status. The caller has checked that the run exists.

    (flake8-async's ASYNC911 is answered by the consumer: sse-starlette sends each message it is given, and
    a send is a checkpoint.)"""
    active = hub.active.get(run_id)
    feed = active.feed if active is not None else None
    upto = feed.base if feed is not None else None
    while upto is None or after < upto:
        batch = await hub.log.read(run_id, after, REPLAY_BATCH)
        for logged in batch:
            if upto is not None and logged.position > upto:
                break
            yield {"id": str(logged.position), "event": logged.tag, "data": logged.data}  # noqa: ASYNC911
            after = logged.position
        if len(batch) < REPLAY_BATCH:
            break
    if feed is not None:
        after = max(after, feed.base)
        while True:
            for logged in feed.since(after):
                yield {"id": str(logged.position), "event": logged.tag, "data": logged.data}  # noqa: ASYNC911
                after = logged.position
            if feed.status is not None and after >= feed.last:
                break
            await feed.wait_beyond(after)
        status = feed.status or "running"
    else:
        status = (await hub.status(run_id)).status
    yield {"event": "end", "data": json.dumps({"status": status})}  # noqa: ASYNC911
