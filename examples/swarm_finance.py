"""A support swarm: triage, budgeting and investing hand off among themselves until one answers.

python examples/swarm_finance.py                        # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/swarm_finance.py --model openai:gpt-5-mini
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import LlmAgent, RunContext, SwarmAgent, function_tool
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@function_tool
async def get_spending(category: str) -> dict[str, float]:
    """This month's spending in one budget category, against its budget.

    Args:
        category: A budget category, such as "dining".
    """
    ledger = {"dining": (412.40, 250.0), "groceries": (388.15, 400.0)}
    spent, budget = ledger.get(category, (0.0, 0.0))
    return {"spent": spent, "budget": budget}


triage: LlmAgent[None] = LlmAgent(
    name="triage",
    description="Works out what the customer needs and routes them.",
    model=pick_model(ScriptedModel([call_tools(call("transfer_to_budgeting"))])),
    instructions="Route the customer to the member who can help. Do not answer yourself.",
)

budgeting: LlmAgent[None] = LlmAgent(
    name="budgeting",
    description="Monthly budgets, overspending and savings targets.",
    model=pick_model(
        ScriptedModel(
            [
                call_tools(call("get_spending", category="dining")),
                call_tools(call("transfer_to_investing"), text="Dining is $162 over budget. "),
            ]
        )
    ),
    instructions="Find where the money goes with get_spending; hand investing questions to the investing member.",
    tools=[get_spending],
)

investing: LlmAgent[None] = LlmAgent(
    name="investing",
    description="Investing the money the customer saves.",
    model=pick_model(ScriptedModel([reply("Automate a $160 monthly transfer into a broad index fund on payday.")])),
    instructions="Give prudent investing advice.",
)

swarm = (
    SwarmAgent[None]
    .builder()
    .name("support_swarm")
    .description("A personal-finance support swarm covering budgeting and investing.")
    .member(triage)  # every member gets a transfer_to_<other> tool for each other member
    .member(budgeting)
    .member(investing)
    .entry("triage")  # optional; defaults to the first member added
    .max_handoffs(6)  # optional convergence budget: the 7th handoff fails the run
    .build()  # SwarmBuildError on empty / duplicate names / unknown entry
)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    input = "I overspend on dining every month. Can I invest what I save instead?"
    await print_events(swarm.run(ctx, input))


if __name__ == "__main__":
    run_example(main)
