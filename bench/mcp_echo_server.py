"""The MCP server S11 measures against: ``python -m bench.mcp_echo_server``, over stdio.

One read-only tool, ``echo``, answering its ``text`` argument back as text content: as little work
as a server can do per call, so what is timed is the protocol and the client around it.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

ECHO = types.Tool(
    name="echo",
    description="Echo the text.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    annotations=types.ToolAnnotations(read_only_hint=True),
)


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ECHO])


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def _serve() -> None:
    server: Server[Any] = Server("bench-echo", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, backend="trio")
