"""Compaction: a long tool loop that outgrows its budget, summarised before each model call that would pass it.

python examples/compaction.py            # offline, on the scripted simulator
OPENAI_API_KEY=sk-... python examples/compaction.py --model openai:gpt-5-mini

The run's stored conversation keeps every item; only what the model is shown is compacted.
"""

from __future__ import annotations

from _support import pick_model, run_example

from helikon_fc import (
    AgentError,
    AgentInput,
    Compaction,
    CompactionSkipped,
    ConversationCompacted,
    LlmAgent,
    MessageOutput,
    RunCompleted,
    RunConfig,
    RunContext,
    RunError,
    RunFailed,
    ToolCallItem,
    function_tool,
)
from helikon_fc.core import ModelRequest, ToolResult
from helikon_fc.testing import FunctionModel, ScriptedTurn, call, call_tools, reply

CHAPTERS = 4


@function_tool
def read_chapter(number: int) -> str:
    """The text of one chapter of the field notes (long).

    Args:
        number: the chapter, 1 to 4.
    """
    return f"Chapter {number}: the team logged {number * 3} sightings. " + "Notes on weather and terrain. " * 12


def _scripted(request: ModelRequest) -> ScriptedTurn:
    """The simulator: read the chapters in order, answer, and summarise when asked to."""
    if request.instructions and request.instructions.startswith("You compress"):
        return reply("The user wants the total sightings; chapters read so far are summarised above.")
    read = [item for item in request.items if isinstance(item, ToolResult)]
    last = int(read[-1].output.split(":")[0].split()[-1]) if read else 0
    if last < CHAPTERS:
        return call_tools(call("read_chapter", number=last + 1).with_id(f"ch{last + 1}"))
    return reply(f"All {CHAPTERS} chapters read: 30 sightings in total.")


agent: LlmAgent[None] = LlmAgent(
    name="field-notes",
    model=pick_model(FunctionModel(_scripted, name="field-notes-script")),
    instructions="Read every chapter with read_chapter, one at a time, then say how many sightings there were.",
    tools=[read_chapter],
    run_config=RunConfig(compaction=Compaction(max_tokens=250)),
)


async def main() -> None:
    input = AgentInput.from_user_text("How many sightings in total?")
    failure: AgentError | None = None
    async with agent.run(RunContext.ephemeral(None), input) as events:
        async for event in events:
            match event:
                case ToolCallItem(item=call_item):
                    print(f"-> {call_item.name}({call_item.arguments})")
                case ConversationCompacted(replaced=replaced, tokens_before=before, tokens_after=after):
                    print(f"[compacted {replaced} items: ~{before} -> ~{after} tokens]")
                case CompactionSkipped(reason=reason):
                    print(f"[compaction skipped: {reason}]")
                case MessageOutput(item=message):
                    print(message.text)
                case RunCompleted(usage=usage):
                    print(f"({usage.requests} model calls, summaries included)")
                case RunFailed(error=error):
                    failure = error
                case _:
                    pass
    if failure is not None:
        raise RunError(failure, ())  # run_example prints it in one line and exits 1


if __name__ == "__main__":
    run_example(main)
