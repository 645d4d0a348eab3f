"""The sentences of seed-multi-agent-patterns.txt not already cited by the per-pattern test modules.

Each test's docstring quotes the sentence it checks. Per-pattern detail lives in test_sequential.py,
test_parallel.py, test_loop.py, test_graph.py, test_swarm.py, test_agent_as_tool.py and
test_workflow_streams.py; the handoff mechanics (owned by the driver) are re-checked here as the seed states them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
from tests.agents.workflow_fakes import FakeAgent, completed_usage, drain

import helikon_fc
from helikon_fc import (
    Agent,
    AgentAsTool,
    AgentEvent,
    AgentInput,
    AgentUpdated,
    GraphAgent,
    Handoff,
    HandoffCollisionError,
    HandoffItem,
    LlmAgent,
    LoopAgent,
    MaxAgentDepthExceeded,
    MessageOutput,
    ParallelAgent,
    RunCompleted,
    RunConfig,
    RunContext,
    RunFailed,
    RunResultStreaming,
    RunStarted,
    SequentialAgent,
    SwarmAgent,
    TokenDelta,
    ToolContext,
    ToolOutputItem,
    Usage,
    function_tool,
)
from helikon_fc.agents.protocol import RunStream
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply, run_simulated

U = Usage(input_tokens=10, output_tokens=5, requests=1)


def llm(name: str, *turns: ScriptedTurn, description: str = "", **kwargs: object) -> LlmAgent[None]:
    return LlmAgent(
        name=name,
        model=ScriptedModel(turns, name=name),
        description=description or f"The {name}.",
        **kwargs,  # type: ignore[arg-type]
    )


def specialists() -> tuple[LlmAgent[None], LlmAgent[None], LlmAgent[None], ScriptedModel]:
    budgeting = llm(
        "budgeting specialist",
        reply("Cap dining at $250."),
        description="Answers questions about monthly budgets and cutting spending.",
    )
    investing = llm(
        "investing specialist",
        reply("Buy a broad index fund."),
        description="Answers questions about investing, portfolios, and retirement.",
    )
    triage_model = ScriptedModel([call_tools(call("transfer_to_investing_specialist"))], name="triage")
    triage = LlmAgent[None](
        name="triage",
        model=triage_model,
        instructions="Classify the user's personal-finance question and transfer to the right specialist.",
        handoffs=(Handoff.to(budgeting), Handoff.to(investing)),
    )
    return triage, budgeting, investing, triage_model


# The three families.


def test_seven_primitives_re_exported_from_the_package() -> None:
    """Seed: "Seven shipped composition primitives let you build systems out of more than one Agent. They split into
    three families" and "All of these are in paigasus-helikon-core and re-exported" — in Python, from `helikon_fc`."""
    seven = ("Handoff", "AgentAsTool", "SequentialAgent", "ParallelAgent", "LoopAgent", "SwarmAgent", "GraphAgent")
    assert all(name in helikon_fc.__all__ for name in seven)
    assert {"SwarmBuildError", "GraphBuildError"} <= set(helikon_fc.__all__)


async def test_every_orchestrator_is_an_agent_and_they_nest(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "SequentialAgent, ParallelAgent, LoopAgent, SwarmAgent, and GraphAgent each implement the same Agent<Ctx>
    trait as LlmAgent, so they nest and compose freely — a SequentialAgent step can itself be a ParallelAgent, and so
    on." — here a graph whose nodes are a swarm, a loop and a parallel agent, inside a sequential agent."""
    swarm = SwarmAgent[None].builder().name("desk").member(llm("a", reply("A says hi"))).build()
    loop = LoopAgent[None]("polish", "", 1).then(FakeAgent("p", answer="polished", escalate_on=frozenset({1})))
    fan = ParallelAgent[None]("fan").add(FakeAgent("x", answer="X"))
    graph = (
        GraphAgent[None]
        .builder()
        .name("g")
        .node("desk", swarm)
        .node("polish", loop)
        .node("fan", fan)
        .edge("desk", "fan")
        .edge("polish", "fan")
        .build()
    )
    outer = SequentialAgent[None]("outer").then(graph).then(FakeAgent("end", answer="fin"))
    agents: list[Agent[None]] = [swarm, loop, fan, graph, outer]
    assert all(callable(a.run) and isinstance(a.name, str) and isinstance(a.description, str) for a in agents)
    ctx = RunContext.ephemeral(None)
    result = await RunResultStreaming(outer.run(ctx, AgentInput.from_user_text("go"))).collect()
    assert result.final_output == "fin"
    assert ctx.state.snapshot() == {  # state is run-scoped: nested workflows write into the same one
        "p": "polished",
        "x": "X",
        "desk": "A says hi",
        "polish": "polished",
        "fan": '{"x":"X"}',
        "g": '{"x":"X"}',
        "end": "fin",
    }


# Handoff.


async def test_handoff_transfers_control_and_the_specialist_finishes_the_run(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seed: "Control transfer — Handoff: hand the conversation to another agent and let it finish the run." and the
    choosing table: "The active agent switches; the specialist produces the final output"."""
    triage, _, _, _ = specialists()
    simulation = await run_simulated(triage, "How should I start investing $5,000?")
    assert simulation.result is not None
    assert simulation.result.final_output == "Buy a broad index fund."
    assert [e.agent for e in simulation.events if isinstance(e, AgentUpdated)] == ["investing specialist"]


async def test_handoff_is_one_way(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Handoff is one-way: control does not return to the routing agent." — triage is asked once only."""
    triage, _, _, triage_model = specialists()
    simulation = await run_simulated(triage, "How should I start investing $5,000?")
    assert len(triage_model.requests) == 1
    assert isinstance(simulation.events[-1], RunCompleted)


async def test_one_transfer_tool_per_handoff_described_by_the_target(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "the agent loop injects one synthetic transfer_to_<slug> tool per handoff, and a model call to one
    switches the active agent. The slug lowercases the target's name and collapses non-alphanumeric runs to _
    ("investing specialist" → transfer_to_investing_specialist)." and "The target's description is shown to the
    model as the transfer tool's description"."""
    triage, _, _, triage_model = specialists()
    await run_simulated(triage, "How should I start investing $5,000?")
    tools = {tool.name: tool.description for tool in triage_model.requests[0].tools}
    assert tools == {
        "transfer_to_budgeting_specialist": "Answers questions about monthly budgets and cutting spending.",
        "transfer_to_investing_specialist": "Answers questions about investing, portfolios, and retirement.",
    }


def test_handoff_to_is_the_constructor_and_sharing_is_implicit() -> None:
    """Seed: "Construct with Handoff::to(agent) (owned agent) or Handoff::shared(arc)" — in Python `Handoff.to(agent)`;
    one agent value can be the target of many handoffs (sharing is implicit)."""
    target = llm("investing specialist")
    first, second = Handoff.to(target), Handoff.to(target)
    assert first.resolve() is second.resolve() is target
    assert first.tool_name == "transfer_to_investing_specialist"


async def test_slug_collisions_are_rejected_before_the_first_model_call(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Two handoffs whose names slug to the same transfer_to_* tool are rejected with a collision error before
    the first model call, rather than silently mis-routing."""
    model = ScriptedModel([reply("never")], name="router")
    router = LlmAgent[None](
        name="router", model=model, handoffs=(Handoff.to(llm("Budget Desk")), Handoff.to(llm("budget-desk")))
    )
    with pytest.raises(HandoffCollisionError):
        async with router.run(RunContext.ephemeral(None), AgentInput.from_user_text("x")) as events:
            async for _ in events:
                pass  # pragma: no cover
    assert model.requests == ()


async def test_handoff_events_order_and_summed_usage(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "When a handoff fires, the stream emits a HandoffItem { from, to } followed by AgentUpdated { agent },
    then the target agent's events. The terminal RunCompleted.usage sums the parent and the post-handoff sub-run."""
    triage, _, _, _ = specialists()
    simulation = await run_simulated(triage, "How should I start investing $5,000?")
    events = list(simulation.events)
    at = events.index(HandoffItem("triage", "investing specialist"))
    assert events[at + 1] == AgentUpdated("investing specialist")
    assert any(isinstance(e, TokenDelta) for e in events[at + 2 :])
    assert [e for e in events if isinstance(e, RunStarted)] == [RunStarted("triage")]
    assert completed_usage(events) == U + U


async def test_handoff_chains_are_bounded_by_max_agent_depth(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "A handoff chain is bounded by RunConfig::max_agent_depth; exceeding it fails the run with
    AgentError::MaxAgentDepthExceeded."""

    def chain() -> LlmAgent[None]:
        c = llm("c", reply("end"))
        b = llm("b", call_tools(call("transfer_to_c"))).with_handoffs(Handoff.to(c))
        return llm("a", call_tools(call("transfer_to_b"))).with_handoffs(Handoff.to(b))

    ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_agent_depth=1))
    simulation = await run_simulated(chain(), "go", ctx)
    assert isinstance(simulation.error, MaxAgentDepthExceeded)
    deep_enough = RunContext.ephemeral(None).with_run_config(RunConfig(max_agent_depth=2))
    assert (await run_simulated(chain(), "go", deep_enough)).error is None


# AgentAsTool.


async def test_agent_as_tool_adapts_any_agent_and_control_returns(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "AgentAsTool<Ctx> adapts any Agent<Ctx> into a Tool<Ctx>." and "AgentAsTool is request/response: control
    always returns." — here the wrapped agent is a workflow, and the caller answers after reading its result."""
    research = SequentialAgent[None]("research", "Looks things up.").then(FakeAgent("r", answer="rates are 4.1%"))
    caller = llm(
        "writer",
        call_tools(call("research", input="rates?")),
        reply("Savings pay 4.1%."),
        tools=(AgentAsTool(research),),
    )
    simulation = await run_simulated(caller, "where to save?")
    assert [e.item.output for e in simulation.events if isinstance(e, ToolOutputItem)] == ["rates are 4.1%"]
    assert simulation.result is not None and simulation.result.final_output == "Savings pay 4.1%."


async def test_the_user_context_crosses_into_the_sub_run(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "What does cross: the user context, ..." — a tool of the wrapped agent reads the parent's user value."""

    @function_tool
    def whose(ctx: ToolContext[str]) -> str:
        """Who is asking."""
        return ctx.user

    inner = LlmAgent[str](
        name="inner", model=ScriptedModel([call_tools(call("whose")), reply("done")], name="inner"), tools=(whose,)
    )
    seen: list[str] = []

    class Spy:
        name = "spy"
        description = "wraps inner"

        def run(self, ctx: RunContext[str], input: AgentInput) -> RunStream:
            return self._run(ctx, input)

        @asynccontextmanager
        async def _run(self, ctx: RunContext[str], input: AgentInput) -> AsyncIterator[AsyncIterator[AgentEvent]]:
            seen.append(ctx.user)
            async with inner.run(ctx, input) as events:
                yield events

    tool = AgentAsTool[str](Spy())
    parent_ctx = RunContext.ephemeral("alice")
    output = await tool.invoke(ToolContext(parent_ctx, "c1", "spy"), {"input": "who?"})
    assert output.content == "done"
    assert seen == ["alice"]


# Orchestration.


async def test_loop_stops_when_a_tool_escalates(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Refine until a sub-agent signals "done"" / "an escalate signal that stops the loop" — a critic whose
    `approve` tool calls `ctx.actions.escalate()` ends the LoopAgent after the second pass."""

    @function_tool
    async def approve(ctx: ToolContext[None]) -> str:
        """Accept the draft."""
        ctx.actions.escalate()
        return "approved"

    drafter = llm("drafter", reply("draft 1"), reply("draft 2"))
    critic = llm(
        "critic",
        reply("needs work"),
        call_tools(call("approve")),
        reply("approved"),
        tools=(approve,),
    )
    loop = LoopAgent[None]("draft-and-critique", "Iterate until the critic is satisfied.", 5).then(drafter).then(critic)
    ctx = RunContext.ephemeral(None)
    events = await drain(loop.run(ctx, AgentInput.from_user_text("write")))
    assert isinstance(events[-1], RunCompleted)
    assert ctx.state.snapshot() == {"drafter": "draft 2", "critic": "approved"}


async def test_a_cpu_bound_branch_holds_its_siblings_until_it_awaits(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Branches run concurrently — cooperatively ... a CPU-bound branch would starve its siblings between
    .await points." — a branch's synchronous section is never interleaved with a sibling."""
    log: list[str] = []

    class Busy:
        name = "busy"
        description = "computes without awaiting"

        def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
            return self._run()

        @asynccontextmanager
        async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
            async def events() -> AsyncIterator[AgentEvent]:
                yield RunStarted("busy")
                log.append("busy: start")
                sum(i * i for i in range(20_000))  # no checkpoint in here
                log.append("busy: end")
                yield MessageOutput(helikon_fc.AssistantMessage("42", agent="busy"))
                yield RunCompleted(Usage())

            yield events()

    class Quick:
        name = "quick"
        description = "logs when it runs"

        def run(self, ctx: RunContext[None], input: AgentInput) -> RunStream:
            return self._run()

        @asynccontextmanager
        async def _run(self) -> AsyncIterator[AsyncIterator[AgentEvent]]:
            async def events() -> AsyncIterator[AgentEvent]:
                yield RunStarted("quick")
                log.append("quick")
                yield RunCompleted(Usage())

            yield events()

    events = await drain(
        ParallelAgent[None]("fan")
        .add(Busy())
        .add(Quick())
        .run(RunContext.ephemeral(None), AgentInput.from_user_text("go"))
    )
    assert isinstance(events[-1], RunCompleted)
    busy_at = log.index("busy: start")
    assert log[busy_at + 1] == "busy: end"


async def test_a_ping_pong_swarm_stops_at_the_default_depth(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "A handoff nests: the parent derives a child run with its own turn budget and an incremented agent_depth,
    checked against RunConfig::max_agent_depth (default 8)."""
    ping = llm("ping", *[call_tools(call("transfer_to_pong"))] * 10)
    pong = llm("pong", *[call_tools(call("transfer_to_ping"))] * 10)
    swarm = SwarmAgent[None].builder().member(ping).member(pong).build()
    simulation = await run_simulated(swarm, "go")
    assert isinstance(simulation.error, MaxAgentDepthExceeded)
    assert simulation.error.limit == 8
    assert isinstance(simulation.events[-1], RunFailed)
