"""A follower rides out a worker outage: `RunHandle.events()` waits for the next worker and loses nothing."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import trio
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import AgentEvent, ModelRequest, RunCompleted, ToolCallItem, ToolResult
from helikon_fc.temporal import HelikonClient, HelikonWorker, RunHandle
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

from .harness import FAST, trio_events, without_deltas

OUTAGE = 33.0
"""Seconds without a worker: past the ~30 s after which the server fails a query with "no poller seen"."""


@function_tool
async def pause() -> str:
    """Take a moment."""
    await trio.sleep(1.0)
    return "paused"


def _turn(request: ModelRequest) -> ScriptedTurn:
    """Pause once, then answer (decided by the request: a new worker's model starts afresh)."""
    if any(isinstance(item, ToolResult) for item in request.items):
        return reply("done")
    return call_tools(call("pause"))


def _agent() -> LlmAgent[None]:
    return LlmAgent(name="patient", model=FunctionModel(_turn), tools=[pause])


async def _follow(handle: RunHandle, into: list[AgentEvent], tool_seen: asyncio.Event, outage: float | None) -> None:
    async for event in handle.events(outage=outage):
        into.append(event)
        if isinstance(event, ToolCallItem):
            tool_seen.set()


async def _until_the_tool_runs(follower: asyncio.Task[None], tool_seen: asyncio.Event) -> None:
    """Wait until the follower has seen the tool call (a follower that fails first raises here)."""
    waiter = asyncio.create_task(tool_seen.wait())
    done, _ = await asyncio.wait({follower, waiter}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if follower in done:
        follower.result()
    assert tool_seen.is_set(), "the follower never saw the tool call"


def test_a_follower_rides_out_a_worker_outage_and_loses_nothing(temporal_address: str) -> None:
    """With the worker down past the server's "no poller seen" failure, then another started, the follower sees
    every event of the run once, in order, up to its end."""

    async def main() -> tuple[list[AgentEvent], float]:
        client = await Client.connect(temporal_address)
        queue = f"q-{uuid.uuid4()}"
        followed: list[AgentEvent] = []
        tool_seen = asyncio.Event()
        async with HelikonWorker(client, queue, agents=[_agent()], heartbeat_every=0.2):
            handle = await HelikonClient(client, queue, policy=FAST).start("patient", "go")
            follower = asyncio.create_task(_follow(handle, followed, tool_seen, 120.0))
            await _until_the_tool_runs(follower, tool_seen)
        down = time.monotonic()
        await asyncio.sleep(OUTAGE)
        async with HelikonWorker(client, queue, agents=[_agent()], heartbeat_every=0.2):
            await asyncio.wait_for(follower, 120)
        return followed, time.monotonic() - down

    followed, took = asyncio.run(main())
    assert took > OUTAGE
    assert without_deltas(followed) == trio_events(_agent(), "go")
    assert isinstance(followed[-1], RunCompleted)


def test_a_follower_gives_up_at_its_deadline(temporal_address: str) -> None:
    """With no worker at all, the follower raises once its `outage` deadline has passed, not a server timeout later."""

    async def main() -> float:
        client = await Client.connect(temporal_address)
        queue = f"q-{uuid.uuid4()}"
        async with HelikonWorker(client, queue, agents=[_agent()], heartbeat_every=0.2):
            handle = await HelikonClient(client, queue, policy=FAST).start("patient", "go")
            tool_seen = asyncio.Event()
            seen: list[AgentEvent] = []
            first = asyncio.create_task(_follow(handle, seen, tool_seen, None))
            await _until_the_tool_runs(first, tool_seen)
            first.cancel()
        started = time.monotonic()
        with pytest.raises(RPCError) as raised:
            await _follow(handle, [], asyncio.Event(), 2.0)
        assert raised.value.status in (RPCStatusCode.CANCELLED, RPCStatusCode.FAILED_PRECONDITION)
        return time.monotonic() - started

    # The deadline is 2 s; the server's own answer to a history long poll comes after its 20 s poll interval.
    # Anything well below that is the deadline at work, whatever the load adds to the 2 s.
    assert asyncio.run(main()) < 12.0
