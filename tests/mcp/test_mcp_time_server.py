"""Against a server nobody here wrote: the PyPI ``mcp-server-time``, over stdio."""

from __future__ import annotations

import json

from tests.mcp.servers import child_pids, results, run_to_end, time_server

from helikon_fc import LlmAgent, RunCompleted
from helikon_fc.core import ToolEffect
from helikon_fc.mcp import MCPTool
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


async def test_the_time_server_lists_its_tools_with_checked_schemas() -> None:
    """Its two tools come through with their schemas (compiled by our checker) and their read-only annotation."""
    server = time_server(prefix="time_")
    async with server, server.run_tools() as tools:
        listed = {tool.name: tool for tool in tools if isinstance(tool, MCPTool)}
    assert sorted(listed) == ["time_convert_time", "time_get_current_time"]
    convert = listed["time_convert_time"]
    assert convert.remote_name == "convert_time"
    assert set(convert.parameters["required"]) == {"source_timezone", "time", "target_timezone"}  # type: ignore[arg-type]
    assert {tool.effect for tool in listed.values()} == {ToolEffect.READ_ONLY}


async def test_a_simulated_model_converts_a_time_through_the_server() -> None:
    """The model's ``convert_time`` call runs on the real server; its structured answer is what the model reads."""
    children = child_pids()
    arguments = {"source_timezone": "Asia/Kolkata", "time": "14:30", "target_timezone": "Asia/Tokyo"}
    model = ScriptedModel([call_tools(call("convert_time", **arguments)), reply("18:00 in Tokyo")])
    agent = LlmAgent(name="clock", model=model, tools=[time_server()])
    events = await run_to_end(agent, "What is 14:30 in Kolkata in Tokyo?")
    (converted,) = results(events)
    assert isinstance(events[-1], RunCompleted) and not converted.is_error
    answer = json.loads(converted.output)
    assert answer["source"]["timezone"] == "Asia/Kolkata" and answer["target"]["timezone"] == "Asia/Tokyo"
    assert answer["target"]["datetime"].endswith("T18:00:00+09:00") and answer["time_difference"] == "+3.5h"
    assert child_pids() == children
