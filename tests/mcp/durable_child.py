"""The process the MCP durability tests kill: ``python -m tests.mcp.durable_child OP STORE MARKERS [AFTER]``.

One run of an agent whose tools come from the fault server (over stdio, started for the run), recorded
in the SQLite store at STORE under the run id ``mcp-run``:

- ``crash``: the run, killed with SIGKILL right after its AFTER-th record write (`KillingStore`);
- ``resume``: the run resumed to its end.

Each prints the run's events on stdout, one wire-format event a line (a killed process, the ones it
received before it died); ``resume`` then prints ``OFFERED`` and the tools of the model's last request.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio
from tests.durable.crashing_store import KillingStore
from tests.mcp.servers import fault_server

from helikon_fc import AgentInput, LlmAgent, RunContext, Runner
from helikon_fc.core import to_json
from helikon_fc.stores import SQLiteStore, StoreBase
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

RUN_ID = "mcp-run"


MODEL = ScriptedModel([call_tools(call("echo", text="one")), call_tools(call("echo", text="two")), reply("done")])


def agent(markers: str) -> LlmAgent[None]:
    """The recorded agent: two calls of the fault server's ``echo``, one per turn, then an answer."""
    return LlmAgent(name="mcp-durable", model=MODEL, tools=[fault_server("serve", Path(markers))])


async def main(op: str, location: str, markers: str, after: int) -> None:
    async with SQLiteStore(location) as opened:
        store: StoreBase | KillingStore = KillingStore(opened, after) if op == "crash" else opened
        runner = Runner(store=store)
        ctx = RunContext.ephemeral(None)
        if op == "crash":
            stream = runner.run(agent(markers), ctx, AgentInput.from_user_text("go"), run_id=RUN_ID)
        else:
            stream = runner.resume(RUN_ID, agent(markers), ctx)
        async with stream as events:
            async for event in events:
                sys.stdout.write(to_json(event) + "\n")
                sys.stdout.flush()
    if op == "resume":
        offered = [json.loads(to_json(tool)) for tool in MODEL.requests[-1].tools]
        sys.stdout.write("OFFERED " + json.dumps(offered) + "\n")


if __name__ == "__main__":
    trio.run(main, sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 0)
