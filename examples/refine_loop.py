"""A refine loop: a drafter and a critic repeat until the critic's `approve` tool escalates.

python examples/refine_loop.py                          # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/refine_loop.py --model openai:gpt-5-mini
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import (
    LlmAgent,
    LoopAgent,
    RunContext,
    ToolContext,
    function_tool,
)
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@function_tool
async def approve(ctx: ToolContext[None]) -> str:
    """Accept the current draft: ends the refine loop after this critique."""
    ctx.actions.escalate()
    return "approved"


def draft_instructions(ctx: RunContext[None]) -> str:
    """The drafter sees the critic's last feedback, if any."""
    feedback = ctx.state.get("critic")
    return "Draft a one-sentence savings tip." + (f"\nAddress this feedback: {feedback}" if feedback else "")


drafter: LlmAgent[None] = LlmAgent(
    name="drafter",
    model=pick_model(
        ScriptedModel(
            [
                reply("Save money."),
                reply("Move $50 into savings every payday, automatically, before you can spend it."),
            ]
        )
    ),
    instructions=draft_instructions,
)

critic: LlmAgent[None] = LlmAgent(
    name="critic",
    model=pick_model(
        ScriptedModel(
            [
                reply("Too vague: give an amount and a habit."),
                call_tools(call("approve")),
                reply("Approved: concrete and automatic."),
            ]
        )
    ),
    instructions="Critique the draft in state. Call approve when it is concrete and actionable.",
    tools=[approve],
)

refine = LoopAgent[None]("draft-and-critique", "Iterate until the critic is satisfied.", 5).then(drafter).then(critic)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    await print_events(refine.run(ctx, "A savings tip, please."))
    print(f"final draft: {ctx.state.get('drafter')}")


if __name__ == "__main__":
    run_example(main)
