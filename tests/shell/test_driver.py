"""The driver between transitions: what reaches the model, what reaches tools, what reaches the stream."""

from __future__ import annotations

import threading
from typing import Any

import attrs
import trio
from tests.shell.loop_fakes import SleepTool, drain, ephemeral, kinds

from helikon_fc import (
    AgentInput,
    AssistantMessage,
    LlmAgent,
    MessageOutput,
    Reasoning,
    ReasoningDelta,
    RunContext,
    RunResultStreaming,
    ToolCall,
    ToolCallDelta,
    ToolCallItem,
    ToolContext,
    ToolResult,
    Usage,
    UserMessage,
    function_tool,
)
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

QUESTION = AgentInput.from_user_text("How much on dining?")


async def test_the_second_turn_sees_calls_and_results_in_order() -> None:
    """The next request carries the input, the assistant's text, its calls and their results, in that order."""
    model = ScriptedModel([call_tools(call("a"), call("b"), text="Looking."), reply("Done.")])
    agent = LlmAgent(name="x", model=model, tools=[SleepTool("a", 0), SleepTool("b", 0)])
    await drain(agent.run(ephemeral(), QUESTION))
    assert list(model.requests[1].items) == [
        UserMessage("How much on dining?"),
        AssistantMessage("Looking.", "x"),
        ToolCall("call_0_0", "a", "{}"),
        ToolCall("call_0_1", "b", "{}"),
        ToolResult("call_0_0", "a"),
        ToolResult("call_0_1", "b"),
    ]


async def test_text_and_tool_calls_in_one_turn() -> None:
    """A turn with text and calls emits its `MessageOutput` then one `ToolCallItem` per call."""
    model = ScriptedModel([call_tools(call("a"), text="Let me check."), reply("ok")])
    events = await drain(LlmAgent(name="x", model=model, tools=[SleepTool("a", 0)]).run(ephemeral(), QUESTION))
    names = kinds(events)
    first_turn = names[: names.index("ToolOutputItem")]
    assert first_turn[-2:] == ["MessageOutput", "ToolCallItem"]
    assert MessageOutput(AssistantMessage("Let me check.", "x")) in events


async def test_reasoning_streams_live_and_joins_the_conversation() -> None:
    """Reasoning streams as `ReasoningDelta`s and is kept as a `Reasoning` item for the next turn."""
    model = ScriptedModel([call_tools(call("a"), reasoning="Need the ledger first."), reply("ok")])
    events = await drain(LlmAgent(name="x", model=model, tools=[SleepTool("a", 0)]).run(ephemeral(), QUESTION))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Need the ledger first."
    assert Reasoning("Need the ledger first.") in list(model.requests[1].items)


async def test_tool_call_deltas_name_the_call_once() -> None:
    """Each call's deltas carry its name once, on the first delta; the item has the whole arguments."""
    model = ScriptedModel([call_tools(call("a", category="dining", month=11)), reply("ok")])
    tool = SleepTool("a", 0)
    tool.parameters = {"type": "object"}
    events = await drain(LlmAgent(name="x", model=model, tools=[tool]).run(ephemeral(), QUESTION))
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert [d.name for d in deltas] == ["a"] + [None] * (len(deltas) - 1)
    (item,) = [e.item for e in events if isinstance(e, ToolCallItem)]
    assert item.arguments == "".join(d.args_delta for d in deltas) == '{"category":"dining","month":11}'


async def test_usage_adds_up_and_requests_are_counted_by_the_loop() -> None:
    """Usage sums over model turns; tools add nothing; `requests` counts model calls."""
    model = ScriptedModel(
        [
            call_tools(call("a"), usage=Usage(input_tokens=120, output_tokens=8, requests=5)),
            reply("ok", usage=Usage(input_tokens=208, output_tokens=12)),
        ]
    )
    result = await RunResultStreaming(
        LlmAgent(name="x", model=model, tools=[SleepTool("a", 0)]).run(ephemeral(), QUESTION)
    ).collect()
    assert result.usage == Usage(input_tokens=328, output_tokens=20, requests=2)


async def test_empty_instructions_are_none() -> None:
    """No instructions (or empty ones) reach the model as `None`."""
    for instructions in (None, ""):
        model = ScriptedModel([reply("ok")])
        await drain(LlmAgent(name="x", model=model, instructions=instructions).run(ephemeral(), QUESTION))
        assert model.requests[0].instructions is None


@attrs.define
class Profile:
    """A user context."""

    name: str
    lookups: int = 0


async def test_tools_see_the_run_context_and_share_state() -> None:
    """A `ToolContext` first parameter gets the user value and the run's shared state."""

    @function_tool
    def remember(ctx: ToolContext[Profile], note: str) -> str:
        """Remember a note.

        Args:
            note: What to remember.
        """
        ctx.user.lookups += 1
        ctx.run.state.set("note", note)
        return f"noted for {ctx.user.name}"

    profile = Profile("Ada")
    ctx = RunContext.ephemeral(profile)
    model = ScriptedModel([call_tools(call("remember", note="dining cap 300")), reply("ok")])
    agent: LlmAgent[Profile] = LlmAgent(name="x", model=model, tools=[remember])
    await drain(agent.run(ctx, QUESTION))
    assert profile.lookups == 1
    assert ctx.state.get("note") == "dining cap 300"
    assert ToolResult("call_0_0", "noted for Ada") in list(model.requests[1].items)


async def test_a_blocking_sync_tool_does_not_stall_its_siblings() -> None:
    """A sync tool that blocks runs in a thread: an async sibling of the same turn runs meanwhile."""
    sibling_ran = threading.Event()

    @function_tool
    def blocking() -> str:
        """Blocks until the sibling has run (or gives up after 10 s)."""
        return "sibling ran" if sibling_ran.wait(10) else "stalled"

    @function_tool
    async def sibling() -> str:
        """Runs while the blocking tool blocks."""
        await trio.sleep(0)
        sibling_ran.set()
        return "done"

    model = ScriptedModel([call_tools(call("blocking"), call("sibling")), reply("ok")])
    agent: LlmAgent[Any] = LlmAgent(name="x", model=model, tools=[blocking, sibling])
    await drain(agent.run(ephemeral(), QUESTION))
    results = [item for item in model.requests[1].items if isinstance(item, ToolResult)]
    assert [r.output for r in results] == ["sibling ran", "done"]
