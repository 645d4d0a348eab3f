"""Law: a `ScriptedModel` shown the conversation a run leaves after the script's first k turns (with other
models' turns among them) answers with turn k, however many requests it served before: so a run resumed
from its records is answered as the uninterrupted run was."""

from __future__ import annotations

import trio
from hypothesis import given, strategies as st

from helikon_fc.core import (
    AssistantMessage,
    Conversation,
    Item,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResult,
    UserMessage,
    assemble_response,
)
from helikon_fc.testing import ScriptedModel, ScriptedTurn, call, call_tools, reply
from helikon_fc.testing._stream import render
from helikon_fc.testing.script import ScriptedReply, ScriptedToolCalls

_WORDS = st.sampled_from(["ok", "done", "sure thing", "42"])
"""Few texts, so scripts repeat turns and the order in the conversation has to tell them apart."""


@st.composite
def scripted_turns(draw: st.DrawFn) -> ScriptedTurn:
    """A reply, or one or two tool calls (default or explicit ids, some with text)."""
    if draw(st.booleans()):
        return reply(draw(_WORDS))
    names = draw(st.lists(st.sampled_from(["lookup", "fetch"]), min_size=1, max_size=2))
    calls = [call(name, n=index) for index, name in enumerate(names)]
    if draw(st.booleans()):
        calls = [scripted.with_id(f"{scripted.name}-{index}") for index, scripted in enumerate(calls)]
    return call_tools(*calls, text=draw(st.none() | _WORDS))


def _response(turn: ScriptedTurn, index: int) -> ModelResponse:
    assert isinstance(turn, ScriptedReply | ScriptedToolCalls)  # what `scripted_turns` makes
    return assemble_response(render(turn, index))


def _left_by(response: ModelResponse) -> list[Item]:
    """What a run appends for one model turn, and what comes after it before the next request."""
    items: list[Item] = [AssistantMessage(response.text)] if response.text else []
    items.extend(response.tool_calls)
    items.extend(ToolResult(done.call_id, "ok") for done in response.tool_calls)
    return items if response.tool_calls else [*items, UserMessage("and then?")]


def _another_models_turn(index: int) -> list[Item]:
    return [ToolCall(f"other-{index}", "transfer_to_elsewhere", "{}"), ToolResult(f"other-{index}", "ok")]


async def _answer(model: ScriptedModel, items: list[Item]) -> ModelResponse:
    async with model.stream(ModelRequest(instructions=None, items=Conversation(items))) as events:
        return assemble_response([event async for event in events])


@given(
    script=st.lists(scripted_turns(), min_size=1, max_size=6),
    data=st.data(),
)
def test_a_model_goes_on_after_the_turns_its_conversation_shows(
    script: list[ScriptedTurn], data: st.DataObject
) -> None:
    """For every k below the script's length, a fresh model (and one that served fewer requests) shown the first k
    turns' items, interleaved with another model's turns, answers with turn k's response."""
    k = data.draw(st.integers(0, len(script) - 1), label="k")
    served = data.draw(st.integers(0, k), label="served before")
    items: list[Item] = [UserMessage("hi")]
    for index, turn in enumerate(script[:k]):
        if data.draw(st.booleans(), label="another model first"):
            items.extend(_another_models_turn(index))
        items.extend(_left_by(_response(turn, index)))

    async def main() -> ModelResponse:
        model = ScriptedModel(script)
        for _ in range(served):  # requests that show none of its turns (another conversation sharing the model)
            await _answer(model, [UserMessage("elsewhere")])
        return await _answer(model, items)

    assert trio.run(main) == _response(script[k], k)
