"""Agents for the `helikon run` tests, loaded by the CLI from this file (``tests/cli/cli_agents.py:<name>``)."""

from __future__ import annotations

import os

import trio

from helikon_fc import Handoff, LlmAgent, Model, ParallelAgent, SequentialAgent, function_tool
from helikon_fc.core import ModelRequest, ToolResult
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, fail, reply


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


@function_tool
async def finish_first() -> str:
    """A lookup that does not let the first Ctrl-C stop it (the second one stops the process)."""
    with trio.CancelScope(shield=True):
        await trio.sleep(60)
    return "late"


stubborn = LlmAgent(name="stubborn", model=ScriptedModel([call_tools(call("finish_first"))]), tools=[finish_first])
"""Ignores the cancel of the first Ctrl-C in its tool."""

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


@function_tool
async def fetch_statement(month: str) -> str:
    """A month's statement; hangs while HELIKON_TEST_HANG is set (the crash test kills the process meanwhile).

    Args:
        month: the month, as YYYY-MM.
    """
    if os.environ.get("HELIKON_TEST_HANG"):
        await trio.sleep_forever()
    await trio.lowlevel.checkpoint()
    return f"statement {month}: $688"


def _statement_turn(request: ModelRequest) -> ScriptedTurn:
    results = [item.output for item in request.items if isinstance(item, ToolResult)]
    if not results:
        return call_tools(call("fetch_statement", month="2026-11"))
    return reply(f"From the {results[0]}.")


statements = LlmAgent(name="statements", model=FunctionModel(_statement_turn), tools=[fetch_statement])
"""Calls one tool, then answers from its result (so a resumed run answers the same)."""


def _counting_turn(request: ModelRequest) -> ScriptedTurn:
    return reply(f"I have seen {len(request.items)} items.")


remembering = LlmAgent(name="remembering", model=FunctionModel(_counting_turn))
"""Answers with how many items its request held (a session's history makes it grow run by run)."""


def _billing_turn(request: ModelRequest) -> ScriptedTurn:
    results = [item.output for item in request.items if isinstance(item, ToolResult) and item.call_id == "fetch"]
    if not results:
        return call_tools(call("fetch_statement", month="2026-11").with_id("fetch"))
    return reply(f"From the {results[0]}.")


triage = LlmAgent(
    name="triage",
    model=ScriptedModel([call_tools(call("transfer_to_billing"))]),
    handoffs=[
        Handoff.to(LlmAgent(name="billing", model=FunctionModel(_billing_turn), tools=[fetch_statement])),
    ],
)
"""Hands off to ``billing``, which calls one tool (hanging under HELIKON_TEST_HANG), then answers."""
