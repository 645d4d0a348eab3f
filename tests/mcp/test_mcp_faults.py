"""Teardown under faults: after each, no server process is left (checked by pid) and no task outlives its nursery."""

from __future__ import annotations

from pathlib import Path

import trio
from tests.mcp.servers import (
    child_pids,
    failure,
    fault_server,
    live_tasks,
    pid_in,
    process_gone,
    results,
    run_to_end,
    wait_for,
)

from helikon_fc import LlmAgent, RunCompleted, RunContext, RunFailed
from helikon_fc.core import Cancelled
from helikon_fc.mcp import MCPServerError, MCPServerStdio
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


def _agent(server: MCPServerStdio, *names: str) -> LlmAgent[None]:
    model = ScriptedModel([*(call_tools(call(name)) for name in names), reply("done")])
    return LlmAgent(name="a", model=model, tools=[server])


async def test_cancel_during_a_call_sends_cancelled_and_the_run_ends_cancelled(tmp_path: Path) -> None:
    """The server hears ``notifications/cancelled`` (and stays up to answer the next run); the run ends Cancelled."""
    before = live_tasks()
    server = fault_server("serve", tmp_path)
    ctx = RunContext.ephemeral(None)
    async with server:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_when_blocking, ctx, tmp_path)
            events = await run_to_end(_agent(server, "block"), "go", ctx)
        await wait_for(tmp_path / "cancelled")  # the server's handler was cancelled, by the notification
        after = results(await run_to_end(LlmAgent(name="b", model=_echo_model(), tools=[server]), "go"))
        pid = pid_in(tmp_path)
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, Cancelled)
    assert [r.output for r in after] == ["still here"]
    assert process_gone(pid) and live_tasks() == before


def _echo_model() -> ScriptedModel:
    return ScriptedModel([call_tools(call("echo", text="still here")), reply("done")])


async def _cancel_when_blocking(ctx: RunContext[None], markers: Path) -> None:
    await wait_for(markers / "blocking")
    ctx.cancel("stop")


async def test_a_server_killed_mid_call_is_a_tool_error_and_the_next_call_says_it_is_gone(tmp_path: Path) -> None:
    """The model reads the lost call as an error, and the next call fails at once saying the server is gone."""
    before = live_tasks()
    events = await run_to_end(_agent(fault_server("serve", tmp_path), "die", "data"), "go")
    died, next_call = results(events)
    assert isinstance(events[-1], RunCompleted)
    assert died.is_error and "is gone: the connection closed during the call" in died.output
    assert next_call.is_error and "is gone (the connection closed during a call of 'die')" in next_call.output
    assert process_gone(pid_in(tmp_path)) and live_tasks() == before


async def test_a_server_that_exits_at_start_is_an_error_naming_its_command_and_stderr(tmp_path: Path) -> None:
    """Both ways to open it (a run, ``async with``) report the command and the end of its stderr."""
    before = live_tasks()
    server = fault_server("exit", tmp_path)
    message = failure(await run_to_end(_agent(server, "echo"), "go"))
    assert "fault_server.py exit" in message and "no licence for this host" in message
    assert process_gone(pid_in(tmp_path))
    try:
        async with server:
            raise AssertionError("opened")
    except MCPServerError as exc:
        assert "fault_server.py exit" in str(exc) and "no licence for this host" in str(exc)
    assert process_gone(pid_in(tmp_path)) and live_tasks() == before


async def test_a_missing_command_is_an_error_naming_it(tmp_path: Path) -> None:
    """A command that cannot be started fails the run with its name, not a traceback."""
    message = failure(await run_to_end(_agent(MCPServerStdio("no-such-mcp-server-here"), "echo"), "go"))
    assert "'no-such-mcp-server-here' could not be started" in message


async def test_a_server_hanging_at_initialize_is_stopped_after_init_timeout(tmp_path: Path) -> None:
    """``init_timeout`` bounds the wait: the server is stopped and refused, the message says why."""
    before, children = live_tasks(), child_pids()
    server = fault_server("hang", tmp_path, init_timeout=0.5)
    started = trio.current_time()
    with trio.fail_after(30):  # the timeout, the SDK's bounded stop (stdin, SIGTERM), a loaded machine's start
        message = failure(await run_to_end(_agent(server, "echo"), "go"))
    assert "did not answer initialize within 0.5 s (init_timeout)" in message
    assert trio.current_time() - started >= 0.5
    assert child_pids() == children and live_tasks() == before  # it may be stopped before it wrote its pid
    assert not (tmp_path / "pid").exists() or process_gone(pid_in(tmp_path))


async def test_the_runs_own_nursery_cancelled_from_outside_stops_the_server(tmp_path: Path) -> None:
    """A run that opened the server itself, cancelled mid-call by its caller's scope, stops it before returning."""
    before = live_tasks()
    server = fault_server("serve", tmp_path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_to_end, _agent(server, "block"), "go")
        await wait_for(tmp_path / "blocking")
        nursery.cancel_scope.cancel()
    assert process_gone(pid_in(tmp_path)) and live_tasks() == before
