"""Compatibility with servers that are not OpenAI: each shape issue 12 found, against a server with that quirk.

The wire server is given the quirks of a local server (`tests/openai/openai_quirks.py`), so each test
shows the failure the default would meet (where there is one) and the setting that avoids it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import attrs
import openai
import pytest
from tests.openai.openai_expectations import REQUEST, model_for, replay
from tests.openai.openai_quirks import LOCAL_SERVER, NO_STREAMED_TOOLS_500, NULL_CONTENT_500
from tests.openai.openai_wire import WireServer, running_server

from helikon_fc import (
    AgentInput,
    LlmAgent,
    MaxTurnsExceeded,
    ModelFailed,
    RunConfig,
    RunContext,
    RunError,
    RunResultStreaming,
    function_tool,
)
from helikon_fc.core import (
    AssistantMessage,
    ModelFailureKind,
    ModelRequest,
    ModelSettings,
    OutputSchema,
    ToolCall,
    ToolResult,
    Usage,
    UserMessage,
)
from helikon_fc.core.conversation import Conversation
from helikon_fc.models import ModelError
from helikon_fc.openai import OpenAIModel

ANSWER = OutputSchema("answer", {"type": "object", "properties": {"city": {"type": "string"}}})


@pytest.fixture
def local() -> Iterator[WireServer]:
    """The wire server behaving like a local server: null content, streamed tools and json_schema are refused."""
    with running_server() as server:
        server.quirks = LOCAL_SERVER
        yield server


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: 18C, sunny"


def run_input() -> AgentInput:
    return AgentInput.from_user_text("What's the weather in Paris?")


async def collect(agent: LlmAgent[None]) -> Any:
    return await RunResultStreaming(agent.run(RunContext.ephemeral(None), run_input())).collect()


# content: "" on assistant messages that only call tools


CALLS_ONLY = Conversation(
    [UserMessage("Paris?"), ToolCall("c1", "get_weather", '{"city":"Paris"}'), ToolResult("c1", "18C")]
)
TEXT_AND_CALLS = Conversation(
    [
        UserMessage("Paris?"),
        AssistantMessage("Checking."),
        ToolCall("c1", "get_weather", '{"city":"Paris"}'),
        ToolResult("c1", "18C"),
    ]
)


@pytest.mark.parametrize(("items", "content"), [(CALLS_ONLY, ""), (TEXT_AND_CALLS, "Checking.")])
async def test_an_assistant_tool_call_message_always_has_string_content(
    items: Conversation, content: str, local: WireServer
) -> None:
    """Calls alone carry ``content: ""`` (never null or absent), calls after text keep the text; both are accepted."""
    outcome = await replay("chat", "text_stream", local, ModelRequest(instructions=None, items=items))
    assert outcome.error is None
    (assistant,) = [
        m for m in cast(list[dict[str, Any]], local.requests[-1].body["messages"]) if m["role"] == "assistant"
    ]
    assert assistant["content"] == content
    assert len(assistant["tool_calls"]) == 1


async def test_the_quirk_is_real_a_null_content_is_refused(local: WireServer) -> None:
    """The emulated server does reject ``content: null`` (so the test above proves something)."""
    async with openai.AsyncOpenAI(api_key="k", base_url=local.base_url, max_retries=0) as client:
        with pytest.raises(openai.InternalServerError) as raised:
            await client.chat.completions.create(
                model="m",
                messages=[
                    {"role": "user", "content": "Paris?"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "18C"},
                ],
            )
    assert raised.value.status_code == NULL_CONTENT_500[0]


# Token limits


@pytest.mark.parametrize("field", ["max_completion_tokens", "max_tokens"])
async def test_the_output_limit_goes_in_the_chosen_field_only(field: Any, wire: WireServer) -> None:
    """``max_tokens_field`` picks the one field that carries max_output_tokens; the other is not sent."""
    wire.enqueue("chat", "text_stream")
    model = OpenAIModel.chat("smollm2", base_url=wire.base_url, max_tokens_field=field)
    request = attrs.evolve(REQUEST, settings=ModelSettings(max_output_tokens=8))
    async with model, model.stream(request) as stream:
        [event async for event in stream]
    body = wire.requests[0].body
    other = "max_tokens" if field == "max_completion_tokens" else "max_completion_tokens"
    assert (body[field], other in body) == (8, False)


def test_bad_compatibility_settings_are_refused_by_name() -> None:
    """An unknown field or mode is a ValueError naming the argument and what is allowed."""
    with pytest.raises(ValueError, match=r"max_tokens_field must be one of .*'max_tokens'.*got 'tokens'"):
        OpenAIModel.chat("m", base_url="http://127.0.0.1:9/v1", max_tokens_field=cast(Any, "tokens"))
    with pytest.raises(ValueError, match=r"structured_output must be one of .*'json_object'.*got 'grammar'"):
        OpenAIModel.chat("m", base_url="http://127.0.0.1:9/v1", structured_output=cast(Any, "grammar"))
    with pytest.raises(TypeError, match="stream must be True or False"):
        OpenAIModel.chat("m", base_url="http://127.0.0.1:9/v1", stream=cast(Any, "no"))


async def test_a_length_cut_answer_then_a_full_context_reads_as_context_length(wire: WireServer) -> None:
    """llama.cpp: a turn cut at the length limit, then the next request overflows: CONTEXT_LENGTH, not OTHER."""
    wire.enqueue("chat", "ended_without_done")
    wire.enqueue("chat", "context_size_400_llamacpp")
    agent = LlmAgent(name="solo", model=model_for("chat", wire), tools=[get_weather])
    first = await collect(agent)
    assert first.final_output == "Once upon a"
    with pytest.raises(RunError) as raised:
        await collect(agent)
    error = raised.value.error
    assert isinstance(error, ModelFailed)
    assert error.kind is ModelFailureKind.CONTEXT_LENGTH


# Servers that cannot stream tool calls


async def test_stream_false_runs_a_tool_loop_where_streaming_is_refused(local: WireServer) -> None:
    """Streamed with tools, the server refuses; with ``stream=False`` the same agent completes its tool loop."""
    streaming = LlmAgent(name="solo", model=model_for("chat", local), tools=[get_weather])
    with pytest.raises(RunError) as raised:
        await collect(streaming)
    assert "Automatic streaming tool choice is not supported" in str(raised.value)
    assert NO_STREAMED_TOOLS_500[0] == 500

    local.enqueue("chat", "whole_tool_calls")
    local.enqueue("chat", "whole_text")
    whole = LlmAgent(name="solo", model=model_for("chat", local, stream=False), tools=[get_weather])
    result = await collect(whole)
    assert result.final_output == "Hi there."
    assert [r.body["stream"] for r in local.requests[1:]] == [False, False]


# tool_choice on the first turn only


@pytest.mark.parametrize("first_only", [False, True])
async def test_a_forced_tool_choice_is_sent_every_turn_unless_first_turn_only(
    first_only: bool, wire: WireServer
) -> None:
    """Default: the forced call repeats until MaxTurnsExceeded; first-turn-only: turn 1 is the model's choice."""
    settings = ModelSettings(tool_choice="get_weather", tool_choice_first_turn_only=first_only)
    wire.enqueue("chat", "e2e/triage_weather")
    wire.enqueue("chat", "text_stream" if first_only else "e2e/triage_weather")
    agent = LlmAgent(
        name="solo",
        model=model_for("chat", wire),
        tools=[get_weather],
        model_settings=settings,
        run_config=RunConfig(max_turns=2),
    )
    if first_only:
        result = await collect(agent)
        assert result.final_output == "Hello, world!"
        assert ["tool_choice" in r.body for r in wire.requests] == [True, False]
    else:
        with pytest.raises(RunError) as raised:
            await collect(agent)
        assert isinstance(raised.value.error, MaxTurnsExceeded)
        assert [r.body["tool_choice"] for r in wire.requests] == [
            {"type": "function", "function": {"name": "get_weather"}}
        ] * 2


# Structured output without json_schema


async def test_json_object_mode_gives_structured_output_where_json_schema_is_refused(local: WireServer) -> None:
    """json_schema is refused; ``structured_output="json_object"`` sends json_object, the schema in the instructions."""
    schema_agent = LlmAgent(name="reporter", model=model_for("chat", local), output_type=Report)
    with pytest.raises(RunError):
        await collect(schema_agent)

    local.enqueue("chat", "e2e/reporter_report")
    model = OpenAIModel.chat("smollm2", base_url=local.base_url, structured_output="json_object")
    agent = LlmAgent(name="reporter", model=model, instructions="Write the report.", output_type=Report)
    typed = await RunResultStreaming(agent.run(RunContext.ephemeral(None), run_input())).collect_typed(Report)
    assert typed.final_output == Report("Paris", 18, "Sunny and mild")
    body = local.requests[-1].body
    assert body["response_format"] == {"type": "json_object"}
    system = cast(list[dict[str, Any]], body["messages"])[0]
    assert system["role"] == "system"
    head, _, schema = system["content"].partition("JSON Schema (named 'Report'):\n")
    assert head.startswith("Write the report.\n\nReply with one JSON object")
    assert set(json.loads(schema)["required"]) == {"city", "temp_c", "summary"}


@attrs.frozen
class Report:
    """A weather report."""

    city: str
    temp_c: int
    summary: str


# Errors that help, usage that is honest


async def test_a_404_names_the_endpoint_shows_the_body_and_hints_at_the_responses_api(wire: WireServer) -> None:
    """A server without the Responses API: the message says where, what the server said, and what to try."""
    outcome = await replay("responses", "not_found_404", wire)
    assert isinstance(outcome.error, ModelError)
    message = str(outcome.error)
    assert f"HTTP 404 from POST {wire.base_url}/responses" in message
    assert '{"detail": "Not Found"}' in message
    assert "Responses API" in message and "OpenAIModel.chat" in message


async def test_a_run_whose_server_reports_no_usage_says_so(wire: WireServer) -> None:
    """No usage object: the run's usage counts the request as unreported, not as 0 tokens."""
    wire.enqueue("chat", "no_usage")
    result = await collect(LlmAgent(name="solo", model=model_for("chat", wire)))
    assert result.usage == Usage(requests=1, unreported_requests=1)
    assert not result.usage.reported
