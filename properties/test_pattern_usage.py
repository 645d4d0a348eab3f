"""Usage folding through the pattern interpreters on trio: a workflow's `RunCompleted` carries the sum of what
every child run below it cost, nested workflows included, whatever the pattern (the machines decide what runs;
the run's usage meter, fed as each child ends, adds it up)."""

from __future__ import annotations

import itertools

import trio
import trio.testing
from hypothesis import given, strategies as st
from tests.agents.workflow_fakes import INPUT, FakeAgent, completed_usage, drain

from helikon_fc.agents.agent_as_tool import AgentAsTool
from helikon_fc.agents.graph import GraphAgent
from helikon_fc.agents.handoff import Handoff
from helikon_fc.agents.llm_agent import LlmAgent
from helikon_fc.agents.loop import LoopAgent
from helikon_fc.agents.parallel import ParallelAgent
from helikon_fc.agents.protocol import Agent
from helikon_fc.agents.sequential import SequentialAgent
from helikon_fc.core import OtherError, Usage
from helikon_fc.core.usage import one_call
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

usages = st.builds(Usage, input_tokens=st.integers(0, 50), output_tokens=st.integers(0, 50), requests=st.integers(0, 3))


def fakes(prefix: str, costs: list[Usage]) -> list[FakeAgent]:
    return [FakeAgent(f"{prefix}{i}", usage=cost, latency=float(i % 3)) for i, cost in enumerate(costs)]


def total(costs: list[Usage]) -> Usage:
    out = Usage()
    for cost in costs:
        out += cost
    return out


def run(agent: Agent[None]) -> Usage:
    async def main() -> Usage:
        return completed_usage(await drain(agent.run(RunContext.ephemeral(None), INPUT)))

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@given(first=st.lists(usages, min_size=1, max_size=4), second=st.lists(usages, min_size=1, max_size=4))
def test_nested_workflows_cost_the_sum_of_every_child(first: list[Usage], second: list[Usage]) -> None:
    """A sequence over a parallel and a chain graph (nested machines on one meter): the sum of all the leaves."""
    fan = ParallelAgent("fan")
    for agent in fakes("p", first):
        fan = fan.add(agent)
    builder = GraphAgent.builder().name("dag")
    leaves = fakes("g", second)
    for agent in leaves:
        builder = builder.node(agent.name, agent)
    for before, after in itertools.pairwise(leaves):
        builder = builder.edge(before.name, after.name)
    pipeline = SequentialAgent("pipe").then(fan).then(builder.build())
    assert run(pipeline) == total(first + second)


@given(costs=st.lists(usages, min_size=1, max_size=3), escalate_on=st.integers(1, 4))
def test_a_loop_costs_every_pass_it_ran(costs: list[Usage], escalate_on: int) -> None:
    """A loop whose last step escalates on its `escalate_on`-th run costs that many passes of its steps."""
    steps = fakes("s", costs)
    last = steps[-1]
    steps[-1] = FakeAgent(last.name, usage=last.usage, escalate_on=frozenset({escalate_on}))
    loop = LoopAgent("loop", max_iterations=5)
    for agent in steps:
        loop = loop.then(agent)
    assert run(loop) == total(costs * escalate_on)


def _front(turns: list[object], **kwargs: object) -> LlmAgent[None]:
    return LlmAgent(name="front", model=ScriptedModel(turns), **kwargs)  # type: ignore[arg-type]


@given(own=usages, target=usages)
def test_a_run_that_hands_off_costs_its_own_calls_and_its_targets(own: Usage, target: Usage) -> None:
    """A handoff target's usage folds into the run that handed off (`core.patterns.subrun` relays the target's
    terminal; the meter counts what the target reports and was not counted yet)."""
    billing = FakeAgent("billing", usage=target)
    front = _front([call_tools(call("transfer_to_billing"), usage=own)], handoffs=[Handoff.to(billing)])
    assert run(front) == one_call(own) + target  # a model call counts as one request, whatever it reports


@given(first=usages, sub=usages, last=usages, fails=st.booleans())
def test_an_agent_as_tool_sub_run_costs_what_it_reported_in_its_callers_run(
    first: Usage, sub: Usage, last: Usage, fails: bool
) -> None:
    """What a sub-run reported on completing counts in its caller's usage; one that failed (reporting nothing, as a
    custom agent's `RunFailed` does) adds nothing, and its caller goes on to its next call."""
    error = OtherError("broke") if fails else None
    helper = FakeAgent("helper", usage=sub, error=error)
    turns = [call_tools(call("helper", input="?"), usage=first), reply("done", usage=last)]
    lead = _front(turns, tools=[AgentAsTool(helper)])
    assert run(lead) == one_call(first) + (Usage() if fails else sub) + one_call(last)
