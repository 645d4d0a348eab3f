"""Signed and redacted reasoning: how deltas group into `Reasoning` blocks, and that older records still read."""

from __future__ import annotations

from properties.reference import drive, make_ctx

from helikon_fc.core import (
    AssistantMessage,
    FinishReason,
    Item,
    ModelEvent,
    ModelFinish,
    ModelReasoningDelta,
    ModelResponse,
    ModelTextDelta,
    Reasoning,
    TransitionInput,
    assemble_response,
    from_json,
)
from helikon_fc.core.record_codec import decode_log, encode_log
from helikon_fc.core.records import ModelAnswered


def test_unsigned_reasoning_makes_no_blocks() -> None:
    """Reasoning without signatures stays one text, as before: no blocks."""
    response = assemble_response([ModelReasoningDelta("a"), ModelReasoningDelta("b"), ModelTextDelta("x")])
    assert response.reasoning == "ab"
    assert response.reasoning_blocks == ()


def test_a_signature_closes_a_block_and_redacted_data_is_a_block_of_its_own() -> None:
    """Each signed run of deltas is one block, a redacted delta one more, trailing unsigned text the last."""
    events: list[ModelEvent] = [
        ModelReasoningDelta("Look "),
        ModelReasoningDelta("up."),
        ModelReasoningDelta("", signature="sig-1"),
        ModelReasoningDelta("", redacted="opaque"),
        ModelReasoningDelta("tail"),
        ModelFinish(FinishReason.STOP),
    ]
    response = assemble_response(events)
    assert response.reasoning == "Look up.tail"
    assert response.reasoning_blocks == (
        Reasoning("Look up.", signature="sig-1"),
        Reasoning("", redacted="opaque"),
        Reasoning("tail"),
    )


def test_records_written_before_the_fields_existed_still_read() -> None:
    """A reasoning item, a reasoning delta and a model response without the new keys read with their defaults."""
    assert from_json(Item, '{"type": "reasoning", "text": "old"}') == Reasoning("old")
    delta = from_json(ModelReasoningDelta, '{"type": "model_reasoning_delta", "text": "old"}')
    assert delta == ModelReasoningDelta("old")
    old_response = (
        '{"type": "model_response", "text": "", "reasoning": "r", "tool_calls": [], '
        '"usage": {"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": 0, "reasoning_tokens": 0, '
        '"requests": 1, "unreported_requests": 0}, "finish_reason": "stop"}'
    )
    response = from_json(TransitionInput, old_response)
    assert isinstance(response, ModelResponse)
    assert response.reasoning_blocks == ()


def test_the_loop_appends_each_reasoning_block_as_an_item() -> None:
    """A response with reasoning blocks adds them, in order, before its text; one without adds its reasoning whole."""
    blocks = (Reasoning("Think.", signature="sig"), Reasoning("", redacted="opaque"))
    signed = ModelResponse(text="Answer.", reasoning="Think.", reasoning_blocks=blocks)
    trace = drive(make_ctx(), [signed])
    assert list(trace.conversation)[-3:] == [*blocks, AssistantMessage("Answer.", "assistant")]
    plain = drive(make_ctx(), [ModelResponse(text="Answer.", reasoning="Think.")])
    assert list(plain.conversation)[-2:] == [Reasoning("Think."), AssistantMessage("Answer.", "assistant")]


def test_a_recorded_model_answer_keeps_its_reasoning_blocks() -> None:
    """The durable record of a model answer reads back with its signed and redacted blocks."""
    blocks = (Reasoning("Think.", signature="sig"), Reasoning("", redacted="opaque"))
    answered = ModelAnswered(response=ModelResponse(text="Answer.", reasoning="Think.", reasoning_blocks=blocks))
    texts, _ = encode_log([answered])
    assert decode_log(texts) == [answered]
