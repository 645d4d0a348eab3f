"""`MCPServerHTTP`: the fault server over streamable HTTP on loopback (a subprocess)."""

from __future__ import annotations

import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import trio
from tests.mcp.servers import FAULT_SERVER, failure, live_tasks, read_port, results, run_to_end

from helikon_fc import LlmAgent, RunCompleted
from helikon_fc.mcp import MCPServerHTTP
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@asynccontextmanager
async def http_fault_server(markers: Path) -> AsyncIterator[str]:
    """The fault server listening on loopback for the block; its URL."""
    async with trio.open_nursery() as nursery:
        command = [sys.executable, str(FAULT_SERVER), "http", str(markers)]
        nursery.start_soon(partial(trio.run_process, command, check=False, capture_stderr=True))
        port = await read_port(markers / "port", 60)
        yield f"http://127.0.0.1:{port}/mcp"
        nursery.cancel_scope.cancel()


async def test_a_run_calls_a_tool_over_streamable_http_with_its_headers(tmp_path: Path) -> None:
    """The model's call reaches the HTTP server, with the server's headers on the request."""
    async with http_fault_server(tmp_path) as url:
        server = MCPServerHTTP(url, headers={"X-Test": "from the client"})
        model = ScriptedModel([call_tools(call("echo", text="hello")), reply("done")])
        events = await run_to_end(LlmAgent(name="a", model=model, tools=[server]), "go")
    assert isinstance(events[-1], RunCompleted)
    assert [(r.output, r.is_error) for r in results(events)] == [("hello (from the client)", False)]


async def test_an_unreachable_url_fails_the_run_naming_it() -> None:
    """Nothing listening: the run fails before any model call, naming the URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again below: nothing listens there
    server = MCPServerHTTP(f"http://127.0.0.1:{port}/mcp")
    message = failure(await run_to_end(LlmAgent(name="a", model=ScriptedModel([reply("x")]), tools=[server]), "go"))
    assert f"'http://127.0.0.1:{port}/mcp' failed before it answered initialize" in message


async def test_a_call_whose_session_expired_is_not_sent_again_and_the_next_call_has_a_new_session(
    tmp_path: Path,
) -> None:
    """The server ran the call and forgot the session: the model reads that it may not have run; it ran once."""
    async with http_fault_server(tmp_path) as url:
        (tmp_path / "expire").write_text("after")
        model = ScriptedModel([call_tools(call("bump")), call_tools(call("echo", text="again")), reply("done")])
        before = live_tasks()
        events = await run_to_end(LlmAgent(name="a", model=model, tools=[MCPServerHTTP(url)]), "go")
        assert live_tasks() == before  # the renewed session's task ended with the run
    bumped, echoed = results(events)
    assert isinstance(events[-1], RunCompleted)
    assert bumped.is_error and "the session expired during the call of 'bump'" in bumped.output
    assert "the call was not sent again: it may or may not have run" in bumped.output
    assert (tmp_path / "bumps").read_text() == "bumped\n"
    assert (echoed.output, echoed.is_error) == ("again (None)", False)
    assert (tmp_path / "sessions").read_text().count("initialize") == 2


async def test_a_read_only_call_whose_session_expired_is_sent_once_more_on_a_new_session(tmp_path: Path) -> None:
    """``echo`` is read-only: after the 404 the client initializes again and the call goes out once more."""
    async with http_fault_server(tmp_path) as url:
        (tmp_path / "expire").write_text("before")
        model = ScriptedModel([call_tools(call("echo", text="hello")), reply("done")])
        events = await run_to_end(LlmAgent(name="a", model=model, tools=[MCPServerHTTP(url)]), "go")
    assert isinstance(events[-1], RunCompleted)
    assert [(r.output, r.is_error) for r in results(events)] == [("hello (None)", False)]
    assert (tmp_path / "sessions").read_text().count("initialize") == 2
