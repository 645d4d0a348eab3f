"""Issue 9's repros of nested runs: the usage of sub-runs counts, and nested workflows announce themselves."""

from __future__ import annotations

from helikon_fc import AgentAsTool, AgentUpdated, GraphAgent, LlmAgent, MessageOutput, ParallelAgent, RunStarted, Usage
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply, simulate

ONE = Usage(input_tokens=10, output_tokens=5, requests=1)


def leaf(name: str) -> LlmAgent[None]:
    return LlmAgent(name=name, model=ScriptedModel([reply(f"{name} says hi")], name=name))


def asking(name: str, sub: LlmAgent[None]) -> LlmAgent[None]:
    """An agent that asks `sub` once through AgentAsTool, then answers."""
    turns: list[ScriptedTurn] = [call_tools(call(sub.name, input="help")), reply(f"{name} is done")]
    return LlmAgent(name=name, model=ScriptedModel(turns, name=name), tools=[AgentAsTool[None](sub)])


def test_a_graph_with_an_agent_as_tool_node_counts_every_request() -> None:
    """A 3-node graph whose middle node asks a sub-agent made 5 requests, and reports 5 (it reported 4)."""
    graph = (
        GraphAgent[None]
        .builder()
        .name("flow")
        .node("first", leaf("first"))
        .node("middle", asking("middle", leaf("helper")))
        .node("last", leaf("last"))
        .edge("first", "middle")
        .edge("middle", "last")
        .build()
    )
    sim = simulate(graph, "go")
    assert sim.result is not None, sim.error
    assert sim.result.usage.requests == 5
    assert dict(sim.result.usage_by_agent) == {"first": ONE, "middle": ONE + ONE, "helper": ONE, "last": ONE}


def test_a_nested_parallel_announces_itself_before_its_merged_message() -> None:
    """A ParallelAgent inside another: AgentUpdated('inner') comes before inner's merged message, so that
    message never follows the announcement of one of inner's branches."""
    inner = ParallelAgent[None]("inner").add(leaf("a")).add(leaf("b"))
    outer = ParallelAgent[None]("outer").add(inner).add(leaf("c"))
    sim = simulate(outer, "go")
    assert sim.error is None, sim.error
    (merged,) = [e for e in sim.events if isinstance(e, MessageOutput) and e.item.agent == "inner"]
    before = sim.events[: sim.events.index(merged)]
    announcements = [e.agent for e in before if isinstance(e, RunStarted | AgentUpdated)]
    assert announcements[-1] == "inner"
    assert AgentUpdated("inner") in sim.events
