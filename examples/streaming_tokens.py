"""The live loop: match on the event stream as the run unfolds, printing tokens as they arrive.

python examples/streaming_tokens.py            # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/streaming_tokens.py --model openai:gpt-5-mini
"""

from __future__ import annotations

import trio
from _support import pick_model, run_example

from helikon_fc import (
    AgentError,
    AgentInput,
    LlmAgent,
    RunCompleted,
    RunContext,
    RunError,
    RunFailed,
    TokenDelta,
    ToolCallItem,
    ToolOutputItem,
    TurnStarted,
    function_tool,
)
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

SPENDING = {"dining": 212, "groceries": 380, "transport": 96}


@function_tool
async def spending_by_category() -> dict[str, int]:
    """This month's spending per category, in dollars."""
    await trio.sleep(0.05)  # a real lookup would await a database or an API here
    return SPENDING


SCRIPT = ScriptedModel(
    [
        call_tools(call("spending_by_category")),
        reply(
            "This month you spent $688 in total: $380 on groceries, $212 on dining and $96 on transport. "
            "Groceries are your biggest category.",
            latency=0.1,
        ),
    ],
    name="streaming-script",
)

agent = LlmAgent(
    name="budget-assistant",
    model=pick_model(SCRIPT),
    instructions="You are a budgeting assistant. Be concise.",
    tools=[spending_by_category],
)


async def main() -> None:
    ctx = RunContext.ephemeral(None)
    input = AgentInput.from_user_text("Where did my money go this month?")
    failure: AgentError | None = None
    async with agent.run(ctx, input) as events:
        async for event in events:
            match event:
                case TurnStarted(turn=turn):
                    print(f"[turn {turn}]")
                case ToolCallItem(item=call_item):
                    print(f"  -> {call_item.name}({call_item.arguments})")
                case ToolOutputItem(item=result):
                    print(f"  <- {result.output}")
                case TokenDelta(text=text):
                    print(text, end="", flush=True)
                case RunCompleted(usage=usage):
                    print(f"\n[done: {usage.requests} model calls, {usage.total_tokens} tokens]")
                case RunFailed(error=error):
                    failure = error
                case _:
                    pass
    if failure is not None:
        print()
        raise RunError(failure, ())  # run_example prints it in one line and exits 1


if __name__ == "__main__":
    run_example(main)
