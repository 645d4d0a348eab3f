"""A plain string is a run's input wherever an `AgentInput` is: every agent kind's `run` and `Runner.run`."""

from __future__ import annotations

from typing import Any

import pytest

from helikon_fc import (
    AgentInput,
    GraphAgent,
    LlmAgent,
    LoopAgent,
    MessageOutput,
    ParallelAgent,
    RunContext,
    Runner,
    RunResultStreaming,
    SequentialAgent,
    SwarmAgent,
    UserMessage,
)
from helikon_fc.core import ModelRequest
from helikon_fc.testing import FunctionModel, reply


def _echo(name: str) -> LlmAgent[None]:
    """An agent answering with the text of the last user message it was shown."""

    def answer(request: ModelRequest) -> Any:
        said = [item.text for item in request.items if isinstance(item, UserMessage)]
        return reply(f"{name} heard {said[-1]!r}")

    return LlmAgent(name=name, model=FunctionModel(answer))


def _agents() -> list[Any]:
    graph = GraphAgent.builder().name("g").node("a", _echo("a")).build()
    return [
        _echo("solo"),
        SequentialAgent[None]("seq").then(_echo("a")),
        ParallelAgent[None]("par").add(_echo("a")),
        LoopAgent[None]("loop", max_iterations=1).then(_echo("a")),
        SwarmAgent[None].builder().name("swarm").member(_echo("a")).entry("a").build(),
        graph,
    ]


@pytest.mark.parametrize("agent", _agents(), ids=lambda agent: type(agent).__name__)
async def test_every_agent_kind_runs_on_a_string(agent: Any) -> None:
    """``agent.run(ctx, "hi")`` runs on one user message "hi", as ``AgentInput.from_user_text("hi")`` does."""
    async with agent.run(RunContext.ephemeral(None), "hi") as events:
        said = [event.item.text async for event in events if isinstance(event, MessageOutput)]
    assert "a heard 'hi'" in said or "solo heard 'hi'" in said


async def test_runner_runs_on_a_string() -> None:
    """``Runner().run(agent, ctx, "hi")`` runs on one user message "hi"."""
    result = await RunResultStreaming(Runner().run(_echo("solo"), RunContext.ephemeral(None), "hi")).collect()
    assert result.final_output == "solo heard 'hi'"


@pytest.mark.parametrize("agent", _agents(), ids=lambda agent: type(agent).__name__)
def test_any_other_input_is_a_type_error_naming_the_argument(agent: Any) -> None:
    """Neither a string nor an `AgentInput`: a `TypeError` naming the method, the argument and what is allowed."""
    with pytest.raises(TypeError, match=rf"^{type(agent).__name__}\.run: input must be an AgentInput or a str, got"):
        agent.run(RunContext.ephemeral(None), ["hi"])


def test_runner_refuses_any_other_input_naming_the_argument() -> None:
    """`Runner.run` says which argument is wrong, and what it takes, before any run starts."""
    with pytest.raises(TypeError, match=r"^Runner\.run: input must be an AgentInput or a str, got 42 \(int\)"):
        Runner().run(_echo("solo"), RunContext.ephemeral(None), 42)  # type: ignore[arg-type]


async def test_an_agent_input_still_runs_as_it_is() -> None:
    """An `AgentInput` of several items is passed through unchanged."""
    input = AgentInput.from_items([UserMessage("first"), UserMessage("second")])
    result = await RunResultStreaming(_echo("solo").run(RunContext.ephemeral(None), input)).collect()
    assert result.final_output == "solo heard 'second'"
