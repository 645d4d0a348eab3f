"""A run's events as server-sent events: the log up to where the live feed starts, then the feed, then `end`.

The stream is written as SSE text by `EventStream` itself (a pure ASGI response), in chunks: every envelope
ready when the client can take more goes out in one write. Under load a client that fell behind catches up
in a few writes instead of one write (and one scheduling round) per event.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing

import attrs
import trio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .event_log import Envelope
from .hub import RunHub

REPLAY_BATCH = 500
"""How many logged envelopes a stream reads from the log at a time."""
PING_SECONDS = 15.0
"""After this long with nothing to send, a stream sends a comment, so proxies keep it open."""
PING = b": ping\n\n"


def sse(envelopes: Sequence[Envelope]) -> bytes:
    """`envelopes` as SSE messages: ``id:`` the position, ``event:`` the wire tag, ``data:`` the envelope."""
    return "".join(f"id: {e.position}\nevent: {e.tag}\ndata: {e.data}\n\n" for e in envelopes).encode()


def sse_end(status: str) -> bytes:
    """The last message of a stream: ``event: end`` with the run's status (no ``id:``, so Last-Event-ID stays)."""
    return f"event: end\ndata: {json.dumps({'status': status})}\n\n".encode()


@attrs.frozen
class Chunk:
    """What `follow` gives at a time: envelopes in order; `end` (the run's status) on the last chunk; a chunk
    with neither says the run was idle for `PING_SECONDS`."""

    envelopes: Sequence[Envelope] = ()
    end: str | None = None


async def follow(hub: RunHub, run_id: str, after: int) -> AsyncGenerator[Chunk, None]:  # noqa: ASYNC911
    """Every envelope of `run_id` after position `after` (the log's, then the live ones) until the run ends,
    pauses or is interrupted; then its status. The caller has checked that the run exists. (ASYNC911: the
    consumer, `EventStream`, sends each chunk it is given, and a send is a checkpoint.)"""
    while True:
        active = hub.active.get(run_id)
        feed = active.feed if active is not None else None
        upto = feed.base if feed is not None else None
        while upto is None or after < upto:
            batch = await hub.log.read(run_id, after, REPLAY_BATCH)
            wanted = [logged for logged in batch if upto is None or logged.position <= upto]
            if wanted:
                yield Chunk(wanted)
                after = wanted[-1].position
            if len(batch) < REPLAY_BATCH:
                break
        if feed is not None:
            break
        status = (await hub.status(run_id)).status
        if run_id not in hub.active and not await hub.log.read(run_id, after, 1):
            yield Chunk(end=status)
            return  # noqa: ASYNC911
        # resumed (decided) while the log was read: read on, then follow the resumed stretch
    after = max(after, feed.base)
    while True:
        ready = feed.since(after)
        if ready:
            yield Chunk(ready)  # noqa: ASYNC911
            after = ready[-1].position
        elif feed.status is not None:
            break
        else:
            with trio.move_on_after(PING_SECONDS) as idle:
                await feed.wait_beyond(after)
            if idle.cancelled_caught:
                yield Chunk()
    yield Chunk(end=feed.status)  # noqa: ASYNC911


def encode(chunk: Chunk) -> bytes:
    """A chunk as SSE text: its envelopes' messages, then ``end`` on the last; a ping comment for an idle one."""
    if chunk.end is not None:
        return sse(chunk.envelopes) + sse_end(chunk.end)
    return sse(chunk.envelopes) if chunk.envelopes else PING


class EventStream(Response):
    """A ``text/event-stream`` response writing `chunks` (from `follow`) as they come, each in one write; it
    stops when the client goes away."""

    def __init__(self, chunks: AsyncGenerator[Chunk, None]) -> None:  # (no Response.__init__: it would set a length)
        self.status_code = 200
        self.background = None
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
        ]
        self._chunks = chunks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        async with aclosing(self._chunks) as chunks, trio.open_nursery() as nursery:
            nursery.start_soon(self._watch, receive, nursery.cancel_scope)
            async for chunk in chunks:
                await send({"type": "http.response.body", "body": encode(chunk), "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            nursery.cancel_scope.cancel()

    @staticmethod
    async def _watch(receive: Receive, stream: trio.CancelScope) -> None:
        """Cancel `stream` when the client disconnects."""
        while (await receive())["type"] != "http.disconnect":
            pass
        stream.cancel()
