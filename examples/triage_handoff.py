"""Triage with handoffs: a triage agent hands the question to the right specialist, who answers.

python examples/triage_handoff.py                       # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/triage_handoff.py --model openai:gpt-5-mini
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import Handoff, LlmAgent, RunContext
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

budgeting: LlmAgent[None] = LlmAgent(
    name="budgeting specialist",
    description="Answers questions about monthly budgets and cutting spending.",
    model=pick_model(ScriptedModel([reply("Track a month of spending, then cap your top two categories.")])),
    instructions="You are a budgeting specialist. Give concrete, friendly advice.",
)

investing: LlmAgent[None] = LlmAgent(
    name="investing specialist",
    description="Answers questions about investing, portfolios, and retirement.",
    model=pick_model(
        ScriptedModel(
            [
                reply(
                    "First keep three months of expenses as an emergency fund. Then put the $5,000 into a "
                    "low-cost broad index fund and add to it monthly."
                )
            ]
        )
    ),
    instructions="You are an investing specialist. Give concrete, prudent advice.",
)

triage: LlmAgent[None] = LlmAgent(
    name="triage",
    model=pick_model(ScriptedModel([call_tools(call("transfer_to_investing_specialist"))])),
    instructions=(
        "Classify the user's personal-finance question and transfer to the right specialist. "
        "Do not answer yourself - always hand off."
    ),
    handoffs=[Handoff.to(budgeting), Handoff.to(investing)],
)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    input = "How should I start investing $5,000?"
    # With handoffs the answering agent is chosen at run time; the final output is the specialist's.
    await print_events(triage.run(ctx, input))


if __name__ == "__main__":
    run_example(main)
