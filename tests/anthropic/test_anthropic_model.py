"""`AnthropicModel` against the local Messages API server: events, stop reasons, usage, errors, arguments."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import anthropic
import pytest
import trio
from tests.anthropic.anthropic_wire import AnthropicWire

from helikon_fc.anthropic import AnthropicModel
from helikon_fc.core import (
    FinishReason,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelReasoningDelta,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ModelUsage,
    Reasoning,
    Usage,
    UserMessage,
    assemble_response,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import ModelError, RetryingModel, RetryPolicy

REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF"
"""The ``data`` of the redacted_thinking block in the ``thinking_tool_call`` fixture."""
REQUEST = ModelRequest(instructions="Answer briefly.", items=Conversation([UserMessage("What's the weather?")]))


def model_for(wire: AnthropicWire, **options: object) -> AnthropicModel:
    """A model pointed at the local server."""
    return AnthropicModel("claude-sonnet-4-5", base_url=wire.base_url, **options)  # type: ignore[arg-type]


async def collect(model: AnthropicModel | RetryingModel, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    """Every event of one streamed turn."""
    async with model.stream(request) as stream:
        return [event async for event in stream]


async def test_a_text_stream_becomes_text_deltas_usage_and_a_stop(messages_wire: AnthropicWire) -> None:
    """Three text deltas, the usage snapshot of message_delta, then STOP; pings and block stops yield nothing."""
    messages_wire.enqueue("text_stream")
    events = await collect(model_for(messages_wire))
    assert events == [
        ModelTextDelta("Hello"),
        ModelTextDelta(", world"),
        ModelTextDelta("!"),
        ModelUsage(Usage(input_tokens=25, output_tokens=15, requests=1)),
        ModelFinish(FinishReason.STOP),
    ]


async def test_parallel_tool_calls_stream_named_once_with_their_argument_fragments(
    messages_wire: AnthropicWire,
) -> None:
    """Each tool_use block is one call id, named on its first delta; the turn finishes with TOOL_CALLS."""
    messages_wire.enqueue("parallel_tool_calls")
    events = await collect(model_for(messages_wire))
    calls = [event for event in events if isinstance(event, ModelToolCallDelta)]
    assert calls == [
        ModelToolCallDelta("toolu_01A", "get_weather", ""),
        ModelToolCallDelta("toolu_01A", None, '{"city": '),
        ModelToolCallDelta("toolu_01A", None, '"Paris"}'),
        ModelToolCallDelta("toolu_01B", "get_time", ""),
    ]
    response = assemble_response(events)
    assert [(c.call_id, c.name, c.arguments) for c in response.tool_calls] == [
        ("toolu_01A", "get_weather", '{"city": "Paris"}'),
        ("toolu_01B", "get_time", ""),
    ]
    assert (response.text, response.finish_reason) == ("Let me check.", FinishReason.TOOL_CALLS)


async def test_thinking_blocks_keep_their_signature_and_redacted_data(messages_wire: AnthropicWire) -> None:
    """thinking_delta text, then the signature closing the block, then the redacted block's data, as reasoning."""
    messages_wire.enqueue("thinking_tool_call")
    events = await collect(model_for(messages_wire, thinking_budget=2048))
    reasoning = [event for event in events if isinstance(event, ModelReasoningDelta)]
    assert [(r.text, r.signature is not None, r.redacted is not None) for r in reasoning] == [
        ("The user wants Paris weather. ", False, False),
        ("I should call the tool.", False, False),
        ("", True, False),
        ("", False, True),
    ]
    response = assemble_response(events)
    assert response.reasoning_blocks == (
        Reasoning(
            "The user wants Paris weather. I should call the tool.",
            signature="EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        ),
        Reasoning(
            "",
            redacted="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB9URj2pLmN3kF",
        ),
    )
    assert response.usage.reasoning_tokens == 40
    assert messages_wire.bodies()[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}


async def test_cache_reads_and_writes_count_as_input_and_reads_as_cached(messages_wire: AnthropicWire) -> None:
    """input_tokens excludes the cache on the wire; the usage adds reads and writes back and reports reads as cached."""
    messages_wire.enqueue("answer_after_tools")
    events = await collect(model_for(messages_wire))
    usage = assemble_response(events).usage
    assert (usage.input_tokens, usage.cached_input_tokens, usage.output_tokens) == (132, 100, 12)


async def test_a_server_without_usage_gives_an_unreported_usage(messages_wire: AnthropicWire) -> None:
    """No usage anywhere: the turn's usage says so instead of claiming 0 tokens."""
    messages_wire.enqueue("no_usage")
    usage = assemble_response(await collect(model_for(messages_wire))).usage
    assert not usage.reported


@pytest.mark.parametrize(
    ("fixture", "finish"),
    [
        ("max_tokens", ModelFinish(FinishReason.LENGTH)),
        ("stop_sequence", ModelFinish(FinishReason.STOP)),
        ("pause_turn", ModelFinish(FinishReason.OTHER, "pause_turn")),
    ],
)
async def test_stop_reasons_map_to_finishes(fixture: str, finish: ModelFinish, messages_wire: AnthropicWire) -> None:
    """max_tokens -> LENGTH, stop_sequence -> STOP, pause_turn -> OTHER with the word kept."""
    messages_wire.enqueue(fixture)
    events = await collect(model_for(messages_wire))
    assert events[-1] == finish


async def test_a_refusal_is_an_error_not_an_empty_success(messages_wire: AnthropicWire) -> None:
    """stop_reason refusal raises REFUSED naming the category and explanation, and no finish is emitted."""
    messages_wire.enqueue("refusal")
    seen: list[ModelEvent] = []
    with pytest.raises(ModelError) as raised:
        async with model_for(messages_wire).stream(REQUEST) as stream:
            async for event in stream:
                seen.append(event)
    assert raised.value.kind is ModelFailureKind.REFUSED
    assert "cyber: This could enable malware." in raised.value.message
    assert not any(isinstance(event, ModelFinish) for event in seen)


@pytest.mark.parametrize(
    ("fixture", "kind", "retry_after", "said"),
    [
        ("overloaded_529", ModelFailureKind.UNAVAILABLE, None, "HTTP 529 overloaded_error"),
        ("server_error_500", ModelFailureKind.UNAVAILABLE, None, "HTTP 500 api_error"),
        ("rate_limited_429", ModelFailureKind.RATE_LIMITED, 7.0, "HTTP 429 rate_limit_error"),
        ("unauthorized_401", ModelFailureKind.REFUSED, None, "invalid x-api-key"),
        ("forbidden_403", ModelFailureKind.REFUSED, None, "HTTP 403 permission_error"),
        ("context_too_long_400", ModelFailureKind.CONTEXT_LENGTH, None, "the context is too long"),
        ("invalid_request_400", ModelFailureKind.OTHER, None, "max_tokens: Input should be a valid integer"),
        ("request_too_large_413", ModelFailureKind.OTHER, None, "HTTP 413 request_too_large"),
    ],
)
async def test_http_errors_map_to_failure_kinds(
    fixture: str, kind: ModelFailureKind, retry_after: float | None, said: str, messages_wire: AnthropicWire
) -> None:
    """Each HTTP error raises on entering the stream, with its kind, the retry hint and the server's words."""
    messages_wire.enqueue(fixture)
    with pytest.raises(ModelError) as raised:
        await collect(model_for(messages_wire))
    assert (raised.value.kind, raised.value.retry_after) == (kind, retry_after)
    assert said in raised.value.message
    assert "/v1/messages" in raised.value.message


async def test_an_overloaded_server_is_retried_by_the_retrying_model(messages_wire: AnthropicWire) -> None:
    """529 is UNAVAILABLE, which `RetryingModel` retries: the second call streams the answer."""
    messages_wire.enqueue("overloaded_529")
    messages_wire.enqueue("text_stream")
    model = RetryingModel(model_for(messages_wire), RetryPolicy(max_attempts=2, base_delay=0.0))
    events = await collect(model)
    assert assemble_response(events).text == "Hello, world!"
    assert len(messages_wire.requests) == 2


async def test_a_wrong_base_url_says_how_to_fix_it(messages_wire: AnthropicWire) -> None:
    """A base URL ending in /v1 makes the SDK call /v1/v1/messages: the 404 says to drop it."""
    model = AnthropicModel("claude-sonnet-4-5", base_url=messages_wire.base_url + "/v1")
    with pytest.raises(ModelError) as raised:
        await collect(model)
    assert raised.value.kind is ModelFailureKind.OTHER
    assert "without /v1" in raised.value.message


async def test_a_refused_connection_is_a_transport_failure() -> None:
    """Nothing listens on the port: TRANSPORT, which is retryable."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelError) as raised:
        await collect(AnthropicModel("claude-sonnet-4-5", base_url=f"http://127.0.0.1:{port}"))
    assert raised.value.kind is ModelFailureKind.TRANSPORT


async def test_an_invalid_request_is_refused_by_the_server_checks(messages_wire: AnthropicWire) -> None:
    """The fixture server checks requests as the API does: an empty conversation is a 400 with the API's words."""
    with pytest.raises(ModelError) as raised:
        await collect(model_for(messages_wire), ModelRequest(instructions=None, items=Conversation()))
    assert "messages: at least one message is required" in raised.value.message


async def test_the_request_carries_the_sdk_headers_and_no_stream_false(messages_wire: AnthropicWire) -> None:
    """The SDK sends the version header and the key; the body asks for a stream."""
    messages_wire.enqueue("text_stream")
    await collect(AnthropicModel("claude-sonnet-4-5", base_url=messages_wire.base_url, api_key="sk-ant-test"))
    (request,) = messages_wire.requests
    assert request.headers["anthropic-version"]
    assert "sk-ant-test" in (request.headers.get("x-api-key", "") + request.headers.get("authorization", ""))
    assert request.body["stream"] is True


async def test_a_model_used_as_a_context_manager_reuses_one_connection(messages_wire: AnthropicWire) -> None:
    """Two calls inside ``async with model:`` go over one client; leaving the block closes it."""
    messages_wire.enqueue("text_stream")
    messages_wire.enqueue("text_stream")
    model = model_for(messages_wire)
    async with model:
        for _ in range(2):
            await collect(model)
    assert len(messages_wire.requests) == 2


async def test_a_client_passed_in_is_used_and_left_open(messages_wire: AnthropicWire) -> None:
    """``client=`` is the caller's: the model calls through it and never closes it."""
    messages_wire.enqueue("text_stream")
    async with anthropic.AsyncAnthropic(api_key="k", base_url=messages_wire.base_url, max_retries=0) as client:
        model = AnthropicModel("claude-sonnet-4-5", client=client)
        async with model:
            await collect(model)
        assert not client.is_closed()


def test_bad_arguments_are_refused_with_what_is_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each bad argument is named with what it got and what is allowed."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    cases: Sequence[tuple[dict[str, object], type[Exception], str]] = [
        ({}, ValueError, "no Anthropic API key"),
        (
            {"api_key": "k", "thinking_budget": 100},
            ValueError,
            "thinking_budget must be None or an int of at least",
        ),
        (
            {"api_key": "k", "thinking_budget": 4096},
            ValueError,
            "thinking_budget must be below max_tokens (4096), got 4096",
        ),
        ({"api_key": "k", "max_tokens": 0}, ValueError, "max_tokens must be an int of at least 1, got 0"),
        ({"api_key": "k", "structured_output": "xml"}, ValueError, "structured_output must be one of"),
        ({"api_key": "k", "organization": "o"}, TypeError, "unknown argument(s) organization"),
        ({"client": anthropic.AsyncAnthropic(api_key="k"), "api_key": "k"}, TypeError, "not both (got api_key)"),
    ]
    for options, error, message in cases:
        with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
            AnthropicModel("claude-sonnet-4-5", **options)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="model must be a non-empty model name, got ''"):
        AnthropicModel("", api_key="k")


def test_the_key_and_base_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are the defaults."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    assert (
        repr(AnthropicModel("claude-haiku-4-5")) == "AnthropicModel('claude-haiku-4-5', base_url='http://127.0.0.1:9')"
    )


async def test_cancelling_mid_stream_closes_the_connection(messages_wire: AnthropicWire) -> None:
    """The server holding a generation open sees the client go as soon as the reader is cancelled."""
    from tests.anthropic.anthropic_wire import wait_for

    exchange = messages_wire.enqueue("held_open")
    seen: list[ModelEvent] = []
    with trio.move_on_after(5) as scope:
        async with model_for(messages_wire).stream(REQUEST) as stream:
            async for event in stream:
                seen.append(event)
                await wait_for(exchange.parked)
                scope.cancel()
    assert seen == [ModelTextDelta("Thinking")]
    await wait_for(exchange.disconnected)
