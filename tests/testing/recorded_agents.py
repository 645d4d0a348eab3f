"""A nested multi-agent system for the recording tests: a parallel fan-out whose first branch hands off
to an agent that calls another agent as a tool, and whose second branch answers at once.

`build(model)` builds it on any model; `scripted()` is the model it is recorded on (a `FunctionModel`
that answers by the agent's instructions, with latencies and usage of its own).
"""

from __future__ import annotations

from helikon_fc import AgentAsTool, Handoff, LlmAgent, Model, ParallelAgent, Tool, function_tool
from helikon_fc.core import ModelRequest, ToolResult, Usage
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply


@function_tool
async def fee_table(plan: str) -> str:
    """The fees of a plan.

    Args:
        plan: the plan's name.
    """
    return {"basic": "2% per trade"}.get(plan, "unknown plan")


def build(
    model: Model | None, *, research_instructions: str = "Research fees.", tools: tuple[Tool[None], ...] = ()
) -> ParallelAgent[None]:
    """The system on `model` (`scripted()` when `None`, as ``helikon record`` without --model calls it);
    changed researcher's instructions or extra billing tools make a changed system."""
    model = model or scripted()
    researcher = LlmAgent(name="researcher", model=model, instructions=research_instructions, tools=[fee_table])
    billing = LlmAgent(
        name="billing", model=model, instructions="Answer billing questions.", tools=[AgentAsTool(researcher), *tools]
    )
    triage = LlmAgent(name="triage", model=model, instructions="Route the user.", handoffs=[Handoff.to(billing)])
    summary = LlmAgent(name="summary", model=model, instructions="Summarise the question.")
    return ParallelAgent[None]("desk").add(triage).add(summary)


def _results(request: ModelRequest, call_id: str) -> list[ToolResult]:
    return [item for item in request.items if isinstance(item, ToolResult) and item.call_id == call_id]


def _answer(request: ModelRequest) -> ScriptedTurn:
    match request.instructions:
        case "Route the user.":
            return call_tools(call("transfer_to_billing"), latency=0.1)
        case "Answer billing questions.":
            results = _results(request, "ask")
            if not results:
                return call_tools(call("researcher", input="fees of basic").with_id("ask"), latency=0.2)
            return reply(f"Billing: {results[-1].output}", latency=0.3, usage=Usage(input_tokens=40, output_tokens=9))
        case "Summarise the question.":
            return reply("A question about fees.", latency=0.45, reasoning="short one")
        case _:
            results = _results(request, "fees")
            if not results:
                return call_tools(call("fee_table", plan="basic").with_id("fees"), text="Looking it up.", latency=0.25)
            return reply(f"Fees: {results[-1].output}", latency=0.15)


def scripted() -> FunctionModel:
    """The model the system is recorded on."""
    return FunctionModel(_answer, name="scripted-llm")
