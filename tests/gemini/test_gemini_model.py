"""`GeminiModel` over real HTTP against the local Gemini API server: every fixture's events or error,
connecting, keys, cancellation and retries."""

from __future__ import annotations

import gc
import re
import time
import warnings
from collections.abc import Callable

import pytest
import trio
from tests.gemini.conftest import API_KEY
from tests.gemini.gemini_expectations import END_TO_END, HTTP_ERRORS, PARKED, STREAMED, WHOLE, Expected
from tests.gemini.gemini_wire import GeminiServer, all_fixtures, wait_for

from helikon_fc.core import (
    ModelEvent,
    ModelFailureKind,
    ModelRequest,
    ModelTextDelta,
    ModelToolCallDelta,
    ToolCall,
    ToolResult,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.gemini import GeminiModel
from helikon_fc.models import ModelError, RetryAttempt, RetryingModel, RetryPolicy

REQUEST = ModelRequest(instructions="Answer briefly.", items=Conversation([UserMessage("What's the weather?")]))
SYNTHETIC = re.compile(r"^call_[0-9a-f]{12}_(\d+)$")


def model_for(server: GeminiServer, *, stream: bool = True) -> GeminiModel:
    return GeminiModel("gemini-2.5-flash", api_key=API_KEY, base_url=server.base_url, stream=stream)


async def drain(model: GeminiModel, request: ModelRequest = REQUEST) -> tuple[list[ModelEvent], ModelError | None]:
    events: list[ModelEvent] = []
    try:
        async with model.stream(request) as stream:
            async for event in stream:
                events.append(event)
    except ModelError as error:
        return events, error
    return events, None


def with_ids_resolved(events: list[ModelEvent]) -> list[ModelEvent]:
    """The events with each synthetic call id written ``<n>`` (its place in the turn), as the expectations are."""
    resolved: list[ModelEvent] = []
    for event in events:
        if isinstance(event, ModelToolCallDelta) and (match := SYNTHETIC.match(event.call_id)):
            event = ModelToolCallDelta(f"<{match.group(1)}>", event.name, event.args_delta)
        resolved.append(event)
    return resolved


def check(events: list[ModelEvent], error: ModelError | None, expected: Expected) -> None:
    assert with_ids_resolved(events) == list(expected.events)
    if expected.error is None:
        assert error is None
    else:
        assert error is not None and error.kind is expected.error, error
        assert expected.words in error.message
        assert error.retry_after == expected.retry_after


def test_every_fixture_has_an_expectation() -> None:
    """A fixture nobody checks proves nothing: each is in exactly one expectation table (or parked)."""
    tables = [*STREAMED, *WHOLE, *HTTP_ERRORS, *PARKED, *END_TO_END]
    assert sorted(tables) == all_fixtures()


@pytest.mark.parametrize("name", sorted(STREAMED))
async def test_streamed_fixture(name: str, gemini: GeminiServer) -> None:
    """The fixture's events come out exactly, or its error is raised (with no finish before it)."""
    gemini.enqueue(name)
    events, error = await drain(model_for(gemini))
    check(events, error, STREAMED[name])
    (request,) = gemini.requests
    assert (request.model, request.method, request.query) == (
        "gemini-2.5-flash",
        "streamGenerateContent",
        {"alt": ["sse"]},
    )


@pytest.mark.parametrize("name", sorted(WHOLE))
async def test_whole_fixture(name: str, gemini: GeminiServer) -> None:
    """``stream=False`` calls ``generateContent`` and yields the events a stream of the same answer would."""
    gemini.enqueue(name)
    events, error = await drain(model_for(gemini, stream=False))
    check(events, error, WHOLE[name])
    assert [(r.method, r.query) for r in gemini.requests] == [("generateContent", {})]


@pytest.mark.parametrize("name", sorted(HTTP_ERRORS))
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_http_error(name: str, stream: bool, gemini: GeminiServer) -> None:
    """An HTTP error fails on entering the stream, with the kind, the hint and the message its status gives."""
    gemini.enqueue(name)
    model = model_for(gemini, stream=stream)
    with pytest.raises(ModelError) as info:
        async with model.stream(REQUEST):
            pytest.fail("entered a stream that failed")  # pragma: no cover
    check([], info.value, HTTP_ERRORS[name])
    assert f"from POST {gemini.base_url}/models/gemini-2.5-flash:" in info.value.message


async def test_synthetic_ids_are_stable_for_one_request_and_differ_between_requests(gemini: GeminiServer) -> None:
    """Calls without ids get ids from the request's digest: the same request gives the same ids, another
    conversation other ids; within a turn they follow the call order."""
    for _ in range(3):
        gemini.enqueue("parallel_tool_calls")
    first, _ = await drain(model_for(gemini))
    again, _ = await drain(model_for(gemini))
    other, _ = await drain(model_for(gemini), ModelRequest(instructions=None, items=Conversation([UserMessage("hi")])))
    ids = [e.call_id for e in first if isinstance(e, ModelToolCallDelta)]
    assert [SYNTHETIC.match(i) is not None for i in ids] == [True, True]
    assert [i[-2:] for i in ids] == ["_0", "_1"]
    assert ids == [e.call_id for e in again if isinstance(e, ModelToolCallDelta)]
    assert not set(ids) & {e.call_id for e in other if isinstance(e, ModelToolCallDelta)}


@pytest.mark.parametrize("name", PARKED)
async def test_cancellation_closes_the_connection(name: str, gemini: GeminiServer) -> None:
    """Cancelling mid-stream ends the stream with no finish, and the server sees the connection go."""
    exchange = gemini.enqueue(name)
    events: list[ModelEvent] = []
    with trio.move_on_after(10) as scope:
        async with model_for(gemini).stream(REQUEST) as stream:
            async for event in stream:
                events.append(event)
                if isinstance(event, ModelTextDelta):
                    await wait_for(exchange.parked)
                    scope.cancel()
    assert scope.cancelled_caught
    assert events and all(not type(event).__name__.endswith("Finish") for event in events)
    await wait_for(exchange.disconnected)


async def test_the_key_is_sent_as_a_header_and_a_wrong_one_is_refused(gemini: GeminiServer) -> None:
    """``x-goog-api-key`` carries the key (never the URL); the API's 403 for a bad key is REFUSED."""
    gemini.enqueue("text_stream")
    await drain(model_for(gemini))
    assert gemini.requests[0].headers["x-goog-api-key"] == API_KEY
    assert "key" not in gemini.requests[0].query
    wrong = GeminiModel("gemini-2.5-flash", api_key="nope", base_url=gemini.base_url)
    _, error = await drain(wrong)
    assert error is not None and error.kind is ModelFailureKind.REFUSED and "PERMISSION_DENIED" in error.message


@pytest.mark.parametrize("variable", ["GOOGLE_API_KEY", "GEMINI_API_KEY"])
async def test_the_key_comes_from_the_environment(
    variable: str, gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``api_key=`` the key is read from ``GOOGLE_API_KEY``, then ``GEMINI_API_KEY``."""
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, API_KEY)
    gemini.enqueue("text_stream")
    events, error = await drain(GeminiModel("gemini-2.5-flash", base_url=gemini.base_url))
    assert error is None and events


async def test_google_api_key_wins_over_gemini_api_key(gemini: GeminiServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """With both set, ``GOOGLE_API_KEY`` is sent, as Google's own SDK does (the server refuses the other)."""
    monkeypatch.setenv("GOOGLE_API_KEY", API_KEY)
    monkeypatch.setenv("GEMINI_API_KEY", "not-the-key")
    gemini.enqueue("text_stream")
    _, error = await drain(GeminiModel("gemini-2.5-flash", base_url=gemini.base_url))
    assert error is None and gemini.requests[0].headers["x-goog-api-key"] == API_KEY


async def test_a_bare_host_gets_the_api_version(gemini: GeminiServer) -> None:
    """``base_url="http://host:port"`` is the same as ``.../v1beta``; a ``models/`` prefix on the name is dropped."""
    gemini.enqueue("text_stream")
    model = GeminiModel("models/gemini-2.5-flash", api_key=API_KEY, base_url=gemini.root)
    assert model.base_url == gemini.base_url and model.name == "gemini-2.5-flash"
    _, error = await drain(model)
    assert error is None


@pytest.mark.parametrize(
    ("kwargs", "exception", "words"),
    [
        ({"model": ""}, ValueError, "model must be a model's name such as 'gemini-2.5-flash', got '' (str)"),
        ({"model": 3}, TypeError, "model must be a model's name such as 'gemini-2.5-flash', got 3 (int)"),
        ({"base_url": "ftp://x"}, ValueError, "base_url must be an http(s) URL such as"),
        ({"base_url": 8000}, TypeError, "base_url must be a string or None, got 8000 (int)"),
        ({"api_key": b"k"}, TypeError, "api_key must be a string or None, got b'k' (bytes)"),
        ({"stream": "yes"}, TypeError, "stream must be True or False, got 'yes' (str)"),
        ({"timeout": 0}, ValueError, "timeout must be > 0 seconds (or None for 600), got 0 (int)"),
        ({"timeout": "5"}, TypeError, "timeout must be a number of seconds or None, got '5' (str)"),
        ({"headers": {"x": 1}}, TypeError, "headers must be a mapping of strings to strings or None"),
        ({}, ValueError, "no Gemini API key: pass api_key=, set GOOGLE_API_KEY or GEMINI_API_KEY"),
    ],
    ids=[
        "empty name",
        "name not a string",
        "bad base url",
        "base url not a string",
        "key not a string",
        "stream not bool",
        "zero timeout",
        "timeout a string",
        "header not a string",
        "no key",
    ],
)
def test_bad_arguments_are_named(
    kwargs: dict[str, object], exception: type[Exception], words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bad argument is a clear error naming it and what it got."""
    for name in ("GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    arguments: dict[str, object] = {"model": "gemini-2.5-flash", **kwargs}
    with pytest.raises(exception, match="^GeminiModel: " + re.escape(words)):
        GeminiModel(**arguments)  # type: ignore[arg-type]


async def test_retrying_model_waits_the_retry_delay_then_succeeds(gemini: GeminiServer) -> None:
    """A 429 with ``RetryInfo.retryDelay`` is retried after at least that delay; the next answer comes through."""
    gemini.enqueue("rate_limited_short_429")
    gemini.enqueue("text_stream")
    attempts: list[RetryAttempt] = []
    model = RetryingModel(model_for(gemini), RetryPolicy(base_delay=0.0), random=lambda: 0.0, on_retry=attempts.append)
    events: list[ModelEvent] = []
    async with model.stream(REQUEST) as stream:
        events = [event async for event in stream]
    assert [(a.error.kind, a.delay) for a in attempts] == [(ModelFailureKind.RATE_LIMITED, 0.02)]
    assert events == list(STREAMED["text_stream"].events)


async def test_retrying_model_does_not_retry_an_invalid_request(gemini: GeminiServer) -> None:
    """400 INVALID_ARGUMENT is not transient: one call, the error as it came."""
    gemini.enqueue("invalid_argument_400")
    model = RetryingModel(model_for(gemini), random=lambda: 0.0)
    with pytest.raises(ModelError) as info:
        async with model.stream(REQUEST):
            pass  # pragma: no cover
    assert info.value.kind is ModelFailureKind.OTHER and len(gemini.requests) == 1


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    with trio.fail_after(timeout):
        while not condition():
            await trio.sleep(0.005)


async def test_calls_in_one_run_share_a_connection_and_aclose_ends_it(gemini: GeminiServer) -> None:
    """The model builds one client per run: two calls go over one connection; leaving ``async with`` closes it,
    and a later call opens another."""
    for _ in range(3):
        gemini.enqueue("text_stream")
    model = model_for(gemini)
    async with model:
        await drain(model)
        await drain(model)
        assert gemini.open_connections == 1
    await wait_until(lambda: gemini.open_connections == 0)
    await drain(model)
    ports = [request.client_port for request in gemini.requests]
    assert ports[0] == ports[1] != ports[2]
    await model.aclose()
    await wait_until(lambda: gemini.open_connections == 0)


def test_the_client_is_closed_when_the_trio_run_ends(gemini: GeminiServer) -> None:
    """Used bare in two trio runs, a model builds a client per run and each run closes its own (no ResourceWarning)."""
    model = model_for(gemini)

    async def one_run() -> int:
        gemini.enqueue("text_stream")
        await drain(model)
        return gemini.open_connections

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        during = [trio.run(one_run), trio.run(one_run)]
        deadline = time.monotonic() + 10
        while gemini.open_connections and time.monotonic() < deadline:
            time.sleep(0.01)
        gc.collect()
    assert during == [1, 1]
    assert gemini.open_connections == 0
    assert len({request.client_port for request in gemini.requests}) == 2
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


async def test_a_model_dropped_mid_run_closes_its_client_at_once(gemini: GeminiServer) -> None:
    """A run that makes a model per request and drops it does not keep one open client per model until it ends."""
    model = model_for(gemini)
    gemini.enqueue("text_stream")
    await drain(model)
    assert gemini.open_connections == 1
    del model  # no garbage collection needed: nothing the model owns refers back to it
    await wait_until(lambda: gemini.open_connections == 0)


async def test_another_model_object_sends_back_the_signatures_one_received(gemini: GeminiServer) -> None:
    """Agents may each have their own `GeminiModel`: the one that continues a conversation sends back the
    signature another one received (Gemini 3 refuses a function call without it)."""
    gemini.enqueue("parallel_tool_calls")
    gemini.enqueue("text_stream")
    events, _ = await drain(model_for(gemini))
    calls = [ToolCall(e.call_id, e.name or "", e.args_delta) for e in events if isinstance(e, ModelToolCallDelta)]
    results = [ToolResult(call.call_id, "ok") for call in calls]
    follow_up = ModelRequest(instructions=None, items=Conversation([UserMessage("hi"), *calls, *results]))
    await drain(model_for(gemini), follow_up)
    model_turn = gemini.requests[1].body["contents"][1]  # type: ignore[index]
    assert [part.get("thoughtSignature") for part in model_turn["parts"]] == ["c2lnLXBhcmFsbGVsLTE=", None]


async def test_a_wrong_base_url_says_what_to_check(gemini: GeminiServer) -> None:
    """A 404 (here: an API version the server does not serve) names the endpoint and says to check the model's
    name and the base URL."""
    model = GeminiModel("gemini-2.5-flash", api_key=API_KEY, base_url=f"{gemini.root}/v1")
    _, error = await drain(model)
    assert error is not None and error.kind is ModelFailureKind.OTHER
    assert error.message.startswith(f"HTTP 404 NOT_FOUND from POST {gemini.root}/v1/models/gemini-2.5-flash:")
    assert error.message.endswith(
        "; check the model's name and base_url (the API root with its version, e.g. .../v1beta)"
    )
