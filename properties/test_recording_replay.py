"""The law of recordings, over random nested topologies on the simulator: replaying the recording of any run
with the same agents reproduces the run — every event, in order, the usage and the output — every time.

A topology nests `LlmAgent`s (answering with their own name, with latencies of their own), agent-as-tool
calls (some of whose sub-runs fail, running out of turns or on a failed model call), handoffs,
`SequentialAgent`s and `ParallelAgent`s up to three levels deep. It is drawn as a shape, so the same agents
can be built twice: on scripted models to record, on the recording to replay.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator

import attrs
import trio
import trio.testing
from hypothesis import given, strategies as st

from helikon_fc import AgentAsTool, Handoff, LlmAgent, Model, ParallelAgent, RunConfig, SequentialAgent
from helikon_fc.agents.handoff import slug
from helikon_fc.core import ModelFailureKind
from helikon_fc.shell.loop.protocol import Agent
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import (
    Recording,
    ReplayModel,
    ScriptedModel,
    ScriptedTurn,
    call,
    call_tools,
    deterministic_scheduling,
    fail,
    record,
    replay,
    reply,
)


@attrs.frozen
class Shape:
    """One node of a topology: its kind, its agent's name, its model's latency and its children."""

    kind: str
    name: str
    latency: float = 0.0
    children: tuple[Shape, ...] = ()


KINDS = ("leaf", "tool", "failing_tool", "broken_tool", "handoff", "sequential", "parallel")


@st.composite
def shapes(draw: st.DrawFn, depth: int = 3) -> Shape:
    """Random nested topologies as shapes, unique names by construction."""
    return _shape(draw, depth, (f"a{index}" for index in itertools.count()))


def _shape(draw: st.DrawFn, depth: int, names: Iterator[str]) -> Shape:
    kind = draw(st.sampled_from(KINDS if depth > 0 else KINDS[:1]))
    name = next(names)
    latency = draw(st.sampled_from((0.0, 0.1, 0.25, 1.5)))
    match kind:
        case "leaf" | "failing_tool" | "broken_tool":
            children: tuple[Shape, ...] = ()
            if kind != "leaf":
                children = (Shape("failing" if kind == "failing_tool" else "broken", next(names), latency),)
        case "tool" | "handoff":
            children = (_shape(draw, depth - 1, names),)
        case _:
            count = draw(st.integers(min_value=1, max_value=3))
            children = tuple(_shape(draw, depth - 1, names) for _ in range(count))
    return Shape(kind, name, latency, children)


def build(shape: Shape, model_for: Callable[[Shape], Model]) -> Agent[None]:
    """The agents of `shape`, each on the model `model_for` gives it."""
    model = model_for(shape)
    match shape.kind:
        case "leaf":
            return LlmAgent(name=shape.name, model=model)
        case "failing":  # fails with MaxTurnsExceeded after one model call
            return LlmAgent(name=shape.name, model=model).with_run_config(RunConfig(max_turns=1))
        case "broken":  # its one model call fails
            return LlmAgent(name=shape.name, model=model)
        case "tool" | "failing_tool" | "broken_tool":
            tool = AgentAsTool[None](build(shape.children[0], model_for)).with_name(f"ask_{shape.name}")
            return LlmAgent(name=shape.name, model=model, tools=(tool,))
        case "handoff":
            return LlmAgent(name=shape.name, model=model, handoffs=(Handoff.to(build(shape.children[0], model_for)),))
        case "sequential":
            steps: SequentialAgent[None] = SequentialAgent(shape.name, "steps")
            for child in shape.children:
                steps = steps.then(build(child, model_for))
            return steps
        case "parallel":
            fan: ParallelAgent[None] = ParallelAgent(shape.name, "branches")
            for child in shape.children:
                fan = fan.add(build(child, model_for))
            return fan
    raise AssertionError(shape.kind)  # pragma: no cover


def scripted(shape: Shape) -> Model:
    """The scripted model of one node: it answers with the agent's name, after the node's latency."""
    turns: list[ScriptedTurn]
    match shape.kind:
        case "tool" | "failing_tool" | "broken_tool":
            turns = [call_tools(call(f"ask_{shape.name}", input="go"), latency=shape.latency), reply(shape.name)]
        case "handoff":
            turns = [call_tools(call("transfer_to_" + slug(shape.children[0].name)), latency=shape.latency)]
        case "failing":
            turns = [call_tools(call("no_such_tool"), latency=shape.latency)]
        case "broken":
            turns = [fail(ModelFailureKind.UNAVAILABLE, latency=shape.latency)]
        case _:
            turns = [reply(shape.name, latency=shape.latency)]
    return ScriptedModel(turns, name=shape.name)


def _recorded(shape: Shape) -> Recording:
    async def main() -> Recording:
        return await record(build(shape, scripted), "go", store=MemoryStore(), run_id="property")

    with deterministic_scheduling():
        return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@given(shape=shapes())
def test_replaying_a_recording_reproduces_the_run(shape: Shape) -> None:
    """For any nested topology, replaying its recording with the same agents streams exactly the recorded
    events (usage and output included), in the recorded virtual time, and the same again on a second replay."""
    recording = _recorded(shape)
    assert recording.calls and recording.events
    models: dict[str, ReplayModel] = {}

    def model_for(node: Shape) -> Model:
        models[node.name] = recording.model(node.name, agent=node.name)
        return models[node.name]

    agent = build(shape, model_for)
    first = replay(agent, recording, store=MemoryStore())
    assert first.events == recording.events
    again = replay(agent, recording, store=MemoryStore())
    assert again.events == first.events
    assert math.isclose(again.elapsed, first.elapsed)
    assert all(not model.unanswered and model.diverged is None for model in models.values())
