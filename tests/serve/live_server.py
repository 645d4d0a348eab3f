"""Serving an app on a loopback port for a test, and reading server-sent events with httpx2."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import httpx2
import trio
from starlette.applications import Starlette

from helikon_fc.serve import serve


@attrs.frozen
class Message:
    """One SSE message: its ``id`` (None for ``end``), ``event`` name and decoded ``data``."""

    id: int | None
    event: str
    data: Any


@asynccontextmanager
async def served(app: Starlette) -> AsyncIterator[httpx2.AsyncClient]:
    """`app` served by hypercorn's trio worker on 127.0.0.1 (a free port), and a client for it."""
    async with trio.open_nursery() as nursery:
        urls: list[str] = await nursery.start(serve, app, "127.0.0.1", 0)
        async with httpx2.AsyncClient(base_url=urls[0], timeout=10) as client:
            yield client
        nursery.cancel_scope.cancel()


async def messages(response: httpx2.Response) -> AsyncGenerator[Message, None]:
    """The SSE messages of a streamed response, in order (comments and pings skipped)."""
    fields: dict[str, str] = {}
    async for line in response.aiter_lines():
        if line == "":
            if "data" in fields:
                ident = fields.get("id")
                yield Message(int(ident) if ident else None, fields.get("event", "message"), json.loads(fields["data"]))
            fields = {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value


async def collect(
    client: httpx2.AsyncClient, method: str, url: str, *, headers: dict[str, str] | None = None, **kwargs: Any
) -> list[Message]:
    """Every message of an event stream, up to its end."""
    wanted = {"accept": "text/event-stream", **(headers or {})}
    async with client.stream(method, url, headers=wanted, **kwargs) as response:
        assert response.status_code == 200, await response.aread()
        return [message async for message in messages(response)]
