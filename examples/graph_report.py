"""A finance report graph: spending and income run concurrently; summary waits for both.

    python examples/graph_report.py                         # offline, on the scripted simulator
    OPENAI_API_KEY=sk-... python examples/graph_report.py --model openai:gpt-5-mini

Each node's final text lands in ``state[node]``, and reaches its successors as a context message
``[<node>]\\n<text>`` appended to their input. The graph's final output is its single sink's text.
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import GraphAgent, LlmAgent, RunContext, function_tool
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@function_tool
async def list_transactions(month: str) -> list[dict[str, object]]:
    """Card transactions of a month.

    Args:
        month: The month, as YYYY-MM.
    """
    return [
        {"merchant": "Bistro 21", "category": "dining", "amount": 86.0},
        {"merchant": "FreshMart", "category": "groceries", "amount": 142.3},
    ]


@function_tool
async def list_deposits(month: str) -> list[dict[str, object]]:
    """Deposits into the checking account in a month.

    Args:
        month: The month, as YYYY-MM.
    """
    return [{"source": "payroll", "amount": 2450.0}, {"source": "payroll", "amount": 2450.0}]


spending: LlmAgent[None] = LlmAgent(
    name="spending",
    model=pick_model(
        ScriptedModel(
            [
                call_tools(call("list_transactions", month="2026-10"), latency=0.2),
                reply("Spending: $228.30, groceries $142.30 and dining $86.00."),
            ]
        )
    ),
    instructions="Summarize the month's spending by category. Use list_transactions.",
    tools=[list_transactions],
)

income: LlmAgent[None] = LlmAgent(
    name="income",
    model=pick_model(
        ScriptedModel(
            [call_tools(call("list_deposits", month="2026-10"), latency=1.0), reply("Income: $4,900 from payroll.")]
        )
    ),
    instructions="Summarize the month's income. Use list_deposits.",
    tools=[list_deposits],
)

summary: LlmAgent[None] = LlmAgent(
    name="summary",
    model=pick_model(ScriptedModel([reply("October: $4,900 in, $228.30 out on the card - a strong month.")])),
    instructions="Combine the [spending] and [income] notes you are given into a one-line summary.",
)

graph = (
    GraphAgent[None]
    .builder()
    .name("finance_report")
    .description("Fans spending and income analysis into a combined summary.")
    .node("spending", spending)
    .node("income", income)
    .node("summary", summary)
    .edge("spending", "summary")  # spending -> summary
    .edge("income", "summary")  # income -> summary
    .build()  # GraphBuildError on cycle / unknown / duplicate / empty
)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    await print_events(graph.run(ctx, "How did October go?"))
    print(f"state keys: {', '.join(ctx.state.keys())}")


if __name__ == "__main__":
    run_example(main)
