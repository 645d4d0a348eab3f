"""AgentAsTool: a sub-agent as a tool with one string argument, isolated, depth-guarded, failures as results."""

from __future__ import annotations

import pytest
import trio
from tests.agents.workflow_fakes import FakeAgent, Timeline, drain

from helikon_fc.agents.agent_as_tool import AgentAsTool
from helikon_fc.agents.llm_agent import LlmAgent
from helikon_fc.core import (
    AgentUsage,
    MaxTurnsExceeded,
    ModelShare,
    RunCompleted,
    ToolOutputItem,
    ToolResult,
    Usage,
    UserMessage,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.tools.tool import Tool, ToolContext, ToolError, tool_def
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, fail, reply

SUMMARY = "- one\n- two\n- three"


def summarizer(*turns: ScriptedTurn) -> LlmAgent[None]:
    return LlmAgent(
        name="summarizer",
        description="Condenses a block of text to three bullet points.",
        model=ScriptedModel(turns or (reply(SUMMARY),), name="summarizer"),
        instructions="Summarize the input as three concise bullets.",
    )


def writer(tool: AgentAsTool[None], *turns: ScriptedTurn) -> LlmAgent[None]:
    return LlmAgent(
        name="writer",
        model=ScriptedModel(turns, name="writer"),
        instructions="Draft replies. Call the `summarizer` tool when you need a digest.",
        tools=(tool,),
    )


def test_name_and_description_default_to_the_agents_and_can_be_overridden() -> None:
    """Seed: "override the exposed name and description with .with_name(...) / .with_description(...) (they default
    to the wrapped agent's own). The tool advertises a single string argument, input."""
    tool = AgentAsTool(summarizer())
    assert (tool.name, tool.description) == ("summarizer", "Condenses a block of text to three bullet points.")
    renamed = tool.with_name("digest").with_description("Make a digest.")
    assert (renamed.name, renamed.description) == ("digest", "Make a digest.")
    assert tool.name == "summarizer"  # immutable: the original is unchanged
    assert tool.parameters["required"] == ["input"]
    assert tool.parameters["properties"] == {
        "input": {"type": "string", "description": "What to ask the agent, in plain words."}
    }
    assert tool_def(tool).name == "summarizer"
    assert tool_def(tool).strict
    assert isinstance(tool, Tool)


async def test_the_parent_reads_the_sub_agents_final_output_and_keeps_going() -> None:
    """Seed: "The parent agent calls it like any other tool, receives the wrapped agent's final_output as a
    ToolOutput, and keeps reasoning." and "AgentAsTool is request/response: control always returns."""
    parent = writer(
        AgentAsTool(summarizer()),
        call_tools(call("summarizer", input="long text"), latency=0.5),
        reply("Here is the digest."),
    )
    events = await drain(parent.run(RunContext.ephemeral(None), AgentInput.from_user_text("draft")))
    outputs = [e.item for e in events if isinstance(e, ToolOutputItem)]
    assert outputs == [ToolResult("call_0_0", SUMMARY)]
    # Issue 9: the sub-run's model call is part of the parent's cost (it reported 2 requests where 3 were made).
    writer_usage = Usage(input_tokens=20, output_tokens=10, requests=2)
    summarizer_usage = Usage(input_tokens=10, output_tokens=5, requests=1)
    assert events[-1] == RunCompleted(
        writer_usage + summarizer_usage,
        (AgentUsage("summarizer", summarizer_usage), AgentUsage("writer", writer_usage)),
        (ModelShare("summarizer", "summarizer", summarizer_usage), ModelShare("writer", "writer", writer_usage)),
    )


async def test_the_sub_run_is_isolated_from_the_parent_session_and_state() -> None:
    """Seed: "The sub-run is isolated: it gets a fresh in-memory session and empty hooks, so the wrapped agent's
    internal turns never touch the parent's session log"."""
    timeline = Timeline()
    sub = FakeAgent("sub", answer="ok", timeline=timeline)
    parent_ctx = RunContext.ephemeral(None)
    parent_ctx.state.set("secret", "parent only")
    await parent_ctx.session.append([UserMessage("earlier")])
    tool = AgentAsTool[None](sub)
    child = tool.sub_run_context(parent_ctx, "tool:c1")
    assert child.session is not parent_ctx.session and await child.session.items() == ()
    assert child.state.get("secret") is None
    assert child.agent_depth == parent_ctx.agent_depth + 1
    assert child.user is parent_ctx.user
    output = await tool.invoke(ToolContext(parent_ctx, "c1", "sub"), {"input": "hello"})
    assert output.content == "ok"
    assert timeline.inputs["sub"] == [AgentInput.from_user_text("hello")]
    assert len(await parent_ctx.session.items()) == 1 and parent_ctx.state.keys() == ("secret",)


def test_the_sub_run_uses_its_own_run_config() -> None:
    """Seed: "it runs under its own RunConfig (the parent's max_turns / timeout do not cross the boundary)"."""
    parent_ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_turns=1, timeout=3.0))
    assert AgentAsTool(summarizer()).sub_run_context(parent_ctx, "tool:c1").run_config is None
    own = RunConfig(max_turns=4)
    assert AgentAsTool(summarizer()).with_run_config(own).sub_run_context(parent_ctx, "tool:c1").run_config == own


async def test_cancellation_crosses_into_the_sub_run(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "What does cross: the user context, tracer, cancel token, the nesting-depth counter" — cancelling the
    parent cancels a sub-run in flight."""
    parent_ctx = RunContext.ephemeral(None)
    tool = AgentAsTool(summarizer(reply("late", latency=100.0)))
    seen: list[str] = []

    async def call_tool() -> None:
        try:
            await tool.invoke(ToolContext(parent_ctx, "c1", "summarizer"), {"input": "x"})
        except ToolError as exc:
            seen.append(str(exc))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call_tool)
        await trio.sleep(1.0)
        parent_ctx.cancel()
    assert trio.current_time() == 1.0
    assert seen == ["agent summarizer failed: run cancelled"]


async def test_a_call_beyond_max_agent_depth_is_an_error_result() -> None:
    """Seed: "the nesting-depth counter (still capped by max_agent_depth)" — a call that would nest too deep
    returns an error result to the model and never starts the sub-agent."""
    sub = FakeAgent("sub")
    parent = writer(
        AgentAsTool[None](sub).with_name("summarizer"),
        call_tools(call("summarizer", input="x")),
        reply("could not"),
    )
    ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_agent_depth=0))
    events = await drain(parent.run(ctx, AgentInput.from_user_text("draft")))
    (result,) = [e.item for e in events if isinstance(e, ToolOutputItem)]
    assert result.is_error
    assert result.output == "agent nesting depth (1) exceeded max (0)"
    assert sub.runs == [0]
    assert isinstance(events[-1], RunCompleted)


async def test_a_failed_sub_run_is_an_error_result_not_a_failed_parent() -> None:
    """Issue 4: "A failed sub-run is an error result for the parent's model, not a failed parent run."""
    tool = AgentAsTool(summarizer(fail("rate limited")))
    parent = writer(tool, call_tools(call("summarizer", input="x")), reply("I will summarize myself."))
    events = await drain(parent.run(RunContext.ephemeral(None), AgentInput.from_user_text("draft")))
    (result,) = [e.item for e in events if isinstance(e, ToolOutputItem)]
    assert result.is_error
    assert result.output.startswith("agent summarizer failed: model failed")
    assert isinstance(events[-1], RunCompleted)


async def test_missing_or_non_string_input_is_an_error_result() -> None:
    """The single argument must be a string: anything else is an error result the model reads."""
    sub = FakeAgent("sub")
    parent = writer(AgentAsTool[None](sub), call_tools(call("sub", input=3), call("sub")), reply("ok"))
    events = await drain(parent.run(RunContext.ephemeral(None), AgentInput.from_user_text("x")))
    results = [e.item for e in events if isinstance(e, ToolOutputItem)]
    assert [r.is_error for r in results] == [True, True]
    assert sub.runs == [0]


async def test_a_sub_agent_that_fails_with_its_own_limits_reports_them() -> None:
    """The sub-run's own max_turns applies: a sub-agent that loops on tools fails, and the parent reads why."""
    looping = LlmAgent(
        name="looper",
        model=ScriptedModel([call_tools(call("looper_tool"))] * 3, name="looper"),
        run_config=RunConfig(max_turns=2),
    )
    tool = AgentAsTool[None](looping)
    with pytest.raises(ToolError) as info:
        await tool.invoke(ToolContext(RunContext.ephemeral(None), "c", "looper"), {"input": "go"})
    assert str(info.value) == f"agent looper failed: {MaxTurnsExceeded(2)}"
