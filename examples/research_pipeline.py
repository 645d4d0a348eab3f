"""Research, then write: a SequentialAgent whose second step reads the first step's notes from state.

python examples/research_pipeline.py                    # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/research_pipeline.py --model openai:gpt-5-mini
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import LlmAgent, RunContext, SequentialAgent, function_tool
from helikon_fc.console import print_events
from helikon_fc.testing import ScriptedModel, call, call_tools, reply


@function_tool
async def lookup_rates(product: str) -> dict[str, float]:
    """Current annual rates for a savings product.

    Args:
        product: "high-yield savings", "cd-12m" or "treasury-6m".
    """
    rates = {"high-yield savings": 4.1, "cd-12m": 4.4, "treasury-6m": 4.9}
    return {"apy_percent": rates.get(product, 0.0)}


researcher: LlmAgent[None] = LlmAgent(
    name="researcher",
    model=pick_model(
        ScriptedModel(
            [
                call_tools(call("lookup_rates", product="high-yield savings"), call("lookup_rates", product="cd-12m")),
                reply("High-yield savings pays 4.1% APY; a 12-month CD pays 4.4%."),
            ]
        )
    ),
    instructions="Research current savings rates with lookup_rates. Reply with short notes.",
    tools=[lookup_rates],
)


def brief_instructions(ctx: RunContext[None]) -> str:
    """Read the previous step's output back out of shared state (stored as a JSON string)."""
    notes = ctx.state.get("researcher")
    return f"Write a short brief from these notes:\n{notes if isinstance(notes, str) else ''}"


writer: LlmAgent[None] = LlmAgent(
    name="writer",
    model=pick_model(
        ScriptedModel(
            [reply("Keep your emergency fund in high-yield savings (4.1%); lock spare cash in a 12-month CD (4.4%).")]
        )
    ),
    instructions=brief_instructions,
)

pipeline = SequentialAgent[None]("research-then-write", "Research, then draft.").then(researcher).then(writer)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    input = "Where should I keep my savings?"
    await print_events(pipeline.run(ctx, input))


if __name__ == "__main__":
    run_example(main)
