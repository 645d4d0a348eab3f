"""A small MCP server over stdio, written with the mcp SDK's low-level server API, for fault injection.

Run as a subprocess by the tests: ``python fault_server.py MODE MARKER_DIR``. It writes its pid to
``MARKER_DIR/pid`` as soon as it starts (and adds it to ``MARKER_DIR/pids``). Modes:

- ``serve``: answer normally (tools below);
- ``sloppy``: the same, plus the tool ``bad_schema`` whose input schema the checker refuses;
- ``exit``: write a line to stderr and exit with status 3 before reading anything;
- ``hang``: never answer ``initialize``;
- ``http``: serve over streamable HTTP at ``http://127.0.0.1:PORT/mcp`` instead, PORT written to
  ``MARKER_DIR/port`` once it listens (``echo`` then answers with the request's ``X-Test`` header too).
  Each ``initialize`` it receives adds a line to ``MARKER_DIR/sessions``. While a file
  ``MARKER_DIR/expire`` exists, the next ``tools/call`` forgets its session, as a restarted server
  would: ``before`` answers it 404 without running it, ``after`` runs it and then answers 404; every
  later request naming that session is answered 404 too.

Tools: ``echo`` (text back), ``data`` (structured content), ``media`` (an image, audio, an embedded
resource, a resource link), ``fail`` (``isError: true``), ``block`` (waits until cancelled, then writes
``MARKER_DIR/cancelled``), ``die`` (the process kills itself mid-call), ``grow`` (adds the tool
``extra`` and sends ``notifications/tools/list_changed``), ``report`` (sends two progress
notifications and a warning and a debug log message), ``bump`` (adds a line to ``MARKER_DIR/bumps``).
``echo`` and ``data`` are read-only, ``fail`` is destructive.

A file ``MARKER_DIR/variant``, read when a server starts, changes its tools as a new release of a
server would: ``changed`` gives ``echo`` another input schema, ``missing`` drops it.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

_STRING_ARG = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}}


def _tools(grown: bool, sloppy: bool, variant: str) -> list[types.Tool]:
    read_only = types.ToolAnnotations(read_only_hint=True)
    echo_schema = _STRING_ARG if variant != "changed" else {**_STRING_ARG, "properties": {"text": {"type": "integer"}}}
    tools = [
        types.Tool(name="echo", description="Echo the text.", input_schema=echo_schema, annotations=read_only),
        types.Tool(name="data", description="Structured data.", input_schema=_NO_ARGS, annotations=read_only),
        types.Tool(name="media", description="Non-text content.", input_schema=_NO_ARGS),
        types.Tool(
            name="fail",
            description="Always fails.",
            input_schema=_NO_ARGS,
            annotations=types.ToolAnnotations(destructive_hint=True),
        ),
        types.Tool(name="block", description="Waits until cancelled.", input_schema=_NO_ARGS),
        types.Tool(name="die", description="Kills the server.", input_schema=_NO_ARGS),
        types.Tool(name="grow", description="Adds a tool.", input_schema=_NO_ARGS),
        types.Tool(name="report", description="Reports progress and logs.", input_schema=_NO_ARGS),
        types.Tool(name="bump", description="Counts its calls (a side effect).", input_schema=_NO_ARGS),
    ]
    if sloppy:
        bad = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "x"}}}
        tools.append(types.Tool(name="bad_schema", description="Sloppy schema.", input_schema=bad))
    if grown:
        tools.append(types.Tool(name="extra", description="Added by grow.", input_schema=_NO_ARGS))
    return [tool for tool in tools if not (variant == "missing" and tool.name == "echo")]


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _server(markers: Path, sloppy: bool) -> Server[Any]:
    state = {"grown": False}
    variant = (markers / "variant").read_text().strip() if (markers / "variant").exists() else ""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_tools(state["grown"], sloppy, variant))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments or {}
        if name == "echo":
            request = getattr(ctx, "request", None)
            header = "" if request is None else f" ({request.headers.get('x-test')})"
            return _text(f"{arguments.get('text')}{header}")
        if name == "data":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="two values")], structured_content={"a": 1, "b": [2, 3]}
            )
        if name == "media":
            return types.CallToolResult(content=_media())
        if name == "fail":
            return types.CallToolResult(content=[types.TextContent(type="text", text="disk is full")], is_error=True)
        if name == "block":
            (markers / "blocking").write_text("1")
            try:
                await anyio.sleep_forever()
            finally:
                (markers / "cancelled").write_text("1")
        if name == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        if name == "grow":
            state["grown"] = True
            await ctx.session.send_tool_list_changed()
            return _text("grown")
        if name == "extra":
            return _text("extra")
        if name == "bump":
            with (markers / "bumps").open("a") as bumps:
                bumps.write("bumped\n")
            return _text("bumped")
        if name == "report":
            await ctx.session.report_progress(1, 2, "halfway")
            await ctx.session.report_progress(2, 2)
            await ctx.session.send_log_message("warning", {"disk": "low"}, "fault", related_request_id=ctx.request_id)
            await ctx.session.send_log_message("debug", "too fine to send", "fault", related_request_id=ctx.request_id)
            return _text("reported")
        if name == "bad_schema":
            return _text(f"got {arguments}")
        raise ValueError(f"unknown tool {name}")

    return Server("fault", on_list_tools=list_tools, on_call_tool=call_tool)


def _media() -> list[types.ContentBlock]:
    return [
        types.TextContent(type="text", text="see attached"),
        types.ImageContent(type="image", data="aGk=", mime_type="image/png"),
        types.AudioContent(type="audio", data="aGk=", mime_type="audio/wav"),
        types.EmbeddedResource(
            type="resource",
            resource=types.TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="a note"),
        ),
        types.EmbeddedResource(
            type="resource",
            resource=types.BlobResourceContents(uri="file:///x.bin", mime_type="application/x", blob="aGk="),
        ),
        types.ResourceLink(type="resource_link", uri="file:///big.csv", name="big.csv", mime_type="text/csv"),
    ]


async def _serve(markers: Path, sloppy: bool) -> None:
    server = _server(markers, sloppy)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, options)


async def _serve_http(markers: Path) -> None:
    import socket

    import hypercorn.trio
    from hypercorn.config import Config

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()  # a connection made once the port is written waits in the backlog, never refused
    config = Config()
    config.bind = [f"fd://{listener.fileno()}"]
    app = _expiring(_server(markers, False).streamable_http_app(), markers)
    (markers / "port").write_text(f"{listener.getsockname()[1]}\n")  # one whole line: see servers.read_port
    await hypercorn.trio.serve(app, config)


_NOT_FOUND = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'


def _expiring(app: Any, markers: Path) -> Any:
    """`app`, forgetting a session when ``MARKER_DIR/expire`` says so (see the module docstring)."""
    forgotten: set[str] = set()

    async def expiring(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            session = dict(scope.get("headers", [])).get(b"mcp-session-id", b"").decode()
            if session in forgotten:
                await _not_found(send)
            else:
                await app(scope, receive, send)
            return
        session = dict(scope["headers"]).get(b"mcp-session-id", b"").decode()
        if session in forgotten:
            await _not_found(send)
            return
        body = await _body(receive)
        replay = _replaying(body, receive)
        if b'"initialize"' in body:
            with (markers / "sessions").open("a") as sessions:
                sessions.write("initialize\n")
        trigger = markers / "expire"
        if session and b'"tools/call"' in body and trigger.exists():
            when = trigger.read_text().strip()
            trigger.unlink()
            forgotten.add(session)
            if when == "after":
                await app(scope, replay, _discard)
            await _not_found(send)
            return
        await app(scope, replay, send)

    return expiring


async def _body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if not message.get("more_body"):
            return body


def _replaying(body: bytes, receive: Any) -> Any:
    sent = False

    async def replay() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _discard(message: Any) -> None:
    pass


async def _not_found(send: Any) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(_NOT_FOUND)).encode())]
    await send({"type": "http.response.start", "status": 404, "headers": headers})
    await send({"type": "http.response.body", "body": _NOT_FOUND})


def main() -> None:
    mode, markers = sys.argv[1], Path(sys.argv[2])
    (markers / "pid").write_text(str(os.getpid()))
    with (markers / "pids").open("a") as pids:
        pids.write(f"{os.getpid()}\n")
    if mode == "exit":
        print("fault server: no licence for this host", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "hang":
        while True:
            time.sleep(60)
    if mode == "http":
        anyio.run(_serve_http, markers, backend="trio")
    else:
        anyio.run(_serve, markers, mode == "sloppy")


if __name__ == "__main__":
    main()
