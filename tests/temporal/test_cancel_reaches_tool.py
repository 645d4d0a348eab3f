"""A cancelled or timed-out run on Temporal stops its running tool: the trio code is cancelled, not left running."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import trio
from temporalio.client import Client

from helikon_fc import LlmAgent, function_tool
from helikon_fc.core import Cancelled, RunFailed, TimedOut, ToolCallItem
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.temporal import HelikonClient, HelikonWorker, RunHandle
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

from .harness import FAST

SLEEP = 4.0
"""How long the tool sleeps before it writes its file."""


def _writer(marker: Path) -> LlmAgent[None]:
    """An agent whose one tool sleeps `SLEEP` seconds, then writes `marker`."""

    @function_tool
    async def write_later() -> str:
        """Wait a while, then write a file."""
        await trio.sleep(SLEEP)
        marker.write_text("written")
        return "done"

    return LlmAgent(
        name="writer", model=ScriptedModel([call_tools(call("write_later")), reply("x")]), tools=[write_later]
    )


async def _tool_started(handle: RunHandle) -> None:
    async for event in handle.events():
        if isinstance(event, ToolCallItem):
            return


async def _run_and_outlast_the_tool(address: str, marker: Path, *, cancel: bool, config: RunConfig | None) -> RunFailed:
    """Run the writer; cancel it once its tool runs (or let `config`'s timeout end it); keep the worker up
    past the moment the tool would have written; the run's terminal event."""
    client = await Client.connect(address)
    queue = f"q-{uuid.uuid4()}"
    async with HelikonWorker(client, queue, agents=[_writer(marker)], heartbeat_every=0.2):
        handle = await HelikonClient(client, queue, policy=FAST).start("writer", "go", config=config)
        await _tool_started(handle)
        if cancel:
            await handle.cancel()
        terminal = (await handle.result()).terminal
        await asyncio.sleep(SLEEP + 1.5)  # the worker stays up: a tool still running would write now
    assert isinstance(terminal, RunFailed)
    return terminal


def test_cancelling_a_run_cancels_its_running_tool(temporal_address: str, tmp_path: Path) -> None:
    """`handle.cancel()` ends the run with `Cancelled` and reaches the tool: its file is never written."""
    marker = tmp_path / "written"
    terminal = asyncio.run(_run_and_outlast_the_tool(temporal_address, marker, cancel=True, config=None))
    assert terminal == RunFailed(Cancelled("run cancelled"))
    assert not marker.exists()


def test_a_run_timing_out_cancels_its_running_tool(temporal_address: str, tmp_path: Path) -> None:
    """A run's timeout ends it with `TimedOut` and cancels the tool it was waiting for: its file is never written."""
    marker = tmp_path / "written"
    terminal = asyncio.run(
        _run_and_outlast_the_tool(temporal_address, marker, cancel=False, config=RunConfig(timeout=2.0))
    )
    assert terminal == RunFailed(TimedOut(2.0))
    assert not marker.exists()
