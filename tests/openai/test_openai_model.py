"""`OpenAIModel`: what it sends, who owns the client, and how cancellation closes the connection."""

from __future__ import annotations

import gc
import time
import warnings
from collections.abc import Callable

import openai
import pytest
import trio
from tests.openai.openai_expectations import REQUEST, model_for
from tests.openai.openai_wire import Api, WireServer, wait_for

from helikon_fc.core import (
    AssistantMessage,
    ModelEvent,
    ModelFailureKind,
    ModelFinish,
    ModelRequest,
    ModelSettings,
    OutputSchema,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolDef,
    ToolResult,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import Model, ModelError, RetryAttempt, RetryingModel, RetryPolicy
from helikon_fc.openai import OpenAIModel

WEATHER = ToolDef(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}}, "required": ["city"]},
    strict=True,
)
CLOCK = ToolDef("get_time", "The time now.", {"type": "object", "properties": {}})
ANSWER = OutputSchema("answer", {"type": "object", "properties": {"city": {"type": "string"}}})

CONVERSATION = Conversation(
    [
        SystemMessage("Be terse."),
        UserMessage("Weather in Paris and Oslo?"),
        Reasoning("Two cities, two calls."),
        AssistantMessage("Checking.", agent="weather"),
        ToolCall("call_1", "get_weather", '{"city":"Paris"}'),
        ToolCall("call_2", "get_weather", '{"city":"Oslo"}'),
        ToolResult("call_1", "18C"),
        ToolResult("call_2", "error: unavailable", is_error=True),
        UserMessage("Thanks"),
    ]
)
SETTINGS = ModelSettings(
    temperature=0.2,
    top_p=0.9,
    max_output_tokens=256,
    tool_choice="get_weather",
    parallel_tool_calls=False,
    previous_response_id="resp_prev",
)
FULL = ModelRequest(
    instructions="You are a weather bot.", items=CONVERSATION, tools=(WEATHER, CLOCK), settings=SETTINGS
)
STRICT_WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
    "required": ["city", "unit"],
    "additionalProperties": False,
}


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (real time) until the server thread's view satisfies `condition`."""
    with trio.fail_after(timeout):
        while not condition():
            await trio.sleep(0.005)


async def drain(model: Model, request: ModelRequest = REQUEST) -> list[ModelEvent]:
    async with model.stream(request) as stream:
        return [event async for event in stream]


async def test_chat_request_carries_conversation_tools_and_settings(wire: WireServer) -> None:
    """Chat: instructions as the first system message, calls grouped on one assistant message, reasoning dropped."""
    wire.enqueue("chat", "text_stream")
    await drain(model_for("chat", wire), FULL)
    (sent,) = wire.requests
    assert sent.path == "/v1/chat/completions"
    body = sent.body
    assert body["model"] == "gpt-5-mini"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        {"role": "tool", "tool_call_id": "call_2", "content": "error: unavailable"},
        {"role": "user", "content": "Thanks"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": STRICT_WEATHER,
                "strict": True,
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get_time",
                "description": "The time now.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["parallel_tool_calls"] is False
    assert (body["temperature"], body["top_p"], body["max_completion_tokens"]) == (0.2, 0.9, 256)
    assert "previous_response_id" not in body
    assert "response_format" not in body


async def test_responses_request_carries_conversation_tools_and_settings(wire: WireServer) -> None:
    """Responses: instructions apart, calls and results as function_call items, previous_response_id passed on."""
    wire.enqueue("responses", "text_stream")
    await drain(model_for("responses", wire), FULL)
    (sent,) = wire.requests
    assert sent.path == "/v1/responses"
    body = sent.body
    assert body["instructions"] == "You are a weather bot."
    assert body["stream"] is True
    assert body["input"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {"role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call", "call_id": "call_2", "name": "get_weather", "arguments": '{"city":"Oslo"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
        {"type": "function_call_output", "call_id": "call_2", "output": "error: unavailable"},
        {"role": "user", "content": "Thanks"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": STRICT_WEATHER,
            "strict": True,
        },
        {
            "type": "function",
            "name": "get_time",
            "description": "The time now.",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        },
    ]
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert body["parallel_tool_calls"] is False
    assert body["previous_response_id"] == "resp_prev"
    assert (body["temperature"], body["top_p"], body["max_output_tokens"]) == (0.2, 0.9, 256)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_output_schema_is_sent_as_a_strict_json_schema_format(api: Api, wire: WireServer) -> None:
    """A structured-output turn asks for the schema in strict form; tool settings are left out without tools."""
    wire.enqueue(api, "text_stream")
    request = ModelRequest(
        instructions=None,
        items=Conversation([UserMessage("hi")]),
        output_schema=ANSWER,
        settings=ModelSettings(tool_choice="required", parallel_tool_calls=True),
    )
    await drain(model_for(api, wire), request)
    body = wire.requests[0].body
    strict = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    if api == "chat":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": strict, "strict": True},
        }
        assert body["messages"] == [{"role": "user", "content": "hi"}]
    else:
        assert body["text"] == {"format": {"type": "json_schema", "name": "answer", "schema": strict, "strict": True}}
        assert "instructions" not in body
    for absent in ("tools", "tool_choice", "parallel_tool_calls", "temperature", "top_p"):
        assert absent not in body


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_cancellation_closes_the_connection_at_once(api: Api, wire: WireServer) -> None:
    """Cancelling mid-generation ends the stream with no finish, and the server sees the connection go."""
    exchange = wire.enqueue(api, "held_open")
    events: list[ModelEvent] = []
    with trio.CancelScope() as scope:
        async with model_for(api, wire).stream(REQUEST) as stream:
            async for event in stream:
                events.append(event)
                if len(events) == 2:
                    await wait_for(exchange.parked)
                    assert not exchange.disconnected.is_set()
                    scope.cancel()
    assert scope.cancelled_caught
    assert len(events) == 2
    assert not any(isinstance(event, ModelFinish) for event in events)
    await wait_for(exchange.disconnected)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_leaving_the_block_early_closes_the_connection(api: Api, wire: WireServer) -> None:
    """Breaking out after the first event and leaving ``async with`` closes the held-open response."""
    exchange = wire.enqueue(api, "held_open")
    async with model_for(api, wire).stream(REQUEST) as stream:
        async for _ in stream:
            break
    await wait_for(exchange.disconnected)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_a_whole_stream_leaves_no_resource_warning(api: Api, wire: WireServer) -> None:
    """A stream read to its end leaves no unclosed socket and no half-read generator behind."""
    wire.enqueue(api, "text_stream")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        await drain(model_for(api, wire))
        gc.collect()
        await trio.lowlevel.checkpoint()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


async def test_a_ready_client_is_used_and_left_open(wire: WireServer) -> None:
    """A client passed in serves the calls and stays open for its owner; the SDK settings are the owner's."""
    async with openai.AsyncOpenAI(api_key="sk-test", base_url=wire.base_url, max_retries=0) as client:
        model = OpenAIModel.chat("gpt-5-mini", client=client)
        wire.enqueue("chat", "text_stream")
        wire.enqueue("chat", "text_stream")
        await drain(model)
        assert not client.is_closed()
        await drain(model)
        assert [r.headers["authorization"] for r in wire.requests] == ["Bearer sk-test"] * 2


async def test_bare_calls_share_one_client_and_connection(wire: WireServer) -> None:
    """Without ``async with``, every call in a run reuses the client the first call built (one connection)."""
    model = model_for("chat", wire)
    for _ in range(3):
        wire.enqueue("chat", "text_stream")
        await drain(model)
    assert len({request.client_port for request in wire.requests}) == 1
    assert wire.open_connections == 1


async def test_aclose_closes_the_connection_and_a_later_call_opens_another(wire: WireServer) -> None:
    """``aclose()`` (and leaving ``async with``) closes the model's client now; the next call builds a new one."""
    model = model_for("chat", wire)
    async with model:
        wire.enqueue("chat", "text_stream")
        await drain(model)
        assert wire.open_connections == 1
    await wait_until(lambda: wire.open_connections == 0)
    wire.enqueue("chat", "text_stream")
    await drain(model)
    first, second = (request.client_port for request in wire.requests)
    assert first != second
    await model.aclose()
    await wait_until(lambda: wire.open_connections == 0)


def test_the_client_is_closed_when_the_trio_run_ends(wire: WireServer) -> None:
    """Used bare in two trio runs, a model builds a client per run and each run closes its own (no ResourceWarning)."""
    model = model_for("chat", wire)

    async def one_run() -> int:
        wire.enqueue("chat", "text_stream")
        await drain(model)
        return wire.open_connections

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        during = [trio.run(one_run), trio.run(one_run)]
        deadline = time.monotonic() + 10
        while wire.open_connections and time.monotonic() < deadline:
            time.sleep(0.01)
        gc.collect()
    assert during == [1, 1]
    assert wire.open_connections == 0
    assert len({request.client_port for request in wire.requests}) == 2
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


async def test_sdk_retries_are_off_by_default(wire: WireServer) -> None:
    """A 500 reaches the caller after exactly one request: retrying is RetryingModel's job."""
    wire.enqueue("chat", "server_error_500")
    with pytest.raises(ModelError):
        await drain(model_for("chat", wire))
    assert len(wire.requests) == 1


async def test_a_local_server_needs_no_api_key(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """``OpenAIModel.chat(name, base_url=...)`` works with no key configured (a placeholder is sent)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    wire.enqueue("chat", "text_stream")
    model = OpenAIModel.chat("llama3", base_url=wire.base_url)
    assert (model.name, model.api) == ("llama3", "chat")
    assert repr(model) == f"OpenAIModel.chat('llama3', base_url={wire.base_url!r})"
    assert isinstance(model, Model)
    await drain(model)
    assert wire.requests[0].headers["authorization"] == "Bearer unused"


async def test_environment_supplies_key_and_base_url(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` are the fallbacks for missing arguments."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", wire.base_url)
    wire.enqueue("responses", "text_stream")
    await drain(OpenAIModel.responses("gpt-5-mini"))
    assert wire.requests[0].headers["authorization"] == "Bearer sk-env"


def test_no_key_and_no_base_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a key, a base URL or a client, building the model says what to configure."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIModel.chat("gpt-5-mini")


async def test_a_client_and_connection_options_are_exclusive() -> None:
    """Passing a ready client and options that would build another is refused, naming the options."""
    async with openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1") as client:
        with pytest.raises(TypeError, match="base_url"):
            OpenAIModel.responses("gpt-5-mini", client=client, base_url="http://127.0.0.1:9/v1")
        with pytest.raises(TypeError, match="max_retries"):  # not silently dropped: the client's own applies
            OpenAIModel.chat("gpt-5-mini", client=client, max_retries=2)
    with pytest.raises(ValueError, match="model name"):
        OpenAIModel.chat("", api_key="k")


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_an_unknown_argument_is_named_with_the_options_there_are(api: Api) -> None:
    """A misspelt connection option is a `TypeError` naming it and listing the real ones, not silently ignored."""
    build = OpenAIModel.chat if api == "chat" else OpenAIModel.responses
    with pytest.raises(
        TypeError, match=rf"OpenAIModel\.{api}\(\) got unknown argument\(s\) api_ky; .* api_key, base_url"
    ):
        build("gpt-5-mini", api_ky="k")  # type: ignore[call-arg]


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_retrying_model_recovers_from_429_over_the_wire(api: Api, wire: WireServer) -> None:
    """RetryingModel around OpenAIModel: a 429 with a 20 ms hint, then the stream; the hint floors the wait."""
    wire.enqueue(api, "rate_limited_short_429")
    wire.enqueue(api, "text_stream")
    noted: list[RetryAttempt] = []
    model = RetryingModel(
        model_for(api, wire), RetryPolicy(base_delay=0.001), random=lambda: 0.5, on_retry=noted.append
    )
    events = await drain(model)
    assert isinstance(events[-1], ModelFinish)
    assert len(wire.requests) == 2
    assert [(n.error.kind, n.delay) for n in noted] == [(ModelFailureKind.RATE_LIMITED, 0.02)]


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_retrying_model_does_not_retry_context_length(api: Api, wire: WireServer) -> None:
    """A 400 context_length_exceeded is final: one request, CONTEXT_LENGTH raised."""
    wire.enqueue(api, "context_length_400")
    with pytest.raises(ModelError) as raised:
        await drain(RetryingModel(model_for(api, wire)))
    assert raised.value.kind is ModelFailureKind.CONTEXT_LENGTH
    assert len(wire.requests) == 1


async def test_a_model_dropped_mid_run_closes_its_client_at_once(wire: WireServer) -> None:
    """A run that makes a model per request and drops it does not keep one open client per model until it ends."""
    model = model_for("chat", wire)
    wire.enqueue("chat", "text_stream")
    await drain(model)
    assert wire.open_connections == 1
    del model
    gc.collect()
    await wait_until(lambda: wire.open_connections == 0)
