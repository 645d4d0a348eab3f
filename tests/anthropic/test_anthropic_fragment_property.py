"""However the Messages API cuts a turn into deltas, the response assembled from the events is the whole turn."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from helikon_fc.anthropic._stream import MessagesStreamTranslator
from helikon_fc.core import FinishReason, ModelEvent, Reasoning, assemble_response

pieces = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6)


def frame(index: int, delta: dict[str, object]) -> dict[str, object]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


@settings(max_examples=60, deadline=None)
@given(thinking=pieces, text=pieces, cities=st.lists(st.text(max_size=8), min_size=1, max_size=3), cut=st.data())
def test_the_assembled_turn_is_the_concatenation_of_its_deltas(
    thinking: list[str], text: list[str], cities: list[str], cut: st.DataObject
) -> None:
    """Thinking, text and each call's arguments, cut anywhere, assemble to the whole, signed and in call order."""
    payloads: list[dict[str, object]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        *(frame(0, {"type": "thinking_delta", "thinking": part}) for part in thinking),
        frame(0, {"type": "signature_delta", "signature": "sig"}),
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        *(frame(1, {"type": "text_delta", "text": part}) for part in text),
    ]
    arguments = [json.dumps({"city": city}) for city in cities]
    for n, whole in enumerate(arguments, start=2):
        block = {"type": "tool_use", "id": f"toolu_{n}", "name": "get_weather", "input": {}}
        payloads.append({"type": "content_block_start", "index": n, "content_block": block})
        cuts = sorted(cut.draw(st.sets(st.integers(1, max(1, len(whole) - 1)), max_size=3)))
        for start, end in zip([0, *cuts], [*cuts, len(whole)], strict=True):
            payloads.append(frame(n, {"type": "input_json_delta", "partial_json": whole[start:end]}))
    payloads.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}})
    translator = MessagesStreamTranslator()
    events: list[ModelEvent] = []
    for payload in payloads:
        events.extend(translator.feed(str(payload["type"]), json.dumps(payload)))
    events.extend(translator.end())
    response = assemble_response(events)
    assert response.text == "".join(text)
    assert response.reasoning_blocks == (Reasoning("".join(thinking), signature="sig"),)
    assert [(call.call_id, call.arguments) for call in response.tool_calls] == [
        (f"toolu_{n}", whole) for n, whole in enumerate(arguments, start=2)
    ]
    assert response.finish_reason is FinishReason.TOOL_CALLS
    assert (response.usage.input_tokens, response.usage.output_tokens) == (3, 9)
