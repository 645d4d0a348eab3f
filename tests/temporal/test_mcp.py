"""MCP servers on Temporal: the worker keeps its agents' servers open, listing is in history, calls are activities."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
import trio
from temporalio.client import Client, WorkflowHistory
from tests.mcp.servers import fault_server, process_gone, run_to_end

from helikon_fc import LlmAgent
from helikon_fc.core import RunCompleted, ToolOutputItem
from helikon_fc.mcp import MCPServerError
from helikon_fc.temporal import HelikonWorker
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

from .harness import on_temporal, without_deltas


def _agent(markers: Path) -> LlmAgent[None]:
    model = ScriptedModel([call_tools(call("echo", text="one")), call_tools(call("data"), call("fail")), reply("done")])
    return LlmAgent(name="mcp", model=model, tools=[fault_server("serve", markers)])


def _describe_results(history: WorkflowHistory) -> list[str]:
    """The results of the run's completed activities that carry a model loop's plan (its ``describe`` calls)."""
    found = []
    for event in history.events:
        if event.HasField("activity_task_completed_event_attributes"):
            for payload in event.activity_task_completed_event_attributes.result.payloads:
                text = payload.data.decode()
                if '"ctx_json"' in text:
                    found.append(text)
    return found


def test_a_run_calls_mcp_tools_as_activities_on_one_server_the_worker_keeps(
    temporal_address: str, tmp_path: Path
) -> None:
    """The same events as on trio; one server process served the whole run and stopped with the worker."""
    agent = _agent(tmp_path)
    outcome = on_temporal(temporal_address, [agent], "mcp", "go")
    (pid,) = map(int, (tmp_path / "pids").read_text().split())  # the worker's one server
    assert process_gone(pid)
    assert isinstance(outcome.result.terminal, RunCompleted)
    outputs = [(e.item.output, e.item.is_error) for e in outcome.events if isinstance(e, ToolOutputItem)]
    assert outputs == [("one", False), ('{"a":1,"b":[2,3]}', False), ("disk is full", True)]
    on_trio = trio.run(run_to_end, agent, "go")  # in real time: the simulator's clock would time the server out
    assert outcome.events == without_deltas(on_trio)
    (plan,) = _describe_results(outcome.histories[0])  # the listing is in the run's history (and replays from it)
    offered = json.loads(json.loads(plan)["ctx_json"])["tools"]
    echo = next(tool for tool in offered if tool["name"] == "echo")
    assert echo["description"] == "Echo the text." and echo["parameters"]["required"] == ["text"]


def test_a_worker_whose_mcp_server_cannot_start_fails_to_start_naming_it(temporal_address: str, tmp_path: Path) -> None:
    """The server exits at start: entering the worker raises the server's error, with its stderr."""
    agent = LlmAgent(name="broken", model=ScriptedModel([reply("x")]), tools=[fault_server("exit", tmp_path)])

    async def main() -> None:
        client = await Client.connect(temporal_address)
        async with HelikonWorker(client, f"q-{uuid.uuid4()}", agents=[agent]):
            raise AssertionError("the worker started")

    with pytest.raises(MCPServerError, match=r"fault_server\.py exit.*no licence for this host"):
        asyncio.run(main())
