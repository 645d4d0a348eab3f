"""LoopAgent: repeats steps, stops after the escalating step, fails with MaxIterationsExceeded."""

from __future__ import annotations

import pytest
from tests.agents.workflow_fakes import INPUT, FakeAgent, completed_usage, drain, state_after

from helikon_fc.agents.loop import LoopAgent
from helikon_fc.core import AgentUpdated, MaxIterationsExceeded, OtherError, RunCompleted, RunFailed, Usage
from helikon_fc.shell.context.run_context import RunContext


async def test_repeats_steps_in_order_until_an_escalate() -> None:
    """Seed: "It repeats the sub-agents (in order) up to max_iterations. After each sub-agent, the loop checks
    its ActionsHandle: if a tool escalated, the loop emits RunCompleted and stops (success)."""
    drafter = FakeAgent("drafter", answer="draft")
    critic = FakeAgent("critic", answer="ok", escalate_on=frozenset({3}))
    loop = LoopAgent[None]("refine", "until good", 5).then(drafter).then(critic)
    events = await drain(loop.run(RunContext.ephemeral(None), INPUT))
    assert [e.agent for e in events if isinstance(e, AgentUpdated)] == ["drafter", "critic"] * 3
    assert drafter.runs == critic.runs == [3]
    assert completed_usage(events) == Usage(input_tokens=6, output_tokens=12, requests=6)


async def test_a_mid_pass_escalate_stops_before_the_rest_of_the_pass() -> None:
    """Seed: "the check happens after each sub-agent, so a mid-pass escalate stops before the rest of that pass
    runs." and "the active sub-agent always finishes its current run first"."""
    drafter = FakeAgent("drafter", answer="draft v2", escalate_on=frozenset({2}))
    critic = FakeAgent("critic")
    ctx = RunContext.ephemeral(None)
    events = await drain(LoopAgent[None]("refine", "", 5).then(drafter).then(critic).run(ctx, INPUT))
    assert drafter.runs == [2]
    assert critic.runs == [1]
    assert ctx.state.get("drafter") == "draft v2"  # the escalating step finished and wrote its output
    assert isinstance(events[-1], RunCompleted)


async def test_exhausting_the_budget_fails_with_max_iterations_exceeded() -> None:
    """Seed: "Exhausting the budget without an escalate emits RunFailed with AgentError::MaxIterationsExceeded"."""
    step = FakeAgent("step")
    events = await drain(LoopAgent[None]("refine", "", 3).then(step).run(RunContext.ephemeral(None), INPUT))
    assert step.runs == [3]
    assert events[-1] == RunFailed(MaxIterationsExceeded(3))
    assert [e for e in events if isinstance(e, RunFailed | RunCompleted)] == [events[-1]]


async def test_each_iteration_writes_state_under_the_key() -> None:
    """Seed: "Same as sequential" — after each sub-agent completes its final text is written to state[key]."""
    counter = iter(range(10))
    step = FakeAgent("step", answer=lambda name, _: f"v{next(counter)}", escalate_on=frozenset({2}))
    state = await state_after(LoopAgent[None]("refine", "", 4).then_keyed("draft", step))
    assert state == {"draft": "v1"}


async def test_a_failing_step_fails_the_loop_at_once() -> None:
    """A step that fails ends the loop with that step's error; no later step or iteration runs."""
    later = FakeAgent("later")
    loop = LoopAgent[None]("refine", "", 4).then(FakeAgent("bad", error=OtherError("boom"))).then(later)
    events = await drain(loop.run(RunContext.ephemeral(None), INPUT))
    assert events[-1] == RunFailed(OtherError("boom"))
    assert later.runs == [0]


def test_max_iterations_must_be_positive() -> None:
    """A loop that could never run is rejected when it is built."""
    with pytest.raises(ValueError, match="max_iterations must be an int >= 1"):
        LoopAgent[None]("refine", "", 0)
