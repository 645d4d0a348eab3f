"""Run limits hold where they are decided: a run far ahead of a slow consumer calls no model and no tool past them."""

from __future__ import annotations

import trio
import trio.testing

from helikon_fc.agents.llm_agent import LlmAgent
from helikon_fc.agents.loop import LoopAgent
from helikon_fc.agents.protocol import RunStream
from helikon_fc.core import AgentEvent, MaxIterationsExceeded, MaxTurnsExceeded, RunFailed
from helikon_fc.shell.context.config import RunConfig
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.input import AgentInput
from helikon_fc.shell.tools.function_tool import function_tool
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

INPUT = AgentInput.from_user_text("go")


async def slowly(stream: RunStream) -> list[AgentEvent]:
    """Every event of `stream`, taking each one a second after the last: a consumer far behind its run."""
    async with stream as events:
        taken: list[AgentEvent] = []
        async for event in events:
            await trio.sleep(1)
            taken.append(event)
        return taken


async def test_max_turns_stops_the_model_and_its_tools_however_slow_the_consumer(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """With `max_turns=3` and a model that always calls a tool, the model is asked 3 times and the tool runs 3 times."""
    asked: list[int] = []
    ran: list[int] = []

    def turn(request: object) -> ScriptedTurn:
        asked.append(len(asked))
        return call_tools(call("tick"))

    @function_tool
    async def tick() -> str:
        """Count one call."""
        ran.append(len(ran))
        return "ok"

    agent = LlmAgent[None](name="busy", model=FunctionModel(turn), tools=(tick,))
    ctx = RunContext.ephemeral(None).with_run_config(RunConfig(max_turns=3))
    events = await slowly(agent.run(ctx, INPUT))
    assert events[-1] == RunFailed(MaxTurnsExceeded(3))
    assert (len(asked), len(ran)) == (3, 3)


async def test_loop_iterations_stop_the_steps_however_slow_the_consumer(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A loop of `max_iterations=2` over a step that never escalates asks the step's model twice, no more."""
    asked: list[int] = []

    def turn(request: object) -> ScriptedTurn:
        asked.append(len(asked))
        return reply("again")

    loop = LoopAgent[None](name="loop", max_iterations=2).then(LlmAgent(name="step", model=FunctionModel(turn)))
    events = await slowly(loop.run(RunContext.ephemeral(None), INPUT))
    assert events[-1] == RunFailed(MaxIterationsExceeded(2))
    assert len(asked) == 2
