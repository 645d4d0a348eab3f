"""The bits of ASGI the AG-UI endpoint needs: reading a bounded body, JSON error responses, SSE headers,
watching for a disconnect and acknowledging a lifespan. Typed with plain mappings, so any ASGI server fits."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

import trio

Scope: TypeAlias = Mapping[str, Any]
Message: TypeAlias = Mapping[str, Any]
Receive: TypeAlias = Callable[[], Awaitable[Message]]
Send: TypeAlias = Callable[[Message], Awaitable[None]]

SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),  # so a proxy in front (nginx) passes each event on at once
]
"""The response headers of an event stream."""


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The request body, or `None` as soon as it is over `limit` bytes."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return bytes(body)
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return bytes(body)


async def send_error(
    send: Send,
    status: int,
    error: str,
    problems: list[str] | None = None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """An error response in the server's shape: ``{"error": ..., "problems": [...]}``."""
    body = json.dumps({"error": error, "problems": problems or []}).encode()
    start_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": start_headers + (headers or [])})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def cancel_on_disconnect(receive: Receive, scope: trio.CancelScope) -> None:
    """Wait for the client to go away, then cancel `scope` (the run and its stream)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            scope.cancel()
            return


async def acknowledge_lifespan(receive: Receive, send: Send) -> None:
    """Answer the lifespan events of a server running the endpoint alone (there is nothing to start or stop)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
