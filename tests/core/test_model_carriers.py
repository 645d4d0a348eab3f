"""`assemble_response` and `Usage`: how a model's stream becomes the transition input."""

from __future__ import annotations

from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFinish,
    ModelReasoningDelta,
    ModelResponse,
    ModelSettings,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    ToolCall,
    Usage,
    assemble_response,
    from_json,
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


def test_a_usage_document_written_before_unreported_requests_still_reads() -> None:
    """A stored Usage without the newer field reads back with unreported_requests=0 (fully reported)."""
    old = '{"input_tokens":3,"output_tokens":2,"cached_input_tokens":0,"reasoning_tokens":0,"requests":1}'
    usage = from_json(Usage, old)
    assert (usage, usage.reported) == (Usage(input_tokens=3, output_tokens=2, requests=1), True)


def test_settings_drop_tool_choice_after_turn_zero_only_when_asked() -> None:
    """for_turn keeps tool_choice on turn 0 and by default; first-turn-only drops it from turn 1 on."""
    forced = ModelSettings(tool_choice="required")
    once = ModelSettings(tool_choice="required", tool_choice_first_turn_only=True)
    assert [forced.for_turn(t).tool_choice for t in (0, 1, 5)] == ["required"] * 3
    assert [once.for_turn(t).tool_choice for t in (0, 1, 5)] == ["required", None, None]
