"""The pure parts of the OpenAI provider: SSE decoding, error mapping, the retry hint, and stream corner cases."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from helikon_fc.core import (
    FinishReason,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelTextDelta,
    ModelToolCallDelta,
)
from helikon_fc.models import ModelError
from helikon_fc.openai._chat_stream import ChatStreamTranslator
from helikon_fc.openai._errors import error_from_exception, error_from_status, retry_after_seconds, stream_error
from helikon_fc.openai._responses_stream import ResponsesStreamTranslator
from helikon_fc.openai._sse import SseDecoder, SseFrame
from helikon_fc.openai._turn import UNREPORTED


def frames(lines: list[str]) -> list[SseFrame]:
    decoder = SseDecoder()
    return [frame for line in lines if (frame := decoder.feed(line)) is not None]


def test_sse_frames_join_data_lines_and_skip_comments() -> None:
    """Several data lines join with newlines; comments and unknown fields are ignored; a blank line ends a frame."""
    lines = [": ping", "event: message", "data: one", "data:two", "id: 7", "", "", "data: three", ""]
    assert frames(lines) == [SseFrame("message", "one\ntwo"), SseFrame(None, "three")]


def test_sse_frame_cut_off_by_the_end_is_dropped() -> None:
    """A frame with no closing blank line is not dispatched (the body ended mid-frame)."""
    assert frames(["data: whole", "", "data: {partial"]) == [SseFrame(None, "whole")]


def test_sse_accepts_crlf_line_endings() -> None:
    """Lines still carrying a CR (or CRLF) decode the same."""
    assert frames(["data: x\r", "\r\n"]) == [SseFrame(None, "x")]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"Retry-After": "4"}, 4.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after-ms": "junk", "retry-after": "2"}, 2.0),
        ({}, None),
    ],
)
def test_retry_after_prefers_milliseconds_then_seconds(headers: dict[str, str], expected: float | None) -> None:
    """``retry-after-ms`` wins over ``Retry-After``; unreadable or negative hints give no hint."""
    assert retry_after_seconds(headers) == expected


def test_retry_after_accepts_an_http_date() -> None:
    """An HTTP-date hint is the time left until that date (never negative)."""
    now = 1_767_225_600.0  # Thu, 01 Jan 2026 00:00:00 GMT
    assert retry_after_seconds({"retry-after": "Thu, 01 Jan 2026 00:00:30 GMT"}, now=now) == pytest.approx(30.0)
    assert retry_after_seconds({"retry-after": "Wed, 31 Dec 2025 23:59:00 GMT"}, now=now) == 0.0


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (400, {"error": {"code": "context_length_exceeded", "message": "too long"}}, ModelFailureKind.CONTEXT_LENGTH),
        (
            400,
            {"error": {"message": "This model's maximum context length is 8192 tokens"}},
            ModelFailureKind.CONTEXT_LENGTH,
        ),
        (400, {"error": {"type": "content_filter", "message": "blocked"}}, ModelFailureKind.REFUSED),
        (401, {"error": {"message": "bad key"}}, ModelFailureKind.REFUSED),
        (403, None, ModelFailureKind.REFUSED),
        (429, {"error": {"code": "rate_limit_exceeded", "message": "slow down"}}, ModelFailureKind.RATE_LIMITED),
        (429, {"error": {"code": "insufficient_quota", "message": "no money"}}, ModelFailureKind.OTHER),
        (500, None, ModelFailureKind.UNAVAILABLE),
        (502, "Bad Gateway", ModelFailureKind.UNAVAILABLE),
        (503, None, ModelFailureKind.UNAVAILABLE),
        (504, None, ModelFailureKind.UNAVAILABLE),
        (404, {"error": {"message": "no such model"}}, ModelFailureKind.OTHER),
        (422, None, ModelFailureKind.OTHER),
    ],
)
def test_http_statuses_map_to_failure_kinds(status: int, body: object, kind: ModelFailureKind) -> None:
    """The error body decides first (context length, content filter), then the status."""
    error = error_from_status(status, {"retry-after": "3"}, body)
    assert error.kind is kind
    assert error.message.startswith(f"HTTP {status}: ")
    assert error.retry_after == (3.0 if kind is ModelFailureKind.RATE_LIMITED else None)


def test_sdk_exceptions_map_to_failure_kinds() -> None:
    """Connection failures and timeouts are TRANSPORT; status errors keep their status mapping."""
    request = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx2.Response(503, request=request, headers={"retry-after": "1"})
    assert error_from_exception(openai.APIConnectionError(request=request)).kind is ModelFailureKind.TRANSPORT
    assert error_from_exception(openai.APITimeoutError(request=request)).kind is ModelFailureKind.TRANSPORT
    status = openai.InternalServerError("unavailable", response=response, body=None)
    assert error_from_exception(status).kind is ModelFailureKind.UNAVAILABLE
    assert error_from_exception(httpx2.ReadError("reset")).kind is ModelFailureKind.TRANSPORT
    assert error_from_exception(ValueError("odd")).kind is ModelFailureKind.OTHER


@pytest.mark.parametrize(
    ("code", "error_type", "kind"),
    [
        ("rate_limit_exceeded", None, ModelFailureKind.RATE_LIMITED),
        ("server_error", None, ModelFailureKind.UNAVAILABLE),
        (None, "server_error", ModelFailureKind.UNAVAILABLE),
        ("context_length_exceeded", None, ModelFailureKind.CONTEXT_LENGTH),
        (None, "invalid_request_error", ModelFailureKind.OTHER),
    ],
)
def test_stream_errors_map_by_code(code: str | None, error_type: str | None, kind: ModelFailureKind) -> None:
    """An error reported inside the stream is classified by its code or type."""
    assert stream_error(code, error_type, "x").kind is kind


def chunk(delta: dict[str, object], finish: str | None = None) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def test_chat_call_without_an_id_gets_a_stable_fallback_id() -> None:
    """Some compatible servers omit tool-call ids: the call is named ``call_<index>`` so it can be answered."""
    translator = ChatStreamTranslator()
    events = translator.feed(chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "{}"}}]}))
    events += translator.feed(chunk({}, "tool_calls"))
    events += translator.end()
    assert events == [ModelToolCallDelta("call_0", "f", "{}"), UNREPORTED, ModelFinish(FinishReason.TOOL_CALLS)]


def test_chat_name_repeated_on_every_fragment_is_not_doubled() -> None:
    """A server resending the whole name with each argument fragment still yields the name once, whole."""
    translator = ChatStreamTranslator()
    events = translator.feed(
        chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{"}}]})
    )
    events += translator.feed(chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "}"}}]}))
    assert events == [ModelToolCallDelta("c", "f", "{"), ModelToolCallDelta("c", None, "}")]


def test_chat_deltas_after_the_stop_reason_are_ignored() -> None:
    """Nothing but usage is read after the stop reason, so no delta can follow the held finish."""
    translator = ChatStreamTranslator()
    translator.feed(chunk({"content": "a"}, "stop"))
    assert translator.feed(chunk({"content": "late"})) == []
    assert translator.end() == [UNREPORTED, ModelFinish(FinishReason.STOP)]


def test_chat_end_without_stop_reason_is_a_transport_error() -> None:
    """A body that ends before any stop reason is a broken stream, not a finished one."""
    translator = ChatStreamTranslator()
    translator.feed(chunk({"content": "a"}))
    with pytest.raises(ModelError) as raised:
        translator.end()
    assert raised.value.kind is ModelFailureKind.TRANSPORT


def test_chat_non_object_frames_are_skipped() -> None:
    """A JSON frame that is not an object is skipped like an unparseable one."""
    translator = ChatStreamTranslator()
    assert translator.feed("[1, 2]") == []
    assert translator.feed("null") == []


def test_responses_call_arguments_only_on_done_are_reported() -> None:
    """A server that sends a call's arguments only in its done event still reports them, with the name."""
    translator = ResponsesStreamTranslator()
    added = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": ""}
    events = translator.feed(None, json.dumps({"type": "response.output_item.added", "output_index": 0, "item": added}))
    done = {"type": "response.function_call_arguments.done", "output_index": 0, "arguments": '{"a":1}'}
    events += translator.feed(None, json.dumps(done))
    item_done = {"type": "response.output_item.done", "output_index": 0, "item": {**added, "arguments": '{"a":1}'}}
    events += translator.feed(None, json.dumps(item_done))
    assert events == [ModelToolCallDelta("c1", "f", '{"a":1}')]


def test_responses_unknown_incomplete_reason_is_other() -> None:
    """An incomplete response for a reason we do not know finishes as OTHER with the raw reason."""
    translator = ResponsesStreamTranslator()
    translator.feed(None, json.dumps({"type": "response.output_text.delta", "delta": "x"}))
    payload = {"type": "response.incomplete", "response": {"incomplete_details": {"reason": "budget"}}}
    translator.feed(None, json.dumps(payload))
    assert translator.end() == [UNREPORTED, ModelFinish(FinishReason.OTHER, "budget")]
    assert translator.turn.answered


def test_responses_event_name_is_used_when_the_payload_has_no_type() -> None:
    """The SSE ``event:`` field stands in for a missing ``type``."""
    translator = ResponsesStreamTranslator()
    assert translator.feed("response.output_text.delta", json.dumps({"delta": "hi"})) == [ModelTextDelta("hi")]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_chat_reasoning_fields_of_compatible_servers(field: str) -> None:
    """Both spellings compatible servers use for streamed reasoning become reasoning deltas."""
    translator = ChatStreamTranslator()
    assert translator.feed(chunk({field: "hmm"})) == [ModelReasoningDelta("hmm")]
