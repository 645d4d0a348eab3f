"""`Handoff`: transfer tools, slugs, collisions, event order, usage and failures across a handoff."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from tests.shell.loop_fakes import SleepTool, drain, ephemeral, kinds

from helikon_fc import (
    AgentInput,
    AgentUpdated,
    AssistantMessage,
    Cancelled,
    Handoff,
    HandoffCollision,
    HandoffCollisionError,
    HandoffItem,
    LlmAgent,
    MessageOutput,
    ModelFailed,
    OtherError,
    RunCompleted,
    RunError,
    RunFailed,
    RunResultStreaming,
    Usage,
)
from helikon_fc.agents.handoff import slug
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply

QUESTION = AgentInput.from_user_text("Why was I charged twice?")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("billing", "billing"),
        ("Billing Agent", "billing_agent"),
        ("  EU--Refunds (v2)!", "eu_refunds_v2"),
        ("a__b", "a_b"),
        ("Ünïcode", "n_code"),
    ],
)
def test_slug_lowercases_and_collapses_non_alphanumeric_runs(name: str, expected: str) -> None:
    """The slug is lowercase with each run of non-alphanumerics collapsed to ``_`` and no ``_`` at either end."""
    assert slug(name) == expected


def test_handoff_to_uses_the_target_name_and_description() -> None:
    """`Handoff.to(agent)` offers ``transfer_to_<slug>`` described by the target's description."""
    billing = LlmAgent(name="Billing Desk", model=ScriptedModel([]), description="Charges and refunds.")
    handoff = Handoff.to(billing)
    assert handoff.tool_name == "transfer_to_billing_desk"
    target = handoff.target()
    assert (target.tool_name, target.agent, target.description) == (
        "transfer_to_billing_desk",
        "Billing Desk",
        "Charges and refunds.",
    )
    assert handoff.resolve() is billing


async def test_the_model_is_offered_the_transfer_tool() -> None:
    """The transfer tool appears after the agent's own tools, with the target's description."""
    billing = LlmAgent(name="billing", model=ScriptedModel([]), description="Charges and refunds.")
    model = ScriptedModel([reply("I can answer that myself.")])
    triage = LlmAgent(name="triage", model=model, tools=[SleepTool("lookup")], handoffs=[Handoff.to(billing)])
    await drain(triage.run(ephemeral(), QUESTION))
    tools = model.requests[0].tools
    assert [t.name for t in tools] == ["lookup", "transfer_to_billing"]
    assert tools[1].description == "Charges and refunds."


async def test_handoff_events_usage_and_transcript() -> None:
    """`HandoffItem` then `AgentUpdated` then the target's events (no second `RunStarted`); usage sums both."""
    billing_model = ScriptedModel([reply("Refund issued.", usage=Usage(input_tokens=20, output_tokens=7))])
    billing = LlmAgent(name="billing", model=billing_model, description="Billing.")
    transfer = call_tools(call("transfer_to_billing"), usage=Usage(input_tokens=10, output_tokens=5))
    triage_model = ScriptedModel([transfer])
    triage = LlmAgent(name="triage", model=triage_model, handoffs=[Handoff.to(billing)])
    result = await RunResultStreaming(triage.run(ephemeral(), QUESTION)).collect()
    names = kinds(result.events)
    assert names.count("RunStarted") == 1
    assert names[names.index("HandoffItem") :] == [
        "HandoffItem",
        "AgentUpdated",
        "TurnStarted",
        "TokenDelta",
        "TokenDelta",
        "MessageOutput",
        "RunCompleted",
    ]
    assert HandoffItem("triage", "billing") in result.events and AgentUpdated("billing") in result.events
    assert MessageOutput(AssistantMessage("Refund issued.", "billing")) in result.events
    assert result.usage == Usage(input_tokens=30, output_tokens=12, requests=2)
    assert result.final_output == "Refund issued."


async def test_a_failing_target_fails_the_run() -> None:
    """The target's `RunFailed` is the run's terminal event."""
    billing = LlmAgent(name="billing", model=ScriptedModel([fail("billing is down")]))
    triage = LlmAgent(
        name="triage", model=ScriptedModel([call_tools(call("transfer_to_billing"))]), handoffs=[Handoff.to(billing)]
    )
    events = await drain(triage.run(ephemeral(), QUESTION))
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, ModelFailed)
    assert sum(isinstance(e, RunFailed | RunCompleted) for e in events) == 1


async def test_a_target_that_cannot_be_resolved_fails_the_run() -> None:
    """A lazy target whose `resolve` raises ends the run with `RunFailed(OtherError)` naming it."""

    def missing() -> LlmAgent[None]:
        raise KeyError("billing")

    triage = LlmAgent(
        name="triage",
        model=ScriptedModel([call_tools(call("transfer_to_billing"))]),
        handoffs=[Handoff(agent_name="billing", description="Billing.", resolve=missing)],
    )
    events = await drain(triage.run(ephemeral(), QUESTION))
    assert isinstance(events[-1], RunFailed) and isinstance(events[-1].error, OtherError)
    assert "billing" in str(events[-1].error)


async def test_a_target_that_cannot_start_fails_the_run() -> None:
    """A target whose own handoffs collide ends the parent's run with the collision as `RunFailed`."""
    leaf = LlmAgent(name="leaf", model=ScriptedModel([]))
    broken = LlmAgent(name="broken", model=ScriptedModel([]), handoffs=[Handoff.to(leaf), Handoff.to(leaf)])
    triage = LlmAgent(
        name="triage", model=ScriptedModel([call_tools(call("transfer_to_broken"))]), handoffs=[Handoff.to(broken)]
    )
    events = await drain(triage.run(ephemeral(), QUESTION))
    assert events[-1] == RunFailed(HandoffCollision("transfer_to_leaf", ("leaf", "leaf")))


async def test_colliding_handoffs_are_rejected_before_any_model_call() -> None:
    """Two handoffs with one slug are rejected when the run starts: `HandoffCollisionError`, no model call."""
    model = ScriptedModel([reply("never")])
    a = LlmAgent(name="Billing", model=ScriptedModel([]))
    b = LlmAgent(name="billing", model=ScriptedModel([]))
    triage = LlmAgent(name="triage", model=model, handoffs=[Handoff.to(a), Handoff.to(b)])
    with pytest.raises(HandoffCollisionError) as info:
        async with triage.run(ephemeral(), QUESTION):
            pass  # pragma: no cover
    assert info.value.error == HandoffCollision("transfer_to_billing", ("Billing", "billing"))
    assert "transfer_to_billing" in str(info.value)
    assert model.requests == ()
    # collect() surfaces it as a RunError too.
    with pytest.raises(RunError) as caught:
        await RunResultStreaming(triage.run(ephemeral(), QUESTION)).collect()
    assert isinstance(caught.value.error, HandoffCollision)


async def test_a_handoff_colliding_with_a_tool_is_rejected() -> None:
    """A handoff whose transfer tool name is also a real tool's name is rejected the same way."""
    billing = LlmAgent(name="billing", model=ScriptedModel([]))
    model = ScriptedModel([reply("never")])
    triage = LlmAgent(
        name="triage", model=model, tools=[SleepTool("transfer_to_billing")], handoffs=[Handoff.to(billing)]
    )
    with pytest.raises(HandoffCollisionError) as info:
        await RunResultStreaming(triage.run(ephemeral(), QUESTION)).collect()
    assert info.value.error.agents == ("tool transfer_to_billing", "billing")
    assert model.requests == ()


async def test_swarm_style_cyclic_handoffs_from_immutable_agents() -> None:
    """Lazily resolved handoffs let immutable agents hand off to each other in a cycle."""
    members: dict[str, LlmAgent[None]] = {}
    for name, other, script in (
        ("triage", "billing", [call_tools(call("transfer_to_billing"))]),
        ("billing", "triage", [call_tools(call("transfer_to_triage"))]),
    ):

        def resolve(other: str = other) -> LlmAgent[None]:
            return members[other]

        handoff: Handoff[None] = Handoff(agent_name=other, description=f"{other} desk", resolve=resolve)
        members[name] = LlmAgent(name=name, model=ScriptedModel(script, name=name), handoffs=[handoff])
    # Second visit to triage answers: give triage a two-turn script.
    members["triage"] = members["triage"].with_model(
        ScriptedModel([call_tools(call("transfer_to_billing")), reply("Back at triage.")], name="triage")
    )
    result = await RunResultStreaming(members["triage"].run(ephemeral(), QUESTION)).collect()
    hops = [(e.from_agent, e.to_agent) for e in result.events if isinstance(e, HandoffItem)]
    assert hops == [("triage", "billing"), ("billing", "triage")]
    assert result.final_output == "Back at triage."


async def test_cancelling_during_the_target_run_ends_with_one_cancelled(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """``ctx.cancel()`` while the handoff target's model is thinking ends the run with exactly one
    `RunFailed(Cancelled)`, last."""
    billing = LlmAgent(name="billing", model=ScriptedModel([reply("late", latency=10)]))
    triage = LlmAgent(
        name="triage", model=ScriptedModel([call_tools(call("transfer_to_billing"))]), handoffs=[Handoff.to(billing)]
    )
    ctx = ephemeral()
    async with trio.open_nursery() as nursery:

        async def cancel_soon() -> None:
            await trio.sleep(1)
            ctx.cancel("stop")

        nursery.start_soon(cancel_soon)
        events = await drain(triage.run(ctx, QUESTION))
    assert events[-1] == RunFailed(Cancelled("stop"))
    assert sum(isinstance(e, RunFailed | RunCompleted) for e in events) == 1
    assert AgentUpdated("billing") in events
    assert trio.current_time() == 1.0
