"""Hooks in real model-loop runs: the points, their order and their effects (original-notes section 8, and the
per-call pipeline of section 3.2)."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing
from tests.control.control_fakes import collect, logging_hook, lookup_tool, names

from helikon_fc import AgentInput, Handoff, LlmAgent, RunConfig, RunContext, Runner, ToolError, function_tool
from helikon_fc.core import (
    AgentUpdated,
    HandoffItem,
    HookDenied,
    HookFailed,
    ModelRequest,
    RunCompleted,
    SystemMessage,
    ToolCallItem,
    ToolOutputItem,
    ToolResult,
    TurnStarted,
)
from helikon_fc.shell.control.hooks import (
    Deny,
    HookDecision,
    HookPoint,
    Hooks,
    InjectSystemMessage,
    OnHandoff,
    OnRunStart,
    OnTurnStart,
    PostToolUse,
    PreToolUse,
    ReplaceInput,
    ReplaceOutput,
)
from helikon_fc.testing import FunctionModel, ScriptedModel, call, call_tools, reply, run_simulated
from helikon_fc.testing.script import ScriptedTurn


def _results(request: ModelRequest) -> list[ToolResult]:
    return [item for item in request.items if isinstance(item, ToolResult)]


def _one_lookup(requests: list[ModelRequest]) -> FunctionModel:
    """A model that calls ``lookup(key="k")`` once, then answers with the tool's output."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        requests.append(request)
        results = _results(request)
        return reply(f"got {results[0].output}") if results else call_tools(call("lookup", key="k").with_id("c1"))

    return FunctionModel(turn)


async def test_points_fire_in_order_agent_hooks_before_run_hooks(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8: "agent-level hooks then run-level registry, sequentially", at each point of a one-tool run;
    OnRunComplete last, after the terminal event went out."""
    log: list[str] = []
    calls: list[str] = []
    agent = LlmAgent(name="a", model=_one_lookup([]), tools=[lookup_tool(calls)], hooks=[logging_hook(log, "agent")])
    ctx = RunContext.ephemeral(None).with_hooks(logging_hook(log, "run"))
    events = await collect(agent.run(ctx, AgentInput.from_user_text("hi")))
    assert isinstance(events[-1], RunCompleted) and calls == ["k"]
    points = [
        "run_start:a", "turn_start:0", "pre:lookup", "post:lookup", "turn_start:1", "run_complete:a"
    ]  # fmt: skip
    assert log == [f"{who}:{point}" for point in points for who in ("agent", "run")]


async def test_run_complete_fires_after_the_terminal_event_is_delivered(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 8: "OnRunComplete fires on the Terminate action (after the terminal event was yielded)"."""
    log: list[str] = []
    agent = LlmAgent(name="a", model=ScriptedModel([reply("done")]), hooks=[logging_hook(log, "hook")])
    async with agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("hi")) as events:
        async for event in events:
            log.append(type(event).__name__)
    assert log[-2:] == ["RunCompleted", "hook:run_complete:a"]


async def test_a_deny_at_run_start_aborts_before_any_model_call(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8 / 2.5: "OnRunStart Deny -> hook denied E: R"; zero model calls, no OnRunComplete."""
    log: list[str] = []
    requests: list[ModelRequest] = []
    deny = logging_hook(log, "h", lambda p: Deny("closed for maintenance") if isinstance(p, OnRunStart) else None)
    agent = LlmAgent(name="a", model=_one_lookup(requests), tools=[lookup_tool([])], hooks=[deny])
    sim = await run_simulated(agent, "hi")
    assert sim.error == HookDenied("on_run_start", "closed for maintenance")
    assert names(list(sim.events)) == ["RunStarted", "RunFailed"]
    assert requests == [] and log == ["h:run_start:a"]


async def test_a_deny_at_turn_start_stops_before_that_turn_is_announced(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8 / 2.1: "OnTurnStart ... Deny aborts BEFORE TurnStarted is yielded"; the tool round's outputs
    before it are delivered; the model is called once."""
    requests: list[ModelRequest] = []
    deny = logging_hook([], "h", lambda p: Deny("one turn only") if p == OnTurnStart(1) else None)
    agent = LlmAgent(name="a", model=_one_lookup(requests), tools=[lookup_tool([])], hooks=[deny])
    sim = await run_simulated(agent, "hi")
    assert sim.error == HookDenied("on_turn_start", "one turn only")
    assert len(requests) == 1
    assert isinstance(sim.events[-2], ToolOutputItem)
    assert TurnStarted(1) not in sim.events


async def test_injections_go_into_the_next_request_only_and_are_never_stored(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 8: "Injections honoured only from OnRunStart and OnTurnStart: appended as System items at the END
    of the next model request only, never stored in conversation/session"."""
    requests: list[ModelRequest] = []

    def inject(point: HookPoint) -> HookDecision | None:
        match point:
            case OnRunStart():
                return InjectSystemMessage("from run start")
            case OnTurnStart(turn=turn):
                return InjectSystemMessage(f"from turn {turn}")
            case PreToolUse():
                return InjectSystemMessage("ignored at a tool call")
        return None

    agent = LlmAgent(
        name="a", model=_one_lookup(requests), tools=[lookup_tool([])], hooks=[logging_hook([], "h", inject)]
    )
    ctx = RunContext.ephemeral(None)
    runner = Runner(RunConfig())
    events = await collect(runner.run(agent, ctx, AgentInput.from_user_text("hi")))
    assert isinstance(events[-1], RunCompleted)
    first, second = requests
    assert list(first.items)[-2:] == [SystemMessage("from run start"), SystemMessage("from turn 0")]
    assert list(second.items)[-1] == SystemMessage("from turn 1")
    assert SystemMessage("from run start") not in list(second.items)
    assert SystemMessage("ignored at a tool call") not in list(second.items)
    stored = await ctx.session.items()
    assert not any(isinstance(item, SystemMessage) and item.text.startswith("from") for item in stored)


async def test_pre_tool_use_deny_blocks_the_call(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: "blocked by PreToolUse hook: R" is the call's result; the tool never runs."""
    calls: list[str] = []
    requests: list[ModelRequest] = []
    deny = logging_hook([], "h", lambda p: Deny("not today") if isinstance(p, PreToolUse) else None)
    agent = LlmAgent(name="a", model=_one_lookup(requests), tools=[lookup_tool(calls)], hooks=[deny])
    sim = await run_simulated(agent, "hi")
    assert calls == []
    assert _results(requests[1]) == [ToolResult("c1", "blocked by PreToolUse hook: not today", is_error=True)]
    assert sim.result is not None


async def test_pre_tool_use_replaces_the_arguments_and_they_are_checked_again(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 8: ReplaceInput on PreToolUse becomes the call's arguments; arguments off the schema are an error
    result (checked again, as the tool's schema demands)."""
    calls: list[str] = []
    requests: list[ModelRequest] = []
    swap = logging_hook([], "h", lambda p: ReplaceInput({"key": "swapped"}) if isinstance(p, PreToolUse) else None)
    agent = LlmAgent(name="a", model=_one_lookup(requests), tools=[lookup_tool(calls)], hooks=[swap])
    await run_simulated(agent, "hi")
    assert calls == ["swapped"]
    assert _results(requests[1]) == [ToolResult("c1", "value of swapped")]

    requests.clear()
    bad = logging_hook([], "h", lambda p: ReplaceInput({"key": 7}) if isinstance(p, PreToolUse) else None)
    await run_simulated(agent.with_model(_one_lookup(requests)).with_hooks(bad), "hi")
    (result,) = _results(requests[1])
    assert result.is_error and "$.key: expected string" in result.output


async def test_post_tool_use_replaces_or_blocks_a_successful_output(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8 / 3.2: PostToolUse (success only) may replace the output (JSON as compact text) or block it."""
    requests: list[ModelRequest] = []
    seen: list[object] = []

    def replace(point: HookPoint) -> HookDecision | None:
        if isinstance(point, PostToolUse):
            seen.append(point.output)
            return ReplaceOutput({"masked": True})
        return None

    agent = LlmAgent(
        name="a", model=_one_lookup(requests), tools=[lookup_tool([])], hooks=[logging_hook([], "h", replace)]
    )
    await run_simulated(agent, "hi")
    assert seen == ["value of k"]
    assert _results(requests[1]) == [ToolResult("c1", '{"masked":true}')]

    requests.clear()
    block = logging_hook([], "h", lambda p: Deny("secret") if isinstance(p, PostToolUse) else None)
    await run_simulated(agent.with_model(_one_lookup(requests)).with_hooks(block), "hi")
    assert _results(requests[1]) == [ToolResult("c1", "blocked by PostToolUse hook: secret", is_error=True)]


async def test_post_tool_use_does_not_fire_for_a_failed_call(autojump_clock: trio.testing.MockClock) -> None:
    """Section 3.2: "PostToolUse hook (success only)": a failing tool's error result passes it by."""
    log: list[str] = []

    @function_tool
    async def broken() -> str:
        """Always fails."""
        raise ToolError("backend down")

    model = ScriptedModel([call_tools(call("broken")), reply("ok")])
    agent = LlmAgent(name="a", model=model, tools=[broken], hooks=[logging_hook(log, "h")])
    await run_simulated(agent, "hi")
    assert "h:pre:broken" in log and "h:post:broken" not in log


async def test_a_raising_tool_hook_fails_the_run_and_cancels_the_round(autojump_clock: trio.testing.MockClock) -> None:
    """Issue 11: "a hook that raises fails the run with a typed error" — also inside the tool round, whose other
    calls are cancelled."""
    finished: list[str] = []

    @function_tool
    async def slow(seconds: float) -> str:
        """Wait.

        Args:
            seconds: how long.
        """
        await trio.sleep(seconds)
        finished.append(str(seconds))
        return "done"

    async def hook(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        if isinstance(point, PostToolUse):
            raise RuntimeError("audit log unreachable")
        return None

    model = ScriptedModel([call_tools(call("slow", seconds=1.0), call("slow", seconds=5.0)), reply("never")])
    agent = LlmAgent(name="a", model=model, tools=[slow], hooks=[hook])
    sim = await run_simulated(agent, "hi")
    assert sim.error == HookFailed("post_tool_use", "RuntimeError: audit log unreachable")
    assert finished == ["1.0"] and sim.elapsed == 1


async def test_a_raising_start_hook_fails_the_run(autojump_clock: trio.testing.MockClock) -> None:
    """A hook raising at OnTurnStart fails the run with HookFailed before the model is called."""

    async def hook(ctx: RunContext[None], point: HookPoint) -> HookDecision | None:
        if isinstance(point, OnTurnStart):
            raise KeyError("tenant")
        return None

    requests: list[ModelRequest] = []
    sim = await run_simulated(LlmAgent(name="a", model=_one_lookup(requests), hooks=[hook]), "hi")
    assert sim.error == HookFailed("on_turn_start", "KeyError: 'tenant'") and requests == []


def _handoff_pair(log: list[str], parent_hooks: list[object] | None = None) -> LlmAgent[None]:
    target = LlmAgent(name="b", model=ScriptedModel([reply("from b")]), hooks=[logging_hook(log, "b-own")])
    return LlmAgent(
        name="a",
        model=ScriptedModel([call_tools(call("transfer_to_b"))]),
        handoffs=[Handoff.to(target)],
        hooks=parent_hooks if parent_hooks is not None else [logging_hook(log, "a-own")],  # type: ignore[arg-type]
    )


async def test_a_handoff_shares_the_run_hooks_and_reports_the_child_stop(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Section 8: OnHandoff before the switch; "Handoff child shares the run registry, so run-level OnRunStart
    fires again for the target"; OnSubagentStop after the child's stream ends, "parent then returns without
    OnRunComplete"."""
    log: list[str] = []
    ctx = RunContext.ephemeral(None).with_hooks(logging_hook(log, "run"))
    sim = await run_simulated(_handoff_pair(log), "hi", ctx)
    assert sim.result is not None and sim.result.final_output == "from b"
    assert log == [
        "a-own:run_start:a", "run:run_start:a", "a-own:turn_start:0", "run:turn_start:0",
        "a-own:handoff:a->b", "run:handoff:a->b",
        "b-own:run_start:b", "run:run_start:b", "b-own:turn_start:0", "run:turn_start:0",
        "b-own:run_complete:b", "run:run_complete:b",
        "run:subagent_stop:b",
    ]  # fmt: skip


async def test_a_deny_on_handoff_means_no_switch_is_observed(autojump_clock: trio.testing.MockClock) -> None:
    """Section 8: "OnHandoff fires before HandoffItem/AgentUpdated so a Deny means no switch is observed"."""
    log: list[str] = []
    deny = logging_hook(log, "a-own", lambda p: Deny("stay here") if isinstance(p, OnHandoff) else None)
    sim = await run_simulated(_handoff_pair(log, [deny]), "hi")
    assert sim.error == HookDenied("on_handoff", "stay here")
    assert not any(isinstance(e, HandoffItem | AgentUpdated) for e in sim.events)
    assert any(isinstance(e, ToolCallItem) for e in sim.events)
    assert not any(entry.startswith("b-own") for entry in log)


def test_hooks_are_checked_when_the_agent_is_built() -> None:
    """Issue 9's message shape: a sync function, a non-callable, a lone hook are refused at construction."""

    def sync_hook(ctx: RunContext[None], point: HookPoint) -> None:
        return None

    async def hook(ctx: RunContext[None], point: HookPoint) -> None:
        return None

    model = ScriptedModel([reply("x")])
    with pytest.raises(TypeError, match=r"Hooks: hooks\[0\] must be an async callable.*async def"):
        LlmAgent(name="a", model=model, hooks=[sync_hook])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"Hooks: hooks must be an iterable of hooks.*wrap one hook in a list"):
        LlmAgent(name="a", model=model, hooks=hook)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Hooks: hooks\[0\] must be an async callable"):
        RunContext.ephemeral(None).with_hooks(42)  # type: ignore[arg-type]
    assert LlmAgent(name="a", model=model, hooks=Hooks([hook])).hooks == Hooks([hook])
    assert json.dumps(None) == "null"
