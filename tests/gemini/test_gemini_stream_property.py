"""Property: however Gemini spreads an answer over chunks, the assembled response is exactly what the parts said.

Text and thought parts, and function calls with or without ids, are cut into response chunks at random
places; the translator's events, folded by `assemble_response` (what the agent loop turns into
conversation items), give back the text, the reasoning and the calls in order, each call named once.
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given, strategies as st

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFinish,
    ModelToolCallDelta,
    ModelUsage,
    assemble_response,
)
from helikon_fc.gemini._signatures import ThoughtSignatures
from helikon_fc.gemini._stream import GeminiStreamTranslator

PREFIX = "call_0123456789ab"
texts = st.text(alphabet="ab c\n{}é", min_size=1, max_size=8)
call_ids = st.none() | st.sampled_from(["fc-1", "fc-2", "fc-1"])
args = st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=3), st.integers() | st.text(max_size=3), max_size=3)
parts = st.lists(
    st.one_of(
        texts.map(lambda text: {"text": text}),
        texts.map(lambda text: {"text": text, "thought": True}),
        st.builds(
            lambda call_id, name, arguments: {
                "functionCall": {"name": name, "args": arguments, **({"id": call_id} if call_id else {})}
            },
            call_ids,
            st.sampled_from(["get_weather", "get_time"]),
            args,
        ),
    ),
    min_size=1,
    max_size=8,
)


@given(parts, st.lists(st.integers(min_value=0, max_value=8), max_size=4))
def test_chunks_assemble_to_the_parts(answer: list[dict[str, object]], cuts: list[int]) -> None:
    """The events of any chunking fold into the parts' text, reasoning and calls; usage precedes the finish."""
    translator = GeminiStreamTranslator(ThoughtSignatures(), PREFIX)
    bounds = sorted({0, len(answer), *(min(cut, len(answer)) for cut in cuts)})
    chunks = [answer[a:b] for a, b in itertools.pairwise(bounds)]
    events: list[ModelEvent] = []
    for index, chunk in enumerate(chunks):
        candidate: dict[str, object] = {"content": {"role": "model", "parts": chunk}, "index": 0}
        if index == len(chunks) - 1:
            candidate["finishReason"] = "STOP"
        events.extend(translator.feed({"candidates": [candidate]}))
    events.extend(translator.feed({"usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}}))
    events.extend(translator.end())

    response = assemble_response(events)
    assert response.text == "".join(str(p["text"]) for p in answer if "text" in p and "thought" not in p)
    assert response.reasoning == "".join(str(p["text"]) for p in answer if p.get("thought"))
    functions = [p["functionCall"] for p in answer if "functionCall" in p]
    assert [(c.name, json.loads(c.arguments)) for c in response.tool_calls] == [
        (f["name"], f["args"]) for f in functions if isinstance(f, dict)
    ]
    ids = [call.call_id for call in response.tool_calls]
    assert len(set(ids)) == len(ids)
    for call_id, function in zip(ids, functions, strict=True):
        assert isinstance(function, dict)
        assert call_id.split("#")[0] == function.get("id", call_id.split("#")[0])
    named = [e.call_id for e in events if isinstance(e, ModelToolCallDelta) and e.name is not None]
    assert named == ids
    assert isinstance(events[-2], ModelUsage) and isinstance(events[-1], ModelFinish)
    assert events[-1].reason is (FinishReason.TOOL_CALLS if functions else FinishReason.STOP)
