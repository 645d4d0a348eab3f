"""Record the workflow history of a run with hooks whose model calls tools that cannot run, for replay tests.

``python -m tests.temporal.record_history OUT.json`` starts a dev server, runs the scenario with whatever
helikon_fc is on the path and writes the run's history. ``histories/before_every_call_seen.json`` was written
this way by the version before the ``helikon-every-call-seen`` patch, whose transition answered such calls
itself: `test_history_replay` checks that the present workflow still replays it.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

from temporalio.client import Client
from tests.control.control_fakes import logging_hook, lookup_tool
from tests.temporal.conftest import dev_server

from helikon_fc import LlmAgent
from helikon_fc.core import ToolResult
from helikon_fc.temporal import HelikonClient, HelikonWorker
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn


def scenario_model() -> FunctionModel:
    """A round of two calls that cannot run (an unknown tool, an off-schema argument), a mixed one, the answer."""

    def turn(request: object) -> ScriptedTurn:
        items = getattr(request, "items", ())
        rounds = sum(1 for item in items if isinstance(item, ToolResult)) // 2
        if rounds == 0:
            return call_tools(call("teleport").with_id("t1"), call("lookup", key=7).with_id("l1"))
        if rounds == 1:
            return call_tools(call("lookup", key="k").with_id("l2"), call("teleport", to="moon").with_id("t2"))
        return reply("done")

    return FunctionModel(turn)


def scenario_agent() -> LlmAgent[None]:
    """The agent: one tool, one hook (so its calls are guarded: they run through the tool activity's pipeline)."""
    return LlmAgent(name="a", model=scenario_model(), tools=[lookup_tool([])], hooks=[logging_hook([], "h")])


async def _record(address: str, out: Path) -> None:
    client = await Client.connect(address, identity="recorder")
    queue = f"q-{uuid.uuid4()}"
    async with HelikonWorker(client, queue, agents=[scenario_agent()], heartbeat_every=0.2):
        handle = await HelikonClient(client, queue).start("a", "hi")
        await handle.result()
        history = await client.get_workflow_handle(handle.run_id).fetch_history()
    out.write_text(history.to_json())


def main(out: Path) -> None:
    """Start a dev server, record the scenario's history into `out`, stop the server."""
    with dev_server() as address:
        asyncio.run(_record(address, out))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
