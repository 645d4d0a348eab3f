"""An MCP server written the way most real servers are: the mcp SDK's high-level `MCPServer`, tools
declared as typed Python functions (pydantic makes their schemas, ``$defs`` and ``anyOf`` included).

Run as a subprocess by the acceptance tests: ``python sdk_server.py MARKER_DIR`` (stdio), or
``python sdk_server.py MARKER_DIR sse|json|stateless`` (streamable HTTP, see `_serve_http`). It writes its pid
to ``MARKER_DIR/pid``.
"""

from __future__ import annotations

import base64
import os
import socket
import sys
from pathlib import Path
from typing import Literal

import anyio
import mcp_types as types
import uvicorn
from mcp.server.mcpserver import Context, Image, MCPServer
from pydantic import BaseModel

server = MCPServer("acceptance")
MARKERS = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")


class Point(BaseModel):
    x: float
    y: float


class Distance(BaseModel):
    meters: float
    unit: Literal["m"] = "m"


@server.tool(annotations=types.ToolAnnotations(read_only_hint=True))
def distance(a: Point, b: Point, label: str | None = None) -> Distance:
    """The distance between two points (nested models: a schema with $defs and $ref)."""
    return Distance(meters=((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5)


@server.tool()
def picture() -> Image:
    """A one-pixel PNG."""
    return Image(data=base64.b64decode("iVBORw0KGgo="), format="png")


@server.tool()
def mixed() -> list[types.ContentBlock]:
    """Text, audio, an embedded resource and a resource link."""
    return [
        types.TextContent(type="text", text="here"),
        types.AudioContent(type="audio", data=base64.b64encode(b"RIFF0000").decode(), mime_type="audio/wav"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(uri="file:///a.md", mime_type="text/markdown", text="# A"),
        ),
        types.ResourceLink(type="resource_link", name="b.csv", uri="file:///b.csv", mime_type="text/csv"),
    ]


@server.tool(annotations=types.ToolAnnotations(destructive_hint=True))
def explode(reason: str) -> str:
    """Raises (the SDK answers isError: true)."""
    raise ValueError(f"exploded: {reason}")


@server.tool()
def refuse() -> types.CallToolResult:
    """An error told only in structured content (no content blocks)."""
    return types.CallToolResult(content=[], structured_content={"code": 7, "why": "quota"}, is_error=True)


@server.tool(name="tools.dotted-name")
def dotted() -> str:
    """A name with a dot and a dash, which MCP allows."""
    return "dotted"


@server.tool()
async def slow(ctx: Context) -> str:
    """Reports progress and logs, then answers."""
    await ctx.report_progress(1, 2, "half")
    await ctx.info("working")
    return "slow done"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool ``added`` and tells the client its tool list changed.

    At the handshake protocol versions (``2025-11-25``, what ``initialize`` negotiates), the notification is
    sent on the session; ``ctx.notify_tools_changed()`` would only reach ``subscriptions/listen`` streams of
    the 2026-07-28 protocol.
    """
    server.add_tool(added)
    await ctx.session.send_tool_list_changed()
    return "grown"


def added() -> str:
    """Added by ``grow``."""
    return "added"


@server.tool()
async def wait() -> str:
    """Waits until cancelled, then writes ``MARKER_DIR/cancelled``."""
    (MARKERS / "waiting").write_text("")
    try:
        await anyio.sleep_forever()
    finally:
        (MARKERS / "cancelled").write_text("")
    return "never"


@server.tool()
def count(n: int = 3) -> list[int]:
    """A list result (structured as {"result": [...]})."""
    return list(range(n))


def _serve_http(style: str) -> None:
    """Streamable HTTP at ``http://127.0.0.1:PORT/mcp``: ``sse`` (answers as event streams), ``json`` (plain
    JSON answers) or ``stateless`` (no session).

    The socket listens before ``PORT\\n`` is written to ``MARKER_DIR/port`` (a connection made then waits
    in its backlog until uvicorn accepts it), and uvicorn serves that very socket: no port chosen, closed
    and bound again, which another process could take in between.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    app = server.streamable_http_app(json_response=style == "json", stateless_http=style == "stateless")
    config = uvicorn.Config(app, log_level="warning")
    (MARKERS / "port").write_text(f"{listener.getsockname()[1]}\n")
    anyio.run(uvicorn.Server(config).serve, [listener])


if __name__ == "__main__":
    (MARKERS / "pid").write_text(str(os.getpid()))
    if len(sys.argv) > 2:
        _serve_http(sys.argv[2])
    else:
        server.run("stdio")
