"""`LlmAgent`: keyword construction, immutability, definitions checked when built, instructions and settings."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from tests.shell.loop_fakes import SleepTool, drain

from helikon_fc import (
    Agent,
    AgentInput,
    LlmAgent,
    ModelSettings,
    RunConfig,
    RunContext,
    RunResultStreaming,
    SystemMessage,
)
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

QUESTION = AgentInput.from_user_text("hi")


def test_constructor_is_keyword_only_with_the_documented_defaults() -> None:
    """`LlmAgent` takes keywords only; everything but `name` and `model` has a default."""
    model = ScriptedModel([])
    agent: LlmAgent[None] = LlmAgent(name="a", model=model)
    assert (agent.instructions, agent.description, agent.tools, agent.handoffs) == (None, "", (), ())
    assert (agent.output_type, agent.model_settings, agent.run_config) == (None, None, None)
    with pytest.raises(TypeError):
        LlmAgent("a", model)  # type: ignore[call-arg]


def test_agents_are_immutable_and_with_methods_copy() -> None:
    """An agent cannot be changed; each ``with_*`` returns a changed copy and leaves the original alone."""
    tool = SleepTool("a")
    agent: LlmAgent[None] = LlmAgent(name="a", model=ScriptedModel([]), tools=[tool])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        agent.name = "b"  # type: ignore[misc]
    assert isinstance(agent.tools, tuple)
    other = SleepTool("b")
    changed = agent.with_tools(other).with_instructions("Be brief.").with_description("d")
    changed = changed.with_run_config(RunConfig(max_turns=2)).with_model_settings(ModelSettings(temperature=0))
    assert changed.tools == (tool, other) and changed.instructions == "Be brief."
    assert agent.tools == (tool,) and agent.instructions is None and agent.run_config is None
    assert changed.description == "d" and changed.run_config == RunConfig(max_turns=2)
    assert changed.model_settings == ModelSettings(temperature=0) and agent.model_settings is None


async def test_with_output_type_copies_with_the_schema_derived_again() -> None:
    """`with_output_type` returns a copy whose runs send the new type's schema; the original still sends none."""
    model = ScriptedModel([reply("plain"), reply('{"value": [1, 2, 3]}')])
    plain: LlmAgent[None] = LlmAgent(name="n", model=model)
    typed = plain.with_output_type(list[int])
    await drain(plain.run(RunContext.ephemeral(None), QUESTION))
    result = await RunResultStreaming(typed.run(RunContext.ephemeral(None), QUESTION)).collect_typed(list[int])
    assert result.final_output == [1, 2, 3]
    assert [request.output_schema is not None for request in model.requests] == [False, True]
    assert (plain.output_type, typed.output_type) == (None, list[int])


def test_satisfies_the_agent_protocol() -> None:
    """An `LlmAgent` is an `Agent`: name, description, run."""
    agent: Agent[None] = LlmAgent(name="a", model=ScriptedModel([]), description="Does a.")
    assert (agent.name, agent.description) == ("a", "Does a.")


def test_bad_definitions_fail_when_built() -> None:
    """Duplicate tool names, an empty name and an unsupported output type are rejected by the constructor."""
    with pytest.raises(ValueError, match="two tools named 'a'"):
        LlmAgent(name="x", model=ScriptedModel([]), tools=[SleepTool("a"), SleepTool("a")])
    with pytest.raises(ValueError):
        LlmAgent(name="", model=ScriptedModel([]))
    with pytest.raises(TypeError):
        LlmAgent(name="x", model=ScriptedModel([]), output_type=object)


async def test_instructions_callable_is_rendered_once_per_run() -> None:
    """A callable of the run context is rendered once per run, and its text is the request's instructions."""
    renders: list[str] = []

    def instructions(ctx: RunContext[str]) -> str:
        renders.append(ctx.user)
        return f"You help {ctx.user}."

    model = ScriptedModel([call_tools(call("a")), call_tools(call("a")), reply("done")])
    agent: LlmAgent[str] = LlmAgent(name="a", model=model, instructions=instructions, tools=[SleepTool("a", 0)])
    await drain(agent.run(RunContext.ephemeral("Ada"), QUESTION))
    assert renders == ["Ada"]
    assert [r.instructions for r in model.requests] == ["You help Ada."] * 3
    # Instructions travel beside the conversation, never inside it.
    assert not any(isinstance(item, SystemMessage) for r in model.requests for item in r.items)


async def test_model_settings_reach_the_model() -> None:
    """`model_settings` go to the model unchanged on tool-loop turns."""
    settings = ModelSettings(temperature=0.2, max_output_tokens=300, tool_choice="auto")
    model = ScriptedModel([reply("ok")])
    agent: LlmAgent[None] = LlmAgent(name="a", model=model, model_settings=settings, tools=[SleepTool("a")])
    await drain(agent.run(RunContext.ephemeral(None), QUESTION))
    assert model.requests[0].settings == settings
    assert [t.name for t in model.requests[0].tools] == ["a"]


async def test_one_agent_serves_many_runs() -> None:
    """An agent holds no run state: two runs of the same agent are independent."""
    agent: LlmAgent[Any] = LlmAgent(name="a", model=ScriptedModel([reply("one"), reply("two")]))
    first = await RunResultStreaming(agent.run(RunContext.ephemeral(None), QUESTION)).collect()
    second = await RunResultStreaming(agent.run(RunContext.ephemeral(None), QUESTION)).collect()
    assert (first.final_output, second.final_output) == ("one", "two")
