"""Acceptance: a server written with the mcp SDK's high-level `MCPServer` (as most real servers are), over stdio.

Its schemas are pydantic's (``$defs``, ``$ref``, ``anyOf`` with null, defaults), its results every kind of
content, its errors raised exceptions; tests/mcp/sdk_server.py is the server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio
from tests.mcp.servers import child_pids, live_tasks, pid_in, process_gone, results, run_to_end, wait_for
from tests.otel.spans import named, traced

from helikon_fc import LlmAgent, Permissions, RunCompleted, RunContext, RunFailed
from helikon_fc.core import Cancelled, PermissionConfig, PermissionDenied, PermissionMode, ToolEffect
from helikon_fc.mcp import MCPServerStdio, MCPTool
from helikon_fc.testing import ScriptedCall, ScriptedModel, call, call_tools, reply

SDK_SERVER = Path(__file__).with_name("sdk_server.py")


def _server(markers: Path, **options: object) -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [str(SDK_SERVER), str(markers)], **options)  # type: ignore[arg-type]


def _agent(server: MCPServerStdio, *turns: list[ScriptedCall]) -> LlmAgent[None]:
    model = ScriptedModel([*(call_tools(*calls) for calls in turns), reply("done")])
    return LlmAgent(name="a", model=model, tools=[server])


async def test_pydantic_schemas_compile_strictly_and_annotations_set_effects(tmp_path: Path) -> None:
    """Every tool is offered without lenient mode; ``$defs``/``$ref`` arguments are checked; effects follow hints."""
    server = _server(tmp_path)
    async with server, server.run_tools() as tools:
        listed = {tool.name: tool for tool in tools if isinstance(tool, MCPTool)}
    assert {"distance", "picture", "mixed", "explode", "tools.dotted-name", "slow", "count"} <= set(listed)
    assert listed["distance"].effect is ToolEffect.READ_ONLY and listed["distance"].retry_safe
    assert listed["explode"].effect is ToolEffect.SIDE_EFFECT and listed["picture"].effect is ToolEffect.SIDE_EFFECT
    assert "$defs" in listed["distance"].parameters
    bad = _agent(_server(tmp_path), [call("distance", a={"x": 0, "y": 0}, b={"x": "far"})])
    (refused,) = results(await run_to_end(bad, "go"))
    assert refused.is_error and "b" in str(refused.output)


async def test_every_kind_of_result_reaches_the_model(tmp_path: Path) -> None:
    """Structured output as JSON, an image and audio with their true size, resources and links as references,
    an exception as a tool error the run goes on after."""
    children = child_pids()
    distance = call("distance", a={"x": 0, "y": 0}, b={"x": 3, "y": 4})
    turns = [distance, call("picture"), call("mixed"), call("explode", reason="x"), call("count", n=2)]
    events = await run_to_end(_agent(_server(tmp_path), turns), "go")
    assert isinstance(events[-1], RunCompleted)
    measured, picture, mixed, exploded, counted = results(events)
    assert json.loads(measured.output) == {"meters": 5.0, "unit": "m"} and not measured.is_error
    assert picture.output == "[image image/png, 8 bytes not shown]"  # the PNG signature: 8 bytes
    assert mixed.output.splitlines() == [
        "here",
        "[audio audio/wav, 8 bytes not shown]",
        "[resource file:///a.md (text/markdown)]",
        "# A",
        "[resource link b.csv file:///b.csv (text/csv)]",
    ]
    assert exploded.is_error and "explode" in str(exploded.output)
    assert json.loads(counted.output) == {"result": [0, 1]} and not counted.is_error
    assert process_gone(pid_in(tmp_path)) and child_pids() == children


async def test_an_error_told_only_in_structured_content_reaches_the_model(tmp_path: Path) -> None:
    """``isError: true`` with ``structuredContent`` and no blocks: the model reads the structured value, not a
    generic message that drops it."""
    (refused,) = results(await run_to_end(_agent(_server(tmp_path), [call("refuse")]), "go"))
    assert refused.is_error and json.loads(refused.output) == {"code": 7, "why": "quota"}


async def test_plan_mode_runs_the_read_only_tool_and_denies_the_destructive_one(tmp_path: Path) -> None:
    """PLAN mode decides by the annotations the SDK server declared; ``effects=`` overrides one of them."""
    server = _server(tmp_path, effects={"picture": "read_only"})
    plan = RunContext.ephemeral(None).with_permissions(Permissions(config=PermissionConfig(mode=PermissionMode.PLAN)))
    turns = [call("distance", a={"x": 0, "y": 0}, b={"x": 0, "y": 1}), call("explode", reason="x"), call("picture")]
    events = await run_to_end(_agent(server, turns), "go", plan)
    assert [event.tool for event in events if isinstance(event, PermissionDenied)] == ["explode"]
    assert [r.is_error for r in results(events)] == [False, True, False]


async def test_list_changed_from_the_sdk_server_shows_the_new_tool_to_the_next_run(tmp_path: Path) -> None:
    """``ctx.notify_tools_changed()`` mid-run drops the cache: the next run of the open server offers ``added``."""
    server = _server(tmp_path)
    async with server:
        (grown,) = results(await run_to_end(_agent(server, [call("grow")]), "go"))
        (added,) = results(await run_to_end(_agent(server, [call("added")]), "go"))
    assert (grown.output, added.output, added.is_error) == ('{"result":"grown"}', '{"result":"added"}', False)


async def test_progress_and_logs_of_an_sdk_server_land_on_the_tool_span(tmp_path: Path) -> None:
    """``ctx.report_progress`` and ``ctx.info`` arrive as ``mcp.progress`` and ``mcp.log`` events on the span of
    every call (the SDK hands a log message to its own task: it must still land before the span ends)."""
    tracer, exporter = traced()
    agent = _agent(_server(tmp_path), *([call("slow")] for _ in range(6)))
    events = await run_to_end(agent, "go", RunContext(None, tracer=tracer))
    assert isinstance(events[-1], RunCompleted)
    spans = named(exporter.get_finished_spans(), "execute_tool slow")
    assert len(spans) == 6
    for span in spans:
        heard = {event.name: dict(event.attributes or {}) for event in span.events}
        assert heard["mcp.progress"]["mcp.message"] == "half" and heard["mcp.progress"]["mcp.total"] == 2.0
        assert heard["mcp.log"]["mcp.log.level"] == "info" and "working" in str(heard["mcp.log"]["mcp.log.data"])


async def test_a_cancelled_call_reaches_the_sdk_server_and_leaves_nothing(tmp_path: Path) -> None:
    """``ctx.cancel()`` mid-call: the SDK server's handler is cancelled (``notifications/cancelled``), the run
    ends Cancelled; the server, opened by the run, is gone and no task is left."""
    children, tasks = child_pids(), live_tasks()
    ctx = RunContext.ephemeral(None)

    async def cancel_when_waiting() -> None:
        await wait_for(tmp_path / "waiting")
        ctx.cancel("stop")

    server = _server(tmp_path)
    async with server:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(cancel_when_waiting)
            events = await run_to_end(_agent(server, [call("wait")]), "go", ctx)
        await wait_for(tmp_path / "cancelled")  # the handler was cancelled while the process lives on
        assert not process_gone(pid_in(tmp_path))
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, Cancelled)
    assert process_gone(pid_in(tmp_path)) and child_pids() == children and live_tasks() == tasks
