"""Acceptance: ``helikon mcp serve examples/...:agent`` answers ``tools/call``, as a shell user would run it:
over ``--http`` to the SDK's own client, and over stdio to plain JSON-RPC lines written to its stdin."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import mcp_types as types
import trio
from mcp.client.streamable_http import streamable_http_client

from mcp import ClientSession

ROOT = Path(__file__).parents[2]
SERVE = [sys.executable, "-m", "helikon_fc", "mcp", "serve", "examples/triage_handoff.py:triage"]


async def _url_from(stderr: trio.abc.ReceiveStream) -> str:
    """The URL of the ``helikon mcp: serving 'NAME' at URL`` line the command writes once it listens."""
    seen = b""
    marker = "helikon mcp: serving 'triage' at "
    with trio.fail_after(60):
        while True:
            found = [line for line in seen.decode().splitlines(keepends=True) if line.startswith(marker)]
            if found and found[0].endswith("\n"):
                return found[0].strip().rsplit(" ", 1)[1]
            chunk = await stderr.receive_some()
            assert chunk, f"the command ended before it listened: {seen!r}"
            seen += chunk


async def test_the_served_example_answers_tools_call_over_http_from_the_sdk_client() -> None:
    """``--http 127.0.0.1:0`` prints its URL; the SDK's streamable-HTTP client lists and calls ``triage``;
    Ctrl-C (SIGINT) then stops the command with status 130 and no traceback (docs/cli.md)."""
    command = [*SERVE, "--http", "127.0.0.1:0"]
    process = await trio.lowlevel.open_process(command, stderr=subprocess.PIPE, cwd=ROOT, env=dict(os.environ))
    try:
        assert process.stderr is not None
        url = await _url_from(process.stderr)
        async with httpx2.AsyncClient() as client, streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(*streams) as session:
                with trio.fail_after(30):
                    await session.initialize()
                    (tool,) = (await session.list_tools()).tools
                    result = await session.call_tool("triage", {"input": "How should I start investing?"})
        assert tool.name == "triage" and tool.input_schema["required"] == ["input"]
        (block,) = result.content
        assert not result.is_error and isinstance(block, types.TextContent)
        assert block.text.startswith("First keep three months")
        process.send_signal(signal.SIGINT)
        with trio.fail_after(30):
            assert await process.wait() == 130
        rest = await process.stderr.receive_some()
        assert b"Traceback" not in rest
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_the_served_example_answers_plain_json_rpc_lines_on_stdin() -> None:
    """What ``printf '...' | helikon mcp serve examples/triage_handoff.py:triage`` does: initialize, then a
    ``tools/call`` answered with the agent's final output; closing stdin ends the command with status 0."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "sh", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "triage", "arguments": {"input": "How should I start investing?"}},
        },
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with trio.fail_after(60):
        done = await trio.run_process(
            SERVE, stdin=stdin, capture_stdout=True, capture_stderr=True, check=False, cwd=ROOT, env=dict(os.environ)
        )
    assert done.returncode == 0, done.stderr.decode()[-2000:]  # it ended: the end of input stopped it
    answers = {message["id"]: message for message in map(json.loads, done.stdout.decode().splitlines())}
    assert answers[1]["result"]["serverInfo"] and answers[1]["result"]["protocolVersion"] == "2025-06-18"
    called = answers[2]["result"]
    assert called["isError"] is False and called["content"][0]["text"].startswith("First keep three months")
