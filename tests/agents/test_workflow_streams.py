"""What every workflow agent's stream guarantees: one RunStarted first, one terminal event last, children's
events merged, cancellation and early exit without leaks, failures to start as data."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
from tests.agents.workflow_fakes import INPUT, FakeAgent, drain

from helikon_fc.agents.graph import GraphAgent
from helikon_fc.agents.llm_agent import LlmAgent
from helikon_fc.agents.loop import LoopAgent
from helikon_fc.agents.parallel import ParallelAgent
from helikon_fc.agents.protocol import Agent, RunStream
from helikon_fc.agents.sequential import SequentialAgent
from helikon_fc.core import (
    AgentEvent,
    Cancelled,
    OtherError,
    RunCompleted,
    RunFailed,
    RunStarted,
    TimedOut,
    TurnStarted,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.loop.results import RunResultStreaming
from helikon_fc.shell.loop.runner import Runner
from helikon_fc.testing import ScriptedModel, reply, run_simulated


def slow_llm(name: str) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel([reply("late", latency=100.0)], name=name))


def workflows(child: Agent[None]) -> list[Agent[None]]:
    return [
        SequentialAgent[None]("seq").then(child),
        ParallelAgent[None]("par").add(child),
        LoopAgent[None]("loop", "", 2).then(child),
        GraphAgent[None].builder().name("graph").node("n", child).build(),
    ]


@pytest.mark.parametrize("index", range(4))
async def test_cancel_from_outside_ends_with_run_failed_cancelled(
    index: int, autojump_clock: trio.testing.MockClock
) -> None:
    """Python surface: "ctx.cancel() cancels the run from outside (from any task): it ends with RunFailed(Cancelled)
    as its last event." — for every workflow agent, with a child still running."""
    agent = workflows(slow_llm("child"))[index]
    ctx = RunContext.ephemeral(None)
    events: list[AgentEvent] = []
    async with trio.open_nursery() as nursery:

        async def consume() -> None:
            events.extend(await drain(agent.run(ctx, INPUT)))

        nursery.start_soon(consume)
        await trio.sleep(2.0)
        ctx.cancel()
    assert trio.current_time() == 2.0
    assert events[0] == RunStarted(agent.name)
    assert events[-1] == RunFailed(Cancelled())
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]


@pytest.mark.parametrize("index", range(4))
async def test_leaving_the_stream_early_cancels_the_children(
    index: int, autojump_clock: trio.testing.MockClock
) -> None:
    """Python surface: "leaving the block early cancels the run and leaks no task." — left while the slow child
    waits on its model, the block exits at once and no task of the run is left."""
    agent = workflows(slow_llm("child"))[index]
    tasks_before = trio.lowlevel.current_statistics().tasks_living
    seen: list[AgentEvent] = []
    async with agent.run(RunContext.ephemeral(None), INPUT) as events:
        async for event in events:
            seen.append(event)
            if isinstance(event, TurnStarted):  # the child is in its 100 s model call now
                break
    assert seen[0] == RunStarted(agent.name) and isinstance(seen[-1], TurnStarted)
    assert trio.current_time() == 0.0
    assert trio.lowlevel.current_statistics().tasks_living == tasks_before


class _CannotStart:
    name = "broken"
    description = "raises when entered"

    def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
        return self._run()

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
        raise RuntimeError("no model configured")
        yield  # pragma: no cover


class _NoTerminal:
    name = "mute"
    description = "ends without a terminal event"

    def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
        return self._run()

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
        async def events() -> AsyncIterator[AgentEvent]:
            yield RunStarted("mute")

        yield events()


async def test_a_child_that_cannot_start_fails_the_workflow_as_data() -> None:
    """A child whose run stream raises on entry (a failure to start) becomes the workflow's RunFailed, not an
    exception out of the stream."""
    events = await drain(SequentialAgent[None]("seq").then(_CannotStart()).run(RunContext.ephemeral(None), INPUT))
    assert events[-1] == RunFailed(OtherError("could not start: RuntimeError: no model configured"))


async def test_a_child_stream_without_a_terminal_event_is_a_failure() -> None:
    """A child stream that ends without RunCompleted/RunFailed is reported as that child's failure."""
    events = await drain(SequentialAgent[None]("seq").then(_NoTerminal()).run(RunContext.ephemeral(None), INPUT))
    assert events[-1] == RunFailed(OtherError("agent 'mute' ended its stream without a terminal event"))


async def test_dynamic_instructions_read_the_previous_steps_output(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "A later step can read it through a dynamic Instructions closure." — the writer's instructions see the
    researcher's notes as a plain string (the state stores each final text as a JSON string)."""
    researcher = LlmAgent(name="researcher", model=ScriptedModel([reply("Rates rose 0.25%.")], name="researcher"))
    writer_model = ScriptedModel([reply("Brief: rates are up.")], name="writer")

    def brief(ctx: RunContext[None]) -> str:
        notes = ctx.state.get("researcher")
        return f"Write a short brief from these notes:\n{notes if isinstance(notes, str) else ''}"

    writer = LlmAgent(name="writer", model=writer_model, instructions=brief)
    pipeline = SequentialAgent[None]("research-then-write", "Research, then draft.").then(researcher).then(writer)
    simulation = await run_simulated(pipeline, "What happened to rates?")
    assert simulation.result is not None
    assert simulation.result.final_output == "Brief: rates are up."
    assert writer_model.requests[0].instructions == "Write a short brief from these notes:\nRates rose 0.25%."


async def test_a_workflow_collects_like_any_agent() -> None:
    """Every workflow is an Agent: RunResultStreaming collects it, with the summed usage and the last output."""
    pipeline = SequentialAgent[None]("seq").then(FakeAgent("a", answer="A")).then(FakeAgent("b", answer="B"))
    result = await RunResultStreaming(pipeline.run(RunContext.ephemeral(None), INPUT)).collect()
    assert result.final_output == "B"
    assert result.usage.requests == 2


class _Raises:
    name = "raiser"
    description = "raises mid-stream"

    def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
        return self._run()

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
        async def events() -> AsyncIterator[AgentEvent]:
            yield RunStarted("raiser")
            raise ValueError("boom")

        yield events()


async def test_a_child_stream_that_raises_is_that_childs_failure() -> None:
    """A child whose stream raises mid-run fails as data (naming it), and a parallel sibling still finishes."""
    par = ParallelAgent[None]("fan").add(_Raises()).add(FakeAgent("ok", answer="fine"))
    ctx = RunContext.ephemeral(None)
    events = await drain(par.run(ctx, INPUT))
    last = events[-1]
    assert isinstance(last, RunFailed)
    assert "agent 'raiser' broke its stream: ValueError: boom" in str(last.error)
    assert ctx.state.get("ok") == "fine"


class _BrokenTransport:
    """A child whose stream (a remote agent over a trio socket, say) breaks the trio way mid-run."""

    name = "remote"
    description = "served elsewhere"

    def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
        return self._run()

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
        async def events() -> AsyncIterator[AgentEvent]:
            yield RunStarted("remote")
            raise trio.BrokenResourceError("connection reset by peer")

        yield events()


@pytest.mark.parametrize("index", range(4))
async def test_a_child_stream_breaking_the_trio_way_is_that_childs_failure(index: int) -> None:
    """A child's own `BrokenResourceError` is the child's failure, not the outer consumer leaving: every
    workflow still ends with exactly one terminal event, a `RunFailed` naming the child."""
    agent = workflows(_BrokenTransport())[index]
    events = await drain(agent.run(RunContext.ephemeral(None), INPUT))
    assert isinstance(events[-1], RunFailed)
    assert "agent 'remote' broke its stream: BrokenResourceError: connection reset by peer" in str(events[-1].error)
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]


async def test_a_runner_config_and_timeout_reach_the_children(autojump_clock: trio.testing.MockClock) -> None:
    """Under `Runner(config)` the config is installed on the context, so children inherit it, and the runner's
    timeout ends a workflow whose child is still running with RunFailed(TimedOut) as the last event."""
    pipeline = SequentialAgent[None]("seq").then(slow_llm("child"))
    events = await drain(Runner(RunConfig(timeout=5.0)).run(pipeline, RunContext.ephemeral(None), INPUT))
    assert trio.current_time() == 5.0
    assert events[-1] == RunFailed(TimedOut(5.0))
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]
