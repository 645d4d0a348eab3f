"""`LoopDefinition`: the one frozen value the driver runs; the shell owns the `Agent` protocol."""

from __future__ import annotations

import attrs
import pytest
from tests.shell.loop_fakes import SleepTool, drain, ephemeral

from helikon_fc import AgentInput, Handoff, LlmAgent, RunCompleted
from helikon_fc.core import HandoffTarget
from helikon_fc.shell.loop.definition import LoopDefinition
from helikon_fc.shell.loop.driver import open_loop_run
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


def test_an_llm_agent_hands_the_driver_one_frozen_definition() -> None:
    """`LlmAgent.definition` holds what the agent was built with; it cannot be changed, nor can its mappings."""
    helper = LlmAgent(name="helper", model=ScriptedModel([reply("hi")]))
    tool = SleepTool("lookup", seconds=0)
    agent = LlmAgent(
        name="main", model=ScriptedModel([]), instructions="Be brief.", tools=[tool], handoffs=[Handoff.to(helper)]
    )
    definition = agent.definition
    assert definition.name == "main" and definition.instructions == "Be brief."
    assert [d.name for d in definition.tool_defs] == ["lookup"]
    assert definition.tools_by_name["lookup"] is tool
    assert definition.handoff_targets == (
        HandoffTarget("transfer_to_helper", "helper", "Hand the conversation over to helper."),
    )
    assert definition.resolvers["helper"]() is helper
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        definition.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        definition.tools_by_name["x"] = tool  # type: ignore[index]
    with pytest.raises(TypeError):
        definition.resolvers["x"] = lambda: helper  # type: ignore[index]


async def test_a_definition_built_directly_runs_like_the_agent() -> None:
    """The driver needs nothing but the definition: one built by hand gives the agent's events."""

    def model() -> ScriptedModel:
        return ScriptedModel([call_tools(call("lookup")), reply("found it")])

    question = AgentInput.from_user_text("find it")
    by_hand = LoopDefinition(name="finder", model=model(), tools=(SleepTool("lookup", seconds=0),))
    agent = LlmAgent(name="finder", model=model(), tools=[SleepTool("lookup", seconds=0)])
    direct = await drain(open_loop_run(by_hand, ephemeral(), question))
    assert direct == await drain(agent.run(ephemeral(), question))
    assert isinstance(direct[-1], RunCompleted)


def test_the_agent_protocol_is_the_shells_and_still_importable_from_agents() -> None:
    """`Agent` and `RunStream` live in the shell; `helikon_fc.agents` and the top package re-export them."""
    import helikon_fc
    import helikon_fc.agents
    from helikon_fc.agents import protocol
    from helikon_fc.shell.loop import protocol as shell_protocol

    assert helikon_fc.Agent is shell_protocol.Agent is protocol.Agent is helikon_fc.agents.Agent
    assert helikon_fc.RunStream is shell_protocol.RunStream is helikon_fc.agents.RunStream
