"""Agents for the tests of recordings read from `helikon run --json` event files: a triage agent hands
off to a billing agent that calls a tool, then answers (``tests/testing/event_agents.py:desk``).

`build(model)` builds them on any model (the recorded run's `scripted()` model when `None`); `build(model,
structured=True)` is a changed billing agent whose run ends with a structured-output turn more.
"""

from __future__ import annotations

from helikon_fc import AgentAsTool, Handoff, LlmAgent, Model, function_tool
from helikon_fc.core import ModelRequest, ToolResult, Usage
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply


@function_tool
async def fee_table(plan: str) -> str:
    """The fees of a plan.

    Args:
        plan: the plan's name.
    """
    return {"basic": "2% per trade"}.get(plan, "unknown plan")


def build(model: Model | None = None, *, structured: bool = False) -> LlmAgent[None]:
    """Triage handing off to billing, on `model` (`scripted()` when `None`)."""
    model = model or scripted()
    billing = LlmAgent(
        name="billing",
        model=model,
        instructions="Answer billing questions.",
        tools=[fee_table],
        output_type=str if structured else None,
    )
    return LlmAgent(name="triage", model=model, instructions="Route the user.", handoffs=[Handoff.to(billing)])


def scripted() -> FunctionModel:
    """The model the run is recorded on: it answers by the agent's instructions, with usage of its own."""

    def answer(request: ModelRequest) -> ScriptedTurn:
        results = [item for item in request.items if isinstance(item, ToolResult)]
        if request.instructions == "Route the user.":
            return call_tools(call("transfer_to_billing"), usage=Usage(input_tokens=12, output_tokens=3))
        if len(results) < 2:
            return call_tools(
                call("fee_table", plan="basic"), text="Looking it up.", usage=Usage(input_tokens=20, output_tokens=5)
            )
        return reply(f"Fees: {results[-1].output}", reasoning="easy", usage=Usage(input_tokens=30, output_tokens=7))

    return FunctionModel(answer)


desk = build()
"""The recorded agent."""


def build_advisor(model: Model | None = None, *, lookups: int = 0) -> LlmAgent[None]:
    """An advisor that calls a researcher agent as a tool, on `model` (`advisor_model(lookups)` when `None`):
    the researcher answers after `lookups` calls of `fee_table` (model calls the parent's events never show)."""
    model = model or advisor_model(lookups)
    researcher = LlmAgent(name="researcher", model=model, instructions="Research fees.", tools=[fee_table])
    return LlmAgent(name="advisor", model=model, instructions="Advise.", tools=[AgentAsTool(researcher)])


def advisor_model(lookups: int) -> FunctionModel:
    """The model the advisor's run is recorded on."""

    def answer(request: ModelRequest) -> ScriptedTurn:
        results = [item.output for item in request.items if isinstance(item, ToolResult)]
        if request.instructions == "Research fees.":
            if len(results) < lookups:
                return call_tools(call("fee_table", plan="basic"), usage=Usage(input_tokens=5, output_tokens=1))
            return reply(f"found {results[-1] if results else 'nothing'}", usage=Usage(input_tokens=6, output_tokens=2))
        if not results:
            return call_tools(call("researcher", input="fees of basic"), usage=Usage(input_tokens=10, output_tokens=2))
        return reply(f"Advice: {results[-1]}", usage=Usage(input_tokens=11, output_tokens=3))

    return FunctionModel(answer)


advisor = build_advisor()
"""An advisor whose researcher answers at once (one model call)."""

advisor_looking_up = build_advisor(lookups=1)
"""An advisor whose researcher looks the fees up first (two model calls)."""
