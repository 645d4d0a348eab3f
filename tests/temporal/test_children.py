"""Child workflows report as they run: a graph node's events stream live, a terminated child's usage counts."""

from __future__ import annotations

import asyncio
import threading

import trio
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from helikon_fc import AgentAsTool, GraphAgent, LlmAgent, function_tool
from helikon_fc.core import AgentUpdated, RunCompleted, TokenDelta, ToolOutputItem
from helikon_fc.temporal import RunHandle
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

from .gated import GatedModel, release_on_first_delta
from .harness import on_temporal


def test_a_graph_nodes_events_stream_while_the_node_runs(temporal_address: str) -> None:
    gate = threading.Event()
    graph = (
        GraphAgent.builder()
        .name("live")
        .node("a", LlmAgent[None](name="a", model=GatedModel(gate)))
        .node("b", LlmAgent[None](name="b", model=ScriptedModel([reply("B")])))
        .edge("a", "b")
        .build()
    )
    outcome = on_temporal(temporal_address, [graph], "live", "go", during=release_on_first_delta(gate))
    assert outcome.result.output == "B"
    assert "Hello" in str(outcome.streamed)  # a's answer: its first fragment was seen while it waited
    streamed = list(outcome.streamed)
    first_delta = next(i for i, e in enumerate(streamed) if isinstance(e, TokenDelta))
    assert AgentUpdated("a") in streamed[:first_delta]


@function_tool
async def wait_long() -> str:
    """Wait a minute."""
    await trio.sleep(60)
    return "late"


async def _terminate_the_sub_run_in_its_tool(handle: RunHandle, address: str) -> None:
    """Once the sub-run's model call is done and reported to its parent, terminate the sub-run from outside."""
    client = await Client.connect(address)
    child = client.get_workflow_handle(f"{handle.run_id}.1")
    while True:
        await asyncio.sleep(0.05)
        try:
            history = await child.fetch_history()
        except Exception:
            continue  # not started yet
        kinds = [event.event_type for event in history.events]
        scheduled = [
            i
            for i, event in enumerate(history.events)
            if event.activity_task_scheduled_event_attributes.activity_type.name == "helikon.call_tool"
        ]
        if not scheduled:
            continue
        tool = scheduled[0]
        # The batch carrying the model call's usage went out with the tool's scheduling: once delivered, terminate.
        if EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED in kinds[tool:]:
            await child.terminate("operator")
            return


def test_a_sub_run_terminated_as_a_workflow_still_counts_its_calls(temporal_address: str) -> None:
    summarizer = LlmAgent[None](
        name="summarizer", model=ScriptedModel([call_tools(call("wait_long")), reply("x")]), tools=[wait_long]
    )
    writer = LlmAgent[None](
        name="writer",
        model=ScriptedModel([call_tools(call("summarizer", input="text")), reply("it failed")]),
        tools=[AgentAsTool(summarizer)],
    )

    async def during(handle: RunHandle) -> None:
        await _terminate_the_sub_run_in_its_tool(handle, temporal_address)

    outcome = on_temporal(temporal_address, [writer], "writer", "go", during=during)
    outputs = [e.item.output for e in outcome.events if isinstance(e, ToolOutputItem)]
    assert len(outputs) == 1 and "agent summarizer failed" in outputs[0]
    terminal = outcome.result.terminal
    assert isinstance(terminal, RunCompleted)
    assert [entry.agent for entry in terminal.usage_by_agent] == ["summarizer", "writer"]
    assert terminal.usage.requests == 3
