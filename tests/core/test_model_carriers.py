"""`assemble_response` and `Usage`: how a model's stream becomes the transition input."""

from __future__ import annotations

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFinish,
    ModelReasoningDelta,
    ModelResponse,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    ToolCall,
    Usage,
    assemble_response,
)


def test_assemble_concatenates_text_reasoning_and_tool_call_fragments() -> None:
    """Text and reasoning fragments concatenate; tool-call fragments group by call id in order of first appearance,
    named by the first name seen; the last usage snapshot wins."""
    events: list[ModelEvent] = [
        ModelReasoningDelta("think "),
        ModelTextDelta("Hel"),
        ModelToolCallDelta("b", "add", '{"a": '),
        ModelToolCallDelta("a", None, "{"),
        ModelTextDelta("lo"),
        ModelToolCallDelta("a", "get_weather", "}"),
        ModelToolCallDelta("b", "ignored", "1}"),
        ModelUsage(Usage(input_tokens=1)),
        ModelReasoningDelta("more"),
        ModelUsage(Usage(input_tokens=5, output_tokens=2)),
        ModelFinish(FinishReason.TOOL_CALLS),
    ]
    assert assemble_response(events) == ModelResponse(
        text="Hello",
        reasoning="think more",
        tool_calls=(ToolCall("b", "add", '{"a": 1}'), ToolCall("a", "get_weather", "{}")),
        usage=Usage(input_tokens=5, output_tokens=2),
        finish_reason=FinishReason.TOOL_CALLS,
    )


def test_assemble_defaults() -> None:
    """No events is an empty answer that stopped; a call whose name never arrives is named ``""``."""
    assert assemble_response([]) == ModelResponse()
    assert assemble_response([ModelToolCallDelta("x", None, "{}")]).tool_calls == (ToolCall("x", "", "{}"),)


def test_usage_adds_field_by_field() -> None:
    """Rule: "`Usage` (input, output, cached input, reasoning tokens, requests; `+` adds)"."""
    a = Usage(input_tokens=1, output_tokens=2, cached_input_tokens=3, reasoning_tokens=4, requests=5)
    b = Usage(input_tokens=10, output_tokens=20, cached_input_tokens=30, reasoning_tokens=40, requests=50)
    assert a + b == Usage(input_tokens=11, output_tokens=22, cached_input_tokens=33, reasoning_tokens=44, requests=55)
    assert (a + b).total_tokens == 33
    other: object = 1
    assert a.__add__(other) is NotImplemented  # type: ignore[operator]
