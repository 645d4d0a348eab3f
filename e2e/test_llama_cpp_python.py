"""Issue 12's shapes against a real llama-cpp-python server and a real (tiny) model.

Each test is a failure the issue measured on this server, run with the setting that avoids it. The
model is SmolLM2-135M-Instruct at temperature 0: what it says is not asserted, only what the
provider and the server do with it (accepted requests, limits honoured, typed outcomes).
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from helikon_fc import (
    AgentInput,
    LlmAgent,
    ModelFailed,
    RunConfig,
    RunContext,
    RunError,
    RunResultStreaming,
    ToolOutputItem,
    function_tool,
)
from helikon_fc.core import ModelFailureKind, ModelSettings
from helikon_fc.openai import OpenAIModel

COLD = ModelSettings(temperature=0.0)


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"{city}: 18C, sunny"


@attrs.frozen
class City:
    """A city's name."""

    name: str


async def collect(agent: LlmAgent[None], prompt: str) -> Any:
    return await RunResultStreaming(agent.run(RunContext.ephemeral(None), AgentInput.from_user_text(prompt))).collect()


async def test_a_text_answer_streams_and_says_whether_usage_was_reported(llama_base_url: str) -> None:
    """A plain streamed answer completes; its usage is either real token counts or marked unreported."""
    model = OpenAIModel.chat("smollm2", base_url=llama_base_url, max_tokens_field="max_tokens")
    agent = LlmAgent(name="solo", model=model, model_settings=attrs.evolve(COLD, max_output_tokens=24))
    result = await collect(agent, "Say hello.")
    assert result.final_output
    assert result.usage.requests == 1
    assert result.usage.output_tokens > 0 or result.usage.unreported_requests == 1


async def test_max_tokens_is_honoured_where_max_completion_tokens_is_not(llama_base_url: str) -> None:
    """With ``max_tokens_field="max_tokens"`` a limit of 8 output tokens holds (the issue saw 2,031 without it)."""
    model = OpenAIModel.chat("smollm2", base_url=llama_base_url, max_tokens_field="max_tokens", stream=False)
    agent = LlmAgent(name="solo", model=model, model_settings=attrs.evolve(COLD, max_output_tokens=8))
    result = await collect(agent, "Write a long story about a dragon.")
    assert result.usage.reported
    assert 0 < result.usage.output_tokens <= 8


async def test_a_tool_loop_passes_turn_one_without_streaming(llama_base_url: str) -> None:
    """stream=False, a tool forced on the first turn only: the tool runs, and the request carrying the call
    (content "") is accepted; the run ends without a model failure."""
    model = OpenAIModel.chat("smollm2", base_url=llama_base_url, stream=False, max_tokens_field="max_tokens")
    settings = attrs.evolve(COLD, max_output_tokens=64, tool_choice="get_weather", tool_choice_first_turn_only=True)
    agent = LlmAgent(
        name="solo",
        model=model,
        tools=[get_weather],
        model_settings=settings,
        run_config=RunConfig(max_turns=3),
    )
    run = agent.run(RunContext.ephemeral(None), AgentInput.from_user_text("What's the weather in Paris?"))
    events: list[object] = []
    try:
        result = await RunResultStreaming(run).collect()
        events = list(result.events)
    except RunError as error:
        assert not isinstance(error.error, ModelFailed), error
        events = list(error.events)
    outputs = [e for e in events if isinstance(e, ToolOutputItem)]
    assert outputs and "18C" in outputs[0].item.output


async def test_json_object_structured_output_gives_a_json_object(llama_base_url: str) -> None:
    """``structured_output="json_object"``: the server accepts it and the answer is a JSON object (the schema is
    in the instructions; whether a 135M model fits it is the repair's business, not the server's)."""
    model = OpenAIModel.chat(
        "smollm2", base_url=llama_base_url, structured_output="json_object", max_tokens_field="max_tokens"
    )
    agent = LlmAgent(
        name="solo",
        model=model,
        instructions="Name the capital of France.",
        output_type=City,
        model_settings=attrs.evolve(COLD, max_output_tokens=64),
    )
    try:
        result = await collect(agent, "What is the capital of France?")
        assert isinstance(json.loads(result.final_output), dict)
    except RunError as error:
        assert not isinstance(error.error, ModelFailed), error


async def test_the_responses_api_is_missing_and_the_error_says_so(llama_base_url: str) -> None:
    """This server has no /v1/responses: the failure names the endpoint, quotes the body and points to chat."""
    agent = LlmAgent(name="solo", model=OpenAIModel.responses("smollm2", base_url=llama_base_url))
    with pytest.raises(RunError) as raised:
        await collect(agent, "hi")
    error = raised.value.error
    assert isinstance(error, ModelFailed)
    assert error.kind is ModelFailureKind.OTHER
    assert "HTTP 404 from POST" in error.message and "/v1/responses" in error.message
    assert "OpenAIModel.chat" in error.message
