"""The demo's saved-and-resumed scenario: a run recorded in a store is stopped once its tool calls have
answered, the store's records of it are shown, and `Runner.resume` finishes it from its last boundary.

The store is a `MemoryStore`, so the demo leaves no file behind; a `SQLiteStore` or `PostgresStore` keeps
the same records across processes (``helikon run --store``, ``docs/durability.md``).
"""

from __future__ import annotations

import json
import textwrap
from itertools import groupby

from ..core import RunCompleted, ToolCallItem, ToolOutputItem
from ..shell.context.run_context import RunContext
from ..shell.durable.storage import RunRecord, RunStore
from ..shell.input import AgentInput
from ..shell.loop.runner import Runner
from ..stores import MemoryStore
from .render import EventRenderer
from .scenarios import Scenario

RUN_ID = "demo-1"
"""The id the demo records its run under."""


async def play_resumed(scenario: Scenario, renderer: EventRenderer) -> bool:
    """Run `scenario` recorded, stop it after its first tool results, show its records, resume it; whether the
    resumed run completed (a run that never called a tool completes the first time and counts too)."""
    async with MemoryStore() as store:
        runner = Runner(store=store)
        input = AgentInput.from_user_text(scenario.question)
        pending: set[str] = set()  # the tool calls of the round under way
        shown: set[str] = set()  # tool results already on screen (a resume may deliver its last boundary's again)
        async with runner.run(scenario.agent, RunContext.ephemeral(None), input, run_id=RUN_ID) as events:
            async for event in events:
                renderer.render(event)
                match event:
                    case RunCompleted():  # a real model may answer without a tool: nothing to stop or resume
                        renderer.line(
                            renderer.paint("  (the run finished before calling a tool: nothing to resume)", "dim")
                        )
                        return True
                    case ToolCallItem(item=call):
                        pending.add(call.call_id)
                    case ToolOutputItem(item=result):
                        pending.discard(result.call_id)
                        shown.add(result.call_id)
                        if not pending:  # the first round of tool calls has answered: stop here
                            break
                    case _:
                        pass
        stopped = "  (the run stops here, as if its process died: all that is left of it is its records)"
        renderer.line(renderer.paint(stopped, "yellow"))
        await _show_records(store, renderer)
        renderer.line(renderer.paint(f"  runner.resume({RUN_ID!r}) continues from the last boundary:", "yellow"))
        completed = False
        async with runner.resume(RUN_ID, scenario.agent, RunContext.ephemeral(None)) as events:
            async for event in events:
                if isinstance(event, ToolOutputItem) and event.item.call_id in shown:
                    continue
                renderer.render(event)
                completed = completed or isinstance(event, RunCompleted)
        return completed


async def _show_records(store: RunStore, renderer: EventRenderer) -> None:
    """One line on the recorded run, then its records' kinds (a boundary with the state it leads to), wrapped."""
    summary = await store.run_summary(RUN_ID)
    records = await store.read_run_records(RUN_ID)
    renderer.line(renderer.paint(f"  stored: run {RUN_ID!r}, {summary.status}, {summary.records} records:", "dim"))
    steps = [_describe(record) for record in records]
    counted = [f"{step} x{n}" if (n := len(list(same))) > 1 else step for step, same in groupby(steps)]
    for line in textwrap.wrap(" > ".join(counted), width=96, break_on_hyphens=False):
        renderer.line(renderer.paint("    " + line, "dim"))


def _describe(record: RunRecord) -> str:
    """A record's kind; a boundary's with the state it leads to (``boundary: calling_model``)."""
    if record.kind != "boundary":
        return record.kind
    try:
        state = json.loads(record.body)["state"]["type"]
    except (ValueError, KeyError, TypeError):
        return record.kind
    return f"boundary: {state}"


__all__ = ["RUN_ID", "play_resumed"]
