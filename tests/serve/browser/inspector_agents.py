"""The agents the inspector's browser test serves, all on the simulator, streaming slowly enough to watch.

- ``triage`` says a few words, then hands off to ``writer``;
- ``writer`` drafts a few words and calls ``publish``, which `permissions` asks a person about (the run
  pauses); once approved it streams its answer, naming what ``publish`` returned;
- ``broken`` fails at its first model call (a run whose error the page shows in words);
- ``research`` runs ``scout`` and ``critic`` side by side (a `ParallelAgent`), each streaming its words;
- ``editor`` calls ``digest``, the agent ``summarizer`` as a tool (an agent-as-tool sub-run), then answers.
"""

from __future__ import annotations

import os

from helikon_fc import AgentAsTool, Handoff, LlmAgent, ParallelAgent, Permissions, function_tool
from helikon_fc.core import (
    FinishReason,
    Guard,
    ModelFailureKind,
    ModelFinish,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    PermissionConfig,
    ToolResult,
    ToolRule,
    Usage,
)
from helikon_fc.testing import FunctionModel, ScriptedTurn, Step, fail, pause, raw

WORD_SECONDS = 0.12
"""The gap between two streamed words: slow enough for a test (or a person) to watch the text grow."""

DRAFT = "Drafting a short note about lighthouses and the keepers who tended them"
HELD = "HELIKON_TEST_HELD_DRAFT"
"""Set in a server's environment, the writer stops streaming its draft after this many words until the
process ends: a test that kills the server mid-turn then does so whatever the machine's load (a loaded
machine used to let the whole draft stream out before the kill)."""
FINAL = "The note is published"


def _words(text: str) -> list[Step]:
    steps: list[Step] = []
    for index, word in enumerate(text.split(" ")):
        steps += [ModelTextDelta(word if index == 0 else f" {word}"), pause(WORD_SECONDS)]
    return steps


def _ending(reason: FinishReason) -> list[Step]:
    return [ModelUsage(Usage(input_tokens=12, output_tokens=6)), ModelFinish(reason)]


def _triage(request: ModelRequest) -> ScriptedTurn:
    handoff = ModelToolCallDelta(call_id="handoff-1", name="transfer_to_writer", args_delta="{}")
    return raw(*_words("Routing you to the writer."), handoff, *_ending(FinishReason.TOOL_CALLS))


def _writer(request: ModelRequest) -> ScriptedTurn:
    published = [item for item in request.items if isinstance(item, ToolResult) and item.call_id == "publish-1"]
    if published:
        return raw(*_words(f"{FINAL}: {published[-1].output}"), *_ending(FinishReason.STOP))
    call = ModelToolCallDelta(call_id="publish-1", name="publish", args_delta='{"title": "Lighthouses"}')
    draft = _words(DRAFT)
    if held := os.environ.get(HELD):
        draft[2 * int(held) - 1] = pause(24 * 3600)
    return raw(*draft, call, *_ending(FinishReason.TOOL_CALLS))


@function_tool
async def publish(title: str) -> str:
    """Publish a note.

    Args:
        title: the note's title.
    """
    return f"published {title!r}"


writer = LlmAgent(
    name="writer", model=FunctionModel(_writer), tools=[publish], description="Writes and publishes notes."
)
triage = LlmAgent(
    name="triage",
    model=FunctionModel(_triage),
    handoffs=[Handoff.to(writer)],
    description="Routes a request to the writer.",
)
broken = LlmAgent(
    name="broken",
    model=FunctionModel(lambda request: fail(ModelFailureKind.REFUSED)),
    description="Fails at once: its model refuses.",
)


def _saying(text: str) -> FunctionModel:
    return FunctionModel(lambda request: raw(*_words(text), *_ending(FinishReason.STOP)), name=text.split(" ")[0])


research = ParallelAgent(
    name="research",
    description="A scout and a critic at work at the same time.",
    branches=(
        ("scout", LlmAgent(name="scout", model=_saying("Three lighthouses still have keepers"))),
        ("critic", LlmAgent(name="critic", model=_saying("Check the dates twice"))),
    ),
)

summarizer = LlmAgent(name="summarizer", model=_saying("Keepers, lamps and storms"))


def _editor(request: ModelRequest) -> ScriptedTurn:
    digests = [item for item in request.items if isinstance(item, ToolResult) and item.call_id == "digest-1"]
    if digests:
        return raw(*_words(f"In short: {digests[-1].output}"), *_ending(FinishReason.STOP))
    call = ModelToolCallDelta(call_id="digest-1", name="digest", args_delta='{"input": "the lighthouse notes"}')
    return raw(*_words("Let me digest the notes"), call, *_ending(FinishReason.TOOL_CALLS))


editor = LlmAgent(
    name="editor",
    model=FunctionModel(_editor),
    tools=[AgentAsTool(summarizer).with_name("digest")],
    description="Digests notes with the summarizer, as a tool.",
)

agents = [triage, broken, research, editor]
"""The served agents."""

permissions = Permissions(config=PermissionConfig(guards=(Guard("publish", ToolRule("publish")),)))
"""A person decides every ``publish`` call."""
