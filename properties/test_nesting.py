"""Laws of nested runs, over random topologies on the simulator: the usage of a run is what its models served,
split correctly by agent, and every event belongs to the agent most recently announced before it.

A topology nests `LlmAgent`s (each with its own `ScriptedModel`, answering with its own name), agent-as-tool
calls (some of whose sub-runs fail), handoffs, `SequentialAgent`s and `ParallelAgent`s up to three levels
deep. Names are unique, so an event's owner is known: a `TokenDelta` carries its agent's name as text, a
`MessageOutput` names its agent.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import attrs
from hypothesis import given, strategies as st

from helikon_fc import (
    AgentAsTool,
    AgentUpdated,
    Handoff,
    HandoffItem,
    LlmAgent,
    MessageOutput,
    ParallelAgent,
    RunCompleted,
    RunConfig,
    RunStarted,
    SequentialAgent,
    TokenDelta,
    Usage,
)
from helikon_fc.agents.handoff import slug
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply, simulate


@attrs.define
class Topology:
    """A nested agent and every model in it, by the agent that owns the model."""

    root: Agent[None]
    models: dict[str, ScriptedModel]

    def served(self) -> dict[str, int]:
        """Requests each agent's model served in the latest run (agents whose model was never asked left out)."""
        return {name: len(model.requests) for name, model in self.models.items() if model.requests}


KINDS = ("leaf", "tool", "handoff", "sequential", "parallel")


@st.composite
def topologies(draw: st.DrawFn, depth: int = 3) -> Topology:
    """Random nested topologies, unique names by construction."""
    models: dict[str, ScriptedModel] = {}
    names = (f"a{index}" for index in itertools.count())
    return Topology(_agent(draw, depth, names, models), models)


def _llm(
    name: str,
    models: dict[str, ScriptedModel],
    *turns: ScriptedTurn,
    tools: tuple[AgentAsTool[None], ...] = (),
    handoffs: tuple[Handoff[None], ...] = (),
) -> LlmAgent[None]:
    model = ScriptedModel(turns, name=name)
    models[name] = model
    return LlmAgent(name=name, model=model, tools=tools, handoffs=handoffs)


def _failing(name: str, models: dict[str, ScriptedModel]) -> LlmAgent[None]:
    """An agent whose run fails with MaxTurnsExceeded after its model served one request."""
    agent = _llm(name, models, call_tools(call("no_such_tool")))
    return agent.with_run_config(RunConfig(max_turns=1))


def _agent(draw: st.DrawFn, depth: int, names: Iterator[str], models: dict[str, ScriptedModel]) -> Agent[None]:
    kind = draw(st.sampled_from(KINDS if depth > 0 else KINDS[:1]))
    name = next(names)
    match kind:
        case "leaf":
            return _llm(name, models, reply(name))
        case "tool":
            # Under a tool a sub-run may also fail (its parent reads an error and goes on): its calls still count.
            failing = draw(st.booleans())
            sub = _failing(next(names), models) if failing else _agent(draw, depth - 1, names, models)
            tool = AgentAsTool[None](sub).with_name(f"ask_{name}")
            return _llm(name, models, call_tools(call(tool.name, input="go")), reply(name), tools=(tool,))
        case "handoff":
            target = _agent(draw, depth - 1, names, models)
            transfer = call_tools(call("transfer_to_" + slug(target.name)))
            return _llm(name, models, transfer, handoffs=(Handoff.to(target),))
        case "sequential" | "parallel":
            count = draw(st.integers(min_value=1, max_value=3))
            children = [_agent(draw, depth - 1, names, models) for _ in range(count)]
            if kind == "sequential":
                steps: SequentialAgent[None] = SequentialAgent(name, "steps")
                for child in children:
                    steps = steps.then(child)
                return steps
            fan: ParallelAgent[None] = ParallelAgent(name, "branches")
            for child in children:
                fan = fan.add(child)
            return fan
    raise AssertionError(kind)  # pragma: no cover


@given(topology=topologies())
def test_usage_is_what_the_models_served(topology: Topology) -> None:
    """For any nested topology, RunCompleted.usage.requests equals the requests the models served, and the
    per-agent breakdown gives each agent exactly its own model's requests."""
    sim = simulate(topology.root, "go")
    assert sim.error is None, sim.error
    last = sim.events[-1]
    assert isinstance(last, RunCompleted)
    served = topology.served()
    assert last.usage.requests == sum(served.values())
    assert sim.result is not None
    by_agent = sim.result.usage_by_agent
    assert {agent: usage.requests for agent, usage in by_agent.items()} == served
    total = Usage()
    for usage in by_agent.values():
        total += usage
    assert total == last.usage


@given(topology=topologies())
def test_every_event_belongs_to_the_agent_announced_last(topology: Topology) -> None:
    """For any nested topology, each token, message and handoff on the stream comes from the agent most recently
    announced (by RunStarted or AgentUpdated) before it."""
    sim = simulate(topology.root, "go")
    assert sim.error is None, sim.error
    announced: str | None = None
    for index, event in enumerate(sim.events):
        match event:
            case RunStarted(agent=agent) | AgentUpdated(agent=agent):
                announced = agent
            case TokenDelta(text=text):
                assert text == announced, (index, event, sim.events)
            case MessageOutput(item=item):
                assert item.agent == announced, (index, event, sim.events)
            case HandoffItem(from_agent=source):
                assert source == announced, (index, event, sim.events)
            case _:
                pass
