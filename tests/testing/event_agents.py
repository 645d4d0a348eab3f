"""Agents for the tests of recordings read from `helikon run --json` event files: a triage agent hands
off to a billing agent that calls a tool, then answers (``tests/testing/event_agents.py:desk``).

`build(model)` builds them on any model (the recorded run's `scripted()` model when `None`); `build(model,
structured=True)` is a changed billing agent whose run ends with a structured-output turn more.
"""

from __future__ import annotations

from helikon_fc import Handoff, LlmAgent, Model, function_tool
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
