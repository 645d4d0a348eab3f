"""AgentAsTool: a writer calls a summarizer agent like a tool, reads its answer and keeps going.

python examples/agent_as_tool.py                        # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/agent_as_tool.py --model openai:gpt-5-mini
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import AgentAsTool, AgentInput, LlmAgent, RunContext
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

STATEMENT = (
    "Rent 1,450. Groceries 388. Dining 412. Transport 96. Streaming 18. Gym 45. Insurance 120. Savings transfer 300."
)

summarizer: LlmAgent[None] = LlmAgent(
    name="summarizer",
    description="Condenses a block of text to three bullet points.",
    model=pick_model(
        ScriptedModel(
            [reply("- Housing is the biggest cost (1,450)\n- Dining (412) beats groceries (388)\n- 300 saved")]
        )
    ),
    instructions="Summarize the input as three concise bullets.",
)

writer: LlmAgent[None] = LlmAgent(
    name="writer",
    model=pick_model(
        ScriptedModel(
            [
                call_tools(call("summarizer", input=STATEMENT)),
                reply("Your month in brief: rent dominates, dining outspends groceries, and you saved 300. Nice work."),
            ]
        )
    ),
    instructions="Draft replies. Call the `summarizer` tool when you need a digest.",
    # The sub-run is isolated: fresh session and state, its own RunConfig; the user value, cancellation
    # and the nesting depth cross. A failed sub-run is an error result the writer's model reads.
    tools=[AgentAsTool(summarizer)],
)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    input = AgentInput.from_user_text(f"Write me a friendly note about this month's statement: {STATEMENT}")
    await print_events(writer.run(ctx, input))


if __name__ == "__main__":
    run_example(main)
