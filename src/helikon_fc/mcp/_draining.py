"""Over stdio, a client that closes stdin right after its requests still gets their answers.

``printf '...' | helikon mcp serve app:agent`` writes ``initialize`` and a ``tools/call`` and closes
stdin at once. The SDK's server ends on that end of input and answers every request still running
``Connection closed``. `draining` sits between the stdio streams and the server: it passes every
message through, and holds the end of input back until every request it passed has been answered
(or cancelled by the client), so the server stops only once there is nothing left to say.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import trio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

Incoming = SessionMessage | Exception


class _Pending:
    """The ids of the requests passed to the server and not yet answered."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self._changed = trio.Event()

    def add(self, request_id: Any) -> None:
        self.ids.add(request_id)

    def discard(self, request_id: Any) -> None:
        self.ids.discard(request_id)
        self._changed.set()
        self._changed = trio.Event()

    async def empty(self) -> None:
        await trio.lowlevel.checkpoint()
        while self.ids:
            await self._changed.wait()


@asynccontextmanager
async def draining(
    read: Any, write: Any
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]]:
    """The streams to give the server instead of `read` and `write` (the stdio transport's)."""
    pending = _Pending()
    inbound_send, inbound = anyio.create_memory_object_stream[Incoming](0)
    outbound, outbound_receive = anyio.create_memory_object_stream[SessionMessage](0)
    async with trio.open_nursery() as writing:
        writing.start_soon(_relay_out, outbound_receive, write, pending)
        async with trio.open_nursery() as reading:
            reading.start_soon(_relay_in, read, inbound_send, pending)
            async with outbound:
                yield inbound, outbound
            reading.cancel_scope.cancel()  # the server ended first (not on the end of input): stop reading


async def _relay_in(read: Any, send: MemoryObjectSendStream[Incoming], pending: _Pending) -> None:
    async with read, send:  # closed here as the server would close them
        try:
            async for item in read:
                if isinstance(item, SessionMessage):
                    _note_incoming(item.message, pending)
                await send.send(item)
            await pending.empty()  # the end of input: hold it back until every request is answered
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return  # the server stopped reading


def _note_incoming(message: types.JSONRPCMessage, pending: _Pending) -> None:
    if isinstance(message, types.JSONRPCRequest):
        pending.add(message.id)
    elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
        pending.discard((message.params or {}).get("requestId"))  # a cancelled request gets no answer


async def _relay_out(receive: MemoryObjectReceiveStream[SessionMessage], write: Any, pending: _Pending) -> None:
    async with receive, write:
        async for item in receive:
            await write.send(item)
            if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
                pending.discard(item.message.id)
