"""The crash-test scenario: a graph of tool-calling agents, a handoff and an agent-as-tool, on fake models.

Every model is a `FunctionModel` whose answer depends only on the request (how many tool rounds
its agent has had), and every call id is derived from the agent and round, so a run resumed in a
fresh process asks and answers exactly what the uninterrupted run did. Every tool reports its
effect through `Effects` keyed by its idempotency key ``(run_id, call_id)``.

The graph (``fetch`` first, ``analyse`` and ``triage`` side by side, ``report`` last):

- ``fetch``: a round of four concurrent ``effect`` calls (with different latencies), then one more;
- ``analyse``: calls ``helper`` as a tool (an `AgentAsTool` sub-run that itself calls ``effect``);
- ``triage``: calls ``effect``, then hands off to ``specialist``, which calls ``effect`` and answers;
- ``report``: one ``effect`` call, then the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from helikon_fc import AgentAsTool, GraphAgent, Handoff, LlmAgent, ToolContext, function_tool
from helikon_fc.agents.protocol import Agent
from helikon_fc.core import ModelRequest, ToolCall, ToolResult, Usage
from helikon_fc.testing import FunctionModel, call, call_tools, reply
from helikon_fc.testing.script import ScriptedTurn

Effects = Callable[[str, str, str], None]
"""Called by every tool: ``(run_id, call_id, label)``."""

USAGE = Usage(input_tokens=7, output_tokens=3)


def _rounds(request: ModelRequest, agent: str) -> int:
    """How many tool rounds `agent` has had in this conversation (its calls carry its prefix)."""
    prefix = f"{agent}-r"
    return len(
        {
            item.call_id.rsplit("-", 1)[0]
            for item in request.items
            if isinstance(item, ToolCall) and item.call_id.startswith(prefix)
        }
    )


def _results(request: ModelRequest) -> list[str]:
    return [item.output for item in request.items if isinstance(item, ToolResult)]


def scripted(agent: str, rounds: list[list[tuple[str, dict[str, Any]]]], answer: str) -> FunctionModel:
    """A model that makes `rounds` of tool calls (ids ``<agent>-r<round>-<i>``), then answers."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        done = _rounds(request, agent)
        if done < len(rounds):
            calls = [
                call(name, **arguments).with_id(f"{agent}-r{done}-{index}")
                for index, (name, arguments) in enumerate(rounds[done])
            ]
            return call_tools(*calls, usage=USAGE)
        return reply(f"{answer} ({len(_results(request))} results)", usage=USAGE)

    return FunctionModel(turn, name=f"{agent}-model")


def build(effects: Effects) -> Agent[None]:
    """The scenario's graph, its tools reporting to `effects`."""

    @function_tool
    async def effect(ctx: ToolContext[None], label: str, delay: float) -> str:
        """Do a side effect once per idempotency key.

        Args:
            label: what to do.
            delay: seconds it takes.
        """
        await trio.sleep(delay)
        effects(ctx.run_id or "", ctx.call_id, label)
        return f"did {label}"

    def worker(name: str, rounds: list[list[tuple[str, dict[str, Any]]]], **more: Any) -> LlmAgent[None]:
        return LlmAgent(name=name, model=scripted(name, rounds, f"{name} done"), tools=[effect], **more)

    def fx(label: str, delay: float = 0.1) -> tuple[str, dict[str, Any]]:
        return ("effect", {"label": label, "delay": delay})

    fetch = worker("fetch", [[fx("a", 0.4), fx("b", 0.1), fx("c", 0.3), fx("d", 0.2)], [fx("e")]])
    helper = worker("helper", [[fx("help")]], description="Helps the analyst.")
    analyse = LlmAgent(
        name="analyse",
        model=scripted("analyse", [[("helper", {"input": "please help"})]], "analyse done"),
        tools=[AgentAsTool(helper)],
    )
    specialist = worker("specialist", [[fx("special")]], description="Knows the details.")
    triage = LlmAgent(
        name="triage",
        model=_triage_model(),
        tools=[effect],
        handoffs=[Handoff.to(specialist)],
    )
    report = worker("report", [[fx("report", 0.2)]])
    return (
        GraphAgent.builder()
        .name("crash-graph")
        .node("fetch", fetch)
        .node("analyse", analyse)
        .node("triage", triage)
        .node("report", report)
        .edge("fetch", "analyse")
        .edge("fetch", "triage")
        .edge("analyse", "report")
        .edge("triage", "report")
        .build()
    )


def _triage_model() -> FunctionModel:
    """Calls ``effect`` once, then transfers to the specialist."""

    def turn(request: ModelRequest) -> ScriptedTurn:
        if _rounds(request, "triage") == 0:
            return call_tools(call("effect", label="triage", delay=0.15).with_id("triage-r0-0"), usage=USAGE)
        return call_tools(call("transfer_to_specialist").with_id("triage-r1-0"), usage=USAGE)

    return FunctionModel(turn, name="triage-model")
