"""Every wire fixture, replayed over a real socket through `OpenAIModel`, yields exactly its expected stream."""

from __future__ import annotations

import json

import pytest
from tests.openai.openai_expectations import CHAT, HELD_OPEN, RESPONSES, Expected, replay
from tests.openai.openai_wire import Api, Fixture, WireServer, all_fixtures

from helikon_fc.core import assemble_response

CASES = [
    pytest.param(api, name, expected, id=f"{api}-{name}")
    for api, table in (("chat", CHAT), ("responses", RESPONSES))
    for name, expected in table.items()
]


@pytest.mark.parametrize(("api", "name", "expected"), CASES)
async def test_fixture_replays_to_expected_stream(api: Api, name: str, expected: Expected, wire: WireServer) -> None:
    """The events, the failure kind, where it surfaced (entering or iterating) and the retry hint all match."""
    outcome = await replay(api, name, wire, stream=expected.stream)
    assert outcome.events == expected.events
    assert (outcome.error.kind if outcome.error else None) is expected.error
    assert outcome.phase == expected.phase
    assert (outcome.error.retry_after if outcome.error else None) == expected.retry_after


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_every_fixture_has_an_expectation(api: Api) -> None:
    """No fixture file sits unused, and each says what it proves."""
    table = CHAT if api == "chat" else RESPONSES
    assert set(all_fixtures(api)) == set(table) | set(HELD_OPEN)
    for name in all_fixtures(api):
        assert Fixture.load(api, name).proves


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_fragmented_tool_calls_assemble_into_whole_calls(api: Api, wire: WireServer) -> None:
    """The deltas of the parallel-calls fixture fold into three calls with valid JSON arguments, in order."""
    outcome = await replay(api, "parallel_tool_calls", wire)
    response = assemble_response(outcome.events)
    assert [(c.call_id, c.name) for c in response.tool_calls] == [
        ("call_A1", "get_weather"),
        ("call_B2", "get_weather"),
        ("call_C3", "get_time"),
    ]
    assert [json.loads(c.arguments or "{}") for c in response.tool_calls] == [{"city": "Paris"}, {"city": "Oslo"}, {}]


async def test_a_whole_completion_assembles_like_its_stream(wire: WireServer) -> None:
    """stream=False: the non-streamed completion folds into the same response as the streamed parallel calls."""
    streamed = await replay("chat", "parallel_tool_calls", wire)
    whole = await replay("chat", "whole_tool_calls", wire, stream=False)
    assert assemble_response(whole.events) == assemble_response(streamed.events)
    body = wire.requests[-1].body
    assert body["stream"] is False
    assert "stream_options" not in body
