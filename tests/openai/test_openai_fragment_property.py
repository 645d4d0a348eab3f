"""Property: however a server cuts tool calls into chunks, each name comes out once, whole, with intact arguments."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, strategies as st

from helikon_fc.core import FinishReason, ModelEvent, ModelFinish, ModelToolCallDelta, ModelUsage, assemble_response
from helikon_fc.openai._chat_stream import ChatStreamTranslator
from helikon_fc.openai._responses_stream import ResponsesStreamTranslator

names = st.text(alphabet="abcdefghij_", min_size=1, max_size=12)
arguments = st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=3), st.integers(), max_size=3).map(json.dumps)


@st.composite
def pieces(draw: st.DrawFn, text: str, *, min_size: int) -> list[str]:
    """`text` cut at random places into at least `min_size` pieces (some possibly empty)."""
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    parts = [text[a:b] for a, b in itertools.pairwise(bounds)]
    return parts if len(parts) >= min_size else [*parts, ""]


@st.composite
def fragmented_calls(draw: st.DrawFn) -> list[tuple[str, str, list[str], list[str]]]:
    """One to three calls: (call id, name, name pieces, argument pieces)."""
    count = draw(st.integers(min_value=1, max_value=3))
    calls = []
    for index in range(count):
        name = draw(names)
        args = draw(arguments)
        calls.append((f"call_{index}x", name, draw(pieces(name, min_size=1)), draw(pieces(args, min_size=1))))
    return calls


def check(events: list[ModelEvent], calls: list[tuple[str, str, list[str], list[str]]]) -> None:
    deltas = [event for event in events if isinstance(event, ModelToolCallDelta)]
    for call_id, name, _, _ in calls:
        named = [delta.name for delta in deltas if delta.call_id == call_id and delta.name is not None]
        assert named == [name]
        first = next(delta for delta in deltas if delta.call_id == call_id)
        assert first.name == name
    response = assemble_response(events)
    assert [(c.call_id, c.name, c.arguments) for c in response.tool_calls] == [
        (call_id, name, "".join(arg_parts)) for call_id, name, _, arg_parts in calls
    ]
    assert isinstance(events[-1], ModelFinish)
    assert events[-1].reason is FinishReason.TOOL_CALLS
    assert isinstance(events[-2], ModelUsage)


@given(fragmented_calls())
def test_chat_fragments_assemble(calls: list[tuple[str, str, list[str], list[str]]]) -> None:
    """Chat: name pieces, then argument pieces, call after call, then the stop reason and trailing usage."""
    translator = ChatStreamTranslator()
    events: list[ModelEvent] = []

    def feed(fragment: dict[str, object], finish: str | None = None) -> None:
        delta = {"tool_calls": [fragment]} if fragment else {}
        events.extend(translator.feed(json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})))

    for index, (call_id, _, name_parts, arg_parts) in enumerate(calls):
        for position, part in enumerate(name_parts):
            fragment: dict[str, object] = {"index": index, "function": {"name": part}}
            if position == 0:
                fragment["id"] = call_id
            feed(fragment)
        for part in arg_parts:
            feed({"index": index, "function": {"arguments": part}})
    feed({}, "tool_calls")
    events.extend(translator.feed(json.dumps({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}})))
    events.extend(translator.end())
    check(events, calls)


@given(fragmented_calls())
def test_responses_fragments_assemble(calls: list[tuple[str, str, list[str], list[str]]]) -> None:
    """Responses: each call added whole-named, its argument deltas, its done events, then response.completed."""
    translator = ResponsesStreamTranslator()
    events: list[ModelEvent] = []

    def feed(payload: dict[str, object]) -> None:
        events.extend(translator.feed(None, json.dumps(payload)))

    for index, (call_id, name, _, arg_parts) in enumerate(calls):
        item = {"type": "function_call", "call_id": call_id, "name": name, "arguments": ""}
        feed({"type": "response.output_item.added", "output_index": index, "item": item})
        for part in arg_parts:
            feed({"type": "response.function_call_arguments.delta", "output_index": index, "delta": part})
        whole = "".join(arg_parts)
        feed({"type": "response.function_call_arguments.done", "output_index": index, "arguments": whole})
        feed({"type": "response.output_item.done", "output_index": index, "item": {**item, "arguments": whole}})
    feed({"type": "response.completed", "response": {"usage": {"input_tokens": 1, "output_tokens": 1}}})
    events.extend(translator.end())
    check(events, calls)
