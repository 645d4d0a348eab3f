"""GraphAgent: build-time checks, the Kahn wavefront, context messages, sink merging, collect-all failure."""

from __future__ import annotations

import json

import pytest
import trio
from tests.agents.workflow_fakes import FakeAgent, Timeline, completed_usage, drain

from helikon_fc.agents.graph import GraphAgent, GraphBuildError, context_message
from helikon_fc.core import (
    BranchFailure,
    GraphFailed,
    MessageOutput,
    ModelFailed,
    ModelFailureKind,
    RunCompleted,
    RunFailed,
    RunStarted,
    Usage,
    UserMessage,
)
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput

INPUT = AgentInput.from_user_text("report")


def diamond(timeline: Timeline | None = None, **latency: float) -> GraphAgent[None]:
    def node(name: str) -> FakeAgent:
        return FakeAgent(name, latency=latency.get(name, 0.0), timeline=timeline)

    return (
        GraphAgent[None]
        .builder()
        .name("finance_report")
        .description("Fans spending and income analysis into a combined summary.")
        .node("spending", node("spending"))
        .node("income", node("income"))
        .node("summary", node("summary"))
        .edge("spending", "summary")
        .edge("income", "summary")
        .build()
    )


def test_build_rejects_a_cycle_naming_its_nodes() -> None:
    """Seed: ".build()?; // GraphBuildError on cycle/unknown/duplicate/empty" — the cycle's nodes are named."""
    builder = GraphAgent[None].builder().node("a", FakeAgent("a")).node("b", FakeAgent("b")).node("c", FakeAgent("c"))
    builder = builder.edge("a", "b").edge("b", "c").edge("c", "a")
    with pytest.raises(GraphBuildError, match=r"cycle: a -> b -> c -> a") as info:
        builder.build()
    assert info.value.nodes == ("a", "b", "c", "a")


def test_build_rejects_a_self_loop() -> None:
    """A node that depends on itself is a cycle of one."""
    with pytest.raises(GraphBuildError, match=r"cycle: a -> a"):
        GraphAgent[None].builder().node("a", FakeAgent("a")).edge("a", "a").build()


def test_build_rejects_an_unknown_node() -> None:
    """Seed: GraphBuildError on unknown — an edge naming a node that was never declared."""
    with pytest.raises(GraphBuildError, match=r"unknown node\(s\) 'ghost'") as info:
        GraphAgent[None].builder().node("a", FakeAgent("a")).edge("a", "ghost").build()
    assert info.value.nodes == ("ghost",)


def test_build_rejects_a_duplicate_node() -> None:
    """Seed: GraphBuildError on duplicate — one key declared twice."""
    with pytest.raises(GraphBuildError, match=r"declares node 'a' twice"):
        GraphAgent[None].builder().node("a", FakeAgent("a")).node("a", FakeAgent("b")).build()


def test_build_rejects_an_empty_graph() -> None:
    """Seed: GraphBuildError on empty."""
    with pytest.raises(GraphBuildError, match="has no nodes"):
        GraphAgent[None].builder().name("g").build()


def test_builder_is_immutable() -> None:
    """Python surface: chaining methods return a new value."""
    base = GraphAgent[None].builder().node("a", FakeAgent("a"))
    base.node("b", FakeAgent("b"))
    assert [key for key, _ in base.build().nodes] == ["a"]


async def test_a_node_runs_only_once_all_predecessors_completed(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "nodes are agents, edges are dependencies, and a node runs only once all of its predecessors have
    completed." — the sink starts at the later predecessor's end."""
    timeline = Timeline()
    events = await drain(
        diamond(timeline, spending=1.0, income=3.0, summary=0.5).run(RunContext.ephemeral(None), INPUT)
    )
    assert timeline.starts == {"spending": [0.0], "income": [0.0], "summary": [3.0]}
    assert isinstance(events[-1], RunCompleted)


async def test_a_node_starts_the_moment_its_last_predecessor_completes(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "Ready nodes are scheduled and polled concurrently as their predecessors finish (a dynamic Kahn
    wavefront)" — a node does not wait for unrelated siblings."""
    timeline = Timeline()
    graph = (
        GraphAgent[None]
        .builder()
        .node("fast", FakeAgent("fast", latency=1.0, timeline=timeline))
        .node("slow", FakeAgent("slow", latency=5.0, timeline=timeline))
        .node("after_fast", FakeAgent("after_fast", latency=1.0, timeline=timeline))
        .edge("fast", "after_fast")
        .build()
    )
    await drain(graph.run(RunContext.ephemeral(None), INPUT))
    assert timeline.starts["after_fast"] == [1.0]
    assert timeline.ends == {"fast": [1.0], "after_fast": [2.0], "slow": [5.0]}


async def test_predecessor_outputs_reach_the_node_as_labelled_context() -> None:
    """Seed: "Each completed node's final text is written to state[key] (key = the node's name ...) and appended
    to each successor's input as a labeled context message."""
    timeline = Timeline()
    ctx = RunContext.ephemeral(None)
    await drain(diamond(timeline).run(ctx, INPUT))
    (summary_input,) = timeline.inputs["summary"]
    assert summary_input.items == (
        UserMessage("report"),
        UserMessage("[spending]\nspending(report)"),
        UserMessage("[income]\nincome(report)"),
    )
    assert context_message("spending", "x") == UserMessage("[spending]\nx")
    assert ctx.state.snapshot() == {
        "spending": "spending(report)",
        "income": "income(report)",
        "summary": "summary(report | [spending]\nspending(report) | [income]\nincome(report))",
    }


async def test_one_sink_goes_through_verbatim(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "a single sink's text goes through verbatim"."""
    events = await drain(diamond(summary=1.0).run(RunContext.ephemeral(None), INPUT))
    final = [e for e in events if isinstance(e, MessageOutput)][-1]
    assert events[-2] == final
    assert final.item.text == "summary(report | [spending]\nspending(report) | [income]\nincome(report))"
    assert final.item.agent == "finance_report"
    assert events[0] == RunStarted("finance_report")
    assert completed_usage(events) == Usage(input_tokens=3, output_tokens=6, requests=3)


async def test_several_sinks_merge_into_a_sorted_key_json_object(autojump_clock: trio.testing.MockClock) -> None:
    """Seed: "multiple sinks merge into a JSON object keyed by node name, the same convention ParallelAgent uses"."""
    graph = (
        GraphAgent[None]
        .builder()
        .node("root", FakeAgent("root", answer="r"))
        .node("zulu", FakeAgent("z", answer="Z", latency=0.1))
        .node("alpha", FakeAgent("a", answer="A", latency=0.2))
        .edge("root", "zulu")
        .edge("root", "alpha")
        .build()
    )
    events = await drain(graph.run(RunContext.ephemeral(None), INPUT))
    final = events[-2]
    assert isinstance(final, MessageOutput)
    assert final.item.text == '{"alpha":"A","zulu":"Z"}'
    assert json.loads(final.item.text) == {"alpha": "A", "zulu": "Z"}


async def test_failure_skips_descendants_and_lets_independent_branches_finish(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seed: "Failure is collect-all, like ParallelAgent: a failed node marks its transitive descendants as
    skipped (independent branches still run to completion), then one aggregate RunFailed names both the failed
    and the skipped nodes. No new AgentEvent variant is added for a skip"."""
    timeline = Timeline()
    down = ModelFailed(ModelFailureKind.UNAVAILABLE, "down")
    graph = (
        GraphAgent[None]
        .builder()
        .node("a", FakeAgent("a", latency=1.0, error=down, timeline=timeline))
        .node("b", FakeAgent("b", timeline=timeline))
        .node("c", FakeAgent("c", timeline=timeline))
        .node("free", FakeAgent("free", latency=4.0, timeline=timeline))
        .node("free2", FakeAgent("free2", latency=1.0, timeline=timeline))
        .edge("a", "b")
        .edge("b", "c")
        .edge("free", "free2")
        .edge("free2", "c")
        .build()
    )
    ctx = RunContext.ephemeral(None)
    events = await drain(graph.run(ctx, INPUT))
    assert events[-1] == RunFailed(GraphFailed((BranchFailure("a", down),), ("b", "c")))
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]
    assert set(timeline.starts) == {"a", "free", "free2"}
    assert timeline.ends["free2"] == [5.0]
    assert ctx.state.snapshot() == {"free": "free(report)", "free2": "free2(report | [free]\nfree(report))"}
    assert "b, c" in str(events[-1].error)


async def test_a_graph_node_can_be_any_agent_even_a_graph() -> None:
    """Seed: "each implement the same Agent<Ctx> trait ... so they nest and compose freely"."""
    inner = GraphAgent[None].builder().name("inner").node("x", FakeAgent("x", answer="X")).build()
    outer = GraphAgent[None].builder().node("in", inner).node("y", FakeAgent("y")).edge("in", "y").build()
    ctx = RunContext.ephemeral(None)
    events = await drain(outer.run(ctx, INPUT))
    assert ctx.state.get("in") == "X"
    final = events[-2]
    assert isinstance(final, MessageOutput)
    assert final.item.text == "y(report | [in]\nX)"
