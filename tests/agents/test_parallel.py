"""ParallelAgent: concurrent branches, unique keys, collect-all failure, sorted-key JSON output."""

from __future__ import annotations

import json

import trio
from tests.agents.workflow_fakes import INPUT, FakeAgent, Timeline, completed_usage, drain, state_after

from helikon_fc.agents.parallel import ParallelAgent
from helikon_fc.agents.sequential import SequentialAgent
from helikon_fc.core import (
    AgentUpdated,
    BranchFailure,
    MaxTurnsExceeded,
    MessageOutput,
    ModelFailed,
    ModelFailureKind,
    OtherError,
    ParallelFailed,
    RunCompleted,
    RunFailed,
    RunStarted,
    TokenDelta,
    Usage,
)
from helikon_fc.shell.context.run_context import RunContext


async def test_branches_run_concurrently(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Branches run concurrently" — three 1 s branches take 1 s, all starting together."""
    timeline = Timeline()
    par = ParallelAgent[None]("fan", "three").add(FakeAgent("a", latency=1.0, timeline=timeline))
    par = par.add(FakeAgent("b", latency=1.0, timeline=timeline)).add(FakeAgent("c", latency=1.0, timeline=timeline))
    start = trio.current_time()
    events = await drain(par.run(RunContext.ephemeral(None), INPUT))
    assert trio.current_time() - start == 1.0
    assert timeline.starts == {"a": [0.0], "b": [0.0], "c": [0.0]}
    assert isinstance(events[-1], RunCompleted)


async def test_duplicate_key_fails_before_any_branch_starts() -> None:
    """Seed: "Branch keys must be unique (a duplicate key fails the run before any branch starts, since
    concurrent writers to the same key would race)."""
    a, b, c = FakeAgent("a"), FakeAgent("x"), FakeAgent("x")
    par = ParallelAgent[None]("fan").add(a).add(b).add(c)
    ctx = RunContext.ephemeral(None)
    events = await drain(par.run(ctx, INPUT))
    assert events == [RunStarted("fan"), RunFailed(OtherError("duplicate parallel branch key(s): x"))]
    assert a.runs == b.runs == c.runs == [0]
    assert ctx.state.keys() == ()


async def test_collect_all_failure_lets_siblings_finish(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Failure is collect-all: a failed branch lets its siblings finish, then one aggregate RunFailed is
    emitted." Failed branches are named by key, sorted by key."""
    timeline = Timeline()
    down = ModelFailed(ModelFailureKind.UNAVAILABLE, "down")
    par = (
        ParallelAgent[None]("fan")
        .branch("zeta", FakeAgent("z", latency=0.5, error=down))
        .branch("slow", FakeAgent("s", latency=3.0, timeline=timeline))
        .branch("alpha", FakeAgent("a", latency=1.0, error=MaxTurnsExceeded(2)))
    )
    ctx = RunContext.ephemeral(None)
    events = await drain(par.run(ctx, INPUT))
    assert timeline.ends == {"s": [3.0]}  # the sibling ran to its end after both failures
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [
        RunFailed(ParallelFailed((BranchFailure("alpha", MaxTurnsExceeded(2)), BranchFailure("zeta", down))))
    ]
    assert events[-1] == RunFailed(
        ParallelFailed((BranchFailure("alpha", MaxTurnsExceeded(2)), BranchFailure("zeta", down)))
    )
    assert ctx.state.snapshot() == {"slow": "s(go)"}


async def test_success_ends_with_one_sorted_key_json_message(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "The final_output is deterministic — a terminal MessageOutput carrying a sorted-key JSON object
    {key: branch_output}. Read individual branch results from state[key]."""
    par = (
        ParallelAgent[None]("multi-lens")
        .branch("realist", FakeAgent("r", answer="meh", latency=0.1))
        .branch("optimist", FakeAgent("o", answer="yay", latency=0.3))
        .branch("pessimist", FakeAgent("p", answer='nay "no"', latency=0.2))
    )
    ctx = RunContext.ephemeral(None)
    events = await drain(par.run(ctx, INPUT))
    last_message = [e for e in events if isinstance(e, MessageOutput)][-1]
    assert events[-2] == last_message
    assert last_message.item.agent == "multi-lens"
    assert last_message.item.text == '{"optimist":"yay","pessimist":"nay \\"no\\"","realist":"meh"}'
    assert json.loads(last_message.item.text) == {"optimist": "yay", "pessimist": 'nay "no"', "realist": "meh"}
    assert ctx.state.snapshot() == {"realist": "meh", "pessimist": 'nay "no"', "optimist": "yay"}
    assert completed_usage(events) == Usage(input_tokens=3, output_tokens=6, requests=3)


async def test_each_branch_writes_state_under_its_key_defaulting_to_its_name() -> None:
    """Seed: "Each branch writes state[key]; outputs merge into one JSON object" and .add(agent) keys by name."""
    par = (
        ParallelAgent[None]("fan").add(FakeAgent("spending", answer="1")).branch("inc", FakeAgent("income", answer="2"))
    )
    state = await state_after(par)
    assert state.get("spending") == "1"
    assert state.get("inc") == "2"


async def test_a_sequential_step_can_be_a_parallel_agent() -> None:
    """Seed: "SequentialAgent, ParallelAgent, LoopAgent, SwarmAgent, and GraphAgent each implement the same
    Agent<Ctx> trait as LlmAgent, so they nest and compose freely — a SequentialAgent step can itself be a
    ParallelAgent"."""
    fan = ParallelAgent[None]("fan").add(FakeAgent("a", answer="A")).add(FakeAgent("b", answer="B"))
    pipe = SequentialAgent[None]("pipe").then(fan).then(FakeAgent("c", answer="C"))
    ctx = RunContext.ephemeral(None)
    events = await drain(pipe.run(ctx, INPUT))
    assert ctx.state.get("fan") == '{"a":"A","b":"B"}'
    assert completed_usage(events) == Usage(input_tokens=3, output_tokens=6, requests=3)


async def test_interleaved_events_stay_attributable_to_their_branch(autojump_clock: trio.testing.MockClock) -> None:
    """Branch events interleave live; each is preceded (since the last switch) by an AgentUpdated naming the agent
    it came from, so a consumer can always tell whose event it is."""
    par = ParallelAgent[None]("fan")
    for name, latency in (("a", 0.0), ("b", 0.5), ("c", 0.5), ("d", 1.0)):
        par = par.add(
            SequentialAgent[None](f"seq-{name}").then(FakeAgent(name, answer=f"from-{name}", latency=latency))
        )
    events = await drain(par.run(RunContext.ephemeral(None), INPUT))
    announced: str | None = None
    tokens: list[str] = []
    for event in events[1:-2]:
        match event:
            case AgentUpdated(agent=agent):
                announced = agent
            case TokenDelta(text=text):
                assert text == f"from-{announced}"
                tokens.append(text)
            case MessageOutput(item=item):
                assert item.agent == announced
    assert sorted(tokens) == ["from-a", "from-b", "from-c", "from-d"]
