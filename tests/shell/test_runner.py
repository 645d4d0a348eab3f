"""`Runner`: installs its config, honours `timeout`, threads the session history."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import attrs
import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import SleepTool, drain, ephemeral, kinds

from helikon_fc import (
    AgentEvent,
    AgentInput,
    AssistantMessage,
    Cancelled,
    Handoff,
    HandoffCollisionError,
    InMemorySession,
    LlmAgent,
    OtherError,
    RunCompleted,
    RunConfig,
    RunContext,
    RunError,
    RunFailed,
    Runner,
    RunResultStreaming,
    RunStarted,
    TimedOut,
    ToolCall,
    ToolResult,
    UserMessage,
)
from helikon_fc.agents.protocol import RunStream
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

QUESTION = AgentInput.from_user_text("How am I doing?")


async def test_timeout_ends_a_ten_second_model_call_at_five(autojump_clock: trio.testing.MockClock) -> None:
    """A `Runner` timeout of 5 s ends a 10 s model call at 5 s, with `RunFailed(TimedOut(5))` last."""
    agent = LlmAgent(name="slow", model=ScriptedModel([reply("late", latency=10.0)]))
    start = trio.current_time()
    events = await drain(Runner(RunConfig(timeout=5.0)).run(agent, ephemeral(), QUESTION))
    assert trio.current_time() - start == 5.0
    assert kinds(events) == ["RunStarted", "TurnStarted", "RunFailed"]
    assert events[-1] == RunFailed(TimedOut(5.0))
    assert str(TimedOut(5.0)) == "run timed out after 5 s"


async def test_timeout_cancels_running_tools(autojump_clock: trio.testing.MockClock) -> None:
    """When the deadline passes while tools run, they are cancelled and never finish."""
    tool = SleepTool("slow", seconds=60)
    agent = LlmAgent(name="a", model=ScriptedModel([call_tools(call("slow")), reply("x")]), tools=[tool])
    with pytest.raises(RunError) as info:
        await RunResultStreaming(Runner(RunConfig(timeout=3)).run(agent, ephemeral(), QUESTION)).collect()
    assert info.value.error == TimedOut(3)
    assert tool.started == [0.0] and tool.finished == []
    assert trio.current_time() == 3.0


async def test_a_run_within_its_deadline_completes(autojump_clock: trio.testing.MockClock) -> None:
    """A run that ends before its deadline is untouched by it."""
    agent = LlmAgent(name="a", model=ScriptedModel([reply("in time", latency=4.9)]))
    result = await RunResultStreaming(Runner(RunConfig(timeout=5)).run(agent, ephemeral(), QUESTION)).collect()
    assert result.final_output == "in time"


async def test_runner_installs_its_config_on_the_context() -> None:
    """The agent's run context carries the runner's config, which wins over the agent's own."""
    seen: list[RunConfig | None] = []

    def instructions(ctx: RunContext[Any]) -> str:
        seen.append(ctx.run_config)
        return "Be brief."

    config = RunConfig(max_turns=4)
    agent = LlmAgent(
        name="a", model=ScriptedModel([reply("ok")]), instructions=instructions, run_config=RunConfig(max_turns=1)
    )
    ctx = ephemeral()
    await drain(Runner(config).run(agent, ctx, QUESTION))
    assert seen == [config]
    assert ctx.run_config is None  # the caller's context is not changed


async def test_session_history_goes_first_and_new_items_are_appended() -> None:
    """The runner prepends the session's history to the input and appends the run's new items when it ends."""
    ctx = ephemeral()
    tool = SleepTool("spent", seconds=0)
    first_model = ScriptedModel([call_tools(call("spent")), reply("You spent 120.")])
    agent = LlmAgent(name="a", model=first_model, tools=[tool])
    await drain(Runner().run(agent, ctx, QUESTION))
    assert await ctx.session.items() == (
        UserMessage("How am I doing?"),
        ToolCall("call_0_0", "spent", "{}"),
        ToolResult("call_0_0", "spent"),
        AssistantMessage("You spent 120.", "a"),
    )
    second_model = ScriptedModel([reply("Still 120.")])
    follow_up = AgentInput.from_user_text("And now?")
    await drain(Runner().run(agent.with_model(second_model), ctx, follow_up))
    assert list(second_model.requests[0].items) == [*(await ctx.session.items())[:4], UserMessage("And now?")]
    assert (await ctx.session.items())[4:] == (UserMessage("And now?"), AssistantMessage("Still 120.", "a"))


async def test_session_is_updated_before_the_terminal_event_arrives() -> None:
    """When the consumer sees the terminal event, the session already holds the run's items."""
    ctx = RunContext(None, session=InMemorySession([UserMessage("earlier")]))
    agent = LlmAgent(name="a", model=ScriptedModel([reply("ok")]))
    lengths: list[int] = []
    async with Runner().run(agent, ctx, QUESTION) as events:
        async for event in events:
            if isinstance(event, RunCompleted):
                lengths.append(len(await ctx.session.items()))
    assert lengths == [3]


async def test_a_failed_run_still_records_its_items() -> None:
    """A run that fails appends what it said before failing; one that could not start appends nothing."""
    ctx = ephemeral()
    agent = LlmAgent(name="a", model=ScriptedModel([]))
    events = await drain(Runner().run(agent, ctx, QUESTION))
    assert isinstance(events[-1], RunFailed)
    assert await ctx.session.items() == (UserMessage("How am I doing?"),)

    clash = LlmAgent(name="a", model=ScriptedModel([]), handoffs=[Handoff.to(agent), Handoff.to(agent)])
    with pytest.raises(HandoffCollisionError):
        async with Runner().run(clash, ctx, QUESTION):
            pass  # pragma: no cover
    assert len(await ctx.session.items()) == 1


async def test_runner_forwards_cancellation(autojump_clock: trio.testing.MockClock) -> None:
    """``ctx.cancel()`` under a runner ends the run with `RunFailed(Cancelled)`."""
    ctx = ephemeral()
    agent = LlmAgent(name="a", model=ScriptedModel([reply("late", latency=10)]))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: _cancel_after(ctx, 1))
        events = await drain(Runner().run(agent, ctx, QUESTION))
    assert events[0] == RunStarted("a")
    assert events[-1] == RunFailed(Cancelled("run cancelled"))


async def _cancel_after(ctx: RunContext[Any], seconds: float) -> None:
    await trio.sleep(seconds)
    ctx.cancel()


async def test_runner_collect_raises_a_failure_to_start() -> None:
    """Collected through a runner, a run that cannot start raises its `RunStartError` and leaves the session alone."""
    leaf = LlmAgent(name="leaf", model=ScriptedModel([]))
    clash = LlmAgent(name="a", model=ScriptedModel([]), handoffs=[Handoff.to(leaf), Handoff.to(leaf)])
    ctx = ephemeral()
    with pytest.raises(HandoffCollisionError):
        await RunResultStreaming(Runner().run(clash, ctx, QUESTION)).collect()
    assert len(await ctx.session.items()) == 0


async def test_leaving_a_runner_stream_early_cancels_the_run(autojump_clock: trio.testing.MockClock) -> None:
    """Leaving a runner's block mid-run cancels the agent's running tools and leaves no task behind."""
    tool = SleepTool("slow", seconds=30)
    agent = LlmAgent(name="a", model=ScriptedModel([call_tools(call("slow")), reply("x")]), tools=[tool])
    living = trio.lowlevel.current_statistics().tasks_living
    async with Runner().run(agent, ephemeral(), QUESTION) as events:
        async for event in events:
            if kinds([event]) == ["ToolCallItem"]:
                await trio.sleep(1)
                break
    assert tool.started == [0.0] and tool.finished == []
    assert trio.lowlevel.current_statistics().tasks_living == living
    await trio.sleep(60)
    assert tool.finished == []


@attrs.frozen
class BrokenTransportAgent:
    """A hand-written agent whose event stream (say, from a remote agent over a trio socket) breaks mid-run."""

    name: str = "remote"
    description: str = "An agent served elsewhere."

    def run(self, ctx: RunContext[Any], input: AgentInput) -> RunStream:
        @asynccontextmanager
        async def stream() -> AsyncIterator[AsyncIterator[AgentEvent]]:
            async def events() -> AsyncIterator[AgentEvent]:
                yield RunStarted(self.name)
                raise trio.BrokenResourceError("connection reset by peer")

            yield events()

        return stream()


async def test_an_agent_stream_breaking_the_trio_way_still_ends_with_one_terminal_event() -> None:
    """An agent's stream raising trio's `BrokenResourceError` is that run's failure, not the consumer leaving:
    the `Runner` stream still ends with `RunFailed`, and the items seen so far are recorded."""
    ctx = ephemeral()
    events = await drain(Runner().run(BrokenTransportAgent(), ctx, QUESTION))
    assert kinds(events) == ["RunStarted", "RunFailed"]
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, OtherError)
    assert "BrokenResourceError: connection reset by peer" in events[-1].error.message
    assert await ctx.session.items() == QUESTION.items
