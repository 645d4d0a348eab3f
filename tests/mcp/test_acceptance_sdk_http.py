"""Acceptance: `MCPServerHTTP` against the SDK's high-level `MCPServer` served over streamable HTTP (uvicorn), in
its three styles: event-stream answers, plain JSON answers, and stateless (no session)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
from tests.mcp.servers import read_port, results, run_to_end, wait_for

from helikon_fc import LlmAgent, RunCompleted, RunContext, RunFailed
from helikon_fc.core import Cancelled
from helikon_fc.mcp import MCPServerHTTP
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

SDK_SERVER = Path(__file__).with_name("sdk_server.py")


@asynccontextmanager
async def _served(markers: Path, style: str) -> AsyncIterator[str]:
    """The URL of sdk_server.py serving streamable HTTP in `style`; the process is killed at the end."""
    command = [sys.executable, str(SDK_SERVER), str(markers), style]
    process = await trio.lowlevel.open_process(command, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        yield f"http://127.0.0.1:{await read_port(markers / 'port')}/mcp"  # written once the server listens
    finally:
        process.kill()
        with trio.CancelScope(shield=True):
            await process.wait()


@pytest.mark.parametrize("style", ["sse", "json", "stateless"])
async def test_a_run_calls_an_sdk_http_server_in_each_style(tmp_path: Path, style: str) -> None:
    """Structured output, progress-sending and failing tools all answer over each style of streamable HTTP."""
    async with _served(tmp_path, style) as url:
        distance = call("distance", a={"x": 0, "y": 0}, b={"x": 3, "y": 4})
        model = ScriptedModel([call_tools(distance, call("slow"), call("explode", reason="r")), reply("done")])
        events = await run_to_end(LlmAgent(name="a", model=model, tools=[MCPServerHTTP(url)]), "go")
    assert isinstance(events[-1], RunCompleted)
    measured, slow, exploded = results(events)
    assert json.loads(measured.output) == {"meters": 5.0, "unit": "m"}
    assert json.loads(slow.output) == {"result": "slow done"} and exploded.is_error


async def test_a_cancelled_http_call_reaches_the_sdk_server(tmp_path: Path) -> None:
    """Over streamable HTTP too, cancelling a run inside ``async with server:`` cancels the server's handler
    (``notifications/cancelled``). (Not yet so for a run that opened the HTTP server itself: its connection
    closes before the notification's POST goes out, and the handler runs on.)"""
    ctx = RunContext.ephemeral(None)

    async def cancel_when_waiting() -> None:
        await wait_for(tmp_path / "waiting")
        ctx.cancel("stop")

    async with _served(tmp_path, "sse") as url:
        server = MCPServerHTTP(url)
        agent = LlmAgent(name="a", model=ScriptedModel([call_tools(call("wait")), reply("done")]), tools=[server])
        async with server:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(cancel_when_waiting)
                events = await run_to_end(agent, "go", ctx)
            await wait_for(tmp_path / "cancelled", 5)
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, Cancelled)


async def test_the_port_is_read_once_its_line_is_whole(tmp_path: Path, mock_clock: trio.testing.MockClock) -> None:
    """A port file that exists but is not written yet, or only in part, is not read as the port (an empty
    port was read from sdk_server.py's file now and then on a loaded machine)."""
    port_file = tmp_path / "port"
    port_file.write_text("")
    read: list[int] = []

    async def reader() -> None:
        read.append(await read_port(port_file))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader)
        for partial in ("", "47"):
            port_file.write_text(partial)
            mock_clock.jump(1)
            await trio.testing.wait_all_tasks_blocked()
            assert read == []
        port_file.write_text("4711\n")
        mock_clock.jump(1)
    assert read == [4711]
