"""`MessagesStreamTranslator` frame by frame: the cases the fixtures do not spell out."""

from __future__ import annotations

import json

import pytest

from helikon_fc.anthropic._stream import MessagesStreamTranslator
from helikon_fc.core import FinishReason, ModelFailureKind, ModelFinish, ModelTextDelta, ModelToolCallDelta
from helikon_fc.models import ModelError


def feed(translator: MessagesStreamTranslator, *payloads: dict[str, object]) -> list[object]:
    """The events of `payloads`, each fed as one frame (named by its type, as the API names them)."""
    events: list[object] = []
    for payload in payloads:
        events.extend(translator.feed(str(payload["type"]), json.dumps(payload)))
    return events


def stop(reason: str) -> dict[str, object]:
    return {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 1}}


def test_a_tool_use_block_that_starts_with_its_input_sends_it_as_arguments() -> None:
    """A non-empty ``input`` in content_block_start (no input_json_delta follows) is the call's arguments."""
    block = {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {"zone": "UTC"}}
    events = feed(MessagesStreamTranslator(), {"type": "content_block_start", "index": 0, "content_block": block})
    assert events == [ModelToolCallDelta("toolu_9", "get_time", '{"zone": "UTC"}')]


def test_an_unknown_stop_reason_keeps_its_word() -> None:
    """A stop reason added after this was written finishes as OTHER with the word in raw."""
    translator = MessagesStreamTranslator()
    feed(translator, stop("compaction"))
    assert translator.end()[-1] == ModelFinish(FinishReason.OTHER, "compaction")


def test_the_context_window_stop_is_a_length_finish() -> None:
    """model_context_window_exceeded ends the turn like max_tokens, with its word kept."""
    translator = MessagesStreamTranslator()
    feed(translator, stop("model_context_window_exceeded"))
    assert translator.end()[-1] == ModelFinish(FinishReason.LENGTH, "model_context_window_exceeded")


@pytest.mark.parametrize(
    ("error_type", "kind"),
    [
        ("overloaded_error", ModelFailureKind.UNAVAILABLE),
        ("api_error", ModelFailureKind.UNAVAILABLE),
        ("rate_limit_error", ModelFailureKind.RATE_LIMITED),
        ("invalid_request_error", ModelFailureKind.OTHER),
    ],
)
def test_error_events_map_by_their_type(error_type: str, kind: ModelFailureKind) -> None:
    """An error event has no status: its error.type decides the kind, and the message names it."""
    with pytest.raises(ModelError) as raised:
        feed(MessagesStreamTranslator(), {"type": "error", "error": {"type": error_type, "message": "boom"}})
    assert raised.value.kind is kind
    assert raised.value.message == f"stream error ({error_type}): boom"


def test_frames_that_are_not_json_objects_and_unknown_events_yield_nothing() -> None:
    """Unparseable data, pings, block stops, citations and unknown events are skipped."""
    translator = MessagesStreamTranslator()
    assert translator.feed("message_start", "not json") == []
    citation = {"type": "citations_delta", "citation": {"type": "char_location"}}
    events = feed(
        translator,
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Hi"}},
        {"type": "content_block_delta", "index": 0, "delta": citation},
        {"type": "content_block_stop", "index": 0},
        {"type": "brand_new_event"},
    )
    assert events == [ModelTextDelta("Hi")]


def test_the_forced_answer_tool_streams_text_and_stops() -> None:
    """With an answer tool, that tool's input is text and its tool_use stop is a STOP."""
    translator = MessagesStreamTranslator(answer_tool="Report")
    block = {"type": "tool_use", "id": "toolu_1", "name": "Report", "input": {}}
    events = feed(
        translator,
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
        stop("tool_use"),
    )
    assert events[0] == ModelTextDelta('{"a": 1}')
    assert translator.end()[-1] == ModelFinish(FinishReason.STOP)
