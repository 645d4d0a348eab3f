"""SwarmAgent: builder checks, full-mesh handoffs, first member to answer wins, handoff budget."""

from __future__ import annotations

import pytest
import trio
from tests.agents.workflow_fakes import FakeAgent, completed_usage, drain

from helikon_fc.agents.handoff import Handoff
from helikon_fc.agents.llm_agent import LlmAgent
from helikon_fc.agents.protocol import RunStream
from helikon_fc.agents.swarm import SwarmAgent, SwarmBuildError
from helikon_fc.core import (
    AgentEvent,
    AgentUpdated,
    HandoffItem,
    MaxAgentDepthExceeded,
    MaxHandoffsExceeded,
    MessageOutput,
    RunCompleted,
    RunFailed,
    RunStarted,
    Usage,
)
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, reply

INPUT = AgentInput.from_user_text("How should I start investing $5,000?")
U = Usage(input_tokens=10, output_tokens=5, requests=1)


def agent(name: str, *turns: ScriptedTurn) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel(turns, name=name), description=f"The {name}.")


def test_build_rejects_an_empty_swarm() -> None:
    """Seed: ".build()?; // SwarmBuildError on empty/duplicate-name/unknown-entry" — empty."""
    with pytest.raises(SwarmBuildError, match="has no members"):
        SwarmAgent[None].builder().name("s").build()


def test_build_rejects_duplicate_member_names() -> None:
    """Seed: SwarmBuildError on duplicate-name."""
    with pytest.raises(SwarmBuildError, match="two members named 'a'"):
        SwarmAgent[None].builder().member(agent("a")).member(agent("a")).build()


def test_build_rejects_names_that_make_the_same_transfer_tool() -> None:
    """Two member names that slug to one transfer_to_* tool would mis-route, so the build rejects them."""
    with pytest.raises(SwarmBuildError, match="'transfer_to_budget_desk'"):
        SwarmAgent[None].builder().member(agent("Budget Desk")).member(agent("budget-desk")).build()


def test_build_rejects_an_unknown_entry() -> None:
    """Seed: SwarmBuildError on unknown-entry."""
    with pytest.raises(SwarmBuildError, match="no member 'ghost'"):
        SwarmAgent[None].builder().member(agent("a")).entry("ghost").build()


def test_members_must_be_llm_agents() -> None:
    """Seed: "Members must be LlmAgents — they're the only agent type that can call transfer tools". mypy rejects
    another agent (strict mode would report the ignore below as unused otherwise); at runtime it is a TypeError."""
    with pytest.raises(TypeError, match="swarm members must be LlmAgents"):
        SwarmAgent[None].builder().member(FakeAgent("x"))  # type: ignore[arg-type]


def test_entry_defaults_to_the_first_member() -> None:
    """Seed: ".entry("triage") // optional; defaults to the first member added"."""
    swarm = SwarmAgent[None].builder().member(agent("a")).member(agent("b")).build()
    assert swarm.entry == "a"


def test_every_member_gets_a_handoff_to_every_other_member() -> None:
    """Seed: "SwarmAgent<Ctx> wires a pool of LlmAgent members together with a Handoff to every other member
    auto-injected (a transfer_to_<slug> tool per pair)"."""
    swarm = SwarmAgent[None].builder().member(agent("triage")).member(agent("budgeting")).member(agent("investing"))
    built = swarm.build()
    assert [h.tool_name for h in built.member("triage").handoffs] == [
        "transfer_to_budgeting",
        "transfer_to_investing",
    ]
    assert [h.tool_name for h in built.member("investing").handoffs] == ["transfer_to_triage", "transfer_to_budgeting"]
    assert built.member("budgeting").handoffs[1].description == "The investing."
    assert built.members[0].handoffs == ()  # the members given are not changed


def test_an_existing_handoff_to_a_member_is_not_injected_twice() -> None:
    """A member that already hands off to another member keeps that one handoff (no collision)."""
    b = agent("b")
    a = agent("a").with_handoffs(Handoff.to(b))
    built = SwarmAgent[None].builder().member(a).member(b).build()
    assert [h.tool_name for h in built.member("a").handoffs] == ["transfer_to_b"]


async def test_the_first_member_to_answer_ends_the_run(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "it ends the moment the active member produces a final output instead of handing off: first to
    answer wins." — and handoffs flow through the mesh to the copies, who can hand off again."""
    triage = agent("triage", call_tools(call("transfer_to_budgeting")))
    budgeting = agent("budgeting", call_tools(call("transfer_to_investing")))
    investing = agent("investing", reply("Start with a broad index fund."), reply("never reached"))
    swarm = (
        SwarmAgent[None]
        .builder()
        .name("support_swarm")
        .description("A personal-finance support swarm covering budgeting and investing.")
        .member(triage)
        .member(budgeting)
        .member(investing)
        .entry("triage")
        .max_handoffs(6)
        .build()
    )
    events = await drain(swarm.run(RunContext.ephemeral(None), INPUT))
    assert events[0] == RunStarted("support_swarm")
    assert [e for e in events if isinstance(e, HandoffItem)] == [
        HandoffItem("triage", "budgeting"),
        HandoffItem("budgeting", "investing"),
    ]
    assert [e.agent for e in events if isinstance(e, AgentUpdated)] == ["triage", "budgeting", "investing"]
    assert [e.item.text for e in events if isinstance(e, MessageOutput)][-1] == "Start with a broad index fund."
    assert completed_usage(events) == U + U + U
    assert [e for e in events if isinstance(e, RunStarted)] == [RunStarted("support_swarm")]


async def test_max_handoffs_cancels_and_fails_on_the_first_handoff_beyond_the_budget() -> None:
    """Seed: "the swarm exposes its own .max_handoffs(n) budget: it counts HandoffItem events on its own
    returned stream and, on exceeding n, cancels the run and fails with AgentError::MaxHandoffsExceeded { limit }"."""
    ping = agent("ping", *[call_tools(call("transfer_to_pong"))] * 5)
    pong = agent("pong", *[call_tools(call("transfer_to_ping"))] * 5)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).max_handoffs(2).build()
    events = await drain(swarm.run(RunContext.ephemeral(None), INPUT))
    assert len([e for e in events if isinstance(e, HandoffItem)]) == 3
    assert events[-1] == RunFailed(MaxHandoffsExceeded(2))
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]


async def test_without_a_budget_a_ping_pong_hits_the_depth_guard() -> None:
    """Seed: "A ping-ponging swarm that never converges exhausts that depth and fails with
    AgentError::MaxAgentDepthExceeded — the underlying hard bound. ... Leave it unset and max_agent_depth is the
    only bound."""
    ping = agent("ping", *[call_tools(call("transfer_to_pong"))] * 10)
    pong = agent("pong", *[call_tools(call("transfer_to_ping"))] * 10)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).build()
    ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_agent_depth=4))
    events = await drain(swarm.run(ctx, INPUT))
    last = events[-1]
    assert isinstance(last, RunFailed)
    assert isinstance(last.error, MaxAgentDepthExceeded)
    assert last.error.limit == 4


def counting_member(name: str, other: str, calls: list[str]) -> LlmAgent[None]:
    """A member whose model hands off to `other` every time it is asked, noting each call in `calls`."""

    def turn(request: object) -> ScriptedTurn:
        calls.append(name)
        return call_tools(call(f"transfer_to_{other}"))

    return LlmAgent(name=name, model=FunctionModel(turn, name=name), description=f"The {name}.")


async def slowly(stream: RunStream) -> list[AgentEvent]:
    """Every event of `stream`, taking each one a second after the last: a consumer far behind its run."""
    async with stream as events:
        taken: list[AgentEvent] = []
        async for event in events:
            await trio.sleep(1)
            taken.append(event)
        return taken


@pytest.mark.parametrize("limit", [0, 1, 3])
async def test_no_model_is_called_past_the_handoff_budget_however_slow_the_consumer(
    autojump_clock: trio.testing.MockClock, limit: int
) -> None:
    """The budget holds where the handoff is decided: the members' models are called once per handoff up to the
    first one beyond the budget (as on Temporal), never more, though the consumer lags far behind the run."""
    calls: list[str] = []
    ping, pong = counting_member("ping", "pong", calls), counting_member("pong", "ping", calls)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).max_handoffs(limit).build()
    events = await slowly(swarm.run(RunContext.ephemeral(None), INPUT))
    assert len([e for e in events if isinstance(e, HandoffItem)]) == limit + 1
    assert isinstance(events[-2], HandoffItem)  # the target that never runs is not announced
    assert events[-1] == RunFailed(MaxHandoffsExceeded(limit))
    assert len(calls) == limit + 1


async def test_a_handoff_a_member_already_had_counts_against_the_budget(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A member's own handoff to another member is one of the swarm's handoffs: it is counted like the injected ones."""
    calls: list[str] = []
    pong = counting_member("pong", "ping", calls)
    ping = counting_member("ping", "pong", calls).with_handoffs(Handoff.to(pong))
    swarm = SwarmAgent[None].builder().member(ping).member(pong).max_handoffs(0).build()
    events = await slowly(swarm.run(RunContext.ephemeral(None), INPUT))
    assert events[-1] == RunFailed(MaxHandoffsExceeded(0))
    assert calls == ["ping"]


async def test_concurrent_runs_of_one_swarm_have_a_budget_each(autojump_clock: trio.testing.MockClock) -> None:
    """The budget is per run: two runs of one swarm at once each get their own handoffs up to the limit."""
    calls: list[str] = []
    ping, pong = counting_member("ping", "pong", calls), counting_member("pong", "ping", calls)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).max_handoffs(2).build()
    results: list[list[AgentEvent]] = []

    async def one() -> None:
        results.append(await slowly(swarm.run(RunContext.ephemeral(None), INPUT)))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one)
        nursery.start_soon(one)
    assert [events[-1] for events in results] == [RunFailed(MaxHandoffsExceeded(2))] * 2
    assert [len([e for e in events if isinstance(e, HandoffItem)]) for events in results] == [3, 3]
    assert len(calls) == 6


async def test_a_handoff_beyond_the_members_counts_against_the_budget(autojump_clock: trio.testing.MockClock) -> None:
    """A member's handoff to an agent outside the swarm, and that agent's own handoffs, take from the budget too."""
    calls: list[str] = []
    outside = counting_member("outside", "further", calls).with_handoffs(
        Handoff.to(counting_member("further", "x", calls))
    )
    ping = counting_member("ping", "outside", calls).with_handoffs(Handoff.to(outside))
    pong = counting_member("pong", "ping", calls)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).max_handoffs(1).build()
    events = await slowly(swarm.run(RunContext.ephemeral(None), INPUT))
    assert [e for e in events if isinstance(e, HandoffItem)] == [
        HandoffItem("ping", "outside"),
        HandoffItem("outside", "further"),
    ]
    assert events[-1] == RunFailed(MaxHandoffsExceeded(1))
    assert calls == ["ping", "outside"]
