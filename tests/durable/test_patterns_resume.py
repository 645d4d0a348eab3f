"""Every pattern resumes: each crashed after each of its record writes in turn, then resumed, ends with
the uninterrupted run's terminal event (result and usage) and record logs, and never re-runs a
tool call whose result was recorded."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
import trio
from tests.durable.harness import CrashingStore, finished_calls, logs, settled

from helikon_fc import (
    AgentInput,
    Handoff,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunContext,
    Runner,
    SequentialAgent,
    SwarmAgent,
    ToolContext,
    function_tool,
)
from helikon_fc.agents.protocol import Agent
from helikon_fc.core import AgentEvent, MessageOutput, ModelRequest, ToolResult
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

Calls = list[tuple[str, str]]


def _effect_tool(calls: Calls) -> object:
    @function_tool
    async def effect(ctx: ToolContext[None], label: str) -> str:
        """Do something once.

        Args:
            label: what.
        """
        await trio.sleep(0.2 if label == "y" else 0.1)
        calls.append((ctx.run_id or "", ctx.call_id))
        if label == "escalate":
            ctx.actions.escalate()
        return f"did {label}"

    return effect


def _worker(name: str, calls: Calls, label: str = "x", handoff_to: str | None = None, **more: object) -> LlmAgent[None]:
    """Calls ``effect(label)`` twice at once, then answers, or (with `handoff_to`) transfers."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        if not any(isinstance(item, ToolResult) and item.call_id.startswith(name) for item in request.items):
            return call_tools(
                call("effect", label=label).with_id(f"{name}-0"), call("effect", label="y").with_id(f"{name}-1")
            )
        if handoff_to is not None:
            return call_tools(call(f"transfer_to_{handoff_to}").with_id(f"{name}-h"))
        return reply(f"{name} answered")

    return LlmAgent(name=name, model=FunctionModel(turn), tools=[_effect_tool(calls)], **more)  # type: ignore[arg-type, list-item]


def sequential(calls: Calls) -> Agent[None]:
    return SequentialAgent("seq").then(_worker("one", calls)).then(_worker("two", calls))


def parallel(calls: Calls) -> Agent[None]:
    return ParallelAgent("par").add(_worker("left", calls)).add(_worker("right", calls))


def loop(calls: Calls) -> Agent[None]:
    return LoopAgent("loop", max_iterations=3).then(_worker("step", calls)).then(_worker("check", calls, "escalate"))


def swarm(calls: Calls) -> Agent[None]:
    return (
        SwarmAgent.builder()
        .name("swarm")
        .member(_worker("first", calls, handoff_to="second"))
        .member(_worker("second", calls))
        .entry("first")
        .build()
    )


def handoff_chain(calls: Calls) -> Agent[None]:
    last = _worker("c", calls)
    middle = _worker("b", calls, handoff_to="c", handoffs=[Handoff.to(last)])
    return _worker("a", calls, handoff_to="b", handoffs=[Handoff.to(middle)])


async def _run(store: object, agent: Agent[None], *, resume: bool) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    runner = Runner(store=store)  # type: ignore[arg-type]
    ctx = RunContext.ephemeral(None)
    stream = (
        runner.resume("p", agent, ctx)
        if resume
        else runner.run(agent, ctx, AgentInput.from_user_text("go"), run_id="p")
    )
    async with stream as received:
        async for event in received:
            events.append(event)
    return events


@pytest.mark.parametrize("build", [sequential, parallel, loop, swarm, handoff_chain])
async def test_every_pattern_resumes_after_a_crash_at_any_write(
    build: Callable[[Calls], Agent[None]], autojump_clock: object
) -> None:
    """A crash after write N, for every N, resumes to the uninterrupted end; recorded calls never run twice."""
    baseline_calls: Calls = []
    baseline_store = MemoryStore()
    baseline = await _run(baseline_store, build(baseline_calls), resume=False)
    baseline_log = await logs(baseline_store)
    writes = sum(len(records) for records in baseline_log.values())
    assert writes > 5
    for after in range(1, writes):
        store = MemoryStore()
        calls: Calls = []
        with trio.CancelScope() as scope:
            await _run(CrashingStore(store, after, scope), build(calls), resume=False)
        recorded = finished_calls(await logs(store))
        resumed = await _run(store, build(calls), resume=True)
        assert settled(resumed[-1]) == settled(baseline[-1]), (build.__name__, after)
        assert await logs(store) == baseline_log, (build.__name__, after)
        counts = Counter(calls)
        assert set(counts) == set(baseline_calls)
        for key in recorded & set(counts):
            assert counts[key] == 1, (after, key)
    texts = [event.item.text for event in baseline if isinstance(event, MessageOutput)]
    assert texts
