"""SequentialAgent: steps in order, state writes, fail-fast, one outer RunStarted/RunCompleted."""

from __future__ import annotations

import trio
from tests.agents.workflow_fakes import INPUT, FakeAgent, Timeline, completed_usage, drain, state_after

from helikon_fc.agents.sequential import SequentialAgent
from helikon_fc.core import (
    AgentUpdated,
    MaxAgentDepthExceeded,
    MessageOutput,
    ModelFailed,
    ModelFailureKind,
    RunCompleted,
    RunFailed,
    RunStarted,
    TokenDelta,
    Usage,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.context.run_context import RunContext


async def test_steps_run_in_order_each_after_the_last(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Steps run in order and fail fast on the first failure." (the in-order half)"""
    timeline = Timeline()
    seq = (
        SequentialAgent[None]("pipe", "two steps")
        .then(FakeAgent("a", latency=1.0, timeline=timeline))
        .then(FakeAgent("b", latency=2.0, timeline=timeline))
    )
    events = await drain(seq.run(RunContext.ephemeral(None), INPUT))
    assert timeline.starts == {"a": [0.0], "b": [1.0]}
    assert timeline.ends == {"a": [1.0], "b": [3.0]}
    assert isinstance(events[-1], RunCompleted)


async def test_fails_fast_on_the_first_failure() -> None:
    """Seed: "Steps run in order and fail fast on the first failure." (no later step runs)"""
    error = ModelFailed(ModelFailureKind.UNAVAILABLE, "down")
    later = FakeAgent("c")
    seq = SequentialAgent[None]("pipe").then(FakeAgent("a")).then(FakeAgent("b", error=error)).then(later)
    ctx = RunContext.ephemeral(None)
    events = await drain(seq.run(ctx, INPUT))
    assert events[-1] == RunFailed(error)
    assert later.runs == [0]
    assert ctx.state.keys() == ("a",)


async def test_each_step_final_text_lands_in_state_under_its_key() -> None:
    """Seed: "after each sub-agent completes, its final text is written to state[key], where key defaults to
    the sub-agent's name." (stored as a JSON string)"""
    seq = (
        SequentialAgent[None]("pipe")
        .then(FakeAgent("researcher", answer="notes"))
        .then_keyed("draft", FakeAgent("writer", answer="brief"))
    )
    state = await state_after(seq)
    assert state == {"researcher": "notes", "draft": "brief"}


async def test_then_keyed_avoids_a_state_key_collision() -> None:
    """Seed: "Use .then_keyed(key, agent) when two steps share a name (to avoid a state-key collision)"."""
    seq = (
        SequentialAgent[None]("pipe").then(FakeAgent("w", answer="one")).then_keyed("w2", FakeAgent("w", answer="two"))
    )
    state = await state_after(seq)
    assert state.get("w") == "one"
    assert state.get("w2") == "two"


async def test_one_outer_run_started_and_completed_with_summed_usage() -> None:
    """Seed: "Each merges child event streams, folds child usage into a running total, and emits one outer
    RunStarted / RunCompleted." Children's RunStarted become AgentUpdated; their terminals are swallowed."""
    seq = (
        SequentialAgent[None]("pipe")
        .then(FakeAgent("a", answer="x", usage=Usage(input_tokens=3, output_tokens=1, requests=1)))
        .then(FakeAgent("b", answer="y", usage=Usage(input_tokens=5, output_tokens=2, requests=1)))
    )
    events = await drain(seq.run(RunContext.ephemeral(None), INPUT))
    assert events[0] == RunStarted("pipe")
    assert [e for e in events if isinstance(e, RunStarted)] == [RunStarted("pipe")]
    assert [e for e in events if isinstance(e, AgentUpdated)] == [AgentUpdated("a"), AgentUpdated("b")]
    assert [e for e in events if isinstance(e, TokenDelta)] == [TokenDelta("x"), TokenDelta("y")]
    assert [e.item.text for e in events if isinstance(e, MessageOutput)] == ["x", "y"]
    assert [e for e in events if isinstance(e, RunCompleted | RunFailed)] == [events[-1]]
    assert completed_usage(events) == Usage(input_tokens=8, output_tokens=3, requests=2)


async def test_nests_inside_another_sequential() -> None:
    """Seed: "a SequentialAgent step can itself be a ParallelAgent, and so on" — workflows nest as agents."""
    inner = SequentialAgent[None]("inner").then(FakeAgent("a", answer="A"))
    outer = SequentialAgent[None]("outer").then(inner).then(FakeAgent("b", answer="B"))
    ctx = RunContext.ephemeral(None)
    events = await drain(outer.run(ctx, INPUT))
    assert ctx.state.snapshot() == {"a": "A", "inner": "A", "b": "B"}
    assert completed_usage(events) == Usage(input_tokens=2, output_tokens=4, requests=2)


async def test_depth_beyond_max_fails_before_any_step() -> None:
    """A workflow whose children would nest deeper than max_agent_depth fails with MaxAgentDepthExceeded."""
    step = FakeAgent("a")
    ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_agent_depth=0))
    events = await drain(SequentialAgent[None]("pipe").then(step).run(ctx, INPUT))
    assert events == [RunStarted("pipe"), RunFailed(MaxAgentDepthExceeded(1, 0))]
    assert step.runs == [0]


def test_chaining_returns_new_values() -> None:
    """Python surface: "Chaining methods return a new value; agents are immutable once built."""
    empty = SequentialAgent[None]("pipe")
    one = empty.then(FakeAgent("a"))
    assert empty.steps == ()
    assert [key for key, _ in one.steps] == ["a"]
