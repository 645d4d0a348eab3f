"""Agents for the `helikon run` tests, loaded by the CLI from this file (``tests/cli/cli_agents.py:<name>``)."""

from __future__ import annotations

import trio

from helikon_fc import LlmAgent, Model, ParallelAgent, SequentialAgent, function_tool
from helikon_fc.testing import ScriptedModel, call, call_tools, fail, reply


@function_tool
async def get_spending(category: str) -> int:
    """Spending in a category this month, in dollars.

    Args:
        category: a spending category.
    """
    return {"dining": 212}.get(category, 0)


@function_tool
async def wait_forever() -> str:
    """A lookup that never returns (the Ctrl-C test cancels it)."""
    await trio.sleep_forever()
    return "never"


def _budget(model: Model) -> LlmAgent[None]:
    return LlmAgent(name="budget", model=model, instructions="Answer briefly.", tools=[get_spending])


budget = _budget(ScriptedModel([call_tools(call("get_spending", category="dining")), reply("You spent $212.")]))
"""Completes after one tool call."""

broken = LlmAgent(name="broken", model=ScriptedModel([fail("the model is down")]))
"""Fails: its only model call fails."""

chatty = LlmAgent(name="chatty", model=ScriptedModel([call_tools(call("get_spending", category="x"))] * 5))
"""Calls a tool on every turn: runs out of turns under --max-turns."""

stuck = LlmAgent(name="stuck", model=ScriptedModel([call_tools(call("wait_forever"))]), tools=[wait_forever])
"""Waits in a tool until it is cancelled."""

fan_out: ParallelAgent[None] = (
    ParallelAgent[None]("fan-out")
    .add(LlmAgent(name="left", model=ScriptedModel([reply("left answer")])))
    .add(LlmAgent(name="right", model=ScriptedModel([reply("right answer")])))
)
"""Two branches, both answering."""

pipeline: SequentialAgent[None] = SequentialAgent[None]("pipeline").then(budget)
"""A workflow: --model cannot replace its inner agents' models."""


def build(model: Model | None) -> LlmAgent[None]:
    """A factory: the agent on the --model model, or on its scripted one without --model."""
    return _budget(model or ScriptedModel([reply("built without a model")]))


def make_budget() -> LlmAgent[None]:
    """A factory with no parameters."""
    return budget


not_an_agent = 42
