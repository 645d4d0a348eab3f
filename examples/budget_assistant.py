"""A budget assistant: an agent with two typed tools, run to completion in one call (`run_to_completion`).

python examples/budget_assistant.py            # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/budget_assistant.py --model openai:gpt-5-mini
"""

from __future__ import annotations

import attrs
from _support import pick_model, run_example

from helikon_fc import LlmAgent, RunContext, ToolContext, ToolError, function_tool, run_to_completion
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@attrs.frozen
class Ledger:
    """The application's own data, handed to every tool through the run context."""

    budgets: dict[str, int]
    spent: dict[str, int]


@function_tool
def get_budget(ctx: ToolContext[Ledger], category: str) -> int:
    """The monthly budget for a spending category, in dollars.

    Args:
        category: A spending category, e.g. "dining" or "groceries".
    """
    try:
        return ctx.user.budgets[category]
    except KeyError:
        raise ToolError(f"no budget for {category!r}; known: {', '.join(sorted(ctx.user.budgets))}") from None


@function_tool
def get_spending(ctx: ToolContext[Ledger], category: str) -> int:
    """What was spent this month in a category, in dollars.

    Args:
        category: A spending category, e.g. "dining" or "groceries".
    """
    return ctx.user.spent.get(category, 0)


SCRIPT = ScriptedModel(
    [
        call_tools(call("get_budget", category="dining"), call("get_spending", category="dining")),
        reply("You have spent $212 of your $300 dining budget this month, so $88 is left. You are on track."),
    ],
    name="budget-script",
)

agent: LlmAgent[Ledger] = LlmAgent(
    name="budget-assistant",
    model=pick_model(SCRIPT),
    instructions="You are a budgeting assistant. Use the tools to look up budgets and spending before answering.",
    tools=[get_budget, get_spending],
)


async def main() -> None:
    ledger = Ledger(budgets={"dining": 300, "groceries": 450}, spent={"dining": 212, "groceries": 380})
    ctx = RunContext.ephemeral(ledger)
    result = await run_to_completion(agent, "How am I doing on my dining budget this month?", ctx)
    print(result.final_output)
    usage = result.usage
    print(f"({usage.requests} model calls, {usage.input_tokens} input + {usage.output_tokens} output tokens)")


if __name__ == "__main__":
    run_example(main)
